"""Fractional max pooling (functional forms and layers): values, indices, gradients and
node names against torch (random windows drawn from one seed, and given ones), PyTorch's
errors, and recorded windows and invariants that need no torch."""

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
from layer_compare import assert_layer_matches, error_of, run


def _x(m: Any, *shape: int, dtype: str = "float64") -> Any:
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    return m.tensor(a, requires_grad=True)


def _samples(m: Any, n: int, c: int, k: int, dtype: str = "float64") -> Any:
    return m.tensor(np.random.default_rng(n + c).uniform(0, 1, (n, c, k)).astype(dtype))


# --- against torch ------------------------------------------------------------------------

# name: (call on library m and input x, input shape)
CALLS: dict[str, tuple[Callable[[Any, Any], Any], tuple[int, ...]]] = {
    "2d_size": (
        lambda m, x: m.nn.functional.fractional_max_pool2d(
            x, 3, output_size=(4, 5), return_indices=True
        ),
        (2, 3, 7, 8),
    ),
    "2d_ratio": (
        lambda m, x: m.nn.functional.fractional_max_pool2d(
            x, (2, 3), output_ratio=(0.5, 0.6), return_indices=True
        ),
        (3, 9, 11),
    ),
    "2d_one": (
        lambda m, x: m.nn.functional.fractional_max_pool2d(x, 2, output_size=1),
        (2, 3, 7, 8),
    ),
    "2d_whole": (
        lambda m, x: m.nn.functional.fractional_max_pool2d(x, 1, output_size=(7, 8)),
        (1, 2, 7, 8),
    ),
    "2d_with_indices": (
        lambda m, x: m.nn.functional.fractional_max_pool2d_with_indices(x, 2, 3),
        (2, 2, 6, 6),
    ),
    "2d_positional": (
        lambda m, x: m.nn.functional.fractional_max_pool2d(x, 2, 3, None, True),
        (2, 2, 6, 6),
    ),
    "2d_empty_batch": (lambda m, x: m.nn.functional.fractional_max_pool2d(x, 2, 3), (0, 2, 6, 6)),
    "3d_size": (
        lambda m, x: m.nn.functional.fractional_max_pool3d(
            x, 2, output_size=(3, 4, 2), return_indices=True
        ),
        (2, 3, 5, 7, 8),
    ),
    "3d_ratio": (
        lambda m, x: m.nn.functional.fractional_max_pool3d(
            x, (1, 2, 3), output_ratio=0.5, return_indices=True
        ),
        (3, 6, 7, 9),
    ),
    "3d_with_indices": (
        lambda m, x: m.nn.functional.fractional_max_pool3d_with_indices(
            x, 2, output_ratio=(0.5, 0.7, 0.8)
        ),
        (1, 2, 5, 6, 7),
    ),
}


def _run(m: Any, call: Callable[[Any, Any], Any], shape: tuple[int, ...], dtype: str) -> Any:
    m.manual_seed(7)
    x = _x(m, *shape, dtype=dtype)
    out = call(m, x)
    values, indices = out if isinstance(out, tuple) else (out, None)
    g = np.random.default_rng(1).standard_normal(tuple(values.shape)).astype(dtype)
    values.backward(m.tensor(g))
    return values, indices, x.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_seeded_pooling_matches_torch(torch: Any, name: str, dtype: str) -> None:
    """Without `_random_samples` the windows come from the generator, as torch's do."""
    call, shape = CALLS[name]
    mine, theirs = _run(chainrule, call, shape, dtype), _run(torch, call, shape, dtype)
    np.testing.assert_array_equal(mine[0].detach().numpy(), theirs[0].detach().numpy())
    assert str(mine[0].dtype).split(".")[-1] == str(theirs[0].dtype).split(".")[-1]
    assert mine[0].grad_fn.name() == theirs[0].grad_fn.name()
    assert mine[0].stride() == theirs[0].stride()
    if theirs[1] is not None:
        np.testing.assert_array_equal(mine[1].numpy(), theirs[1].numpy())
        assert str(mine[1].dtype).split(".")[-1] == str(theirs[1].dtype).split(".")[-1]
        assert not mine[1].requires_grad
    np.testing.assert_allclose(mine[2].numpy(), theirs[2].numpy(), rtol=1e-5)


def test_draws_advance_the_generator_as_torch(torch: Any) -> None:
    results = []
    for m in (chainrule, torch):
        m.manual_seed(3)
        x = _x(m, 2, 3, 7, 7, dtype="float32")
        m.nn.functional.fractional_max_pool2d(x, 2, output_size=3)
        results.append(m.rand(4).numpy())
    np.testing.assert_array_equal(*results)


@given(
    n=st.integers(1, 3),
    k=st.integers(1, 3),
    size=st.integers(3, 9),
    out=st.integers(1, 4),
    nan=st.booleans(),
)
def test_drawn_windows_match_torch(
    torch: Any, n: int, k: int, size: int, out: int, nan: bool
) -> None:
    if out + k - 1 > size:
        out = size - k + 1
    a = np.random.default_rng(size * 7 + out).standard_normal((n, 2, size, size + 1))
    a[..., 1, :2] = a[..., 0, :2]  # ties
    if nan:
        a[..., 2, 1] = np.nan
    s = np.random.default_rng(n).uniform(0, 1, (n, 2, 2))
    got = []
    for m in (chainrule, torch):
        v, i = m.nn.functional.fractional_max_pool2d(
            m.tensor(a), k, out, return_indices=True, _random_samples=m.tensor(s)
        )
        got.append((v.numpy(), i.numpy()))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])


def test_double_backward_matches_torch(torch: Any) -> None:
    grads = []
    for m in (chainrule, torch):
        x = _x(m, 2, 2, 6, 7)
        s = _samples(m, 2, 2, 2)
        v = m.nn.functional.fractional_max_pool2d(x, 2, (3, 4), _random_samples=s)
        go = m.ones_like(v, requires_grad=True)
        (gx,) = m.autograd.grad(v, x, go, create_graph=True)
        assert gx.grad_fn.name() == "FractionalMaxPool2DBackwardBackward0"
        (ggo,) = m.autograd.grad((gx * x).sum(), go)
        grads.append(ggo.numpy())
    np.testing.assert_allclose(*grads)


# --- without torch ------------------------------------------------------------------------


def test_recorded_windows() -> None:
    """Windows from given draws (recorded from torch 2.13)."""
    x = chainrule.arange(2 * 7 * 8, dtype=chainrule.float64).reshape(1, 2, 7, 8)
    s = chainrule.full((1, 2, 2), 0.3, dtype=chainrule.float64)
    v, i = F.fractional_max_pool2d(x, (2, 3), (3, 4), return_indices=True, _random_samples=s)
    assert i[0, 0].tolist() == [[10, 12, 13, 15], [34, 36, 37, 39], [50, 52, 53, 55]]
    assert v[0, 1].tolist() == [
        [66.0, 68.0, 69.0, 71.0],
        [90.0, 92.0, 93.0, 95.0],
        [106.0, 108.0, 109.0, 111.0],
    ]
    x3 = chainrule.arange(60, dtype=chainrule.float32).reshape(1, 3, 4, 5)
    s3 = chainrule.tensor([[[0.1, 0.5, 0.9]]])
    _, i3 = F.fractional_max_pool3d(x3, (1, 2, 2), 2, return_indices=True, _random_samples=s3)
    assert i3.tolist() == [[[[6, 9], [16, 19]], [[46, 49], [56, 59]]]]


def test_empty_windows_and_nan() -> None:
    x = chainrule.tensor([[[1.0, float("nan"), 3.0], [float("nan"), 0.0, 2.0]]])
    s = chainrule.zeros(1, 1, 2)
    v, i = F.fractional_max_pool2d(x, 2, 1, return_indices=True, _random_samples=s)
    assert i.tolist() == [[[1]]] and np.isnan(v.item())  # NaN beats every number
    y = chainrule.tensor([[[float("nan"), 1.0], [float("nan"), 0.0]]])
    v, i = F.fractional_max_pool2d(y, 2, 1, return_indices=True, _random_samples=s)
    assert i.tolist() == [[[2]]]  # the last NaN seen wins
    v, i = F.fractional_max_pool2d(x, 0, (2, 2), return_indices=True, _random_samples=s)
    assert v.tolist() == [[[-float("inf")] * 2] * 2] and i.tolist() == [[[0, 3], [6, 9]]]


def test_values_are_window_maxima() -> None:
    chainrule.manual_seed(0)
    x = chainrule.randn(2, 3, 9, 10, dtype=chainrule.float64)
    v, i = F.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)
    flat = x.flatten(2)
    assert v.shape == (2, 3, 4, 5)
    assert chainrule.equal(flat.gather(2, i.flatten(2)).reshape(v.shape), v)
    rows, cols = i // 10, i % 10
    assert bool((rows.diff(dim=2) >= 0).all()) and bool((cols.diff(dim=3) >= 0).all())


@pytest.mark.parametrize("n", [2, 3])
def test_gradients_by_finite_differences(n: int) -> None:
    shape = (2, 2, 5, 6) if n == 2 else (1, 2, 5, 5, 5)
    x = _x(chainrule, *shape)
    s = _samples(chainrule, shape[0], 2, n)
    pool = getattr(F, f"fractional_max_pool{n}d")

    def f(t: Any) -> Any:
        return pool(t, 2, 3, _random_samples=s)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# --- errors ---------------------------------------------------------------------------------

X4, X5 = (2, 3, 7, 8), (2, 3, 5, 7, 8)


def _pool2(
    m: Any, *args: Any, shape: tuple[int, ...] = X4, dtype: str = "float32", **kwargs: Any
) -> Any:
    return m.nn.functional.fractional_max_pool2d(_x(m, *shape, dtype=dtype), *args, **kwargs)


def _pool3(
    m: Any, *args: Any, shape: tuple[int, ...] = X5, dtype: str = "float32", **kwargs: Any
) -> Any:
    return m.nn.functional.fractional_max_pool3d(_x(m, *shape, dtype=dtype), *args, **kwargs)


def _s(m: Any, *shape: int, dtype: str = "float32") -> Any:
    return m.rand(*shape).to(getattr(m, dtype))


ERRORS: dict[str, Callable[[Any], Any]] = {
    "no_size": lambda m: _pool2(m, 2),
    "ratio_three": lambda m: _pool2(m, 2, output_ratio=(0.5, 0.5, 0.5)),
    "ratio_number_2d": lambda m: _pool2(m, 2, output_ratio=0.5),
    "ratio_short": lambda m: _pool2(m, 2, output_ratio=[0.5]),
    "too_tall": lambda m: _pool2(m, 2, output_size=(7, 8)),
    "too_wide": lambda m: _pool2(m, 2, output_size=(2, 8)),
    "kernel_three": lambda m: _pool2(m, (2, 2, 2), output_size=3),
    "size_three": lambda m: _pool2(m, 2, output_size=(3, 3, 3)),
    "size_one": lambda m: _pool2(m, 2, output_size=(3,), _random_samples=_s(m, 2, 3, 2)),
    "negative_size": lambda m: _pool2(m, 2, output_size=-1),
    "negative_ratio": lambda m: _pool2(m, 2, output_ratio=(-0.5, 0.5)),
    "one_dim_input": lambda m: _pool2(m, 2, output_size=3, shape=(7, 8)),
    "two_dim_input_samples": lambda m: _pool2(
        m, 2, output_size=3, shape=(7, 8), _random_samples=_s(m, 2, 3, 2)
    ),
    "five_dim_input": lambda m: _pool2(m, 2, output_size=3, shape=(1, 2, 3, 7, 8)),
    "empty_channels": lambda m: _pool2(m, 2, output_size=3, shape=(2, 0, 7, 8)),
    "integer_input": lambda m: m.nn.functional.fractional_max_pool2d(
        m.ones(2, 3, 7, 8, dtype=m.int64), 2, output_size=3
    ),
    "integer_input_samples": lambda m: m.nn.functional.fractional_max_pool2d(
        m.ones(2, 3, 7, 8, dtype=m.int64),
        2,
        output_size=3,
        _random_samples=m.ones(2, 3, 2, dtype=m.int64),
    ),
    "bool_input_samples": lambda m: m.nn.functional.fractional_max_pool2d(
        m.ones(2, 3, 7, 8, dtype=m.bool),
        2,
        output_size=3,
        _random_samples=m.ones(2, 3, 2, dtype=m.bool),
    ),
    "samples_dtype": lambda m: _pool2(m, 2, 3, _random_samples=_s(m, 2, 3, 2, dtype="float64")),
    "samples_dims": lambda m: _pool2(m, 2, 3, _random_samples=_s(m, 2, 3)),
    "samples_batch": lambda m: _pool2(m, 2, 3, _random_samples=_s(m, 1, 3, 2)),
    "samples_channels": lambda m: _pool2(m, 2, 3, _random_samples=_s(m, 2, 4, 2)),
    "samples_last": lambda m: _pool2(m, 2, 3, _random_samples=_s(m, 2, 3, 3)),
    "samples_list": lambda m: _pool2(m, 2, 3, _random_samples=[1]),
    "too_tall_before_dtype": lambda m: _pool2(
        m, 9, 3, _random_samples=_s(m, 2, 3, 2, dtype="float64")
    ),
    "kernel_float": lambda m: _pool2(m, 2.5, output_size=3),
    "size_float": lambda m: _pool2(m, 2, output_size=2.5),
    "3d_no_size": lambda m: _pool3(m, 2),
    "3d_ratio_two": lambda m: _pool3(m, 2, output_ratio=(0.5, 0.5)),
    "3d_too_long": lambda m: _pool3(m, 2, output_size=(5, 3, 3)),
    "3d_too_tall": lambda m: _pool3(m, 2, output_size=(3, 7, 3)),
    "3d_too_wide": lambda m: _pool3(m, 2, output_size=(3, 3, 8)),
    "3d_kernel_two": lambda m: _pool3(m, (2, 2), output_size=3),
    "3d_size_two": lambda m: _pool3(m, 2, output_size=(3, 3)),
    "3d_negative_size": lambda m: _pool3(m, 2, output_size=-1),
    "3d_three_dim_input": lambda m: _pool3(m, 2, output_size=3, shape=(5, 7, 8)),
    "3d_three_dim_input_samples": lambda m: _pool3(
        m, 2, output_size=3, shape=(5, 7, 8), _random_samples=_s(m, 2, 3, 3)
    ),
    "3d_empty_depth": lambda m: _pool3(m, 2, output_size=3, shape=(2, 3, 0, 7, 8)),
    "3d_samples_last": lambda m: _pool3(m, 2, output_size=3, _random_samples=_s(m, 2, 3, 2)),
    "3d_edge": lambda m: _pool3(m, 2, output_size=(2, 4, 7), shape=(1, 2, 5, 6, 8)),
    "3d_samples_dtype": lambda m: _pool3(
        m, 2, output_size=3, _random_samples=_s(m, 2, 3, 3, dtype="float64")
    ),
    "3d_integer": lambda m: m.nn.functional.fractional_max_pool3d(
        m.ones(2, 3, 5, 7, 8, dtype=m.int64),
        2,
        output_size=3,
        _random_samples=m.ones(2, 3, 3, dtype=m.int64),
    ),
    "layer_no_size": lambda m: m.nn.FractionalMaxPool2d(3),
    "layer_both": lambda m: m.nn.FractionalMaxPool2d(3, 2, 0.5),
    "layer_ratio": lambda m: m.nn.FractionalMaxPool2d(3, output_ratio=1.0),
    "layer3d_kernel": lambda m: m.nn.FractionalMaxPool3d(0, output_ratio=0.5),
    "layer3d_kernel_tuple": lambda m: m.nn.FractionalMaxPool3d((2, 0, 1), output_ratio=0.5),
    "layer3d_ratio": lambda m: m.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 1, 0.5)),
    "layer3d_no_size": lambda m: m.nn.FractionalMaxPool3d(2),
}

# Recorded from torch 2.13.
RECORDED: dict[str, tuple[type[Exception], str]] = {
    "no_size": (
        ValueError,
        "fractional_max_pool2d requires specifying either an output_size or an output_ratio",
    ),
    "ratio_three": (
        ValueError,
        "fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.",
    ),
    "ratio_number_2d": (TypeError, "object of type 'float' has no len()"),
    "ratio_short": (IndexError, "tuple index out of range"),
    "too_tall": (
        RuntimeError,
        "fractional_max_pool2d(): pool height 2 too large relative to input height 7",
    ),
    "too_wide": (
        RuntimeError,
        "fractional_max_pool2d(): pool width 2 too large relative to input width 8",
    ),
    "kernel_three": (
        RuntimeError,
        "fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints",
    ),
    "size_three": (
        RuntimeError,
        "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints",
    ),
    "size_one": (
        RuntimeError,
        "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints",
    ),
    "negative_size": (
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [2, 3, -1, -1]",
    ),
    "negative_ratio": (
        RuntimeError,
        "Trying to create tensor with negative dimension -3: [2, 3, -3, 4]",
    ),
    "one_dim_input": (
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    ),
    "two_dim_input_samples": (
        RuntimeError,
        "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [7, 8]",
    ),
    "five_dim_input": (
        RuntimeError,
        "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [1, 2, 3, 7, 8]",
    ),
    "empty_channels": (
        RuntimeError,
        "fractional_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
        "but got[2, 0, 7, 8] with dimension 1 being empty.",
    ),
    "integer_input": (NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
    "integer_input_samples": (
        NotImplementedError,
        "\"fractional_max_pool2d_out_frame\" not implemented for 'Long'",
    ),
    "bool_input_samples": (
        NotImplementedError,
        "\"fractional_max_pool2d_out_frame\" not implemented for 'Bool'",
    ),
    "samples_dtype": (RuntimeError, "Expect _random_samples to have the same dtype as input"),
    "samples_dims": (RuntimeError, "Expect _random_samples to have 3 dimensions, got 2"),
    "samples_batch": (
        RuntimeError,
        "Expect _random_samples.size(0) no less then input batch size.",
    ),
    "samples_channels": (
        RuntimeError,
        "Expect _random_samples.size(1) equals to input channel size.",
    ),
    "samples_last": (RuntimeError, "Expect _random_samples.size(2) equals to 2; got 3."),
    "samples_list": (
        TypeError,
        "fractional_max_pool2d(): argument 'random_samples' (position 4) must be Tensor, not list",
    ),
    "too_tall_before_dtype": (
        RuntimeError,
        "fractional_max_pool2d(): pool height 9 too large relative to input height 7",
    ),
    "kernel_float": (
        TypeError,
        "fractional_max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not "
        "float",
    ),
    "size_float": (
        TypeError,
        "fractional_max_pool2d(): argument 'output_size' (position 3) must be tuple of ints, not "
        "float",
    ),
    "3d_no_size": (
        ValueError,
        "fractional_max_pool3d requires specifying either an output_size or an output_ratio",
    ),
    "3d_ratio_two": (IndexError, "tuple index out of range"),
    "3d_too_long": (
        RuntimeError,
        "fractional_max_pool3d_out(): pool time 2 too large relative to input time 5",
    ),
    "3d_too_tall": (
        RuntimeError,
        "fractional_max_pool3d_out(): pool height 2 too large relative to input height 7",
    ),
    "3d_too_wide": (
        RuntimeError,
        "fractional_max_pool3d_out(): pool width 2 too large relative to input width 8",
    ),
    "3d_kernel_two": (
        RuntimeError,
        "fractional_max_pool3d: kernel_size must either be a single Int or tuple of three Ints",
    ),
    "3d_size_two": (
        RuntimeError,
        "fractional_max_pool3d: output_size must either be a single Int or tuple of three Ints",
    ),
    "3d_negative_size": (
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [2, 3, -1, -1, -1]",
    ),
    "3d_three_dim_input": (
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got -4)",
    ),
    "3d_three_dim_input_samples": (
        RuntimeError,
        "fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: [5, 7, 8]",
    ),
    "3d_empty_depth": (
        RuntimeError,
        "fractional_max_pool3d_out(): Expected input to have non-zero size for non-batch "
        "dimensions, but got[2, 3, 0, 7, 8] with dimension 2 being empty.",
    ),
    "3d_edge": (
        RuntimeError,
        "fractional_max_pool3d_out(): pool width 2 too large relative to input width 8",
    ),
    "3d_samples_last": (RuntimeError, "Expect _random_samples.size(2) equals to 3; got 2."),
    "3d_samples_dtype": (RuntimeError, "Expect _random_samples to have the same dtype as input"),
    "3d_integer": (
        NotImplementedError,
        "\"fractional_max_pool3d_out_frame\" not implemented for 'Long'",
    ),
    "layer_no_size": (
        ValueError,
        "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio",
    ),
    "layer_both": (ValueError, "only one of output_size and output_ratio may be specified"),
    "layer_ratio": (ValueError, "output_ratio must be between 0 and 1 (got 1.0)"),
    "layer3d_kernel": (ValueError, "kernel_size must be greater than 0, but got 0"),
    "layer3d_kernel_tuple": (ValueError, "kernel_size must be greater than 0, but got (2, 0, 1)"),
    "layer3d_ratio": (ValueError, "output_ratio must be between 0 and 1 (got (0.5, 1, 0.5))"),
    "layer3d_no_size": (
        ValueError,
        "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_matches_torch(torch: Any, case: str) -> None:
    assert error_of(lambda: ERRORS[case](chainrule)) == error_of(lambda: ERRORS[case](torch))


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_as_recorded(case: str) -> None:
    kind, message = RECORDED[case]
    with pytest.raises(kind) as caught:
        ERRORS[case](chainrule)
    assert str(caught.value) == message


# --- layers ---------------------------------------------------------------------------------

LAYERS: list[tuple[str, Any, tuple[int, ...]]] = [
    ("2d_size", lambda m: m.nn.FractionalMaxPool2d(3, output_size=(4, 3)), (2, 3, 8, 7)),
    ("2d_ratio", lambda m: m.nn.FractionalMaxPool2d(2, output_ratio=0.5), (2, 9, 8)),
    (
        "2d_indices",
        lambda m: m.nn.FractionalMaxPool2d((2, 3), 3, return_indices=True),
        (1, 2, 6, 7),
    ),
    ("3d_size", lambda m: m.nn.FractionalMaxPool3d(2, output_size=(2, 3, 2)), (2, 2, 5, 6, 5)),
    (
        "3d_ratio",
        lambda m: m.nn.FractionalMaxPool3d(
            (1, 2, 2), output_ratio=(0.5, 0.6, 0.7), return_indices=True
        ),
        (2, 4, 5, 6),
    ),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "build", "shape"), LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(torch: Any, name: str, build: Any, shape: Any, dtype: str) -> None:
    assert_layer_matches(
        run(chainrule, build, shape, dtype), run(torch, build, shape, dtype), dtype
    )


def test_layer_with_given_samples_keeps_them_as_a_buffer() -> None:
    s = chainrule.rand(1, 2, 2)
    layer = chainrule.nn.FractionalMaxPool2d(2, output_size=2, _random_samples=s)
    assert repr(layer) == "FractionalMaxPool2d()"
    assert list(layer.state_dict()) == ["_random_samples"]
    assert list(chainrule.nn.FractionalMaxPool3d(2, output_size=2).state_dict()) == []
    x = chainrule.randn(1, 2, 5, 5)
    assert chainrule.equal(layer(x), F.fractional_max_pool2d(x, 2, 2, _random_samples=s))
