"""PyTorch's memory-layout rules on NumPy arrays: the strides a new result gets.

A tensor's strides decide whether `view()` works on it, so every op lays its
result out as PyTorch does. NumPy's own choices differ: a ufunc follows its
inputs by NumPy's rules (order='K'), most other routines write C order, and a
new empty array has all strides 0. Strides here count elements, as `stride()`
does.

PyTorch's rules, by kind of op:
  - elementwise ops (its TensorIterator, `iterator`): a result with its inputs'
    shape takes their strides when they all agree (contiguous, channels-last, or
    one dense layout); otherwise its dims are ordered by the inputs' strides,
    the first input deciding, and a stride-0 (broadcast) dim deciding nothing;
  - copies that keep a layout (`clone`, `to`, `*_like`, `preserving`): the input's
    strides when it is dense and without overlap, else contiguous;
  - most other ops: contiguous (`contiguous`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = [
    "column_major",
    "contiguous",
    "contiguous_array",
    "copy",
    "elementwise",
    "expanded",
    "is_c_ordered",
    "is_contiguous",
    "is_non_overlapping_and_dense",
    "iterator",
    "laid_out",
    "like_first",
    "of",
    "preserving",
    "restrided",
    "unsqueezed",
    "view_strides",
    "viewed",
    "with_torch_strides",
]

Strides = tuple[int, ...]


def contiguous(shape: Sequence[int]) -> Strides:
    """Row-major strides (a dim of size 0 counts as 1, as in PyTorch)."""
    strides = [0] * len(shape)
    step = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def of(a: np.ndarray) -> Strides:
    """`a`'s strides as PyTorch reports them: in elements; a new empty array (whose
    strides NumPy sets to 0) is contiguous."""
    if a.size == 0 and not any(a.strides):
        return contiguous(a.shape)
    size = a.itemsize
    return tuple([s // size for s in a.strides])


def with_torch_strides(a: np.ndarray) -> np.ndarray:
    """An empty array with the strides PyTorch gives a new one (NumPy's are all 0), so
    views of it (`t()`, slices) get PyTorch's strides too."""
    if a.ndim == 0 or any(a.strides):
        return a
    step = a.itemsize
    return as_strided(a, a.shape, tuple(s * step for s in contiguous(a.shape)))


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's `is_contiguous()`: row-major but for dims of size 1; empty is contiguous."""
    if 0 in shape:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def is_c_ordered(a: np.ndarray) -> bool:
    """Whether `a` has exactly the strides of a new contiguous tensor, size-1 dims too
    (NumPy's flag ignores those, and an elementwise result may follow them)."""
    if not a.flags.c_contiguous:
        return False
    return (a.size and 1 not in a.shape) or of(a) == contiguous(a.shape)


def is_non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether the elements fill a block of memory exactly once, in some order of dims
    (dims of size 0 and 1 aside)."""
    expected = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d]):
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _is_channels_last(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's `is_contiguous(memory_format=torch.channels_last)` (4-d only)."""
    if len(shape) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _channels_last(shape: Sequence[int]) -> Strides:
    _, c, h, w = shape
    return (h * w * c, 1, w * c, c)


def _in_order(shape: Sequence[int], order: Sequence[int]) -> Strides:
    """Strides of a dense layout whose dims, fastest first, are `order`.

    As PyTorch's TensorIterator makes them: a dim of size 0 zeroes the strides
    of the slower dims (harmless: such a tensor has no elements).
    """
    strides = [0] * len(shape)
    step = 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def iterator(shape: Sequence[int], operands: Sequence[np.ndarray]) -> Strides:
    """The strides PyTorch's TensorIterator gives the result of an elementwise op.

    `operands` are the inputs in order (a Python number is a 0-d array, deciding
    nothing); `shape` is their broadcast shape.
    """
    shape = tuple(shape)
    ndim = len(shape)
    layouts = [(a.shape, of(a)) for a in operands]
    if all(s == shape for s, _ in layouts):  # no broadcasting: PyTorch's fast set-up
        if all(is_contiguous(s, st) for s, st in layouts):
            return contiguous(shape)
        if all(_is_channels_last(s, st) for s, st in layouts):
            return _channels_last(shape)
        first = layouts[0][1]
        if all(is_non_overlapping_and_dense(s, st) and st == first for s, st in layouts):
            return first
    if ndim <= 1:
        return contiguous(shape)
    # Each operand's strides over the result's dims: 0 where it is broadcast.
    strides = []
    for s, st in layouts:
        offset = ndim - len(s)
        full = [0] * ndim
        for d, (n, step) in enumerate(zip(s, st, strict=True)):
            full[offset + d] = 0 if n == 1 and shape[offset + d] != 1 else step
        strides.append(full)

    def after(d0: int, d1: int) -> int:
        """1 if dim d0 should be slower than d1, -1 if faster, 0 if no operand says."""
        for full in strides:
            s0, s1 = full[d0], full[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    # Fastest dim first, starting from row-major; an insertion sort that stops at the
    # first operand with an opinion (PyTorch's reorder_dimensions).
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = after(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous(shape)
    return _in_order(shape, perm)


def preserving(a: np.ndarray) -> Strides:
    """The strides of a copy of `a` that keeps its layout (PyTorch's preserve_format):
    `a`'s own when it is dense and without overlap, else dense in the order of its strides."""
    strides = of(a)
    if is_non_overlapping_and_dense(a.shape, strides):
        return strides
    return iterator(a.shape, (a,))


def laid_out(shape: Sequence[int], strides: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """A new uninitialised array of `shape` with exactly `strides` (elements)."""
    shape, strides = tuple(shape), tuple(strides)
    if strides == contiguous(shape) and 0 not in shape:
        return np.empty(shape, dtype)
    extent = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    itemsize = np.dtype(dtype).itemsize
    return as_strided(np.empty(extent, dtype), shape, tuple(s * itemsize for s in strides))


def restrided(out: np.ndarray, strides: Sequence[int]) -> np.ndarray:
    """`out` if it already has `strides`, else a copy of it that has them."""
    strides = tuple(strides)
    if of(out) == strides:
        return out
    return copy(out, strides)


def copy(
    a: np.ndarray, strides: Sequence[int] | None = None, dtype: np.dtype | None = None
) -> np.ndarray:
    """A copy of `a` (cast to `dtype`) with `strides`: by default its own layout, as
    `clone()` and `to()` keep it."""
    if strides is None:
        if is_c_ordered(a):
            return a.copy() if dtype is None else a.astype(dtype)
        strides = preserving(a)
    new = laid_out(a.shape, strides, a.dtype if dtype is None else dtype)
    if a.size:
        new[...] = a
    return new


def contiguous_array(out: np.ndarray, *_: np.ndarray) -> np.ndarray:
    """`out` with contiguous strides (most ops' results); free when it has them, and
    without copying when only the strides of its size-1 dims differ."""
    if out.flags.c_contiguous:
        if (out.size and 1 not in out.shape) or of(out) == contiguous(out.shape):
            return out
        return as_strided(out, out.shape, tuple(s * out.itemsize for s in contiguous(out.shape)))
    return contiguous_array(np.ascontiguousarray(out))


def column_major(out: np.ndarray, *_: np.ndarray) -> np.ndarray:
    """`out` with each matrix (the last two dims) stored by columns, batches in order: what
    LAPACK-backed results (inv, solve, cholesky, qr, ...) get in PyTorch."""
    if out.ndim < 2:
        return contiguous_array(out)
    return np.swapaxes(contiguous_array(np.swapaxes(out, -1, -2)), -1, -2)


# --- views ------------------------------------------------------------------------------------


def viewed(view: np.ndarray, strides: Sequence[int]) -> np.ndarray:
    """`view` (a NumPy view) with PyTorch's `strides`: NumPy picks its own for dims of size 1."""
    strides = tuple(strides)
    if of(view) == strides:
        return view
    return as_strided(view, view.shape, tuple(s * view.itemsize for s in strides))


def view_strides(a: np.ndarray, shape: Sequence[int]) -> Strides | None:
    """The strides `a.view(shape)` has in PyTorch, or None where it cannot be a view.

    Dims that are contiguous with each other form chunks; each chunk must map onto
    whole dims of the new shape (PyTorch's computeStride).
    """
    old_shape, old = a.shape, of(a)
    shape = tuple(shape)
    if not old_shape:
        return (1,) * len(shape)
    if a.size == 0:
        return old if old_shape == shape else contiguous(shape)
    new = [0] * len(shape)
    view_d = len(shape) - 1
    base = old[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
                new[view_d] = view_numel * base
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base = old[d - 1]
                tensor_numel = view_numel = 1
    return tuple(new) if view_d == -1 else None


def unsqueezed(a: np.ndarray, dim: int) -> Strides:
    """The strides of `a.unsqueeze(dim)`: the new dim steps over the dim it lands before."""
    old = of(a)
    step = a.shape[dim] * old[dim] if dim < a.ndim else 1
    return (*old[:dim], step, *old[dim:])


def expanded(a: np.ndarray, shape: Sequence[int]) -> Strides:
    """The strides of `a.expand(shape)`: 0 along stretched and new dims, else kept (a new
    dim of size 1 steps as an unsqueezed one)."""
    old = of(a)
    lead = len(shape) - a.ndim
    strides = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            size, step = a.shape[i - lead], old[i - lead]
        else:
            size = 1
            step = shape[i + 1] * strides[i + 1] if a.ndim and i + 1 < len(shape) else 0
        strides[i] = step if size == shape[i] else 0
    return tuple(strides)


def like_first(out: np.ndarray, first: np.ndarray, *_: np.ndarray) -> np.ndarray:
    """`out` laid out as a copy of the first input would be (sort, flip: PyTorch's
    preserve_format)."""
    if is_c_ordered(first):
        return contiguous_array(out)
    return restrided(out, preserving(first))


def elementwise(out: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    """`out`, the result of an elementwise op on `operands`, in PyTorch's layout.

    Free in the common cases: NumPy laid `out` out as operands that all share one
    layout, or as contiguous operands (0-d ones decide nothing).
    """
    st = out.shape
    if 1 not in st:  # (NumPy and PyTorch may order size-1 dims differently)
        st = out.strides
        for a in operands:
            if a.strides != st and a.ndim:
                break
        else:
            return out
    if out.flags.c_contiguous and ((out.size and 1 not in out.shape) or is_c_ordered(out)):
        for a in operands:
            if not a.flags.c_contiguous or ((1 in a.shape or not a.size) and not is_c_ordered(a)):
                break
        else:
            return out
    return restrided(out, iterator(out.shape, operands))
