"""Scans along one dim (cumsum, cumprod, cummax, cummin, logcumsumexp) and diff.

A reversed scan, which the gradients need, is flip, scan, flip.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype, return_types
from ..._creation import ones_like, zeros_like
from ..._dtype import scalar_name
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..elementwise.bitwise import logical_xor
from ..elementwise.conditional import where
from ..elementwise.unary_common import inplace_form
from ..primitive import Primitive, wrap_dim
from ..shape.rearrange import flip
from ..shape.views import cat
from .common import check_int_dim, index_tensor, selecting

__all__ = ["cummax", "cummin", "cumprod", "cumsum", "diff", "logcumsumexp"]

_REQUIRED: Any = object()


def _scan_dim(name: str, input: Tensor, dim: Any) -> int:
    if dim is _REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    return wrap_dim(check_int_dim(name, dim), input.ndim)


def _scan_dtype(input: Tensor, dtype: Any) -> np.dtype:
    """Integers and bools accumulate in int64, as in PyTorch, unless a dtype is asked for."""
    if dtype is not None:
        return _dtype.to_dtype(dtype).np
    return np.dtype(np.int64) if input._data.dtype.kind in "iub" else input._data.dtype


def _scan_forward(np_fn: Any) -> Any:
    def forward(a: np.ndarray, dim: int, dt: np.dtype) -> np.ndarray:
        if a.ndim == 0:
            return a.astype(dt, copy=True)
        return np_fn(a, axis=dim, dtype=dt)

    return forward


def reversed_scan(scan: Any, t: Tensor, dim: int) -> Tensor:
    """`scan` run from the end of `dim` back to its start."""
    if t.ndim == 0:
        return scan(t, dim)
    return flip(scan(flip(t, dims=(dim,)), dim), dims=(dim,))


# --- cumsum -------------------------------------------------------------------------------

_cumsum = Primitive(
    "CumsumBackward0",
    _scan_forward(np.cumsum),
    grads=(lambda g, n: reversed_scan(cumsum, g, n.dim),),
    formulas=("cumulative sum of grad along dim {dim}, from the end",),
    tangent="linear",
    layout=contiguous_array,
)


def cumsum(input: Tensor, dim: Any = _REQUIRED, *, dtype: Any = None) -> Tensor:
    """Running sums along `dim`; integers and bools give int64."""
    d = _scan_dim("cumsum", input, dim)
    return _cumsum(input, dim=d, dt=_scan_dtype(input, dtype))


# --- cumprod ------------------------------------------------------------------------------


def _cumprod_grad(g: Tensor, x: Tensor, y: Tensor, dim: int) -> Tensor:
    """d/dx_k of sum_i g_i y_i, where y_i = x_0 ... x_i: sum_{i >= k} g_i y_i / x_k.

    That division is exact enough while no running product vanishes (or
    underflows); otherwise the same sum is taken without dividing, as
    (x_0 ... x_{k-1}) * sum_{i >= k} g_i x_{k+1} ... x_i.
    """
    if x.ndim == 0:
        return g
    if not (y.abs() < float(np.finfo(y._data.dtype).tiny)).any():
        return reversed_scan(cumsum, g * y, dim) / x
    size = x.shape[dim]
    one = ones_like(x.narrow(dim, 0, 1))
    before = cat([one, x.narrow(dim, 0, size - 1)], dim).cumprod(dim)
    return before * _weighted_suffix_sums(g, cat([x.narrow(dim, 1, size - 1), one], dim), dim)


def _weighted_suffix_sums(g: Tensor, a: Tensor, dim: int) -> Tensor:
    """s_k = g_k + a_k s_{k+1} along `dim` (s past the end is 0), with no division.

    Each of the log2(n) rounds doubles the stretch of g each s_k has summed,
    with `a` tracking the product of the weights over that stretch.
    """
    size, step = g.shape[dim], 1
    while step < size:
        pad = zeros_like(g.narrow(dim, 0, step))
        g = g + a * cat([g.narrow(dim, step, size - step), pad], dim)
        a = a * cat([a.narrow(dim, step, size - step), pad], dim)
        step *= 2
    return g


_cumprod = Primitive(
    "CumprodBackward0",
    _scan_forward(np.cumprod),
    grads=(lambda g, n: _cumprod_grad(g, n.self, n.result, n.dim),),
    formulas=("Σ_(i ≥ k) grad[i] * result[i] / self[k] along dim {dim}",),
    layout=contiguous_array,
)


def cumprod(input: Tensor, dim: Any = _REQUIRED, *, dtype: Any = None) -> Tensor:
    """Running products along `dim`; integers and bools give int64. Zeros are fine."""
    d = _scan_dim("cumprod", input, dim)
    return _cumprod(input, dim=d, dt=_scan_dtype(input, dtype))


# --- cummax and cummin --------------------------------------------------------------------

_cummax_values = selecting("CummaxBackward0")
_cummin_values = selecting("CumminBackward0")


def _running_index(a: np.ndarray, d: int, largest: bool) -> np.ndarray:
    """Where the running max (min) came from: the latest entry to reach it; NaN sticks."""
    acc = np.maximum if largest else np.minimum
    running = acc.accumulate(a, axis=d)
    record = a == running
    if a.dtype.kind == "f":
        record |= np.isnan(a)
    shape = [1] * a.ndim
    shape[d] = a.shape[d]
    positions = np.arange(a.shape[d]).reshape(shape)
    return np.maximum.accumulate(np.where(record, positions, 0), axis=d)


def _cumextreme(name: str, input: Tensor, dim: Any) -> Any:
    d = _scan_dim(name, input, dim)
    largest = name == "cummax"
    index = _running_index(input._data, d, largest) if input.ndim else np.zeros((), np.int64)
    select = _cummax_values if largest else _cummin_values
    values = select(input, index, d, keepdim=True, accumulate=True)
    named = return_types.cummax if largest else return_types.cummin
    return named((values, index_tensor(index, d, keepdim=True)))


def cummax(input: Tensor, dim: Any = _REQUIRED) -> Any:
    """(values, indices) of the running maximum along `dim`."""
    return _cumextreme("cummax", input, dim)


def cummin(input: Tensor, dim: Any = _REQUIRED) -> Any:
    """(values, indices) of the running minimum along `dim`."""
    return _cumextreme("cummin", input, dim)


# --- logcumsumexp -------------------------------------------------------------------------


def _logcumsumexp_grad(g: Tensor, x: Tensor, y: Tensor, dim: int) -> Tensor:
    """sum_{i >= k} g_i exp(x_k - y_i), summed in log space, positive and negative g apart.

    That form (PyTorch's, rounding as PyTorch rounds) is flat in g where g is 0, so a
    recorded g (jvp's zero grad_output) takes the linear form instead.
    """
    if x.ndim == 0:
        return g
    if g._requires_grad:
        return _logcumsumexp_grad_linear(g, x, y, dim)
    # log(0) kept finite (so floor - floor is 0, not NaN) and far from overflowing when shifted.
    lowest = float(np.finfo(g._data.dtype).min) / 4
    log_abs = where(g == 0, 1, g).abs().log()
    positive = where(g > 0, log_abs, lowest)
    negative = where(g < 0, log_abs, lowest)
    up = (reversed_scan(logcumsumexp, positive - y, dim) + x).exp()
    down = (reversed_scan(logcumsumexp, negative - y, dim) + x).exp()
    return up - down


def _logcumsumexp_grad_linear(g: Tensor, x: Tensor, y: Tensor, dim: int) -> Tensor:
    """The same sum as exp(x_k - y_k) s_k, s_k = g_k + exp(y_k - y_{k+1}) s_{k+1}: linear in g.

    y grows along dim, so every weight is at most 1 and nothing overflows.
    """
    size = x.shape[dim]
    if size == 0:
        return g
    steps = (y.narrow(dim, 0, size - 1) - y.narrow(dim, 1, size - 1)).exp()
    weights = cat([steps, ones_like(x.narrow(dim, 0, 1))], dim)
    return (x - y).exp() * _weighted_suffix_sums(g, weights, dim)


def _logcumsumexp_forward(a: np.ndarray, dim: int) -> np.ndarray:
    if a.ndim == 0:
        return a.copy()
    return np.logaddexp.accumulate(a, axis=dim)


_logcumsumexp = Primitive(
    "LogcumsumexpBackward0",
    _logcumsumexp_forward,
    grads=(lambda g, n: _logcumsumexp_grad(g, n.self, n.result, n.dim),),
    formulas=("Σ_(i ≥ k) grad[i] * exp(self[k] - result[i]) along dim {dim}",),
    layout=contiguous_array,
)


def logcumsumexp(input: Tensor, dim: Any = _REQUIRED) -> Tensor:
    """log(cumsum(exp(input))) along `dim`, without overflow."""
    d = _scan_dim("logcumsumexp", input, dim)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{scalar_name(input._data.dtype)}'"
        )
    return _logcumsumexp(input, dim=d)


# --- diff ---------------------------------------------------------------------------------


def diff(
    input: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None
) -> Tensor:
    """The n-th forward difference along `dim` (after joining `prepend` and `append`)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    parts = []
    for name, extra in (("prepend", prepend), ("input", input), ("append", append)):
        if extra is None:
            continue
        if not isinstance(extra, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(extra).__name__}")
        if extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(extra)
    out = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        size = out.shape[d]
        if size == 0:
            break
        later, earlier = out.narrow(d, 1, size - 1), out.narrow(d, 0, size - 1)
        out = logical_xor(later, earlier) if out.dtype == _dtype.bool_ else later - earlier
    return out


cumsum_ = inplace_form(cumsum, "cumsum_")
cumprod_ = inplace_form(cumprod, "cumprod_")
