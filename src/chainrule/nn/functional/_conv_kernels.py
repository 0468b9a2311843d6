"""Convolution on arrays: cross-correlation, its transpose, and its weight gradient.

Windows are gathered (im2col) and scattered back (col2im) through strided
views; batched matrix products do the arithmetic, batch and groups as batch dims.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._ops.shape.padding import pad_spatial
from . import _windows

__all__: list[str] = []

Ints = tuple[int, ...]


def conv(
    x: np.ndarray, w: np.ndarray, stride: Ints, lo: Ints, hi: Ints, dilation: Ints, groups: int
) -> np.ndarray:
    """Cross-correlate `(N, C, *size)` with `(O, C/groups, *kernel)`: `(N, O, *out)`."""
    kernel = w.shape[2:]
    o, n = w.shape[0], x.shape[0]
    xp = pad_spatial(x, lo, hi)
    out = tuple(
        (s - d * (k - 1) - 1) // st + 1
        for s, k, st, d in zip(xp.shape[2:], kernel, stride, dilation, strict=True)
    )
    cols = _windows.im2col(xp, kernel, stride, dilation, out, groups)
    y = np.matmul(w.reshape(groups, o // groups, cols.shape[2]), cols)
    return y.reshape(n, o, *out)


def conv_transpose(
    x: np.ndarray, w: np.ndarray, stride: Ints, lo: Ints, size: Ints, dilation: Ints, groups: int
) -> np.ndarray:
    """The adjoint of `conv` in its input: `(N, C, *in)` with `(C, O/groups, *kernel)`.

    Every input position spreads its values through the kernel into the output
    (col2im); the result is the region `[lo, lo + size)` of that full output,
    zero where no window reaches.
    """
    n, c = x.shape[:2]
    spatial, kernel = x.shape[2:], w.shape[2:]
    cg, og = c // groups, w.shape[1]
    wm = w.reshape(groups, cg, og * math.prod(kernel)).transpose(0, 2, 1)
    cols = np.matmul(wm, x.reshape(n, groups, cg, math.prod(spatial)))
    cols = cols.reshape(n, groups, og, *kernel, *spatial)
    span = tuple(
        max((i - 1) * st + d * (k - 1) + 1, b + s)
        for i, st, d, k, b, s in zip(spatial, stride, dilation, kernel, lo, size, strict=True)
    )
    full = _windows.col2im(cols, 3, span, stride, dilation)  # (N, groups, og, *span)
    if span != size:
        crop: tuple[Any, ...] = (
            Ellipsis,
            *(slice(b, b + s) for b, s in zip(lo, size, strict=True)),
        )
        full = full[crop]
        full = np.ascontiguousarray(full)
    return full.reshape(n, groups * og, *size)


def conv_weight(
    x: np.ndarray,
    gy: np.ndarray,
    stride: Ints,
    lo: Ints,
    hi: Ints,
    dilation: Ints,
    groups: int,
    kernel: Ints,
) -> np.ndarray:
    """The weight gradient of `conv(x, w)` for the output gradient `gy`: `(O, C/groups, *kernel)`.

    Bilinear in (`x`, `gy`): each batch element's windows times its output
    gradient, summed over the batch.
    """
    n, c = x.shape[:2]
    o = gy.shape[1]
    cols = _windows.im2col(pad_spatial(x, lo, hi), kernel, stride, dilation, gy.shape[2:], groups)
    gm = gy.reshape(n, groups, o // groups, cols.shape[3])
    return np.matmul(gm, cols.swapaxes(2, 3)).sum(0).reshape(o, c // groups, *kernel)
