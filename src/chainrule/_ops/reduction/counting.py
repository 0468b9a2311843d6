"""Counting values: bincount (occurrences of each non-negative integer, or their summed
weights) and histc (a histogram over equal-width bins). Neither has a derivative."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _dtype
from ..._creation import _evenly_spaced
from ..._tensor import Tensor
from ..primitive import Primitive

__all__ = ["bincount", "histc"]


def _not_implemented(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::bincount is not implemented")


def _weighted_counts(input: np.ndarray, weights: np.ndarray, length: int, **_: Any) -> np.ndarray:
    # Added one by one in the weights' dtype, as PyTorch's loop does (np.bincount would
    # sum float32 weights in double).
    out = np.zeros(length, weights.dtype)
    np.add.at(out, input, weights)
    return out


# PyTorch records bincount of weights that require grad without a derivative.
_bincount_weighted = Primitive(
    "torch::autograd::NotImplemented",
    lambda input, weights, length: _weighted_counts(input, weights, length),
    inputs=("self", "weights"),
    grads=(None, _not_implemented),
    formulas=(None, "not implemented"),
)


def _not_implemented_for(op: str, t: Tensor) -> NotImplementedError:
    return NotImplementedError(f"\"{op}\" not implemented for '{_dtype.scalar_name(t)}'")


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in the 1-d non-negative integer `input` (at
    least `minlength` counts); with `weights`, the sum of the weights at its positions
    (float32 for float32 weights, float64 for any other)."""
    data = input._data
    if data.dtype.kind not in "iu":
        raise _not_implemented_for("bincount_cpu", input)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim == 1 and data.size == 0:
        return Tensor._make(np.zeros(minlength, np.int64))
    if data.ndim != 1 or data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = max(int(minlength), int(data.max()) + 1)
    if weights is None:
        return Tensor._make(np.bincount(data, minlength=length).astype(np.int64))
    if weights.ndim != 1 or weights._data.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights._data.dtype != np.float32:
        weights = weights.to(_dtype.float64)
    return _bincount_weighted(input, weights, length=length)


def _edge_text(value: float) -> str:
    """A double as PyTorch's message prints it (C++ stream formatting)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:g}"


def _outer_edges(data: np.ndarray, min: Any, max: Any) -> tuple[float, float]:
    """The histogram's range: [min, max], or the data's own range when min == max."""
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(np.min(data)), float(np.max(data))
        # PyTorch's min and max of data with a NaN print as -nan.
        low, high = (-abs(v) if math.isnan(v) else v for v in (low, high))
    if low == high:
        low, high = low - 1, high + 1
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(
            f"torch.histc: range of [{_edge_text(low)}, {_edge_text(high)}] is not finite"
        )
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    return low, high


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0, *, out: Any = None) -> Tensor:
    """A histogram of `input`'s values: counts in `bins` equal-width bins over [min, max]
    (the data's range if min == max), of `input`'s dtype. Values outside the range, and
    NaN, are not counted; the last bin includes its right edge."""
    data = input._data
    if data.dtype.kind != "f":
        raise _not_implemented_for("histogram_cpu", input)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    low, high = _outer_edges(data, min, max)
    edges = _evenly_spaced(low, high, bins + 1, data.dtype)
    left, right = edges[0], edges[-1]
    flat = data.reshape(-1)
    flat = flat[(flat >= left) & (flat <= right)]
    # The bin by one division, in the input's dtype, as PyTorch's linear bin search.
    step = (flat - left) * data.dtype.type(bins)
    position = (step / (right - left)).astype(np.int64)
    position = np.minimum(position, bins - 1)  # the right edge falls in the last bin
    counts = np.bincount(position, minlength=bins).astype(data.dtype)
    return Tensor._make(counts)
