"""Views by strides over a tensor's memory: as_strided (any sizes, strides and storage
offset into the memory of the base), as_strided_ and as_strided_scatter; unfold (sliding
windows along a dim) and fill_diagonal_, which PyTorch writes through such a view.

Note: a chainrule tensor's memory is its base's NumPy array. PyTorch's storage offsets
count elements from the start of that array (`Tensor.storage_offset`), so as_strided
reads the base's memory from there, whatever the strides of the tensor it is given.
Its gradient adds the output's gradient into a buffer as long as that memory, at the
places each element was read from, and reads the input's elements back out of it
(dividing by how often the input itself sees a place, when it overlaps, as PyTorch).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _strides
from ..._autograd import tangents as _tangents
from ..._tensor import Tensor
from ..inplace import check_writable
from ..primitive import Primitive, wrap_dim
from ..primitive import _track_view as track_view
from .scatters import keeps_strides

__all__ = ["as_strided", "as_strided_", "as_strided_scatter"]


class _Memory:
    """Elements of `owner`'s memory seen with other sizes and strides, from `start` (bytes
    from `owner`'s first element); NumPy builds an array on it that keeps `owner` alive."""

    def __init__(self, owner: np.ndarray, shape: Sequence[int], strides: Sequence[int], start: int):
        self.base = owner
        self.__array_interface__ = {
            "version": 3,
            "typestr": owner.dtype.str,
            "data": (owner.__array_interface__["data"][0] + start, False),
            "shape": tuple(shape),
            "strides": tuple(s * owner.itemsize for s in strides),
        }


def strided_view(a: np.ndarray, shape: Sequence[int], strides: Sequence[int], shift: int) -> Any:
    """A writable view of the memory around `a`: `shape` and `strides` (elements), starting
    `shift` elements after `a`'s first element (before it, if negative)."""
    return np.asarray(_Memory(a, shape, strides, shift * a.itemsize))


def _positions(shape: Sequence[int], strides: Sequence[int], offset: int) -> np.ndarray:
    """Where in memory (elements from the start) each element of a strided view is."""
    pos = np.full(tuple(shape), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides, strict=True)):
        pos += (np.arange(n) * s).reshape((-1,) + (1,) * (len(shape) - d - 1))
    return pos


def _extent(shape: Sequence[int], strides: Sequence[int]) -> int:
    """Elements from the first to one past the last of a strided view (0 if empty)."""
    if 0 in shape:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))


def _storage_size(t: Tensor) -> int:
    """How many elements the memory under `t` (its base's array) holds."""
    root = (t._base if t._base is not None else t)._data
    return _extent(root.shape, _strides.of(root))


# --- as_strided -----------------------------------------------------------------------------


def _as_strided_grad(g: Tensor, n: Any) -> Tensor:
    """Sum the gradient into memory where each output element was read, then read the
    input's elements from there (averaged over an input that sees a place several times)."""
    in_pos = _positions(n.self_sizes, n.self_strides, n.self_offset).reshape(-1)
    out_pos = _positions(n.size, n.stride, n.storage_offset).reshape(-1)
    if not in_pos.size or not out_pos.size:
        return Tensor._make(np.zeros(n.self_sizes, g._data.dtype))
    length = int(max(in_pos.max(), out_pos.max())) + 1
    memory = Tensor._make(np.zeros(length, g._data.dtype))
    memory = memory.index_add(0, Tensor._make(out_pos), g.reshape(-1))
    grad = memory.index_select(0, Tensor._make(in_pos))
    seen = np.bincount(in_pos, minlength=length)
    if (seen > 1).any():
        grad = grad / Tensor._make(seen[in_pos].astype(g._data.dtype))
    return grad.reshape(n.self_sizes)


def _as_strided_forward(
    a: np.ndarray, size: Any, stride: Any, shift: int, self_strides: Any, **_: Any
) -> Any:
    if _strides.of(a) == tuple(self_strides) and _inside_memory(a, size, stride, shift):
        return strided_view(a, size, stride, shift)
    return _read_as_input(a, size, stride, shift, self_strides)


def _inside_memory(a: np.ndarray, size: Any, stride: Any, shift: int) -> bool:
    """Whether the places the view reads lie in the memory `a` is a view of."""
    owner: Any = a
    while isinstance(owner.base, np.ndarray | _Memory):
        owner = owner.base if isinstance(owner.base, np.ndarray) else owner.base.base
    low = owner.__array_interface__["data"][0]
    high = low + _extent(owner.shape, _strides.of(owner)) * owner.itemsize
    start = a.__array_interface__["data"][0] + shift * a.itemsize
    return low <= start and start + _extent(size, stride) * a.itemsize <= high


def _read_as_input(a: np.ndarray, size: Any, stride: Any, shift: int, self_strides: Any) -> Any:
    """The view of a tensor shaped like the input but laid out otherwise (a gradient, an
    expanded one): its elements placed as the input's were, memory it does not cover read
    as zeros."""
    start = max(0, -shift)
    places = _positions(a.shape, self_strides, start)
    length = max(int(places.max(initial=-1)) + 1, start + shift + _extent(size, stride))
    memory = np.zeros(length, a.dtype)
    memory[places] = a
    return strided_view(memory, size, stride, start + shift)


_as_strided = Primitive(
    "AsStridedBackward0",
    _as_strided_forward,
    grads=(_as_strided_grad,),
    formulas=("grad added into memory where it was read, read back as self",),
    view=True,
)
# as_strided_: the same op, recorded in place.
_as_strided_inplace = Primitive(
    "AsStridedBackward1",
    _as_strided_forward,
    grads=(_as_strided_grad,),
    formulas=("grad added into memory where it was read, read back as self",),
    tangent="linear",
)


def _int_list(value: Any, fn: str, arg: str, pos: int) -> list[int]:
    if isinstance(value, Tensor) or not isinstance(value, Sequence):
        raise TypeError(
            f"{fn}(): argument '{arg}' (position {pos}) must be tuple of ints, not "
            f"{type(value).__name__}"
        )
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise TypeError(
                f"{fn}(): argument '{arg}' (position {pos}) must be tuple of ints, but found "
                f"element of type {type(v).__name__} at pos {i}"
            )
    return [int(v) for v in value]


def _geometry(
    input: Tensor, size: Any, stride: Any, storage_offset: Any, fn: str = "as_strided"
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The sizes, strides and storage offset asked for, checked as PyTorch checks them."""
    sizes = _int_list(size, fn, "size", 1)
    strides = _int_list(stride, fn, "stride", 2)
    if storage_offset is None:
        offset = input.storage_offset()
    elif isinstance(storage_offset, bool) or not isinstance(storage_offset, int | np.integer):
        raise TypeError(
            f"{fn}(): argument 'storage_offset' (position 3) must be int, not "
            f"{type(storage_offset).__name__}"
        )
    else:
        offset = int(storage_offset)
    if any(s < 0 for s in strides):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: {strides}"
        )
    if len(sizes) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in sizes):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={sizes} and strides={strides}"
        )
    storage = _storage_size(input)
    needed = offset + _extent(sizes, strides)
    if 0 not in sizes and needed > storage:
        item = input._data.itemsize
        raise RuntimeError(
            f"setStorage: sizes {sizes}, strides {strides}, storage offset {offset}, and "
            f"itemsize {item} requiring a storage size of {needed * item} are out of bounds "
            f"for storage of size {storage * item}"
        )
    return tuple(sizes), tuple(strides), offset


def _params(input: Tensor, sizes: Any, strides: Any, offset: int) -> dict[str, Any]:
    here = input.storage_offset()
    return {
        "size": sizes,
        "stride": strides,
        "storage_offset": offset,
        "shift": offset - here,
        "self_sizes": input._data.shape,
        "self_strides": _strides.of(input._data),
        "self_offset": here,
    }


def as_strided(
    input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    """A view of `input`'s memory (its base's) with the given sizes and strides, starting
    `storage_offset` elements in (by default where `input` starts)."""
    sizes, strides, offset = _geometry(input, size, stride, storage_offset)
    params = _params(input, sizes, strides, offset)
    view = _as_strided(input, **params)
    if view._base is None and view._data.size:  # memory beside `input`'s own, in its base
        track_view(view, input, _as_strided, params)
    return view


def as_strided_(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    """Make `self` itself the view `as_strided` would give (same memory, new geometry)."""
    sizes, strides, offset = _geometry(self, size, stride, storage_offset)
    check_writable(self)
    params = _params(self, sizes, strides, offset)

    def as_strided_view(t: Tensor) -> Tensor:
        return _as_strided_inplace(t, **params)

    alias = Tensor._make(self._data, self._requires_grad, self._grad_fn, self._output_nr)
    new = _as_strided_inplace(alias, **params)
    tangent = _tangents.tangent_of(self) if _tangents._active else None
    self._data = new._data
    if tangent is not None:  # the tangent takes the new geometry too
        _tangents.set_tangent(self, _tangents._without_push(lambda: as_strided_view(tangent)))
    if new._grad_fn is not None:
        self._grad_fn, self._output_nr = new._grad_fn, 0
    view_fn = self._view_fn
    if view_fn is not None:  # how the view is made again from its base: then restrided
        self._view_fn = lambda base: as_strided_view(view_fn(base))
    self._version_counter.value += 1  # new geometry, same values: no view needs a new node
    return self


# --- as_strided_scatter ---------------------------------------------------------------------


def _scatter_forward(
    a: np.ndarray, src: np.ndarray, size: Any, stride: Any, at: int, here: int, **_: Any
) -> np.ndarray:
    """A copy of `a` (which starts `here` in its memory) with the strided region that
    starts `at` set to `src`."""
    in_pos = _positions(a.shape, _strides.of(a), here)
    region = _positions(size, stride, at)
    length = int(max(in_pos.max(initial=-1), region.max(initial=-1))) + 1
    memory = np.zeros(length, a.dtype)
    memory[in_pos] = a
    memory[region] = src
    return memory[in_pos]


def _scatter_src_grad(g: Tensor, n: Any) -> Tensor:
    return as_strided(g.contiguous(), n.size, n.stride, n.storage_offset)


def _scatter_self_grad(g: Tensor, n: Any) -> Tensor:
    """PyTorch's gradient for the input keeps the region src was written to and zeros the
    rest (the reverse of what was kept from the input); it is reproduced as it is."""
    region = _scatter_src_grad(g, n)
    return as_strided_scatter(_zeros_like(g, g.shape), region, n.size, n.stride, n.storage_offset)


_as_strided_scatter = Primitive(
    "AsStridedScatterBackward0",
    _scatter_forward,
    inputs=("self", "src"),
    grads=(_scatter_self_grad, _scatter_src_grad),
    formulas=("grad where src was written, zeros elsewhere", "grad where src was written"),
    tangent="linear",
    layout=keeps_strides,
)


def _zeros_like(g: Tensor, shape: Any) -> Tensor:
    return Tensor._make(np.zeros(tuple(shape), g._data.dtype))


def as_strided_scatter(
    input: Tensor,
    src: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None = None,
) -> Tensor:
    """A copy of `input` with the elements `as_strided(size, stride, storage_offset)` would
    view set to `src`."""
    if not isinstance(src, Tensor):
        raise TypeError(
            "as_strided_scatter(): argument 'src' (position 2) must be Tensor, not "
            f"{type(src).__name__}"
        )
    if input._requires_grad and not input.is_contiguous():
        raise RuntimeError(
            "!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "
            '"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp":4754, please report '
            "a bug to PyTorch. as_strided_scatter is currently only supported for contiguous "
            "inputs"
        )
    sizes, strides, offset = _geometry(input, size, stride, storage_offset, "as_strided_scatter")
    if src._data.shape != sizes:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(sizes)}"
        )
    here = input.storage_offset()
    return _as_strided_scatter(
        input, src, size=sizes, stride=strides, storage_offset=storage_offset, at=offset, here=here
    )


# --- unfold ---------------------------------------------------------------------------------


def _windows(a: np.ndarray, dim: int, size: int, step: int) -> np.ndarray:
    """The windows of `size` every `step` along `dim`, as a new last dim (a view)."""
    if a.ndim == 0:  # a 0-d tensor is its one window (or none), without a dim for windows
        return strided_view(a, (size,), (1,), 0)
    strides = list(_strides.of(a))
    count = (a.shape[dim] - size) // step + 1
    shape = [*a.shape[:dim], count, *a.shape[dim + 1 :], size]
    new_strides = [*strides[:dim], strides[dim] * step, *strides[dim + 1 :], strides[dim]]
    return strided_view(a, shape, new_strides, 0)


def _unfold_backward_forward(
    g: np.ndarray, self_sizes: Any, dim: int, size: int, step: int
) -> np.ndarray:
    if not self_sizes:
        return g.sum(dtype=g.dtype)
    out = np.zeros(tuple(self_sizes), g.dtype)
    windows = g.shape[dim]
    for k in range(size):  # the k-th element of every window, added back where it came from
        key = (slice(None),) * dim + (slice(k, k + step * (windows - 1) + 1, step),)
        out[key] += g[..., k]
    return out.reshape(tuple(self_sizes))


_unfold_backward = Primitive(
    "UnfoldBackwardBackward0",
    _unfold_backward_forward,
    inputs=("grad",),
    grads=(lambda g, n: unfold(g, n.dim, n.size, n.step),),
    formulas=("grad.unfold({dim}, {size}, {step})",),
    tangent="linear",
    layout=_strides.contiguous_array,
)
_unfold = Primitive(
    "UnfoldBackward0",
    lambda a, dim, size, step, **_: _windows(a, dim, size, step),
    grads=(
        lambda g, n: _unfold_backward(
            g, self_sizes=n.self_sizes, dim=n.dim, size=n.size, step=n.step
        ),
    ),
    formulas=("zeros of shape {in_shape} with each window of grad added where it was taken",),
    view=True,
)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of `size` elements every `step` along `dimension`, as a new last dim
    (a view)."""
    d = wrap_dim(dimension, max(self.ndim, 1))
    length = self._data.shape[d] if self.ndim else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return _unfold(self, dim=d, size=int(size), step=int(step), self_sizes=self._data.shape)


# --- fill_diagonal_ -------------------------------------------------------------------------


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all indices equal) in place; with `wrap`, a tall matrix's
    diagonal starts again every `columns + 1` rows, as in NumPy."""
    if (
        isinstance(fill_value, str | bytes)
        or fill_value is None
        or (isinstance(fill_value, Tensor) and fill_value.ndim)
    ):
        raise TypeError(
            "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self._data.shape[:2]
    if self.ndim > 2 and any(n != height for n in self._data.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    offset = self.storage_offset()
    step = sum(_strides.of(self._data))
    as_strided(self, [min(height, width)], [step], offset).fill_(fill_value)
    if wrap and self.ndim == 2 and height > width + 1:
        rest = math.ceil(self.numel() / (width + 1)) - min(height, width)
        start = offset + self.stride(0) * (width + 1)
        as_strided(self, [rest], [step], start).fill_(fill_value)
    return self
