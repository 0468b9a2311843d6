"""Ops that move elements around without arithmetic: movedim, repeat, flip, roll, rot90,
the stacking helpers. Splitting lives in rearrange_split, diagonals in rearrange_diagonal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype, _strides
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim, wrap_dims
from .views import cat, permute, reshape, view

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "dstack",
    "flip",
    "fliplr",
    "flipud",
    "hstack",
    "moveaxis",
    "movedim",
    "repeat_interleave",
    "roll",
    "rot90",
    "row_stack",
    "tile",
    "unflatten",
    "vstack",
]


def _int_tuple(value: Any, fn: str, arg: str) -> tuple[int, ...]:
    """An int or a sequence of ints as a tuple, with PyTorch's TypeError for anything else."""
    items = value if isinstance(value, Sequence | Tensor) else (value,)
    out = []
    for i, v in enumerate(items):
        if isinstance(v, bool) or not isinstance(v, int | np.integer | Tensor):
            raise TypeError(
                f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                f"{type(v).__name__} at pos {i}"
            )
        out.append(int(v))
    return tuple(out)


def _no_dims_message(dim: int) -> str:
    return f"Dimension specified as {dim} but tensor has no dimensions"


def _varargs(fn: str, arg: str, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`x.f(1, 2)`, `x.f((1, 2))` and `x.f(arg=(1, 2))` alike (Tensor-method conventions)."""
    if kwargs:
        if set(kwargs) != {arg} or values:
            bad = next((k for k in kwargs if k != arg), arg)
            raise TypeError(f"{fn}() got an unexpected keyword argument '{bad}'")
        return kwargs[arg]
    return values[0] if len(values) == 1 and isinstance(values[0], Sequence) else values


# --- reshaping a dim, moving dims -------------------------------------------------------------


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dim `dim` into several of the given `sizes` (one may be -1); a view."""
    d = wrap_dim(dim, input.ndim)
    new = _int_tuple(sizes, "unflatten", "sizes")
    if not new:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if input.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:")
    size = input._data.shape[d] if input.ndim else 1
    known = math.prod(s for s in new if s != -1)
    if new.count(-1) > 1 or any(s < -1 for s in new) or (-1 in new and known == 0):
        raise RuntimeError("unflatten got an unexpected error:")
    if -1 in new:
        new = tuple(size // known if s == -1 else s for s in new)
    if math.prod(new) != size:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(_int_tuple(sizes, 'unflatten', 'sizes'))} don't "
            f"multiply up to the size of dim {dim} ({size}) in the input tensor"
        )
    shape = input._data.shape
    return view(input, (*shape[:d], *new, *shape[d + 1 :]))


def _check_unique(dims: tuple[int, ...], given: tuple[int, ...], what: str) -> None:
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"movedim: repeated dim in `{what}` ({list(given)})")


def movedim(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """Move the dims `source` to the positions `destination`, the others keeping their order."""
    src = _int_tuple(source, "movedim", "source")
    dst = _int_tuple(destination, "movedim", "destination")
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    n = input.ndim
    ws, wd = tuple(wrap_dim(d, n) for d in src), tuple(wrap_dim(d, n) for d in dst)
    _check_unique(ws, src, "source")
    _check_unique(wd, dst, "destination")
    if n == 0:  # nothing to move: PyTorch returns an alias
        return input[...]
    order = [-1] * n
    for s, d in zip(ws, wd, strict=True):
        order[d] = s
    rest = iter(d for d in range(n) if d not in ws)
    return permute(input, tuple(o if o != -1 else next(rest) for o in order))


moveaxis = movedim


# --- repeating ----------------------------------------------------------------------------------


def _repeat_backward(g: Tensor, n: Any) -> Tensor:
    """The tiles of the gradient summed: each input element appears once in each tile."""
    reps, padded = n.repeats, n.padded
    if not reps:
        return g
    split = tuple(x for pair in zip(reps, padded, strict=True) for x in pair)
    return g.reshape(split).sum(tuple(range(0, 2 * len(reps), 2))).reshape(n.self_sizes)


_repeat = Primitive(
    "RepeatBackward0",
    lambda a, repeats, padded, **_: np.tile(a.reshape(padded), repeats),
    grads=(_repeat_backward,),
    formulas=("grad summed over the repeated copies, back to {in_shape}",),
    tangent="linear",
)


def _repeat_to(input: Tensor, repeats: tuple[int, ...]) -> Tensor:
    if len(repeats) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(repeats) - input.ndim) + tuple(input._data.shape)
    if any(r < 0 for r in repeats):
        shape = [r * s for r, s in zip(repeats, padded, strict=True)]
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {shape}")
    return _repeat(input, repeats=repeats, padded=padded, self_sizes=input._data.shape)


def repeat(self: Tensor, *sizes: Any, **kwargs: Any) -> Tensor:
    """`x.repeat(2, 1)`: tile the tensor (PyTorch has no `torch.repeat` function)."""
    reps = _varargs("repeat", "repeats", sizes, kwargs)
    return _repeat_to(self, _int_tuple(reps, "repeat", "repeats"))


def tile(input: Tensor, dims: Sequence[int]) -> Tensor:
    """`repeat`, with missing leading repeats taken as 1."""
    reps = _int_tuple(dims, "tile", "dims")
    return _repeat_to(input, (1,) * (input.ndim - len(reps)) + reps)


def tile_method(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """`x.tile(2, 1)`, `x.tile((2, 1))` or `x.tile(dims=(2, 1))`: as `tile`."""
    return tile(self, _varargs("tile", "dims", dims, kwargs))


tile_method.__name__ = tile_method.__qualname__ = "tile"


def _check_int_repeats(repeats: Tensor) -> None:
    if repeats._data.dtype.kind not in "iu":
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{_dtype.scalar_name(repeats)}'"
        )


def _repeat_counts(repeats: Tensor, output_size: int | None) -> Tensor:
    """`repeat_interleave(repeats)`: each index i, repeats[i] times (an int64 tensor)."""
    _check_int_repeats(repeats)
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = repeats._data
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    return Tensor._make(np.repeat(np.arange(len(counts), dtype=np.int64), counts))


def repeat_interleave(
    input: Tensor,
    repeats: Any = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """Repeat each element (or each slice along `dim`) `repeats` times, in place of tiling."""
    if repeats is None:  # torch.repeat_interleave(repeats)
        return _repeat_counts(input, output_size)
    x = input if dim is not None else (input if input.ndim == 1 else input.reshape(-1))
    d = 0 if dim is None else wrap_dim(dim, input.ndim)
    if dim is not None and input.ndim == 0:
        wrap_dim(d + 1, 0)  # PyTorch's error: its new dim after `dim` is out of range
    size = x._data.shape[d] if x.ndim else 1
    if isinstance(repeats, Tensor):  # a count for each slice (one count serves all)
        _check_int_repeats(repeats)
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:
            repeats = repeats.reshape(1).expand(size)
        elif repeats._data.shape[0] != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats._data.shape[0]} and input.size({d}) = {size}"
            )
        x = x.reshape(1) if x.ndim == 0 else x
        return x.index_select(d, _repeat_counts(repeats, output_size))
    if isinstance(repeats, bool) or not isinstance(repeats, int | np.integer):
        raise TypeError(
            "repeat_interleave() received an invalid combination of arguments - got "
            f"({type(repeats).__name__}), but expected one of: (Tensor repeats, int dim, *, "
            "int output_size)"
        )
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if output_size is not None and output_size != size * repeats:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {size * repeats} but got "
            f"{output_size}"
        )
    # As PyTorch: a new dim after `dim`, expanded, copied, and merged into `dim`.
    x = x.reshape(1) if x.ndim == 0 else x
    shape = list(x._data.shape)
    wide = x.unsqueeze(d + 1).expand(*shape[: d + 1], int(repeats), *shape[d + 1 :])
    return wide.clone().flatten(d, d + 1)


# --- flipping and rotating ----------------------------------------------------------------------

_flip = Primitive(
    "FlipBackward0",
    lambda a, dims: np.flip(a, dims).copy(),
    grads=(lambda g, n: flip(g, n.dims),),
    formulas=("grad flipped back along dims {dims}",),
    tangent="linear",
    layout=_strides.like_first,
)


def flip(input: Tensor, dims: Sequence[int]) -> Tensor:
    """Reverse the order of elements along `dims` (a copy, as in PyTorch)."""
    if not isinstance(dims, Sequence):
        raise TypeError(
            f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    wanted = _int_tuple(dims, "flip", "dims")
    d = wrap_dims(wanted, input.ndim) if wanted else ()
    return _flip(input, dims=d if input.ndim else ())


def flip_method(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """`x.flip(0, 1)`, `x.flip((0, 1))` or `x.flip(dims=(0, 1))`: as `flip`."""
    return flip(self, _varargs("flip", "dims", dims, kwargs))


flip_method.__name__ = flip_method.__qualname__ = "flip"


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


_roll = Primitive(
    "RollBackward0",
    lambda a, shifts, dims: np.roll(a, shifts, dims),
    grads=(lambda g, n: roll(g, tuple(-s for s in n.shifts), n.dims),),
    formulas=("grad rolled back (shifts {shifts} undone along dims {dims})",),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def roll(
    input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
) -> Tensor:
    """Shift elements cyclically along `dims` (over the flattened tensor if None)."""
    sh = _int_tuple(shifts, "roll", "shifts")
    ds = () if dims is None else _int_tuple(dims, "roll", "dims")
    if not sh:
        raise RuntimeError("`shifts` required")
    if (dims is None and len(sh) != 1) or (dims is not None and len(sh) != len(ds)):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    if dims is None:
        return _roll(input, shifts=sh, dims=None)
    if input.ndim == 0:
        raise IndexError(_no_dims_message(ds[0]))
    return _roll(input, shifts=sh, dims=tuple(wrap_dim(d, input.ndim) for d in ds))


def _rot90_forward(a: np.ndarray, k: int, dims: tuple[int, int]) -> np.ndarray:
    """As PyTorch turns: a flip (laid out as the input) then a transposed view; a whole
    number of turns is a contiguous copy."""
    turned = np.rot90(a, k, dims)
    if k % 4 == 0:
        return np.ascontiguousarray(turned)
    if k % 4 == 2:
        return _strides.like_first(turned.copy(), a)
    flipped = _strides.like_first(np.swapaxes(turned, *dims).copy(), a)
    return np.swapaxes(flipped, *dims)


_rot90 = Primitive(
    "Rot90Backward0",
    lambda a, k, dims: _rot90_forward(a, k, dims),
    grads=(lambda g, n: rot90(g, -n.k, n.dims),),
    formulas=("grad rotated back ({k} quarter turns undone in dims {dims})",),
    tangent="linear",
)


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by 90 degrees `k` times, from the first of `dims` towards the second."""
    ds = _int_tuple(dims, "rot90", "dims")
    if len(ds) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(ds)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(ds[0], input.ndim), wrap_dim(ds[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {ds[0]} and dim1 = {ds[1]}"
        )
    return _rot90(input, k=int(k) % 4, dims=(d0, d1))


# --- at least n dims, and stacking along a dim --------------------------------------------------


def _at_least(n: int, tensors: tuple[Any, ...]) -> Any:
    many = len(tensors) != 1 or not isinstance(tensors[0], Tensor)
    items = tensors[0] if len(tensors) == 1 and many else tensors
    out = []
    for t in items:
        if t.ndim >= n:
            out.append(t)
        elif t.ndim == 0:
            out.append(reshape(t, (1,) * n))
        elif n == 3 and t.ndim == 1:
            out.append(t.unsqueeze(0).unsqueeze(-1))
        else:
            out.append(t.unsqueeze(0) if n == 2 else t.unsqueeze(-1))
    return tuple(out) if many else out[0]


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dim (0-d ones become shape (1,))."""
    return _at_least(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dims (a 1-d (n,) becomes (1, n))."""
    return _at_least(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dims ((n,) becomes (1, n, 1); (m, n) becomes (m, n, 1))."""
    return _at_least(3, tensors)


def _stackable(name: str, tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 1 (dim 0 for 1-d tensors)."""
    parts = atleast_1d(_stackable("hstack", tensors))
    return cat(parts, 0 if parts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 0, 1-d tensors as rows."""
    return cat(atleast_2d(_stackable("vstack", tensors)), 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 2 (depth), after making every tensor at least 3-d."""
    return cat(atleast_3d(_stackable("dstack", tensors)), 2)


def column_stack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 1, 0-d and 1-d tensors as columns."""
    parts = _stackable("column_stack", tensors)
    return cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in parts], 1)
