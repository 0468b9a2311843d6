"""The order in which an unstable sort leaves equal keys, as PyTorch's CPU kernels get it.

PyTorch's `sort` (without `stable=True`) and `mode` sort each slice with C++'s
`std::sort` (GNU libstdc++): an introsort whose partitions reorder equal keys. Where
keys tie, which index comes first decides the indices returned and where gradients
go, so the same algorithm is followed step by step here: median-of-three quicksort
down to runs of 16, heapsort past a depth limit, then one insertion sort. A slice
with no ties sorts the same under any algorithm, and runs of 16 or fewer are
insertion-sorted (stable): callers use NumPy's stable sort there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["THRESHOLD", "introsort", "nan_last", "plain_less", "unstable_order"]

THRESHOLD = 16  # runs this short are left to the final insertion sort

Less = Callable[[Any, Any], bool]


def nan_last(a: float, b: float) -> bool:
    """PyTorch's ascending order for sort: NaN after every number."""
    return (a < b) or (math.isnan(b) and not math.isnan(a))


def plain_less(a: float, b: float) -> bool:
    """C++'s `<`: NaN is neither less nor greater than anything (mode sorts with it)."""
    return a < b


def unstable_order(a: np.ndarray, dim: int, less: Less = nan_last) -> np.ndarray:
    """Indices that sort `a` along `dim` as `std::sort` with `less` does (ascending)."""
    order = np.argsort(a, axis=dim, kind="stable")
    if a.ndim == 0 or a.size == 0:
        return order
    n = a.shape[dim]
    moved = np.moveaxis(a, dim, -1).reshape(-1, n)
    out = np.moveaxis(order, dim, -1).reshape(moved.shape).copy()
    floating = a.dtype.kind in "fc"
    for row, keys in enumerate(moved):
        ranked = keys[out[row]]
        nan = np.isnan(ranked) if floating else np.zeros(n, bool)
        # NaN under a plain `<` is unordered: insertion sort and quicksort both leave
        # it where their steps happen to put it, so follow them.
        redo = bool(nan.any()) and less is not nan_last
        if n > THRESHOLD and not redo:
            # ties: where equal keys land depends on the algorithm
            redo = bool(((ranked[1:] == ranked[:-1]) | (nan[1:] & nan[:-1])).any())
        if redo:
            out[row] = introsort(keys.tolist(), less)
    return np.moveaxis(out.reshape(np.moveaxis(a, dim, -1).shape), -1, dim)


def introsort(keys: Sequence[Any], less: Less) -> list[int]:
    """The positions of `keys` in the order libstdc++'s `std::sort` leaves them."""
    items = list(range(len(keys)))
    if len(items) > 1:

        def lt(i: int, j: int) -> bool:
            return less(keys[i], keys[j])

        _loop(items, 0, len(items), 2 * (len(items).bit_length() - 1), lt)
        _final_insertion_sort(items, 0, len(items), lt)
    return items


def _loop(a: list[int], first: int, last: int, depth: int, lt: Callable[[int, int], bool]) -> None:
    while last - first > THRESHOLD:
        if depth == 0:
            _heapsort(a, first, last, lt)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, lt)
        _loop(a, cut, last, depth, lt)
        last = cut


def _partition_pivot(a: list[int], first: int, last: int, lt: Callable[[int, int], bool]) -> int:
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, lt)
    # Hoare partition around a[first], with no bounds checks (the pivot stops both scans).
    lo, hi, pivot = first + 1, last, a[first]
    while True:
        while lt(a[lo], pivot):
            lo += 1
        hi -= 1
        while lt(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _median_to_first(
    a: list[int], result: int, i: int, j: int, k: int, lt: Callable[[int, int], bool]
) -> None:
    x, y, z = a[i], a[j], a[k]
    if lt(x, y):
        pick = j if lt(y, z) else (k if lt(x, z) else i)
    elif lt(x, z):
        pick = i
    elif lt(y, z):
        pick = k
    else:
        pick = j
    a[result], a[pick] = a[pick], a[result]


def _final_insertion_sort(
    a: list[int], first: int, last: int, lt: Callable[[int, int], bool]
) -> None:
    if last - first > THRESHOLD:
        _insertion_sort(a, first, first + THRESHOLD, lt)
        for i in range(first + THRESHOLD, last):
            _linear_insert(a, i, lt)
    else:
        _insertion_sort(a, first, last, lt)


def _insertion_sort(a: list[int], first: int, last: int, lt: Callable[[int, int], bool]) -> None:
    for i in range(first + 1, last):
        value = a[i]
        if lt(value, a[first]):
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, lt)


def _linear_insert(a: list[int], last: int, lt: Callable[[int, int], bool]) -> None:
    value = a[last]
    while lt(value, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


# --- the heapsort fallback (std::partial_sort over the whole run) --------------------------


def _heapsort(a: list[int], first: int, last: int, lt: Callable[[int, int], bool]) -> None:
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):  # make_heap
        _adjust_heap(a, first, parent, n, a[first + parent], lt)
    while last - first > 1:  # sort_heap: pop the largest to the end, one at a time
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value, lt)


def _adjust_heap(
    a: list[int], first: int, hole: int, n: int, value: int, lt: Callable[[int, int], bool]
) -> None:
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if lt(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    # push_heap: move the value up from the hole towards the top
    parent = (hole - 1) // 2
    while hole > top and lt(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
