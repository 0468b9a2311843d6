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
from ..primitive import Primitive, wrap_dim
from ..view_tracking import MultiView, slice_dim
from .views import cat

__all__ = [
    "chunk",
    "dsplit",
    "hsplit",
    "split",
    "split_with_sizes",
    "tensor_split",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
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


# The unsafe forms: the same pieces, sharing the input's memory, but not views of it (no
# shared version counter, no view tracking), so they may be modified in place freely.
_unsafe_prims: dict[tuple[str, int], Primitive] = {}


def _join_pieces(grads: Sequence[Tensor], n: Any) -> Tensor:
    return cat(grads, n.dim)


def _unsafe_pieces(name: str, input: Tensor, dim: int, sizes: tuple[int, ...]) -> Any:
    count = len(sizes)
    prim = _unsafe_prims.get((name, count))
    if prim is None:
        single = count == 1  # a one-output Primitive gets and gives a lone array and gradient
        prim = _unsafe_prims[name, count] = Primitive(
            name,
            (lambda a, **params: _pieces(a, **params)[0]) if single else _pieces,
            # The rule gets a tuple of gradients, which the Rule type does not spell.
            grads=((lambda g, n: cat((g,), n.dim)) if single else _join_pieces,),  # type: ignore[arg-type]
            formulas=("the grad of each piece, joined along dim {dim}",),
            outputs=("result",) if single else tuple(f"result{i}" for i in range(count)),
            tangent="linear",
        )
    out = prim(input, dim=dim, sizes=sizes)
    return (out,) if count == 1 else out


def _as_int(value: Any, fn: str, arg: str, position: int = 1) -> int:
    if isinstance(value, Tensor) and value.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(
            f"{fn}(): argument '{arg}' (position {position}) must be int, not "
            f"{type(value).__name__}"
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


def _with_sizes(tensor: Tensor, split_sizes: Sequence[Any], dim: int) -> tuple[int, ...]:
    """The listed sizes, checked against the size of dim `dim` (already wrapped)."""
    size = tensor._data.shape[dim]
    sizes = _sizes_list(split_sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(sizes)}"
        )
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={list(sizes)}"
        )
    return sizes


def _even_sizes(tensor: Tensor, step: int, dim: int) -> tuple[int, ...]:
    """Pieces of `step` along dim `dim` (already wrapped); the last may be smaller."""
    size = tensor._data.shape[dim]
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    count = max(1, -(-size // step)) if step else 1
    return tuple(min(step, size - i * step) for i in range(count))


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of `split_size` along `dim` (the last may be smaller), or of the listed sizes."""
    _check_dims("split", tensor)
    d = wrap_dim(dim, tensor.ndim)
    if isinstance(split_size_or_sections, Sequence):
        sizes = _with_sizes(tensor, split_size_or_sections, d)
        return _split_with_sizes(tensor, len(sizes), dim=d, sizes=sizes)
    step = _as_int(split_size_or_sections, "split", "split_size")
    sizes = _even_sizes(tensor, step, d)
    return _split(tensor, len(sizes), dim=d, sizes=sizes)


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
    d = wrap_dim(dim, input.ndim)
    sizes = _with_sizes(input, sizes, d)
    return _split_with_sizes(input, len(sizes), dim=d, sizes=sizes)


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


def unsafe_split(
    tensor: Tensor, split_size: Any, dim: int = 0, *, _position: int = 2
) -> tuple[Tensor, ...]:
    """`split` into pieces of `split_size` whose results are not views (see `_unsafe_pieces`)."""
    step = _as_int(split_size, "unsafe_split", "split_size", _position)
    _check_dims("split", tensor)
    d = wrap_dim(dim, tensor.ndim)
    sizes = _even_sizes(tensor, step, d)
    return _unsafe_pieces("UnsafeSplitBackward0", tensor, d, sizes)


def unsafe_split_with_sizes(
    input: Tensor, split_sizes: Sequence[Any], dim: int = 0
) -> tuple[Tensor, ...]:
    """`split` into the listed sizes, with results that are not views."""
    _check_dims("split", input)
    d = wrap_dim(dim, input.ndim)
    sizes = _with_sizes(input, split_sizes, d)
    return _unsafe_pieces("UnsafeSplitWithSizesBackward0", input, d, sizes)


def unsafe_chunk(
    input: Tensor, chunks: int, dim: int = 0, *, _position: int = 2
) -> tuple[Tensor, ...]:
    """`chunk` with results that are not views."""
    count = _as_int(chunks, "unsafe_chunk", "chunks", _position)
    _check_dims("chunk", input)
    if count <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {count}")
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if size == 0:
        return _unsafe_pieces("UnsafeSplitBackward0", input, d, (0,) * count)
    return unsafe_split(input, -(-size // count), d)


# The methods: their errors count arguments after `self`, as PyTorch's do.
def unsafe_split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return unsafe_split(self, split_size, dim, _position=1)


def unsafe_chunk_method(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return unsafe_chunk(self, chunks, dim, _position=1)


unsafe_split_method.__name__ = unsafe_split_method.__qualname__ = "unsafe_split"
unsafe_chunk_method.__name__ = unsafe_chunk_method.__qualname__ = "unsafe_chunk"
