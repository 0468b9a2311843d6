"""Shape ops: views (reshape, transpose, permute, squeeze, expand, ...), copies and casts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import _dtype, _strides
from ..._device import device, require_cpu
from ..._size import Size
from ..._tensor import Tensor
from ..primitive import Primitive, tangents_or_zeros, wrap_dim
from ..view_tracking import slice_dim

__all__ = [
    "cat",
    "clone",
    "flatten",
    "permute",
    "reshape",
    "squeeze",
    "stack",
    "t",
    "transpose",
    "unsqueeze",
]


def _sizes(size: tuple[Any, ...]) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))` and `f(Size([2, 3]))` all mean the shape (2, 3)."""
    if len(size) == 1 and not isinstance(size[0], int | np.integer | Tensor):
        size = tuple(size[0])
    return tuple(map(int, size))


def infer_shape(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """Resolve one -1 in a requested shape, with PyTorch's errors."""
    shape = tuple(shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 or numel % known:
            if known == 0 and numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = (*shape[: unknown[0]], numel // known, *shape[unknown[0] + 1 :])
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _view_forward(a: np.ndarray, shape: tuple[int, ...], **_: Any) -> np.ndarray:
    a = np.asarray(a)  # a rule may hand over a NumPy scalar, whose shape cannot be set
    if a.flags.c_contiguous and a.size and 1 not in a.shape and 1 not in shape:
        out = a.view()  # the common case: NumPy's strides are PyTorch's
        out.shape = shape
        return out
    strides = _strides.view_strides(a, shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return as_strided(a, shape, tuple(s * a.itemsize for s in strides))


def _unsafe_view_forward(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The data seen with another shape where it can be (a new result's, so no view is
    recorded), else a contiguous copy (reshape's fallback)."""
    if _strides.view_strides(a, shape) is None:
        return np.array(np.reshape(a, shape), order="C")
    return _view_forward(a, shape)


_view = Primitive(
    "ViewBackward0",
    _view_forward,
    grads=(lambda g, n: g.reshape(n.self_sizes),),
    formulas=("grad reshaped back to {in_shape}",),
    view=True,
)
_reshape_copy = Primitive(
    "UnsafeViewBackward0",
    lambda a, shape, **_: _unsafe_view_forward(a, shape),
    grads=(lambda g, n: g.reshape(n.self_sizes),),
    formulas=("grad reshaped back to {in_shape}",),
    tangent="linear",
)


def view(input: Tensor, *shape: Any) -> Tensor:
    """The same data seen with another shape; fails where that needs a copy."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        raise NotImplementedError("view(dtype) is not supported")
    new = infer_shape(_sizes(shape), input.numel())
    return _view(input, shape=new, self_sizes=input._data.shape)


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """Like `view`, but copies when the data cannot be viewed with the new shape."""
    new = infer_shape(_sizes(shape), input.numel())
    try:
        return _view(input, shape=new, self_sizes=input._data.shape)
    except RuntimeError:
        return unsafe_view(input, new)


def unsafe_view(input: Tensor, shape: Sequence[int]) -> Tensor:
    """`input` with another shape, in a node of its own (PyTorch's `_unsafe_view`:
    UnsafeViewBackward0): for a result no one else holds, or a copy where no view fits."""
    return _reshape_copy(input, shape=tuple(shape), self_sizes=Size(input._data.shape))


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if input.ndim == 0:
        return reshape(input, 1)
    s, e = wrap_dim(start_dim, input.ndim), wrap_dim(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:  # nothing to merge: PyTorch returns the tensor itself
        return input
    shape = input.shape
    return reshape(input, (*shape[:s], math.prod(shape[s : e + 1]), *shape[e + 1 :]))


_transpose = Primitive(
    "TransposeBackward0",
    lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
    grads=(lambda g, n: g.transpose(n.dim0, n.dim1),),
    formulas=("grad with dims {dim0} and {dim1} swapped back",),
    view=True,
)
_t = Primitive(
    "TBackward0",
    lambda a: a.T,
    grads=(lambda g, n: g.t(),),
    formulas=("gradᵀ",),
    view=True,
    array_grads=(lambda g, n: transposed(g),),
)


def transposed(a: np.ndarray) -> np.ndarray:
    """`t()` of a matrix, on arrays (for array rules); of a transposed view, the array it
    came from (the same memory and strides, and an array AccumulateGrad can take over)."""
    b = a.base
    if (
        isinstance(b, np.ndarray)
        and b.shape == a.shape[::-1]
        and b.strides == a.strides[::-1]
        and b.__array_interface__["data"][0] == a.__array_interface__["data"][0]
    ):
        return b
    return _t.on_arrays(a)


_permute = Primitive(
    "PermuteBackward0",
    lambda a, dims: np.transpose(a, dims),
    grads=(lambda g, n: g.permute(tuple(np.argsort(n.dims))),),
    formulas=("grad permuted back (undoing dims {dims})",),
    view=True,
)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (a view)."""
    d0, d1 = wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim)
    return _transpose(input, dim0=d0, dim1=d1)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose of a matrix (0-d and 1-d tensors are returned as they are)."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return _t(input)


def permute(input: Tensor, *dims: Any) -> Tensor:
    """Reorder the dims (a view)."""
    order = _sizes(dims)
    if len(order) != input.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is "
            f"not equal to len(dims) = {len(order)}"
        )
    wrapped = tuple(wrap_dim(d, input.ndim) for d in order)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, dims=wrapped)


def reversed_dims(input: Tensor) -> Tensor:
    """`x.T`: the dims in reverse order (a view)."""
    return permute(input, tuple(range(input.ndim - 1, -1, -1)))


def matrix_transpose(input: Tensor) -> Tensor:
    """`x.mT`: the last two dims swapped (a view)."""
    return transpose(input, -2, -1)


def _unsqueeze_forward(a: np.ndarray, dim: int) -> np.ndarray:
    out = np.expand_dims(a, dim)
    # PyTorch's new dim steps over the dim it lands before; NumPy's may not.
    step = a.shape[dim] * a.strides[dim] if dim < a.ndim else a.itemsize
    if out.strides[dim] == step and a.size:
        return out
    return _strides.viewed(out, _strides.unsqueezed(a, dim))


_squeeze = Primitive(
    "SqueezeBackward0",
    lambda a, dims, **_: np.squeeze(a, axis=dims),
    grads=(lambda g, n: g.reshape(n.self_sizes),),
    formulas=("grad unsqueezed back to {in_shape}",),
    view=True,
)
_squeeze_dim = Primitive(
    "SqueezeBackward1",
    lambda a, dims, **_: np.squeeze(a, axis=dims),
    grads=(lambda g, n: g.reshape(n.self_sizes),),
    formulas=("grad unsqueezed back to {in_shape}",),
    view=True,
)
_unsqueeze = Primitive(
    "UnsqueezeBackward0",
    lambda a, dim: _unsqueeze_forward(a, dim),
    grads=(lambda g, n: g.squeeze(n.dim),),
    formulas=("grad with dim {dim} removed, back to {in_shape}",),
    view=True,
)


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Drop dims of size 1 (all of them, or those in `dim` that have size 1)."""
    shape = input._data.shape
    if dim is None:
        dims = tuple(i for i, s in enumerate(shape) if s == 1)
        return _squeeze(input, dims=dims, self_sizes=input._data.shape)
    wanted = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(d for d in (wrap_dim(d, input.ndim) for d in wanted) if shape and shape[d] == 1)
    return _squeeze_dim(input, dims=dims, self_sizes=input._data.shape)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at `dim` (a view)."""
    return _unsqueeze(input, dim=wrap_dim(dim, input.ndim + 1))


def _expand_forward(a: np.ndarray, shape: tuple[int, ...], **_: Any) -> np.ndarray:
    if a.ndim == 0 and shape:
        # One element to any shape: every stride 0, read-only, as np.broadcast_to makes
        # it, at a third of the cost (this is the backward of every full sum and mean).
        view = np.ndarray(shape, a.dtype, a, 0, (0,) * len(shape))
        view.flags.writeable = False
        return view
    view = np.broadcast_to(a, shape)
    return _strides.viewed(view, _strides.expanded(a, shape)) if 1 in shape else view


_expand = Primitive(
    "ExpandBackward0",
    _expand_forward,
    grads=(lambda g, n: g.sum_to_size(n.self_sizes),),
    formulas=("grad summed over the expanded dims, back to {in_shape}",),
    view=True,
)


def expand(input: Tensor, *sizes: Any) -> Tensor:
    """Broadcast to a larger shape without copying (-1 keeps a dim)."""
    want = _sizes(sizes)
    have = input._data.shape
    if len(want) < len(have):
        raise RuntimeError(
            f"expand({input.type()}{{[{', '.join(map(str, have))}]}}, size=["
            f"{', '.join(map(str, want))}]): the number of sizes provided ({len(want)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(have)})"
        )
    lead = len(want) - len(have)
    shape = list(want)
    for i, s in enumerate(have):
        w = want[lead + i]
        if w == -1:
            shape[lead + i] = s
        elif s != 1 and s != w:
            raise RuntimeError(
                f"The expanded size of the tensor ({w}) must match the existing size ({s}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(want)}.  Tensor "
                f"sizes: {list(have)}"
            )
    return _expand(input, shape=tuple(shape), self_sizes=input._data.shape)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    return expand(input, tuple(size))


# --- copies and casts ------------------------------------------------------------------

_clone = Primitive(
    "CloneBackward0",
    lambda a, contiguous=False: (
        a.copy() if contiguous or (a.flags.c_contiguous and 1 not in a.shape) else _strides.copy(a)
    ),
    grads=(lambda g, n: g,),
    formulas=("1",),
    tangent="linear",
)
_to_copy = Primitive(
    "ToCopyBackward0",
    lambda a, dt: a.astype(dt) if _strides.is_c_ordered(a) else _strides.copy(a, dtype=dt),
    grads=(lambda g, n: g,),
    formulas=("1 (cast back to the input's dtype)",),
    tangent="linear",
)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own memory, in the graph (gradients flow through)."""
    return _clone(input)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    return input if input._data.flags.c_contiguous else clone_contiguous(input)


def clone_contiguous(input: Tensor) -> Tensor:
    """A contiguous copy in the graph (PyTorch's `clone(memory_format=torch.contiguous_format)`)."""
    return _clone(input, contiguous=True)


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Cast to a dtype (`to(chainrule.float64)`, `to(other)`); devices other than cpu fail
    as on a CPU build of PyTorch."""
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if "device" in kwargs:
        require_cpu(kwargs.pop("device"))
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, _dtype.dtype) or a in (float, int, bool):
            dtype = a
        elif isinstance(a, str | device):
            require_cpu(a)
        elif a is not None and not isinstance(a, bool):
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    if dtype is None:
        return clone(input) if copy else input
    dt = _dtype.to_dtype(dtype)
    if dt.np == input._data.dtype and not copy:
        return input
    return _to_copy(input, dt=dt.np)


# The methods x.float(), x.long(), ...: the tensor as that dtype (itself when it already is).


def to_float(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.float32)


def to_double(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.float64)


def to_half(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.float16)


def to_long(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.int64)


def to_int(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.int32)


def to_short(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.int16)


def to_char(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.int8)


def to_byte(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.uint8)


def to_bool(self: Tensor, memory_format: Any = None) -> Tensor:
    return to(self, _dtype.bool_)


def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


# --- joining ------------------------------------------------------------------------------


def _check_joinable(name: str, tensors: Sequence[Tensor]) -> None:
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    if len(tensors) == 0:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")


def _cat_slice(g: Tensor, n: Any, i: int) -> Tensor:
    start = sum(n.sizes[:i])
    return g.narrow(n.dim, start, n.sizes[i])


_cat: Primitive = Primitive(
    "CatBackward0",
    lambda arrays, dim, dt, **_: np.concatenate([a.astype(dt, copy=False) for a in arrays], dim),
    inputs=("tensors",),
    grads=(_cat_slice,),  # type: ignore[arg-type]
    formulas=("the part of grad along dim {dim} that tensors[{i}] filled",),
    variadic=True,
    tangent=lambda ts, p: _cat(
        *tangents_or_zeros(ts, p.tensors), dim=p.dim, dt=p.dt, sizes=p.sizes
    ),
    layout=_strides.contiguous_array,  # (PyTorch keeps channels-last when every input has it)
)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The slice `start:start+length` along `dim` (a view)."""
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")

    return slice_dim(input, d, start, start + length)


def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None) -> Tensor:
    """Join tensors along an existing dim; all other dims must match."""
    _check_joinable("cat", tensors)
    ref = next((t for t in tensors if t.ndim > 0), tensors[0])
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = wrap_dim(dim, ref.ndim)
    # PyTorch skips legacy empty 1-d tensors of shape (0,) when joining.
    parts = [t for t in tensors if not (t.ndim == 1 and t._data.shape[0] == 0)] or [ref]
    for i, t in enumerate(parts):
        if t.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}"
            )
        for k in range(ref.ndim):
            if k != d and t._data.shape[k] != ref._data.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref._data.shape[k]} but got size {t._data.shape[k]} for tensor number "
                    f"{i} in the list."
                )
    dt = _dtype.result_type(*[t for t in parts])
    sizes = tuple(t._data.shape[d] for t in parts)
    return _cat(*parts, dim=d, dt=dt.np, sizes=sizes)


concat = concatenate = cat


_stack: Primitive = Primitive(
    "StackBackward0",
    lambda arrays, dim, dt: np.stack([a.astype(dt, copy=False) for a in arrays], dim),
    inputs=("tensors",),
    grads=(lambda g, n, i: g.select(n.dim, i),),  # type: ignore[arg-type, misc]
    formulas=("grad.select({dim}, {i})",),
    variadic=True,
    tangent=lambda ts, p: _stack(*tangents_or_zeros(ts, p.tensors), dim=p.dim, dt=p.dt),
    layout=_strides.contiguous_array,
)


def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None) -> Tensor:
    """Join tensors of one shape along a new dim."""
    _check_joinable("stack", tensors)
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(t._data.shape)} at entry {i}"
            )
    d = wrap_dim(dim, len(shape) + 1)
    return _stack(*tensors, dim=d, dt=_dtype.result_type(*tensors).np)
