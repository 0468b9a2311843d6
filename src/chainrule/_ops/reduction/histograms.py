"""Histograms with their bin edges: histogram (of all values) and histogramdd (of points,
one coordinate per column). Bins are a count (equal widths over the range) or the edges
themselves; an optional weight per value or point; `density` scales the counts so the
histogram integrates to one. Neither has a derivative: as in PyTorch, a result of an input
that requires grad carries a node that raises when backward reaches it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ... import return_types as _return_types
from ..._autograd import grad_mode
from ..._creation import _evenly_spaced
from ..._tensor import Tensor
from ..primitive import Primitive

__all__ = ["histogram", "histogramdd"]

_DD = "torch.histogramdd"


def _not_implemented(op: str) -> Any:
    def rule(g: Any, n: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return rule


def _given(*arrays: np.ndarray, results: tuple[np.ndarray, ...]) -> Any:
    """The results, computed before the node is made (the node only records them)."""
    return results if len(results) > 1 else results[0]


# PyTorch records a histogram of inputs that require grad without a derivative: a node per
# op, number of inputs that require grad (the values, the weights or both) and of outputs.
_NODES = {
    (op, inputs, outputs): Primitive(
        "torch::autograd::NotImplemented",
        _given,
        grads=(_not_implemented(op),) * inputs,
        inputs=("self", "weight")[:inputs],  # (the first may be the weight)
        outputs=("hist", "bin_edges")[:outputs],
        formulas=("not implemented",) * inputs,
    )
    for op, outputs in (
        ("histogram", 2),
        ("_histogramdd_from_bin_cts", 1),
        ("_histogramdd_bin_edges", 1),
    )
    for inputs in (1, 2)
}


def _recorded(op: str, inputs: Sequence[Tensor], results: tuple[np.ndarray, ...]) -> Any:
    return _NODES[op, len(inputs), len(results)](*inputs, results=results)


def _outer_edges(column: np.ndarray, given: tuple[float, float] | None, d: int) -> tuple[Any, Any]:
    """The first and last edge of dimension d: the range given, else the data's (0 and 1
    for no data); an empty range is widened by a half on each side."""
    if given is not None:
        low, high = given
    elif column.size:
        low, high = column.min(), column.max()
    else:
        low, high = 0.0, 1.0
    low, high = float(low), float(high)
    if low > high:
        raise RuntimeError(
            f"{_DD}: min should not exceed max, but got min {low:g} max {high:g} for dimension {d}"
        )
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"{_DD}: dimension {d}'s range [{low:g}, {high:g}] is not finite")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high


def _counts(
    points: np.ndarray, edges: list[np.ndarray], weight: np.ndarray | None, evenly: bool
) -> np.ndarray:
    """The (weighted) number of points in each bin; a point on a last edge is in the last
    bin, one outside the edges (or NaN) in none. With evenly spaced edges (bins given as
    counts) a point's bin is found as PyTorch finds it: by interpolating between the
    outer edges, then searching only the edges either side of that guess."""
    dtype = points.dtype
    inside = np.ones(points.shape[0], dtype=bool)
    positions = []
    for d, e in enumerate(edges):
        column = points[:, d]
        inside &= (column >= e[0]) & (column <= e[-1])
        if evenly:
            position = _near_guess(column, e, inside)
        else:
            position = np.searchsorted(e, column, side="right") - 1
        positions.append(np.minimum(position, e.size - 2))
    shape = tuple(e.size - 1 for e in edges)
    hist = np.zeros(shape, dtype=dtype)
    where = tuple(p[inside] for p in positions)
    values = np.ones(int(inside.sum()), dtype) if weight is None else weight[inside]
    np.add.at(hist, where, values)
    return hist


def _near_guess(column: np.ndarray, e: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Each point's bin: the interpolated guess (in the points' dtype, as PyTorch's kernel
    computes it), corrected by a search among the guess's neighbouring edges only. (Where
    rounding piles edges up, as with subnormal ranges, that is not always the bin a
    search of all the edges gives: PyTorch's answer, kept.)"""
    last = e.size - 1
    with np.errstate(all="ignore"):
        guess = (column - e[0]) * column.dtype.type(last) / (e[-1] - e[0])
        guess = np.clip(np.where(inside, guess, 0).astype(np.int64), 0, last)
    # C++'s upper_bound over the edges guess - 1 .. guess + 1, step by step as it
    # bisects (rounding can leave those edges out of order, so the steps matter).
    first = np.maximum(guess - 1, 0)
    count = np.minimum(guess + 2, last + 1) - first
    while bool((count > 0).any()):
        step = count // 2
        probe = np.minimum(first + step, last)
        right = (count > 0) & ~(column < e[probe])
        first = np.where(right, first + step + 1, first)
        count = np.where(right, count - step - 1, np.where(count > 0, step, 0))
    return first - 1


def _histogramdd(
    points: np.ndarray,
    bins: Any,
    ranges: Sequence[float] | None,
    weight: np.ndarray | None,
    density: bool,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The histogram of the rows of `points` (N, D) and its edges, as arrays; `weight` has
    one value per row, or the shape that the message names."""
    dims = points.shape[1]
    if ranges is not None and len(ranges) != 2 * dims:
        raise RuntimeError(
            f"{_DD}: for a {dims}-dimensional histogram range should have {2 * dims} "
            f"elements, but got {len(ranges)}"
        )
    if weight is not None:
        if weight.shape != points.shape[:1]:
            raise RuntimeError(
                f"{_DD}: if weight tensor is provided it should have the same shape as the "
                "input tensor excluding its innermost dimension, but got input with shape "
                f"{list(points.shape)} and weight with shape {list(weight.shape)}"
            )
        if weight.dtype != points.dtype:
            raise RuntimeError(
                f"{_DD}: if weight tensor is provided, input tensor and weight tensor should "
                f"have the same dtype, but got input({_dtype.c_type_name(points)}), and "
                f"weight({_dtype.c_type_name(weight)})"
            )
    edges = []
    for d in range(dims):
        b = bins[d]
        if isinstance(b, Tensor):
            if b.ndim != 1:
                raise RuntimeError(
                    f"{_DD}: bins tensor should have one dimension, but got {b.ndim} dimensions "
                    f"in the bins tensor for dimension {d}"
                )
            if b._data.dtype != points.dtype:
                raise RuntimeError(
                    f"{_DD}: input tensor and bins tensors should have the same dtype, but got "
                    f"input with dtype {_dtype.c_type_name(points)} and bins for dimension "
                    f"{d} with dtype {_dtype.c_type_name(b._data)}"
                )
            edges.append(b._data.copy())
            continue
        if b <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}"
            )
        given = None if ranges is None else (ranges[2 * d], ranges[2 * d + 1])
        low, high = _outer_edges(points[:, d], given, d)
        edges.append(_evenly_spaced(low, high, b + 1, points.dtype))
    hist = _counts(points, edges, weight, evenly=all(not isinstance(b, Tensor) for b in bins))
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * dims
            shape[d] = e.size - 1
            hist = hist / np.diff(e).reshape(shape)
        hist = hist.astype(points.dtype)
    return hist, edges


def _check_float(input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        name = _dtype.scalar_name(input)
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{name}'")


def _weights(weight: Tensor | None, shape: tuple[int, ...]) -> np.ndarray | None:
    """The weights, one per value (flattened when they have the values' shape)."""
    if weight is None:
        return None
    return weight._data.reshape(-1) if weight._data.shape == shape else weight._data


def _graph_inputs(input: Tensor, weight: Tensor | None) -> list[Tensor] | None:
    """The inputs a node is recorded for (those that require grad, as PyTorch's node has
    edges to those alone), or None when none is."""
    inputs = [t for t in (input, weight) if t is not None and t.requires_grad]
    return inputs if inputs and grad_mode.is_grad_enabled() else None


def histogram(
    input: Tensor,
    bins: int | Tensor = 100,
    *,
    range: Sequence[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """The histogram of all of `input`'s values, and its bin edges (`bins + 1` of them, or
    the edges given)."""
    _check_float(input)
    points = input._data.reshape(-1, 1)
    hist, (edges,) = _histogramdd(
        points, [bins], range, None if weight is None else weight._data.reshape(-1), density
    )
    recorded = _graph_inputs(input, weight)
    if recorded is not None:
        return _return_types.histogram(_recorded("histogram", recorded, (hist, edges)))
    return _return_types.histogram((Tensor._make(hist), Tensor._make(edges)))


def histogramdd(
    input: Tensor,
    bins: int | Sequence[int] | Sequence[Tensor],
    *,
    range: Sequence[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """The histogram of the points in `input`'s last dim (one coordinate per column), and
    the bin edges of each dimension."""
    _check_float(input)
    if input.ndim < 2:
        raise RuntimeError(f"{_DD}: input tensor should have at least 2 dimensions")
    dims = input._data.shape[-1]
    points = input._data.reshape(-1, dims)
    if isinstance(bins, int | Tensor):
        bins = [bins] * dims
    if len(bins) != dims:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    weights = _weights(weight, input._data.shape[:-1])
    hist, edges = _histogramdd(points, list(bins), range, weights, density)
    recorded = _graph_inputs(input, weight)
    if recorded is not None:
        made = _recorded("_histogramdd_from_bin_cts", recorded, (hist,))
        edge_tensors = tuple(_recorded("_histogramdd_bin_edges", [input], (e,)) for e in edges)
        return _return_types.histogramdd((made, edge_tensors))
    return _return_types.histogramdd((Tensor._make(hist), tuple(Tensor._make(e) for e in edges)))
