"""The functional inverses of views: diagonal_scatter, select_scatter and slice_scatter
give a copy of the input with one of its views (a diagonal, a selected slice, a strided
slice) replaced by another tensor.

Each one's gradient is the view of the gradient (for the tensor written in) and the
gradient with zeros written in (for the input), so they differentiate to each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _strides
from ..._autograd import grad_mode
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim
from .diagonals import diagonal_view

__all__ = ["diagonal_scatter", "select_scatter", "slice_scatter"]


def _written(a: np.ndarray, src: np.ndarray, region: Callable[[np.ndarray], Any]) -> np.ndarray:
    """A copy of `a` with `region` of it set to `src`."""
    out = a.copy()
    view = region(out)
    view[...] = src
    return out


def keeps_strides(out: np.ndarray, first: np.ndarray, *_: np.ndarray) -> np.ndarray:
    """`out` with the input's strides: PyTorch's scatters copy the input's whole memory
    and write into that. An input that overlaps itself (expanded) is copied densely."""
    strides = _strides.of(first)
    if any(s == 0 and n > 1 for n, s in zip(first.shape, strides, strict=True)):
        return _strides.like_first(out, first)
    return _strides.restrided(out, strides)


def _zeros_like_src(g: Tensor, n: Any) -> Tensor:
    return Tensor._make(np.zeros(n.src_sizes, g._data.dtype))


def _check_src(src: Any, fn: str, slice_shape: tuple[int, ...]) -> None:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"{fn}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}"
        )
    if src._data.shape != slice_shape:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(slice_shape)}"
        )


# --- diagonal_scatter -----------------------------------------------------------------------

_diagonal_scatter = Primitive(
    "DiagonalScatterBackward0",
    lambda a, src, offset, dim1, dim2, **_: _written(
        a, src, lambda out: diagonal_view(out, offset, dim1, dim2)
    ),
    inputs=("self", "src"),
    grads=(
        lambda g, n: diagonal_scatter(g, _zeros_like_src(g, n), n.offset, n.dim1, n.dim2),
        lambda g, n: g.diagonal(n.offset, n.dim1, n.dim2),
    ),
    formulas=(
        "grad with zeros on diagonal {offset} of dims {dim1}, {dim2}",
        "diagonal {offset} of grad (dims {dim1}, {dim2})",
    ),
    tangent="linear",
    layout=keeps_strides,
)


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of `input` with its `offset`-th diagonal in dims (dim1, dim2) set to `src`."""
    with grad_mode.no_grad():
        slice_shape = input.diagonal(offset, dim1, dim2)._data.shape  # diagonal's own checks
    _check_src(src, "diagonal_scatter", slice_shape)
    d1, d2 = wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim)
    return _diagonal_scatter(
        input, src, offset=int(offset), dim1=d1, dim2=d2, src_sizes=src._data.shape
    )


# --- select_scatter -------------------------------------------------------------------------

_select_scatter = Primitive(
    "SelectScatterBackward0",
    lambda a, src, dim, index, **_: _written(
        a, src, lambda out: out[(slice(None),) * dim + (index,)]
    ),
    inputs=("self", "src"),
    grads=(
        lambda g, n: select_scatter(g, _zeros_like_src(g, n), n.dim, n.index),
        lambda g, n: g.select(n.dim, n.index),
    ),
    formulas=(
        "grad with zeros at index {index} of dim {dim}",
        "grad at index {index} of dim {dim}",
    ),
    tangent="linear",
    layout=keeps_strides,
)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of `input` with its slice at `index` along `dim` set to `src`."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    with grad_mode.no_grad():
        slice_shape = input.select(dim, index)._data.shape  # select's own checks
    _check_src(src, "select_scatter", slice_shape)
    d = wrap_dim(dim, input.ndim)
    i = int(index) + (input._data.shape[d] if index < 0 else 0)
    return _select_scatter(input, src, dim=d, index=i, src_sizes=src._data.shape)


# --- slice_scatter --------------------------------------------------------------------------


def _slice_key(dim: int, start: int, end: int, step: int) -> tuple[Any, ...]:
    return (*(slice(None),) * dim, slice(start, end, step))


_slice_scatter = Primitive(
    "SliceScatterBackward0",
    lambda a, src, dim, start, end, step, **_: _written(
        a, src, lambda out: out[_slice_key(dim, start, end, step)]
    ),
    inputs=("self", "src"),
    grads=(
        lambda g, n: slice_scatter(g, _zeros_like_src(g, n), n.dim, n.start, n.end, n.step),
        lambda g, n: g[_slice_key(n.dim, n.start, n.end, n.step)],
    ),
    formulas=(
        "grad with zeros at {start}:{end}:{step} of dim {dim}",
        "grad at {start}:{end}:{step} of dim {dim}",
    ),
    tangent="linear",
    layout=keeps_strides,
)


def slice_scatter(
    input: Tensor,
    src: Tensor,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> Tensor:
    """A copy of `input` with `input[..., start:end:step, ...]` (at `dim`) set to `src`."""
    d = wrap_dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = input._data.shape[d] if input.ndim else 1
    first, last, _ = slice(start, end, step).indices(size)
    last = max(last, first)  # an empty slice, as PyTorch clamps it
    shape = list(input._data.shape)
    if input.ndim:
        shape[d] = len(range(first, last, step))
    _check_src(src, "slice_scatter", tuple(shape))
    return _slice_scatter(
        input, src, dim=d, start=first, end=last, step=int(step), src_sizes=src._data.shape
    )
