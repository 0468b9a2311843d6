"""Reductions, scans and sorting: errors and warnings as torch's, and drawn shapes,
dims and values (ties, empty and 0-d tensors) checked against torch.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from reductions_support import INF, check, lib_of, outputs

MATRIX = [[1.0, -3.0, 3.0, 0.5], [2.0, 0.0, 2.5, -1.0], [4.0, 1.0, -2.0, 0.25]]


# --- errors -------------------------------------------------------------------------------

EMPTY: list[float] = []


@pytest.mark.parametrize(
    ("values", "fn"),
    [
        (EMPTY, lambda x: x.max()),
        (EMPTY, lambda x: x.min()),
        (EMPTY, lambda x: x.amax()),
        (EMPTY, lambda x: x.amin(())),
        (EMPTY, lambda x: x.argmax()),
        (EMPTY, lambda x: x.argmin(0)),
        (EMPTY, lambda x: x.aminmax()),
        (EMPTY, lambda x: x.kthvalue(1)),
        (EMPTY, lambda x: x.norm(INF)),
        (EMPTY, lambda x: x.norm(-1)),
        (EMPTY, lambda x: x.norm(-1.5)),
        ([[]], lambda x: x.max(1)),
        ([[]], lambda x: x.min(-1)),
        ([[]], lambda x: x.amax(-1)),
        ([[]], lambda x: x.amax((0, 1))),
        ([[]], lambda x: x.argmax(1)),
        ([[]], lambda x: x.aminmax(dim=-1)),
        ([[]], lambda x: x.median(1)),
        ([[]], lambda x: x.nanmedian(-1)),
        ([[]], lambda x: x.norm(-INF, dim=-1)),
        ([[]], lambda x: x.topk(1)),
        (MATRIX, lambda x: x.prod((0, 1))),
        (MATRIX, lambda x: lib_of(x).prod(x, (0, 1))),
        (MATRIX, lambda x: x.prod(dim=None)),
        (MATRIX, lambda x: x.prod(2)),
        (MATRIX, lambda x: x.max(2)),
        (MATRIX, lambda x: x.max((0,))),
        (MATRIX, lambda x: x.max(2.0)),
        (MATRIX, lambda x: lib_of(x).max(x, 2.0)),
        (MATRIX, lambda x: lib_of(x).max(x, keepdim=True)),
        (MATRIX, lambda x: x.max(dim=None)),
        (MATRIX, lambda x: x.min(None)),
        (MATRIX, lambda x: x.logsumexp(None)),
        (MATRIX, lambda x: x.amax(5)),
        (MATRIX, lambda x: x.amax((0, 0))),
        (MATRIX, lambda x: x.amax(1.5)),
        (MATRIX, lambda x: x.argmax((0,))),
        (MATRIX, lambda x: x.var((1, 1))),
        (MATRIX, lambda x: x.std(1, unbiased=True, correction=1)),
        (MATRIX, lambda x: x.norm("nuc2")),
        (MATRIX, lambda x: x.norm("fro", dim=(0, 1, -1))),
        (MATRIX, lambda x: x.kthvalue(5)),
        (MATRIX, lambda x: x.kthvalue(0, 0)),
        (MATRIX, lambda x: x.topk(5)),
        (MATRIX, lambda x: x.topk(-1)),
        (MATRIX, lambda x: x.cumsum()),
        (MATRIX, lambda x: x.cumsum((0,))),
        (MATRIX, lambda x: x.cumprod(2)),
        (MATRIX, lambda x: x.logsumexp()),
        (MATRIX, lambda x: x.logcumsumexp(-3)),
        (MATRIX, lambda x: x.sort(3)),
        (MATRIX, lambda x: x.median(2)),
        (MATRIX, lambda x: x.all(3)),
        (MATRIX, lambda x: x.count_nonzero((0, 0))),
        (MATRIX, lambda x: x.diff(n=-1)),
        (MATRIX, lambda x: x.diff(prepend=0.0)),
        (MATRIX, lambda x: x.diff(prepend=x[0, 0])),
        (2.0, lambda x: x.diff()),
        (2.0, lambda x: x.kthvalue(2)),
        (2.0, lambda x: x.topk(2)),
        (2.0, lambda x: x.max(1)),
    ],
)
def test_errors_follow_torch(torch: Any, values: Any, fn: Callable[..., Any]) -> None:
    check(torch, fn, values)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.var(),
        lambda x: x.std(0),
        lambda x: lib_of(x).var_mean(x),
        lambda x: x.norm(),
        lambda x: x.logcumsumexp(0),
        lambda x: x.nanmean(),
        lambda x: x.argmax(),
        lambda x: x.median(),
        lambda x: x.topk(1),
    ],
)
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_dtype_errors_follow_torch(torch: Any, fn: Callable[..., Any], dtype: str) -> None:
    check(torch, fn, [1, 0, 1], dtype)


def test_too_few_degrees_of_freedom_warn_as_torch(torch: Any) -> None:
    for name in ("var", "std", "var_mean", "std_mean"):
        caught = []
        for lib in (chainrule, torch):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                out = getattr(lib, name)(lib.tensor([1.0]))
            caught.append([str(w.message) for w in seen if w.category is UserWarning])
            assert math.isnan(outputs(out)[0].item())
        assert len(caught[0]) == 1 and caught[1][0].startswith(caught[0][0])


def test_bad_input_changes_nothing() -> None:
    x = chainrule.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(RuntimeError):
        x.kthvalue(3)
    with pytest.raises(IndexError):
        x.sort(2)
    assert x.grad is None and x._version == 0


# --- trapezoid: its two signatures, PyTorch's whole messages ------------------------------


def _trapezoid_outcome(lib: Any, fn: Callable[..., Any], y_values: Any, y_dtype: str) -> Any:
    """fn(lib, y, x) with x = [0, 0.5, 2]: its value, dtype and grad_fn name, or its error."""
    y = lib.tensor(np.asarray(y_values, dtype=y_dtype))
    x = lib.tensor([0.0, 0.5, 2.0], requires_grad=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib, y, x)
    except Exception as e:  # the error itself is what gets compared
        return type(e).__name__, str(e)
    name = type(r.grad_fn).__name__ if r.grad_fn is not None else None
    return r.detach().numpy().tolist(), str(r.dtype).split(".")[-1], name


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, y, x: L.trapezoid(y, x, dx=2),
        lambda L, y, x: L.trapezoid(y, x=x, dx=2),
        lambda L, y, x: L.trapezoid(y, dx=2, x=x),
        lambda L, y, x: L.trapezoid(y, None),
        lambda L, y, x: L.trapezoid(y, 2.0),
        lambda L, y, x: L.trapezoid(y, x, 0),
        lambda L, y, x: L.trapezoid(y, x, x, x),
        lambda L, y, x: L.trapezoid(y, x, dim=0.5, foo=2),
        lambda L, y, x: L.trapezoid(y, dx=2, dim=0, foo=1),
        lambda L, y, x: L.trapezoid(y=y, x=x, dx=2),
        lambda L, y, x: L.trapezoid(y, dx="a"),
        lambda L, y, x: L.trapezoid(y, dx=np.array(2.0)),
        lambda L, y, x: L.trapezoid(y, dx=L.tensor(2.0, requires_grad=True)),
        lambda L, y, x: L.trapezoid(y, dim=True),
        lambda L, y, x: L.trapezoid(y, dim=2**70),
        lambda L, y, x: L.trapezoid(y, dx=2**70),
        lambda L, y, x: L.trapezoid(y.tolist()),
        lambda L, y, x: L.trapezoid(dx=2),
        lambda L, y, x: L.trapezoid(),
        lambda L, y, x: L.trapezoid(y, dx=1j),
        lambda L, y, x: L.trapezoid(y, dx=True),
        lambda L, y, x: L.trapezoid(y, dim=2),
        lambda L, y, x: L.trapezoid(y, x, dim=-3),
        lambda L, y, x: L.trapezoid(y, x, dim=0),
        lambda L, y, x: L.trapezoid(y, x[:2]),
        lambda L, y, x: L.trapezoid(y, x.expand(3, 2, 3)),
        lambda L, y, x: L.trapezoid(y, x[0]),
        lambda L, y, x: L.trapezoid(y[0, 0]),
        lambda L, y, x: L.trapezoid(y[0, 0], dim=5),
        lambda L, y, x: L.trapezoid(y[0, 0], x[:1]),
        lambda L, y, x: L.trapezoid(y[0, 0], x[:1], dim=5),
        lambda L, y, x: L.trapezoid(y.bool()),
        lambda L, y, x: L.trapezoid(y.bool(), x),
        lambda L, y, x: L.trapezoid(y, x > 0),
        lambda L, y, x: L.trapezoid(y[:, :0], x, dim=1),
        lambda L, y, x: L.trapezoid(y[:, :0].bool(), dx=1j),
        lambda L, y, x: L.trapezoid(y, dx=L.tensor(3), dim=L.tensor(0)),
        lambda L, y, x: L.trapezoid(y, dx=np.float32(0.5), dim=np.int64(0)),
        lambda L, y, x: L.trapezoid(y=y),
        lambda L, y, x: L.trapezoid(y, x.view(1, 3)),
        lambda L, y, x: L.trapezoid(y, dx=2.5),
    ],
)
@pytest.mark.parametrize("y_dtype", ["float64", "int64", "float16"])
def test_trapezoid_follows_torch(torch: Any, fn: Callable[..., Any], y_dtype: str) -> None:
    values = [[1.0, -3.0, 3.0], [2.0, 0.0, 2.5]]
    mine = _trapezoid_outcome(chainrule, fn, values, y_dtype)
    assert mine == _trapezoid_outcome(torch, fn, values, y_dtype)


# --- drawn shapes, dims and values against torch ------------------------------------------

DIM_OPS: dict[str, Callable[[Any, Any, bool], Any]] = {
    "amax": lambda x, d, k: x.amax(d, keepdim=k),
    "amin": lambda x, d, k: x.amin(d, keepdim=k),
    "nansum": lambda x, d, k: x.nansum(d, keepdim=k),
    "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k),
    "var": lambda x, d, k: x.var(d, keepdim=k),
    "norm2": lambda x, d, k: x.norm(2, d, keepdim=k),
    "norm1": lambda x, d, k: x.norm(1, d, keepdim=k),
    "norm_inf": lambda x, d, k: x.norm(INF, d, keepdim=k),
    "norm3": lambda x, d, k: x.norm(3, d, keepdim=k),
    "all": lambda x, d, k: x.all(d, keepdim=k),
    "any": lambda x, d, k: x.any(d, keepdim=k),
    "count_nonzero": lambda x, d, k: x.count_nonzero(d),
}
ONE_DIM_OPS: dict[str, Callable[[Any, int, bool], Any]] = {
    "max": lambda x, d, k: x.max(d, keepdim=k),
    "min": lambda x, d, k: x.min(d, k),
    "argmax": lambda x, d, k: x.argmax(d, keepdim=k),
    "aminmax": lambda x, d, k: x.aminmax(dim=d, keepdim=k),
    "prod": lambda x, d, k: x.prod(d, keepdim=k),
    "cumsum": lambda x, d, k: x.cumsum(d),
    "cumprod": lambda x, d, k: x.cumprod(d),
    "cummax": lambda x, d, k: x.cummax(d),
    "cummin": lambda x, d, k: x.cummin(d),
    "logcumsumexp": lambda x, d, k: x.logcumsumexp(d),
    "sort": lambda x, d, k: x.sort(dim=d, descending=k, stable=True),
    "sort_positional": lambda x, d, k: x.sort(d, k),
    "argsort": lambda x, d, k: x.argsort(dim=d, descending=k, stable=True),
    "msort": lambda x, d, k: x.msort(),
}
# Drawn distinct: where ties pick an index by PyTorch's selection algorithm, and std,
# whose value on a constant slice (a kink) is 0 or rounding noise depending on the path.
DISTINCT_OPS: dict[str, Callable[[Any, int, bool], Any]] = {
    "std": lambda x, d, k: x.std(d, keepdim=k, correction=0),
    "std_all": lambda x, d, k: x.std(),
    "median": lambda x, d, k: x.median(d, keepdim=k),
    "kthvalue": lambda x, d, k: x.kthvalue(1, d, keepdim=k),
    "topk": lambda x, d, k: x.topk(min(2, x.shape[d] if x.ndim else 1), d, largest=k),
    "nanmedian": lambda x, d, k: x.nanmedian(d, keepdim=k),
}
# Subnormal numbers are left out: PyTorch's CPU kernels may flush them to zero.
FLOATS = st.floats(-2, 2, allow_subnormal=False)
TIED = st.sampled_from([0.0, 1.0, -1.0, 2.0, 0.5]) | FLOATS


@st.composite
def arrays_and_dims(draw: st.DrawFn, distinct: bool = False) -> tuple[np.ndarray, Any, Any, bool]:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    elements = FLOATS if distinct else TIED
    values = draw(hnp.arrays(np.float64, shape, elements=elements, unique=distinct))
    n = len(shape)
    dims = st.lists(st.integers(-n, n - 1), min_size=1, max_size=n, unique_by=lambda d: d % n)
    some = draw(st.none() | dims.map(tuple)) if n else draw(st.none() | st.just((0,)))
    one = draw(st.integers(-n, n - 1)) if n else draw(st.sampled_from([0, -1]))
    return values, some, one, draw(st.booleans())


@pytest.mark.parametrize("name", DIM_OPS)
@given(args=arrays_and_dims())
def test_drawn_dim_reductions_against_torch(
    torch: Any, name: str, args: tuple[np.ndarray, Any, int, bool]
) -> None:
    values, dims, _, keepdim = args
    check(torch, lambda x: DIM_OPS[name](x, dims, keepdim), values)


@pytest.mark.parametrize("name", ONE_DIM_OPS)
@given(args=arrays_and_dims())
def test_drawn_one_dim_ops_against_torch(
    torch: Any, name: str, args: tuple[np.ndarray, Any, int, bool]
) -> None:
    values, _, dim, flag = args
    check(torch, lambda x: ONE_DIM_OPS[name](x, dim, flag), values)


@pytest.mark.parametrize("name", DISTINCT_OPS)
@given(args=arrays_and_dims(distinct=True))
def test_drawn_order_statistics_against_torch(
    torch: Any, name: str, args: tuple[np.ndarray, Any, int, bool]
) -> None:
    values, _, dim, flag = args
    check(torch, lambda x: DISTINCT_OPS[name](x, dim, flag), values)


@given(args=arrays_and_dims())
def test_drawn_whole_tensor_reductions_against_torch(
    torch: Any, args: tuple[np.ndarray, Any, int, bool]
) -> None:
    values = args[0]
    for fn in (
        lambda x: x.max(),
        lambda x: x.amin(),
        lambda x: x.prod(),
        lambda x: x.median(),
        lambda x: x.aminmax(),
        lambda x: x.norm(),
        lambda x: x.argmin(),
    ):
        check(torch, fn, values)
