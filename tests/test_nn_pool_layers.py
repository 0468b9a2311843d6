"""Pooling layers and their new functional forms: max, average, power-average, adaptive
pooling and max unpooling in 1-D to 3-D, compared with torch (reprs, outputs, indices,
gradients, node names, errors) and checked without it (recorded reprs, finite differences).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule
import chainrule.nn.functional as F
from chainrule.autograd import gradcheck, gradgradcheck
from layer_compare import assert_layer_matches, error_of, run

nn = chainrule.nn

CASES: list[tuple[str, Any, tuple[int, ...]]] = [
    ("max1d", lambda m: m.nn.MaxPool1d(3, 2, 1, ceil_mode=True), (2, 3, 9)),
    ("max1d_indices", lambda m: m.nn.MaxPool1d(2, return_indices=True, dilation=2), (3, 9)),
    ("max2d", lambda m: m.nn.MaxPool2d((3, 2), stride=(2, 1), padding=(1, 0)), (2, 2, 7, 6)),
    ("max2d_indices", lambda m: m.nn.MaxPool2d(3, 2, 1, 2, True, True), (1, 2, 9, 8)),
    ("max3d", lambda m: m.nn.MaxPool3d(2), (2, 2, 4, 5, 6)),
    ("max3d_indices", lambda m: m.nn.MaxPool3d((3, 2, 2), 2, 1, 1, True, True), (2, 5, 6, 7)),
    ("max3d_dilated", lambda m: m.nn.MaxPool3d(2, 1, dilation=(2, 1, 2)), (1, 1, 5, 4, 5)),
    ("avg1d", lambda m: m.nn.AvgPool1d(3, 2, 1, count_include_pad=False), (2, 3, 8)),
    ("avg2d", lambda m: m.nn.AvgPool2d(3, 2, 1, ceil_mode=True), (2, 2, 7, 8)),
    ("avg2d_divisor", lambda m: m.nn.AvgPool2d((2, 3), divisor_override=4), (2, 6, 7)),
    ("avg3d", lambda m: m.nn.AvgPool3d(2, 1, 1), (1, 2, 4, 4, 5)),
    ("avg3d_ceil", lambda m: m.nn.AvgPool3d(3, 2, 1, True, False), (2, 5, 6, 7)),
    ("avg3d_divisor", lambda m: m.nn.AvgPool3d((1, 2, 3), divisor_override=5), (1, 2, 3, 4, 6)),
    ("lp1d", lambda m: m.nn.LPPool1d(2, 3, 2), (2, 3, 9)),
    ("lp1d_ceil", lambda m: m.nn.LPPool1d(3, 2, ceil_mode=True), (2, 7)),
    ("lp2d", lambda m: m.nn.LPPool2d(1.5, (2, 3), stride=1), (1, 2, 5, 6)),
    ("lp2d_inf", lambda m: m.nn.LPPool2d(float("inf"), 2), (1, 2, 4, 4)),
    ("lp3d", lambda m: m.nn.LPPool3d(2, 2), (1, 2, 4, 4, 4)),
    ("adaptive_max1d", lambda m: m.nn.AdaptiveMaxPool1d(4, return_indices=True), (2, 3, 9)),
    ("adaptive_max2d", lambda m: m.nn.AdaptiveMaxPool2d((3, None)), (2, 2, 7, 5)),
    ("adaptive_max3d", lambda m: m.nn.AdaptiveMaxPool3d((2, 3, 4), True), (1, 2, 5, 7, 6)),
    ("adaptive_max3d_none", lambda m: m.nn.AdaptiveMaxPool3d((None, 2, 1)), (2, 3, 5, 4)),
    ("adaptive_avg1d", lambda m: m.nn.AdaptiveAvgPool1d(3), (2, 3, 7)),
    ("adaptive_avg2d", lambda m: m.nn.AdaptiveAvgPool2d((4, 3)), (1, 2, 9, 7)),
    ("adaptive_avg3d", lambda m: m.nn.AdaptiveAvgPool3d((2, 3, 5)), (1, 2, 5, 7, 6)),
    ("adaptive_avg3d_one", lambda m: m.nn.AdaptiveAvgPool3d(1), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "build", "shape"), CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch: Any, name: str, build: Any, shape: Any, dtype: str) -> None:
    mine = run(chainrule, build, shape, dtype)
    theirs = run(torch, build, shape, dtype)
    assert_layer_matches(mine, theirs, dtype)


def unpool_case(dims: int, shape: tuple[int, ...], size: Any = None) -> Any:
    """Pool, then unpool the values at their indices (the layers as users chain them)."""

    def call(layer: Any, x: Any) -> Any:
        values, indices = layer[0](x)
        return layer[1](values, indices, output_size=size)

    def build(m: Any) -> Any:
        pool = getattr(m.nn, f"MaxPool{dims}d")(2, stride=2, return_indices=True)
        return m.nn.ModuleList([pool, getattr(m.nn, f"MaxUnpool{dims}d")(2)])

    return build, shape, call


UNPOOL = {
    "unpool1d": unpool_case(1, (2, 3, 8)),
    "unpool1d_size": unpool_case(1, (2, 3, 9), [9]),
    "unpool2d": unpool_case(2, (2, 2, 6, 4)),
    "unpool2d_size": unpool_case(2, (2, 5, 7), [5, 7]),
    "unpool3d": unpool_case(3, (1, 2, 4, 4, 6)),
    "unpool3d_size": unpool_case(3, (2, 5, 4, 5), (5, 4, 5)),
}


@pytest.mark.parametrize("name", sorted(UNPOOL))
def test_unpool_matches_torch(torch: Any, name: str) -> None:
    build, shape, call = UNPOOL[name]
    mine = run(chainrule, build, shape, "float64", call)
    theirs = run(torch, build, shape, "float64", call)
    assert_layer_matches(mine, theirs, "float64")


def test_integer_and_second_order_match_torch(torch: Any) -> None:
    data = np.random.default_rng(0).integers(-9, 9, (2, 3, 4, 5, 6))
    for fn in (
        lambda m, x: m.nn.functional.avg_pool3d(x, 2, 1, 1),
        lambda m, x: m.nn.functional.avg_pool3d(x, 3, 2, divisor_override=4),
        lambda m, x: m.nn.functional.max_pool3d(x, 2, return_indices=True)[1],
    ):
        got = fn(chainrule, chainrule.tensor(data)).numpy()
        np.testing.assert_array_equal(got, fn(torch, torch.tensor(data)).numpy())
    # Second derivatives, through the unpool scatter and the channel_shuffle rule.
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 4, 4))
    results = []
    for m in (chainrule, torch):
        t = m.tensor(x, requires_grad=True)
        values, indices = m.nn.functional.max_pool3d(t, 2, return_indices=True)
        y = (
            m.nn.functional.max_unpool3d(values * values, indices, 2).sum()
            + (m.nn.functional.lp_pool3d(t, 2, 2) ** 2).sum()
        )
        (g,) = m.autograd.grad(y, t, create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), t)
        results.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(results[0], results[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_node_names_match_torch(torch: Any) -> None:
    def names(m: Any) -> list[str]:
        Fm = m.nn.functional
        x = m.ones(1, 2, 4, 4, 4, requires_grad=True)
        v, i = Fm.max_pool3d(x, 2, return_indices=True)
        v2, i2 = Fm.max_pool2d(x[0], 2, return_indices=True)
        v1, i1 = Fm.max_pool1d(x[0, 0], 2, return_indices=True)
        outs = [
            v,
            Fm.avg_pool3d(x, 2),
            Fm.adaptive_avg_pool3d(x, 2),
            Fm.adaptive_avg_pool3d(x, 1),
            Fm.adaptive_max_pool3d(x, 3),
            Fm.max_unpool3d(v, i, 2),
            Fm.max_unpool2d(v2, i2, 2, output_size=[5, 4]),
            Fm.max_unpool1d(v1, i1, 2),
            Fm.lp_pool2d(x[0], 2, 2),
            Fm.lp_pool1d(x[0, 0], float("-inf"), 2),
            Fm.channel_shuffle(x, 2),
        ]
        return [type(o.grad_fn).__name__ for o in outs]

    assert names(chainrule) == names(torch)


def _functional_errors(m: Any) -> dict[str, Any]:
    Fm = m.nn.functional
    x = m.ones(1, 2, 4, 4, 4)
    v, i = Fm.max_pool3d(x, 2, return_indices=True)
    return {
        "max3d_rank": lambda: Fm.max_pool3d(m.ones(5, 5), 2),
        "max3d_kernel": lambda: Fm.max_pool3d(x, (2, 2)),
        "max3d_stride": lambda: Fm.max_pool3d(x, 2, stride=(1, 2)),
        "max3d_float": lambda: Fm.max_pool3d(x, 2.0),
        "max3d_pad": lambda: Fm.max_pool3d(x, 2, padding=2),
        "max3d_half": lambda: Fm.max_pool3d(x, 3, padding=2, dilation=2),
        "max3d_dilation": lambda: Fm.max_pool3d(x, 2, dilation=0),
        "max3d_small": lambda: Fm.max_pool3d(x, 5),
        "max3d_empty": lambda: Fm.max_pool3d(m.ones(2, 3, 4, 0, 4), 2),
        "max3d_bool": lambda: Fm.max_pool3d(x > 0, 2),
        "avg3d_kernel": lambda: Fm.avg_pool3d(x, (2, 2)),
        "avg3d_padding": lambda: Fm.avg_pool3d(x, 2, padding=(1, 2)),
        "avg3d_negative_stride": lambda: Fm.avg_pool3d(x, 2, stride=-1),
        "avg3d_image": lambda: Fm.avg_pool3d(x, 5, padding=1),
        "avg3d_divisor": lambda: Fm.avg_pool3d(x, 2, divisor_override=0),
        "avg3d_bool": lambda: Fm.avg_pool3d(x > 0, 2),
        "adaptive_avg3d_rank": lambda: Fm.adaptive_avg_pool3d(m.ones(5, 5), 2),
        "adaptive_avg3d_size": lambda: Fm.adaptive_avg_pool3d(x, (2, 2)),
        "adaptive_avg3d_negative": lambda: Fm.adaptive_avg_pool3d(x, (2, -1, 2)),
        "adaptive_avg3d_long": lambda: Fm.adaptive_avg_pool3d(x.long(), 2),
        "adaptive_max3d_size": lambda: Fm.adaptive_max_pool3d(x, (2, 2)),
        "adaptive_max3d_negative": lambda: Fm.adaptive_max_pool3d(x, (2, -1, 2)),
        "adaptive_max3d_empty": lambda: Fm.adaptive_max_pool3d(m.ones(2, 0, 4, 4, 4), 2),
        "unpool_size": lambda: Fm.max_unpool2d(v[0], i[0], 2, output_size=(9, 9)),
        "unpool_size_length": lambda: Fm.max_unpool2d(v[0], i[0], 2, output_size=(1, 2, 3)),
        "unpool_dtype": lambda: Fm.max_unpool3d(v, i.float(), 2),
        "unpool_shape": lambda: Fm.max_unpool3d(v, i[:, :1], 2),
        "unpool_rank": lambda: Fm.max_unpool3d(v[0, 0], i[0, 0], 2),
        "unpool_rank2d": lambda: Fm.max_unpool2d(v, i, 2),
        "unpool_index": lambda: Fm.max_unpool3d(v[:, :1], i[:, :1] * 0 + 64, 2),
        "shuffle_groups": lambda: Fm.channel_shuffle(x, 3),
        "shuffle_rank": lambda: Fm.channel_shuffle(m.ones(4, 4), 2),
        "shuffle_zero": lambda: Fm.channel_shuffle(x, 0),
    }


def test_functional_errors_match_torch(torch: Any) -> None:
    mine, theirs = _functional_errors(chainrule), _functional_errors(torch)
    for name, fn in theirs.items():
        want = error_of(fn)
        assert want is not None, name
        assert error_of(mine[name]) == want, name


# --- without torch ------------------------------------------------------------------------------


def test_reprs() -> None:
    assert repr(nn.MaxPool2d(3, padding=1)) == (
        "MaxPool2d(kernel_size=3, stride=3, padding=1, dilation=1, ceil_mode=False)"
    )
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AvgPool3d((1, 2, 2), 1)) == (
        "AvgPool3d(kernel_size=(1, 2, 2), stride=1, padding=0)"
    )
    assert repr(nn.LPPool2d(2, 3)) == (
        "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    )
    assert repr(nn.AdaptiveMaxPool3d((None, 2, 3))) == (
        "AdaptiveMaxPool3d(output_size=(None, 2, 3))"
    )
    assert repr(nn.MaxUnpool1d(2)) == "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))"


def test_unpool_inverts_pool_where_maxima_are() -> None:
    x = chainrule.randn(2, 3, 4, 6, 4)
    values, indices = F.max_pool3d(x, 2, return_indices=True)
    restored = F.max_unpool3d(values, indices, 2)
    kept = restored.numpy()[restored.numpy() != 0]
    np.testing.assert_array_equal(np.sort(kept), np.sort(values.numpy().ravel()))
    again = F.max_pool3d(restored, 2)
    np.testing.assert_array_equal(again.numpy(), values.numpy())


def test_adaptive_of_divisible_size_is_plain_pool() -> None:
    x = chainrule.randn(2, 2, 4, 6, 8, dtype=chainrule.float64)
    np.testing.assert_allclose(
        F.adaptive_avg_pool3d(x, (2, 3, 4)).numpy(), F.avg_pool3d(x, 2).numpy(), rtol=1e-12
    )
    np.testing.assert_array_equal(
        F.adaptive_max_pool3d(x, (2, 3, 4)).numpy(), F.max_pool3d(x, 2).numpy()
    )


def test_lp_pool_p1_is_window_sum_of_positives() -> None:
    x = chainrule.rand(1, 2, 4, 4, 4, dtype=chainrule.float64)
    np.testing.assert_allclose(
        F.lp_pool3d(x, 1, 2).numpy(), (F.avg_pool3d(x, 2) * 8).numpy(), rtol=1e-12
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.max_pool3d(x, 2, 1, 1),
        lambda x: F.avg_pool3d(x, 3, 2, 1, True, False),
        lambda x: F.avg_pool3d(x, 2, divisor_override=3),
        lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
        lambda x: F.adaptive_max_pool3d(x, (3, 2, 2)),
        lambda x: F.lp_pool3d(x, 2, 2, 1),
        lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=x.shape),
        lambda x: F.channel_shuffle(x, 2),
    ],
)
def test_gradcheck(fn: Any) -> None:
    x = chainrule.rand(1, 2, 4, 4, 3, dtype=chainrule.float64) + 0.5
    x.requires_grad_(True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_recorded_errors() -> None:
    x = chainrule.ones(1, 2, 4, 4, 4)
    assert error_of(lambda: F.avg_pool3d(x, 5)) == (
        "RuntimeError",
        "input image (T: 4 H: 4 W: 4) smaller than kernel size (kT: 5 kH: 5 kW: 5)",
    )
    assert error_of(lambda: F.max_pool3d(x, (2, 2))) == (
        "RuntimeError",
        "max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
    )
    assert error_of(lambda: F.channel_shuffle(x, 3)) == (
        "RuntimeError",
        "Number of channels must be divisible by groups. Got 2 channels and 3 groups.",
    )
