"""NumPy kernels behind convolution and pooling: sliding windows, im2col, col2im,
max pooling.

Spatial dims are the last `len(kernel)` dims of an array throughout. Nothing here
records a graph: these are forwards that the primitives of `_conv`/`_pool` wrap.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._ops.shape.padding import pad_spatial

__all__: list[str] = []

Ints = tuple[int, ...]


def out_size(size: int, kernel: int, stride: int, dilation: int, pad: int, ceil: bool) -> int:
    """How many windows fit along a dim of `size` padded by `pad` on both sides.

    With `ceil`, a last partial window counts if it starts inside the input or left padding.
    """
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    if not ceil:
        return span // stride + 1
    n = -(-span // stride) + 1
    if (n - 1) * stride >= size + pad:
        n -= 1
    return n


def windows(a: np.ndarray, kernel: Ints, stride: Ints, dilation: Ints, out: Ints) -> np.ndarray:
    """A read-only view `(*lead, *out, *kernel)` of the windows of `a` (no copy)."""
    k = len(kernel)
    lead = a.ndim - k
    st = a.strides
    strides = (
        st[:lead]
        + tuple(st[lead + i] * stride[i] for i in range(k))
        + tuple(st[lead + i] * dilation[i] for i in range(k))
    )
    return as_strided(a, a.shape[:lead] + out + kernel, strides, writeable=False)


def im2col(
    xp: np.ndarray, kernel: Ints, stride: Ints, dilation: Ints, out: Ints, groups: int
) -> np.ndarray:
    """The windows of a padded `(N, C, *size)` input as `(N, groups, C/groups * K, P)`.

    K is the number of kernel offsets and P the number of windows: a batched
    matrix product with the `(groups, O/groups, C/groups * K)` weight then
    convolves every window of every batch element, straight into `(N, O, P)`.
    """
    n, c = xp.shape[:2]
    k = len(kernel)
    win = windows(xp, kernel, stride, dilation, out).reshape(n, groups, c // groups, *out, *kernel)
    order = (0, 1, 2, *range(3 + k, 3 + 2 * k), *range(3, 3 + k))
    rows = c // groups * math.prod(kernel)
    return win.transpose(order).reshape(n, groups, rows, math.prod(out))


def col2im(cols: np.ndarray, nlead: int, size: Ints, stride: Ints, dilation: Ints) -> np.ndarray:
    """Sum windows back into an array: `(*lead, *kernel, *mid, *out)` -> `(*lead, *mid, *size)`.

    The adjoint of taking windows: each window's entries add into the positions
    they were read from (one strided add per kernel offset).
    """
    k = len(size)
    kernel = cols.shape[nlead : nlead + k]
    out = cols.shape[cols.ndim - k :]
    mid = cols.shape[nlead + k : cols.ndim - k]
    buf = np.zeros(cols.shape[:nlead] + mid + tuple(size), cols.dtype)
    lead_index = (slice(None),) * nlead
    for offset in itertools.product(*map(range, kernel)):
        region = tuple(
            slice(j * d, j * d + s * (o - 1) + 1, s)
            for j, d, s, o in zip(offset, dilation, stride, out, strict=True)
        )
        target: tuple[Any, ...] = (Ellipsis, *region)
        buf[target] += cols[lead_index + offset]
    return buf


# --- max pooling on arrays -------------------------------------------------------------


def lowest(dtype: np.dtype) -> float:
    """The value padding takes in a max pool: it never wins against an input value."""
    return -np.inf if dtype.kind == "f" else int(np.iinfo(dtype).min)


def max_pool(
    x: np.ndarray, kernel: Ints, stride: Ints, lo: Ints, dilation: Ints, out: Ints
) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of each window and its flat index in the input's spatial plane.

    As in PyTorch: a later value wins only if strictly greater, or if it is NaN
    (so ties go to the first, NaNs to the last); padding never wins, and a
    window of only the lowest value points at its first in-bounds position.
    Note: the updates are arithmetic, not masked writes: NumPy's masked copies
    and `where` are several times slower on the random masks pooling makes.
    """
    k = len(kernel)
    size = x.shape[x.ndim - k :]
    hi = tuple(
        max(0, (o - 1) * s + d * (kk - 1) + 1 - b - n)
        for o, s, d, kk, b, n in zip(out, stride, dilation, kernel, lo, size, strict=True)
    )
    low = lowest(x.dtype)
    win = windows(pad_spatial(x, lo, hi, low), kernel, stride, dilation, out)
    best = np.full(x.shape[: x.ndim - k] + out, low, x.dtype)
    base, first, offsets = _window_plan(tuple(size), kernel, stride, lo, dilation, out)
    arg: Any = np.empty(best.shape, np.int8 if offsets.size < 128 else np.int64)
    arg[...] = first
    nan = x.dtype.kind == "f" and bool(np.isnan(x).any())
    for j, offset in enumerate(itertools.product(*map(range, kernel))):
        at: tuple[Any, ...] = (Ellipsis, *offset)
        v = win[at]
        take = v > best
        if nan:
            take |= np.isnan(v)
        np.maximum(best, v, out=best)  # NaN-propagating, so the same as writing where taken
        arg += take * (j - arg)
    return best, base + offsets[arg]


@functools.lru_cache(maxsize=256)
def _window_plan(
    size: Ints, kernel: Ints, stride: Ints, lo: Ints, dilation: Ints, out: Ints
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the windows lie, as arrays of the output's spatial shape: each window's flat
    start in the plane (possibly in the padding) and its first in-bounds offset number;
    and each offset number's distance from the start. Cached: read-only arrays."""
    k = len(kernel)
    plane = [math.prod(size[i + 1 :]) for i in range(k)]
    base = np.zeros(out, np.int64)
    first = np.zeros(out, np.int64)
    for i in range(k):
        shape = [1] * k
        shape[i] = out[i]
        start = np.arange(out[i]) * stride[i] - lo[i]
        base = base + (start * plane[i]).reshape(shape)
        skip = -(-np.maximum(-start, 0) // dilation[i])  # offsets before the input begins
        first = first + (skip * math.prod(kernel[i + 1 :])).reshape(shape)
    offsets = np.array(
        [
            sum(j * d * p for j, d, p in zip(o, dilation, plane, strict=True))
            for o in itertools.product(*map(range, kernel))
        ],
        np.int64,
    )
    for a in (base, first, offsets):
        a.setflags(write=False)
    return base, first, offsets


def scatter_plane(g: np.ndarray, index: np.ndarray, size: Ints, unique: bool) -> np.ndarray:
    """Add `g` into a zero `(*lead, *size)` array at flat plane positions `index` (same shape)."""
    k = len(size)
    lead = g.shape[: g.ndim - k]
    rows, plane = math.prod(lead), math.prod(size)
    gf = g.reshape(rows, math.prod(g.shape[g.ndim - k :]))
    idx = index.reshape(gf.shape)
    flat = (idx + (np.arange(rows) * plane)[:, None]).ravel()
    if unique:
        out = np.zeros(rows * plane, g.dtype)
        out[flat] = gf.ravel()
    else:
        out = np.bincount(flat, gf.ravel(), rows * plane).astype(g.dtype, copy=False)
    return out.reshape(*lead, *size)
