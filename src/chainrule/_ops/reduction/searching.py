"""Searching sorted boundaries and sets: searchsorted and bucketize (where each value would
be inserted to keep the order) and isin (membership). Their results are indices and
booleans, outside the graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from .common import invalid_arguments

__all__ = ["bucketize", "isin", "searchsorted"]

_NUMBER = (bool, int, float, np.number, np.bool_)


def _insertion_points(
    rows: np.ndarray, values: np.ndarray, right: bool, sorter: np.ndarray | None
) -> np.ndarray:
    """For each row of `values`, where each value goes in the same row of `rows` (one row of
    boundaries for all values if `rows` has one): a binary search run on every value at
    once, with PyTorch's comparisons, so NaN lands where PyTorch puts it."""
    length = rows.shape[1]
    row = np.arange(values.shape[0])[:, None] if rows.shape[0] > 1 else np.zeros((1, 1), int)
    low = np.zeros(values.shape, np.int64)
    high = np.full(values.shape, length, np.int64)
    active = low < high
    while active.any():
        middle = low + ((high - low) >> 1)
        at = np.minimum(middle, length - 1)
        if sorter is not None:
            at = sorter[row, at] if sorter.shape[0] > 1 else sorter[0, at]
        pivot = rows[row, at]
        # Past the pivot unless it is above the value (at or above, searching from the left).
        past = ~(pivot > values) if right else ~(pivot >= values)
        low = np.where(active & past, middle + 1, low)
        high = np.where(active & ~past, middle, high)
        active = low < high
    return low


def _check_search(
    sorted_sequence: Tensor,
    values: Tensor,
    right: bool,
    side: str | None,
    sorter: Tensor | None,
) -> bool:
    """PyTorch's checks, in its order; whether to search from the right."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side != "right":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                f"{side} while right was True"
            )
        right = side == "right"
    bounds = list(sorted_sequence._data.shape)
    if sorter is not None:
        if list(sorter._data.shape) != bounds:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {bounds}and got sorter tensor {list(sorter._data.shape)}"
            )
        if sorter._data.dtype != np.int64:
            raise RuntimeError(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                + _dtype.scalar_name(sorter)
            )
    if values.ndim == 0 and len(bounds) > 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({len(bounds)}) and input "
            f"value's dim({values.ndim}) numel({values.numel()})"
        )
    if not bounds:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if len(bounds) != 1 and (
        values.ndim != len(bounds) or list(values._data.shape[:-1]) != bounds[:-1]
    ):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {bounds} and input value tensor {list(values._data.shape)}"
        )
    return right


_SEARCH_SIGNATURES = (
    "Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None",
    "Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None",
)


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    out: Any = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """Where each value of `input` would go in the last dim of `sorted_sequence` to keep it
    sorted: the first such place (the last with `right=True` or `side="right"`). `sorter`
    gives the order of an unsorted sequence (as argsort does)."""
    scalar = isinstance(input, _NUMBER)
    if not isinstance(sorted_sequence, Tensor) or not (scalar or isinstance(input, Tensor)):
        raise invalid_arguments("searchsorted", (sorted_sequence, input), {}, _SEARCH_SIGNATURES)
    values = Tensor._make(np.asarray(input)) if scalar else input
    from_right = _check_search(sorted_sequence, values, right, side, sorter)
    common = _dtype.result_type(sorted_sequence, input).np
    bounds = sorted_sequence._data.astype(common, copy=False)
    data = np.asarray(input if scalar else input._data).astype(common, copy=False)
    rows = bounds.reshape(-1, bounds.shape[-1]) if bounds.shape[-1] else bounds.reshape(1, 0)
    order = None
    if sorter is not None:
        order = sorter._data.reshape(rows.shape)
        if order.size and (order.min() < 0 or order.max() >= rows.shape[1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    flat = data.reshape(rows.shape[0], -1) if rows.shape[0] > 1 else data.reshape(1, -1)
    found = _insertion_points(rows, flat, from_right, order).reshape(data.shape)
    return Tensor._make(found.astype(np.int32 if out_int32 else np.int64))


def bucketize(
    input: Any,
    boundaries: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
    out: Any = None,
) -> Tensor:
    """The index of the bucket of each value of `input`, for the sorted 1-d `boundaries`:
    the first boundary at or above it (above it, with `right=True`)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


_ISIN_SIGNATURES = (
    "Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
    "Tensor out = None",
    "Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
    "Tensor out = None",
    "Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
    "Tensor out = None",
)


def isin(
    elements: Any,
    test_elements: Any,
    *,
    assume_unique: bool = False,
    invert: bool = False,
    out: Any = None,
) -> Tensor:
    """Whether each of `elements` is among `test_elements` (compared in the dtype they
    promote to; NaN is never found); the opposite with `invert=True`."""
    tensors = [x for x in (elements, test_elements) if isinstance(x, Tensor)]
    numbers = [x for x in (elements, test_elements) if isinstance(x, _NUMBER)]
    if not tensors or len(tensors) + len(numbers) != 2:
        raise invalid_arguments("isin", (elements, test_elements), {}, _ISIN_SIGNATURES)
    for t in tensors:
        if t._data.dtype == np.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    common = _dtype.result_type(elements, test_elements).np
    values = np.asarray(getattr(elements, "_data", elements)).astype(common, copy=False)
    tests = np.asarray(getattr(test_elements, "_data", test_elements)).astype(common, copy=False)
    found = np.isin(values, tests, assume_unique=assume_unique, invert=invert)
    return Tensor._make(np.asarray(found))
