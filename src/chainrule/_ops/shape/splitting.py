"""Splitting a tensor into views along a dim: split and chunk (one node for all the
pieces, as PyTorch's SplitBackward0), tensor_split and hsplit/vsplit/dsplit (slices).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..primitive import wrap_dim
from ..view_tracking import MultiView, slice_dim
from .views import cat

__all__ = [
    "chunk",
    "dsplit",
    "hsplit",
    "split",
    "split_with_sizes",
    "tensor_split",
    "vsplit",
]


def _pieces(a: np.ndarray, dim: int, sizes: tuple[int, ...], **_: Any) -> tuple[np.ndarray, ...]:
    bounds = np.cumsum((0, *sizes))
    lead = (slice(None),) * dim
    return tuple(a[(*lead, slice(s, e))] for s, e in itertools.pairwise(bounds))


_split = MultiView(
    "SplitBackward0",
    _pieces,
    lambda grads, n: cat(grads, n.dim),
    "the grad of each piece, joined along dim {dim}",
)
_split_with_sizes = MultiView(
    "SplitWithSizesBackward0",
    _pieces,
    lambda grads, n: cat(grads, n.dim),
    "the grad of each piece, joined along dim {dim}",
)


def _as_int(value: Any, fn: str, arg: str) -> int:
    if isinstance(value, Tensor) and value.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(
            f"{fn}(): argument '{arg}' (position 1) must be int, not {type(value).__name__}"
        )
    return int(value)


def _sizes_list(sizes: Sequence[Any], position: int = 2) -> tuple[int, ...]:
    out = []
    for i, s in enumerate(sizes):
        if isinstance(s, bool | float | np.floating | np.bool_):
            raise TypeError(
                f"split_with_sizes(): argument 'split_sizes' (position {position}) must be tuple "
                f"of ints, but found element of type {type(s).__name__} at pos {i}"
            )
        if not isinstance(s, int | np.integer | Tensor):
            raise TypeError(
                "split_with_sizes(): argument 'split_sizes' failed to unpack the object at pos "
                f'{i + 1} with error "type must be tuple of ints,but got {type(s).__name__}"'
            )
        out.append(int(s))
    return tuple(out)


def _check_dims(name: str, input: Tensor) -> None:
    if input.ndim == 0:
        raise RuntimeError(f"{name} expects at least a 1-dimensional tensor")


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of `split_size` along `dim` (the last may be smaller), or of the listed sizes."""
    _check_dims("split", tensor)
    d = wrap_dim(dim, tensor.ndim)
    size = tensor._data.shape[d]
    if isinstance(split_size_or_sections, Sequence):
        return _with_sizes(tensor, _sizes_list(split_size_or_sections), d)
    step = _as_int(split_size_or_sections, "split", "split_size")
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    count = max(1, -(-size // step)) if step else 1
    sizes = tuple(min(step, size - i * step) for i in range(count))
    return _split(tensor, count, dim=d, sizes=sizes)


def _with_sizes(tensor: Tensor, sizes: tuple[int, ...], d: int) -> tuple[Tensor, ...]:
    size = tensor._data.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(sizes)}"
        )
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(sizes)}"
        )
    return _split_with_sizes(tensor, len(sizes), dim=d, sizes=sizes)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of the listed sizes along `dim` (they must add up to its size)."""
    return _split_with_sizes_checked(input, split_sizes, dim, position=2)


def split_with_sizes_method(
    self: Tensor, split_sizes: Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    """`x.split_with_sizes([1, 2])`: as `split_with_sizes` (PyTorch counts its argument first)."""
    return _split_with_sizes_checked(self, split_sizes, dim, position=1)


split_with_sizes_method.__name__ = split_with_sizes_method.__qualname__ = "split_with_sizes"


def _split_with_sizes_checked(
    input: Tensor, split_sizes: Any, dim: int, position: int
) -> tuple[Tensor, ...]:
    if not isinstance(split_sizes, Sequence):
        raise TypeError(
            f"split_with_sizes(): argument 'split_sizes' (position {position}) must be tuple of "
            f"ints, not {type(split_sizes).__name__}"
        )
    sizes = _sizes_list(split_sizes, position)
    _check_dims("split", input)
    return _with_sizes(input, sizes, wrap_dim(dim, input.ndim))


def split_method(
    self: Tensor, split_size: Any = None, dim: int = 0, **kwargs: Any
) -> tuple[Tensor, ...]:
    """`x.split(2)`, or `x.split(split_size_or_sections=[1, 2])`: as `split`."""
    if split_size is None:
        split_size = kwargs.pop("split_size_or_sections", None)
    for name in kwargs:
        raise TypeError(f"Tensor.split() got an unexpected keyword argument '{name}'")
    return split(self, split_size, dim)


split_method.__name__ = split_method.__qualname__ = "split"


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most `chunks` equal pieces along `dim` (the last may be smaller; there may be fewer)."""
    if isinstance(chunks, bool) or not isinstance(chunks, int | np.integer):
        raise TypeError(
            f"chunk(): argument 'chunks' (position 1) must be int, not {type(chunks).__name__}"
        )
    _check_dims("chunk", input)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if size == 0:  # PyTorch gives `chunks` empty pieces
        return _split(input, int(chunks), dim=d, sizes=(0,) * int(chunks))
    return split(input, -(-size // int(chunks)), d)


def _slices(input: Tensor, dim: int, cuts: Sequence[int]) -> tuple[Tensor, ...]:
    """`input[cuts[i-1]:cuts[i]]` along `dim` for each gap (Python slice bounds)."""
    size = input._data.shape[dim]
    edges = [0, *cuts, size]
    out = []
    for start, stop in itertools.pairwise(edges):
        s, e, _ = slice(start, stop).indices(size)
        out.append(slice_dim(input, dim, s, max(s, e)))
    return tuple(out)


def tensor_split(
    input: Tensor,
    indices_or_sections: Any = None,
    dim: int = 0,
    *,
    sections: int | None = None,
    indices: Sequence[int] | None = None,
) -> tuple[Tensor, ...]:
    """`sections` nearly equal pieces (the first ones one larger), or pieces cut at `indices`."""
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    how = indices_or_sections
    how = sections if sections is not None else indices if indices is not None else how
    if isinstance(how, Tensor):
        if how._data.dtype != np.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                + _dtype.scalar_name(how)
            )
        if how.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {how.ndim} dims"
            )
        how = how.tolist()
    d = wrap_dim(dim, input.ndim)
    if isinstance(how, Sequence):
        if any(isinstance(i, bool) or not isinstance(i, int | np.integer) for i in how):
            raise TypeError(
                f"tensor_split() received an invalid combination of arguments - got "
                f"({type(indices_or_sections).__name__}), but expected one of: (Tensor input, "
                "int sections, int dim), (Tensor input, tuple of ints indices, int dim)"
            )
        return _slices(input, d, [int(i) for i in how])
    n = _as_int(how, "tensor_split", "sections")
    if n <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {n}")
    size = input._data.shape[d]
    small, extra = divmod(size, n)
    cuts = np.cumsum([small + 1 if i < extra else small for i in range(n - 1)])
    return _slices(input, d, [int(c) for c in cuts])


def _split_along(name: str, input: Tensor, how: Any, dim: int, min_dims: int) -> Any:
    if input.ndim < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {input.ndim} dimensions!"
        )
    if not isinstance(how, Sequence | Tensor):
        size = input._data.shape[dim]
        if how == 0 or size % how:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {how}!"
            )
    return tensor_split(input, how, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    dim = 0 if input.ndim == 1 else 1
    return _split_along("hsplit", input, indices_or_sections, dim, 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("dsplit", input, indices_or_sections, 2, 3)
