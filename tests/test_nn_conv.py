"""Convolution, pooling, normalisation and resampling beyond the op table.

PyTorch's errors (type and first line), max-pool indices (ties, NaN, padding),
running statistics, integer inputs, modes the table has no NumPy reference
for, second derivatives against torch's, and drawn geometries against torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
import chainrule.nn.functional as F
from chainrule.autograd import gradcheck, gradgradcheck


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def run(lib: Any, fn: Callable[..., Any], *arrays: np.ndarray) -> tuple[Any, list[Any]]:
    """`fn(lib, *tensors)` and, after a backward of a fixed random gradient, the inputs' grads."""
    ts = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = fn(lib, *ts)
    first = out[0] if isinstance(out, tuple) else out
    if not first.requires_grad:
        return out, []
    g = np.random.default_rng(1).standard_normal(tuple(first.shape))
    first.backward(lib.tensor(g.astype(str(first.dtype).split(".")[-1])))
    return out, [t.grad for t in ts]


def both(torch: Any, fn: Callable[..., Any], *arrays: np.ndarray) -> Any:
    return run(chainrule, fn, *arrays), run(torch, fn, *arrays)


def close(mine: Any, theirs: Any, **tol: Any) -> None:
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), **tol)


# --- errors -------------------------------------------------------------------------------

x4 = rand(2, 3, 6, 6)
w4 = rand(4, 3, 3, 3)

ERRORS: dict[str, Callable[[Any, Any], Any]] = {
    "conv2d_2d": lambda m, f: f.conv2d(m.tensor(rand(6, 6)), m.tensor(w4)),
    "conv2d_channels": lambda m, f: f.conv2d(m.tensor(rand(2, 4, 6, 6)), m.tensor(w4)),
    "conv2d_channels_unbatched": lambda m, f: f.conv2d(m.tensor(rand(4, 6, 6)), m.tensor(w4)),
    "conv2d_small": lambda m, f: f.conv2d(m.tensor(rand(2, 3, 2, 2)), m.tensor(w4)),
    "conv2d_dilated_small": lambda m, f: f.conv2d(
        m.tensor(rand(1, 3, 5, 5)), m.tensor(w4), dilation=3
    ),
    "conv2d_weight_3d": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(rand(4, 3, 3))),
    "conv2d_weight_1d": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(rand(3))),
    "conv2d_groups": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), groups=2),
    "conv2d_groups_out": lambda m, f: f.conv2d(
        m.tensor(rand(2, 4, 6, 6)), m.tensor(rand(3, 2, 3, 3)), groups=2
    ),
    "conv2d_groups_zero": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), groups=0),
    "conv2d_bias": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), m.tensor(rand(3))),
    "conv2d_dtype": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4).float()),
    "conv2d_dtype_weight": lambda m, f: f.conv2d(m.tensor(x4).float(), m.tensor(w4)),
    "conv2d_bias_dtype": lambda m, f: f.conv2d(
        m.tensor(x4).float(), m.tensor(w4).float(), m.tensor(rand(4))
    ),
    "conv2d_stride0": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), stride=0),
    "conv2d_negative_padding": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), padding=-1),
    # (float32: for float64 PyTorch's message differs by backend.)
    "conv2d_dilation0": lambda m, f: f.conv2d(
        m.tensor(x4).float(), m.tensor(w4).float(), dilation=0
    ),
    "conv2d_same_strided": lambda m, f: f.conv2d(
        m.tensor(x4), m.tensor(w4), padding="same", stride=2
    ),
    "conv2d_padding_string": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), padding="full"),
    "conv2d_stride_3": lambda m, f: f.conv2d(m.tensor(x4), m.tensor(w4), stride=(1, 1, 1)),
    "conv2d_bool": lambda m, f: f.conv2d(m.tensor(x4 > 0), m.tensor(w4 > 0)),
    "conv1d_4d": lambda m, f: f.conv1d(m.tensor(x4), m.tensor(rand(4, 3, 3))),
    "conv_transpose2d_channels": lambda m, f: f.conv_transpose2d(m.tensor(x4), m.tensor(w4)),
    "conv_transpose2d_output_padding": lambda m, f: f.conv_transpose2d(
        m.tensor(x4), m.tensor(rand(3, 4, 3, 3)), output_padding=1
    ),
    "conv_transpose1d_output_padding": lambda m, f: f.conv_transpose1d(
        m.tensor(rand(1, 3, 5)), m.tensor(rand(3, 4, 3)), output_padding=1
    ),
    "conv_transpose2d_too_small": lambda m, f: f.conv_transpose2d(
        m.tensor(rand(1, 3, 2, 2)), m.tensor(rand(3, 4, 3, 3)), padding=3
    ),
    "conv_transpose2d_bias": lambda m, f: f.conv_transpose2d(
        m.tensor(rand(1, 4, 5, 5)), m.tensor(rand(4, 2, 3, 3)), m.tensor(rand(3))
    ),
    "conv_transpose2d_2d": lambda m, f: f.conv_transpose2d(m.tensor(rand(6, 6)), m.tensor(w4)),
    "max_pool2d_2d": lambda m, f: f.max_pool2d(m.tensor(rand(6, 6)), 2),
    "max_pool2d_big_kernel": lambda m, f: f.max_pool2d(m.tensor(x4), 7),
    "max_pool2d_padding": lambda m, f: f.max_pool2d(m.tensor(x4), 2, padding=2),
    "max_pool2d_padding_dilated": lambda m, f: f.max_pool2d(m.tensor(x4), 3, padding=2, dilation=2),
    "max_pool2d_stride0": lambda m, f: f.max_pool2d(m.tensor(x4), 2, stride=0),
    "max_pool2d_kernel0": lambda m, f: f.max_pool2d(m.tensor(x4), 0, 1),
    "max_pool2d_dilation0": lambda m, f: f.max_pool2d(m.tensor(x4), 2, dilation=0),
    "max_pool2d_kernel_3": lambda m, f: f.max_pool2d(m.tensor(x4), (2, 1, 1)),
    "max_pool2d_empty_channels": lambda m, f: f.max_pool2d(m.tensor(rand(1, 0, 4, 4)), 2),
    "max_pool2d_bool": lambda m, f: f.max_pool2d(m.tensor(x4 > 0), 2),
    "max_pool1d_1d": lambda m, f: f.max_pool1d(m.tensor(rand(6)), 2),
    "max_pool1d_big_kernel": lambda m, f: f.max_pool1d(m.tensor(rand(1, 1, 6)), 7),
    "max_pool1d_padding": lambda m, f: f.max_pool1d(m.tensor(rand(1, 2, 4)), 2, padding=2),
    "max_pool1d_kernel_2": lambda m, f: f.max_pool1d(m.tensor(rand(1, 2, 4)), (2, 2)),
    "avg_pool2d_2d": lambda m, f: f.avg_pool2d(m.tensor(rand(6, 6)), 2),
    "avg_pool2d_padding": lambda m, f: f.avg_pool2d(m.tensor(x4), 2, padding=2),
    "avg_pool2d_divisor0": lambda m, f: f.avg_pool2d(m.tensor(x4), 2, divisor_override=0),
    "avg_pool2d_5d": lambda m, f: f.avg_pool2d(m.tensor(rand(1, 1, 2, 4, 4)), 2),
    "avg_pool1d_4d": lambda m, f: f.avg_pool1d(m.tensor(x4), 2),
    "avg_pool1d_big_kernel": lambda m, f: f.avg_pool1d(m.tensor(rand(1, 1, 6)), 7),
    "adaptive_avg_pool2d_2d": lambda m, f: f.adaptive_avg_pool2d(m.tensor(rand(6, 6)), 2),
    "adaptive_avg_pool2d_negative": lambda m, f: f.adaptive_avg_pool2d(m.tensor(x4), -1),
    "adaptive_avg_pool2d_empty": lambda m, f: f.adaptive_avg_pool2d(m.tensor(rand(2, 3, 0, 6)), 2),
    "adaptive_avg_pool2d_size_3": lambda m, f: f.adaptive_avg_pool2d(m.tensor(x4), (2, 2, 2)),
    "adaptive_avg_pool1d_size_2": lambda m, f: f.adaptive_avg_pool1d(
        m.tensor(rand(1, 5, 6)), (2, 2)
    ),
    "adaptive_max_pool2d_2d": lambda m, f: f.adaptive_max_pool2d(m.tensor(rand(5, 6)), 2),
    "batch_norm_running_size": lambda m, f: f.batch_norm(
        m.tensor(x4), m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64), training=True
    ),
    "batch_norm_one_value": lambda m, f: f.batch_norm(
        m.tensor(rand(1, 3)), None, None, training=True
    ),
    "batch_norm_weight": lambda m, f: f.batch_norm(
        m.tensor(x4), None, None, m.ones(4, dtype=m.float64), training=True
    ),
    "batch_norm_eval_no_stats": lambda m, f: f.batch_norm(m.tensor(x4), None, None),
    "batch_norm_one_stat": lambda m, f: f.batch_norm(
        m.tensor(x4), m.zeros(3, dtype=m.float64), None, training=True
    ),
    "batch_norm_mixed_dtype": lambda m, f: f.batch_norm(
        m.tensor(x4).float(), None, None, m.ones(3, dtype=m.float64), training=True
    ),
    "batch_norm_integer": lambda m, f: f.batch_norm(m.tensor(x4).long(), None, None, training=True),
    "layer_norm_shape": lambda m, f: f.layer_norm(m.tensor(x4), (5,)),
    "layer_norm_weight": lambda m, f: f.layer_norm(m.tensor(x4), (6,), m.ones(5, dtype=m.float64)),
    "layer_norm_int_shape": lambda m, f: f.layer_norm(m.tensor(x4), 6),
    "group_norm_groups": lambda m, f: f.group_norm(m.tensor(x4), 2),
    "group_norm_weight": lambda m, f: f.group_norm(m.tensor(x4), 3, m.ones(4, dtype=m.float64)),
    "group_norm_1d": lambda m, f: f.group_norm(m.tensor(rand(3)), 3),
    "instance_norm_no_spatial": lambda m, f: f.instance_norm(m.tensor(rand(3, 4))),
    "pad_odd": lambda m, f: f.pad(m.tensor(x4), (1,)),
    "pad_too_long": lambda m, f: f.pad(m.tensor(x4), (1, 1) * 5),
    "pad_reflect_too_big": lambda m, f: f.pad(m.tensor(x4), (6, 0, 0, 0), mode="reflect"),
    "pad_reflect_4d_one_pair": lambda m, f: f.pad(m.tensor(x4), (1, 1), mode="reflect"),
    "pad_mode": lambda m, f: f.pad(m.tensor(x4), (1, 1), mode="wrap"),
    "pad_circular_wraps_twice": lambda m, f: f.pad(m.tensor(x4), (7, 0, 0, 0), mode="circular"),
    "pad_crop_too_much": lambda m, f: f.pad(m.tensor(x4), (-5, -2)),
    "pad_value_with_reflect": lambda m, f: f.pad(m.tensor(x4), (1, 1, 1, 1), "reflect", 1.0),
    "pad_float_amount": lambda m, f: f.pad(m.tensor(x4), (1.5, 1)),
    "interpolate_size_and_scale": lambda m, f: f.interpolate(m.tensor(x4), size=3, scale_factor=2),
    "interpolate_neither": lambda m, f: f.interpolate(m.tensor(x4)),
    "interpolate_bilinear_3d": lambda m, f: f.interpolate(
        m.tensor(rand(2, 3, 4)), scale_factor=2, mode="bilinear"
    ),
    "interpolate_corners_nearest": lambda m, f: f.interpolate(
        m.tensor(x4), scale_factor=2, align_corners=True
    ),
    "interpolate_mode": lambda m, f: f.interpolate(m.tensor(x4), scale_factor=2, mode="cubic"),
    "interpolate_size_length": lambda m, f: f.interpolate(m.tensor(x4), size=(2, 3, 4)),
    "interpolate_zero_size": lambda m, f: f.interpolate(m.tensor(x4), size=0),
    "interpolate_recompute_size": lambda m, f: f.interpolate(
        m.tensor(x4), size=3, recompute_scale_factor=True
    ),
    "unfold_big_kernel": lambda m, f: f.unfold(m.tensor(x4), 7),
    "unfold_5d": lambda m, f: f.unfold(m.tensor(rand(1, 2, 3, 4, 5)), 2),
    "unfold_stride0": lambda m, f: f.unfold(m.tensor(x4), 2, stride=0),
    "fold_blocks": lambda m, f: f.fold(m.tensor(rand(2, 12, 24)), (6, 6), 2),
    "fold_channels": lambda m, f: f.fold(m.tensor(rand(2, 11, 25)), (6, 6), 2),
    "pixel_shuffle_channels": lambda m, f: f.pixel_shuffle(m.tensor(rand(2, 7, 3, 3)), 2),
    "pixel_shuffle_2d": lambda m, f: f.pixel_shuffle(m.tensor(rand(8, 3)), 2),
    "pixel_unshuffle_width": lambda m, f: f.pixel_unshuffle(m.tensor(rand(2, 8, 4, 3)), 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_matches_torch(torch: Any, case: str) -> None:
    fn = ERRORS[case]
    with pytest.raises(Exception) as theirs:
        fn(torch, torch.nn.functional)
    with pytest.raises(Exception) as mine:
        fn(chainrule, F)
    assert type(mine.value).__name__ == type(theirs.value).__name__
    assert str(mine.value).split("\n")[0] == str(theirs.value).split("\n")[0]


def test_errors_leave_running_stats_alone() -> None:
    rm, rv = chainrule.zeros(3, dtype=chainrule.float64), chainrule.ones(3, dtype=chainrule.float64)
    with pytest.raises(RuntimeError):
        F.batch_norm(
            chainrule.tensor(x4), rm, rv, chainrule.ones(4, dtype=chainrule.float64), training=True
        )
    assert rm.tolist() == [0.0] * 3 and rv.tolist() == [1.0] * 3


# --- max pooling: values and indices as PyTorch ------------------------------------------------

NAN, INF = float("nan"), float("inf")
POOL_INPUTS = {
    "ties": [[1.0, 3.0, 3.0, 2.0], [3.0, 0.0, 1.0, 3.0]],
    "nan": [[NAN, 3.0, NAN, 2.0], [3.0, NAN, 1.0, 3.0]],
    "minus_inf": [[-INF, -INF, 1.0, 2.0], [-INF, -INF, 1.0, 3.0]],
}


@pytest.mark.parametrize("name", sorted(POOL_INPUTS))
@pytest.mark.parametrize(
    "pool",
    [
        lambda f, x: f.max_pool2d(x, 2, return_indices=True),
        lambda f, x: f.max_pool2d(x, 2, 1, 1, return_indices=True),
        lambda f, x: f.max_pool2d(x, (2, 3), 1, (0, 1), dilation=(1, 2), return_indices=True),
        lambda f, x: f.max_pool1d(x[0], 3, 1, 1, return_indices=True),
        lambda f, x: f.adaptive_max_pool2d(x, (1, 3), return_indices=True),
    ],
)
def test_max_pool_picks_as_torch(torch: Any, name: str, pool: Any) -> None:
    data = np.array([[POOL_INPUTS[name]]])
    (mine, grads), (theirs, grads_t) = both(torch, lambda m, x: pool(m.nn.functional, x), data)
    assert mine[1].tolist() == theirs[1].tolist()
    assert str(mine[1].dtype) == "chainrule.int64"
    np.testing.assert_array_equal(mine[0].detach().numpy(), theirs[0].detach().numpy())
    np.testing.assert_array_equal(grads[0].numpy(), grads_t[0].numpy())


def test_max_pool_gradient_goes_to_the_first_maximum(torch: Any) -> None:
    data = np.array([[[[1.0, 3.0, 3.0, 2.0], [3.0, 0.0, 1.0, 3.0]]]])
    for lib, f in ((chainrule, F), (torch, torch.nn.functional)):
        x = lib.tensor(data, requires_grad=True)
        f.max_pool2d(x, 2, 1).sum().backward()
        assert x.grad.tolist() == [[[[0.0, 2.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_benchmark_shapes_match_torch(torch: Any, dtype: str) -> None:
    """The benchmark's layers (float32) forward and backward, as torch computes them."""

    def net(m: Any, x: Any, w1: Any, b1: Any, w2: Any) -> Any:
        f = m.nn.functional
        h = f.max_pool2d(f.conv2d(x, w1, b1).relu(), 2)
        return f.max_pool2d(f.conv2d(h, w2, padding=1).relu(), 2)

    arrays = [
        a.astype(dtype) for a in (rand(4, 1, 12, 12), rand(8, 1, 3, 3), rand(8), rand(16, 8, 3, 3))
    ]
    (out, grads), (out_t, grads_t) = both(torch, net, *arrays)
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}
    close(out, out_t, **tol)
    for g, g_t in zip(grads, grads_t, strict=True):
        close(g, g_t, **tol)


# --- normalisation: running statistics --------------------------------------------------------


def test_batch_norm_updates_running_stats_as_torch(torch: Any) -> None:
    data = rand(4, 3, 2, 2)
    stats = []
    for lib, f in ((chainrule, F), (torch, torch.nn.functional)):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        x = lib.tensor(data, requires_grad=True)
        f.batch_norm(x, rm, rv, training=True, momentum=0.3)
        f.batch_norm(x, rm, rv, training=True, momentum=0.0)
        assert not rm.requires_grad and rm.grad_fn is None
        y = f.batch_norm(x, rm, rv, training=False)
        stats.append((rm.numpy().copy(), rv.numpy().copy(), rm._version, y.detach().numpy()))
    for mine, theirs in zip(*stats, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_instance_norm_running_stats_as_torch(torch: Any) -> None:
    data = rand(2, 3, 5)
    stats = []
    for lib, f in ((chainrule, F), (torch, torch.nn.functional)):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        out = f.instance_norm(lib.tensor(data), rm, rv, momentum=0.2)
        evaluated = f.instance_norm(lib.tensor(data), rm, rv, use_input_stats=False)
        stats.append((rm.numpy(), rv.numpy(), out.numpy(), evaluated.numpy(), rm._version))
    for mine, theirs in zip(*stats, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


# --- integer and empty inputs -----------------------------------------------------------------

INTEGER_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "conv2d": lambda f, x: f.conv2d(x, x[:2, :, :2, :2]),
    "max_pool2d": lambda f, x: f.max_pool2d(x, 2, 1, 1, return_indices=True)[0],
    "avg_pool2d": lambda f, x: f.avg_pool2d(x, 2, 1, 1, ceil_mode=True),
    "avg_pool2d_divisor": lambda f, x: f.avg_pool2d(x, 3, 2, 1, divisor_override=4),
    "avg_pool2d_excluding_pad": lambda f, x: f.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "pad_reflect": lambda f, x: f.pad(x, (1, 2, 2, 1), mode="reflect"),
    "pad_constant": lambda f, x: f.pad(x, (1, 2), value=2.7),
    "pixel_shuffle": lambda f, x: f.pixel_shuffle(x, 1),
}


@pytest.mark.parametrize("name", sorted(INTEGER_OPS))
def test_integer_inputs_as_torch(torch: Any, name: str) -> None:
    data = np.random.default_rng(3).integers(-9, 9, (3, 2, 4, 5))
    mine = INTEGER_OPS[name](F, chainrule.tensor(data))
    theirs = INTEGER_OPS[name](torch.nn.functional, torch.tensor(data))
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


EMPTY_BATCH: dict[str, Callable[[Any, Any], Any]] = {
    "max_pool2d": lambda f, x: f.max_pool2d(x, 2),
    "avg_pool2d": lambda f, x: f.avg_pool2d(x, 2),
    "interpolate": lambda f, x: f.interpolate(x, scale_factor=2),
    "unfold": lambda f, x: f.unfold(x, 2),
    "batch_norm": lambda f, x: f.batch_norm(x, None, None, training=True),
    "group_norm": lambda f, x: f.group_norm(x, 2),
    "layer_norm": lambda f, x: f.layer_norm(x, (4,)),
}


@pytest.mark.parametrize("name", sorted(EMPTY_BATCH))
def test_empty_batch_as_torch(torch: Any, name: str) -> None:
    mine = EMPTY_BATCH[name](F, chainrule.zeros(0, 2, 4, 4))
    theirs = EMPTY_BATCH[name](torch.nn.functional, torch.zeros(0, 2, 4, 4))
    assert tuple(mine.shape) == tuple(theirs.shape)


def test_conv_empty_batch() -> None:
    y = F.conv2d(chainrule.zeros(0, 2, 4, 4), chainrule.ones(3, 2, 2, 2))
    assert tuple(y.shape) == (0, 3, 3, 3)


# --- modes without a NumPy reference in the table -------------------------------------------

RESAMPLING: dict[str, Callable[[Any, Any], Any]] = {
    "bicubic": lambda f, x: f.interpolate(x, size=(5, 7), mode="bicubic"),
    "bicubic_corners": lambda f, x: f.interpolate(
        x, scale_factor=1.7, mode="bicubic", align_corners=True
    ),
    "bilinear_scale": lambda f, x: f.interpolate(x, scale_factor=(0.6, 2.5), mode="bilinear"),
    "bilinear_recompute": lambda f, x: f.interpolate(
        x, scale_factor=1.3, mode="bilinear", recompute_scale_factor=True
    ),
    "nearest_scale": lambda f, x: f.interpolate(x, scale_factor=2.3),
    "nearest_exact": lambda f, x: f.interpolate(x, scale_factor=1.6, mode="nearest-exact"),
    "area_scale": lambda f, x: f.interpolate(x, scale_factor=0.5, mode="area"),
    "pixel_unshuffle": lambda f, x: f.pixel_unshuffle(x, 2),
    "pad_replicate_crop": lambda f, x: f.pad(x, (-1, 2, 3, -1), mode="replicate"),
    "pad_circular_crop": lambda f, x: f.pad(x, (-1, 2, 1, -1), mode="circular"),
}


@pytest.mark.parametrize("name", sorted(RESAMPLING))
def test_resampling_as_torch(torch: Any, name: str) -> None:
    fn = RESAMPLING[name]
    (out, grads), (out_t, grads_t) = both(
        torch, lambda m, x: fn(m.nn.functional, x), rand(2, 2, 4, 6)
    )
    close(out, out_t, rtol=1e-10, atol=1e-12)
    close(grads[0], grads_t[0], rtol=1e-10, atol=1e-12)
    assert out.grad_fn.name() == out_t.grad_fn.name()
    x = chainrule.tensor(rand(1, 1, 4, 4), requires_grad=True)
    assert gradcheck(lambda t: fn(F, t), (x,))
    assert gradgradcheck(lambda t: fn(F, t), (x,))


# --- second derivatives against torch -----------------------------------------------------------

SECOND: dict[str, Callable[..., Any]] = {
    "conv2d": lambda f, x, w: f.conv2d(x, w, stride=2, padding=1, groups=2).tanh(),
    "conv_transpose2d": lambda f, x, w: f.conv_transpose2d(x, w, stride=2, groups=2).tanh(),
    "max_pool_conv": lambda f, x, w: f.max_pool2d(f.conv2d(x, w, groups=2), 2).tanh(),
    "batch_norm": lambda f, x, w: f.batch_norm(x, None, None, w[:, 0, 0, 0], training=True) ** 2,
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_double_backward_matches_torch(torch: Any, name: str) -> None:
    """d/dx of <v, d(sum f)/dw>: a mixed second derivative through each op's own backward."""
    fn = SECOND[name]
    x_np, w_np, v_np = rand(2, 4, 5, 5), rand(4, 2, 2, 2, seed=1), rand(4, 2, 2, 2, seed=2)
    results = []
    for lib in (chainrule, torch):
        x = lib.tensor(x_np, requires_grad=True)
        w = lib.tensor(w_np, requires_grad=True)
        (gw,) = lib.autograd.grad(fn(lib.nn.functional, x, w).sum(), w, create_graph=True)
        (gx,) = lib.autograd.grad((gw * lib.tensor(v_np)).sum(), x)
        results.append(gx.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9, atol=1e-12)


# --- drawn geometries against torch ------------------------------------------------------------


@st.composite
def conv_cases(draw: st.DrawFn) -> dict[str, Any]:
    groups = draw(st.sampled_from([1, 2]))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    p = tuple(draw(st.integers(0, 2)) for _ in range(2))
    reach = [dd * (kk - 1) + 1 for dd, kk in zip(d, k, strict=True)]
    size = tuple(
        draw(st.integers(max(1, r - 2 * pp), r + 4)) for r, pp in zip(reach, p, strict=True)
    )
    return {
        "x": (draw(st.integers(0, 2)), 2 * groups, *size),
        "w": (draw(st.integers(1, 2)) * groups, 2, *k),
        "options": {"stride": s, "padding": p, "dilation": d, "groups": groups},
    }


@given(case=conv_cases(), transposed=st.booleans())
def test_drawn_convolutions_match_torch(torch: Any, case: dict[str, Any], transposed: bool) -> None:
    options = case["options"]
    if transposed:
        w_shape = (case["x"][1], case["w"][0] // options["groups"], *case["w"][2:])
        extra = tuple(
            min(s, d) - 1 for s, d in zip(options["stride"], options["dilation"], strict=True)
        )

        def fn(m: Any, x: Any, w: Any) -> Any:
            return m.nn.functional.conv_transpose2d(x, w, output_padding=extra, **options)

    else:
        w_shape = case["w"]

        def fn(m: Any, x: Any, w: Any) -> Any:
            return m.nn.functional.conv2d(x, w, **options)

    arrays = (rand(*case["x"]), rand(*w_shape, seed=1))
    try:
        out_t, grads_t = run(torch, fn, *arrays)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            fn(chainrule, *(chainrule.tensor(a) for a in arrays))
        return
    out, grads = run(chainrule, fn, *arrays)
    close(out, out_t, rtol=1e-10, atol=1e-10)
    for g, g_t in zip(grads, grads_t, strict=True):
        close(g, g_t, rtol=1e-10, atol=1e-10)


@given(
    size=st.tuples(st.integers(1, 7), st.integers(1, 7)),
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.tuples(st.integers(0, 1), st.integers(0, 1)),
    ceil_mode=st.booleans(),
    kind=st.sampled_from(["max", "avg", "avg_exclude_pad"]),
)
def test_drawn_pools_match_torch(
    torch: Any, size: Any, kernel: Any, stride: Any, padding: Any, ceil_mode: bool, kind: str
) -> None:
    def fn(m: Any, x: Any) -> Any:
        f = m.nn.functional
        if kind == "max":
            return f.max_pool2d(
                x, kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True
            )
        return f.avg_pool2d(x, kernel, stride, padding, ceil_mode, kind == "avg")

    data = rand(2, 2, *size)
    try:
        out_t, grads_t = run(torch, fn, data)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as mine:
            fn(chainrule, chainrule.tensor(data))
        assert str(mine.value).split("\n")[0] == str(e).split("\n")[0]
        return
    out, grads = run(chainrule, fn, data)
    if kind == "max":
        assert out[1].tolist() == out_t[1].tolist()
        out, out_t = out[0], out_t[0]
    close(out, out_t, rtol=1e-12, atol=1e-12)
    close(grads[0], grads_t[0], rtol=1e-12, atol=1e-12)


LAYOUT: dict[str, Callable[[Any, Any], Any]] = {
    "conv2d": lambda f, x: f.conv2d(x, x[:2, :, :2, :2].contiguous()),
    "max_pool2d": lambda f, x: f.max_pool2d(x, 2),
    "avg_pool2d": lambda f, x: f.avg_pool2d(x, 2),
    "batch_norm": lambda f, x: f.batch_norm(x, None, None, training=True),
    "layer_norm": lambda f, x: f.layer_norm(x, (x.shape[-1],)),
    "group_norm": lambda f, x: f.group_norm(x, 1),
    "pad": lambda f, x: f.pad(x, (1, 1, 2, 0), mode="reflect"),
    "interpolate": lambda f, x: f.interpolate(x, scale_factor=2, mode="bilinear"),
}


@pytest.mark.parametrize("name", sorted(LAYOUT))
def test_transposed_input_gives_what_torch_gives(torch: Any, name: str) -> None:
    """Non-contiguous inputs work, and results are contiguous where torch's are (so .view works)."""
    (out, grads), (out_t, grads_t) = both(
        torch, lambda m, x: LAYOUT[name](m.nn.functional, x.transpose(1, 2)), rand(2, 3, 4, 5)
    )
    close(out, out_t, rtol=1e-10, atol=1e-12)
    close(grads[0], grads_t[0], rtol=1e-10, atol=1e-12)
    assert out.is_contiguous() == out_t.is_contiguous()
