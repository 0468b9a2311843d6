"""Factories of sequences PyTorch computes element by element: range (with its end
included), logspace, and the row and column indices of a triangle (tril_indices, triu_indices)."""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np

from . import _dtype
from ._creation import _finish
from ._float_math import libm
from ._ops.quiet import quiet
from ._tensor import Tensor

__all__ = ["logspace", "range", "tril_indices", "triu_indices"]

_RANGE_DEPRECATED = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)


def _number(value: Any) -> Any:
    return value.item() if isinstance(value, Tensor) else value


def _not_implemented(op: str, dt: _dtype.dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{op}\" not implemented for '{_dtype.scalar_name(dt)}'")


def range(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from `start` to `end` inclusive, `step` apart, of the default float dtype
    unless `dtype` says otherwise. Deprecated in PyTorch (use arange), and warns so."""
    # stacklevel 3: the caller of the `out=` wrapper (keywords.accept_keywords) around range.
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=3)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if dt is _dtype.bool_:
        raise _not_implemented("range_cpu", dt)
    # PyTorch steps in double for floating dtypes and in int64 for integer ones.
    work: type = float if dt.is_floating_point else int
    first, last, stride = (work(_number(v)) for v in (start, end, step))
    if stride == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(first) and math.isfinite(last)):
        raise RuntimeError(f"unsupported range: {first:g} -> {last:g}")
    if not ((stride > 0 and last >= first) or (stride < 0 and last <= first)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.is_floating_point:
        size = int((last - first) / stride + 1)
        data = first + np.arange(size, dtype=np.float64) * stride
    else:  # int64 division, which truncates (the signs agree, so it floors)
        size = abs(last - first) // abs(stride) + 1
        data = first + np.arange(size, dtype=np.int64) * stride
    return _finish(quiet(data.astype, dt.np), requires_grad, device)


def _endpoint(value: Any, which: str) -> Any:
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"logspace only supports 0-dimensional start and end tensors, but got {which} "
                f"with {value.ndim} dimension(s)."
            )
        return value.item()
    return value


def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` values base**e for exponents e evenly spaced from `start` to `end`."""
    first, last = _endpoint(start, "start"), _endpoint(end, "end")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if dt is _dtype.bool_:
        raise _not_implemented("logspace_cpu", dt)
    base = float(base)
    if steps == 1:
        data = np.array([base ** float(first)])
    else:
        # As PyTorch: the ends in the result's dtype, the step and the powers in double;
        # the first half stepped up from `start`, the second half down from `end`.
        if dt.is_floating_point:
            first, last = dt.np.type(first), dt.np.type(last)
        else:
            first, last = int(first), int(last)
        step = float(last - first) / (steps - 1)
        index = np.arange(steps)
        exponent = np.where(
            index < steps // 2,
            float(first) + step * index,
            float(last) - step * (steps - 1 - index),
        )
        data = libm(functools.partial(_c_pow, base))(exponent)
    return _finish(quiet(data.astype, dt.np), requires_grad, device)


def _c_pow(base: float, exponent: float) -> float:
    """C's pow (NumPy's power may differ from it in the last bit): inf on overflow and NaN
    outside the real domain, where Python's math.pow raises."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _triangle_indices(
    name: str, row: int, col: int, offset: int, dtype: Any, lower: bool
) -> Tensor:
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.int64
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dt not in (_dtype.int32, _dtype.int64):
        raise _not_implemented(name, dt)
    rows, cols = np.indices((row, col)).reshape(2, -1)
    keep = cols - rows <= offset if lower else cols - rows >= offset
    return Tensor._make(np.stack([rows[keep], cols[keep]]).astype(dt.np))


def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = "cpu",
    layout: Any = None,
) -> Tensor:
    """The (row, column) indices of the lower triangle of a row x col matrix, row by row:
    the entries on and below the `offset`-th diagonal."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, lower=True)


def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = "cpu",
    layout: Any = None,
) -> Tensor:
    """The (row, column) indices of the upper triangle of a row x col matrix, row by row:
    the entries on and above the `offset`-th diagonal."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, lower=False)
