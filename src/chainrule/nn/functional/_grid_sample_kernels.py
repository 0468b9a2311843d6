"""NumPy kernels of grid sampling: where each output point reads the input, with what
weights, and the forward and backward that follow.

Each spatial dim of the input is handled on its own (an `Axis`): the grid's coordinate
for that dim becomes a position in pixels, padded ("border" clips it, "reflection"
folds it back), and interpolation reads a few taps around it with weights that are
polynomials in the position's fractional part. A point's value is the sum over every
combination of taps of the input there times the product of the dims' weights. The
arithmetic follows PyTorch's CPU kernels (2-D and 3-D differ slightly) in the input's
dtype. Nothing here records a graph.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._ops.quiet import quietly

__all__: list[str] = []

# Keys's cubic convolution with a = -0.75, as PyTorch's bicubic uses. Tap t in (-1, 0, 1, 2)
# sits at distance |t - f| from the point: coefficients in f, highest power first.
_A = -0.75
_OUTER = np.poly1d([_A, -5 * _A, 8 * _A, -4 * _A])  # 1 < |x| < 2
_INNER = np.poly1d([_A + 2, -(_A + 3), 0, 1])  # |x| <= 1
_F = np.poly1d([1, 0])
CUBIC = (_OUTER(_F + 1), _INNER(_F), _INNER(1 - _F), _OUTER(2 - _F))
LINEAR = (np.poly1d([-1, 1]), np.poly1d([1, 0]))  # 1 - f, f
NEAREST = (np.poly1d([1]),)
POLYS = {"bilinear": LINEAR, "nearest": NEAREST, "bicubic": CUBIC}
OFFSETS = {"bilinear": (0, 1), "nearest": (0,), "bicubic": (-1, 0, 1, 2)}


@dataclass
class Axis:
    """One spatial dim of the input, at every output point (arrays of shape (N, P)).

    `frac` is the padded position's fractional part and `slope` its derivative in the
    grid's coordinate (zero where padding clips it); per tap, `index` is where it reads
    (clipped into range), `inside` whether it reads the input at all (zero padding reads
    nothing outside), `weight` and `dweight` the weight and its derivative in `frac`.
    """

    frac: np.ndarray
    slope: np.ndarray
    index: list[np.ndarray]
    inside: list[np.ndarray]
    weight: list[np.ndarray]
    dweight: list[np.ndarray]


def _unnormalize(g: np.ndarray, size: int, align: bool, k: int) -> tuple[np.ndarray, Any]:
    """Grid coordinates in [-1, 1] as pixel positions, and the scale between them."""
    dt = g.dtype.type
    scale = dt(size - 1) / dt(2) if align else dt(size) / dt(2)
    if k == 2:  # the vectorised 2-D kernel
        return ((g + dt(1)) * scale if align else (g + dt(1)) * scale - dt(0.5)), scale
    if align:
        return ((g + dt(1)) / dt(2)) * dt(size - 1), scale
    return ((g + dt(1)) * dt(size) - dt(1)) / dt(2), scale


def _clip(x: np.ndarray, size: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions clipped into [0, size - 1]; where they moved freely (1) or not (0): the
    bounds themselves count as clipped, as in PyTorch. NaN becomes 0 in the 2-D kernel,
    size - 1 in the 3-D one (their clamps compare in opposite orders)."""
    dt = x.dtype.type
    high = dt(size - 1)
    if k == 2:
        low = np.where(x > 0, x, dt(0))
        out = np.minimum(low, high)
    else:
        low = np.where(x < 0, dt(0), x)
        out = np.where(low < high, low, high)
    return out, ((low != 0) & (out != high)).astype(x.dtype)


def _reflect(x: np.ndarray, size: int, align: bool) -> tuple[np.ndarray, np.ndarray]:
    """Positions folded back into the input (about its corner pixels' centres with
    `align`, else about its edges), and the sign the fold gives their derivative."""
    dt = x.dtype.type
    if align and size <= 1:
        return np.zeros_like(x), np.zeros_like(x)
    twice, low = (dt(2 * (size - 1)), dt(0)) if align else (dt(2 * size), dt(-0.5))
    shifted = x - low
    span = np.abs(shifted)
    extra = span - np.trunc(span / twice) * twice
    folded = twice - extra
    flip = extra > folded
    sign = np.where(flip ^ (shifted < 0), dt(-1), dt(1))
    return np.where(flip, folded, extra) + low, sign


def _pad(
    x: np.ndarray, size: int, padding: str, align: bool, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Padded positions and their derivative in the unpadded ones."""
    if padding == "zeros":
        return x, np.ones_like(x)
    if padding == "border":
        return _clip(x, size, k)
    folded, sign = _reflect(x, size, align)
    clipped, free = _clip(folded, size, k)
    return clipped, sign * free


def _as_index(x: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Integral positions (as floats) as indices clipped into range, and which were in it."""
    finite = np.isfinite(x)
    i = np.where(finite, x, -1).astype(np.int64)
    inside = finite & (i >= 0) & (i < size)
    return np.clip(i, 0, size - 1), inside


def axis(g: np.ndarray, size: int, mode: str, padding: str, align: bool, k: int) -> Axis:
    """Where grid coordinate `g` reads a dim of `size`, for `mode` and `padding`."""
    x, scale = _unnormalize(g, size, align, k)
    dt = g.dtype.type
    polys = POLYS[mode]
    if mode == "bicubic":  # padding moves each tap, not the point
        base = np.floor(x)
        frac, slope = x - base, np.full_like(x, scale)
        taps = [
            _as_index(_pad(base + dt(t), size, padding, align, k)[0], size) for t in (-1, 0, 1, 2)
        ]
    else:
        x, dx = _pad(x, size, padding, align, k)
        slope = scale * dx
        if mode == "nearest":
            frac = np.zeros_like(x)
            taps = [_as_index(np.rint(x), size)]
        else:
            base = np.floor(x)
            frac = x - base
            taps = [_as_index(base, size), _as_index(base + dt(1), size)]
    if mode == "bilinear" and k == 3:  # the 3-D kernel weighs the near tap as (base + 1) - x
        weight = [(base + dt(1)) - x, frac]
    else:
        weight = [p(frac).astype(g.dtype) for p in polys]
    dweight = [p.deriv()(frac).astype(g.dtype) for p in polys]
    return Axis(
        frac,
        slope,
        [t[0] for t in taps],
        [t[1] for t in taps],
        weight,
        dweight,
    )


@quietly  # PyTorch reads NaN and infinite coordinates without warnings
def plan(
    grid: np.ndarray, size: tuple[int, ...], mode: str, padding: str, align: bool
) -> list[Axis]:
    """An Axis per spatial dim of the input (in its order), from a grid `(N, *out, k)`
    whose last dim lists coordinates from the input's last spatial dim to its first."""
    k = len(size)
    flat = grid.reshape(grid.shape[0], -1, k)
    return [axis(flat[..., k - 1 - j], size[j], mode, padding, align, k) for j in range(k)]


def tap_product(axes: list[Axis]) -> list[tuple[int, ...]]:
    """Every combination of taps, one per dim, in the order PyTorch sums them."""
    return list(itertools.product(*(range(len(a.index)) for a in axes)))


def _strides(size: tuple[int, ...]) -> list[int]:
    return [math.prod(size[j + 1 :]) for j in range(len(size))]


def reads(axes: list[Axis], size: tuple[int, ...], taps: tuple[int, ...]) -> Any:
    """(flat index (N, P), inside (N, P), weight (N, P)) of one combination of taps."""
    strides = _strides(size)
    index = sum(a.index[t] * s for a, t, s in zip(axes, taps, strides, strict=True))
    inside = np.logical_and.reduce([a.inside[t] for a, t in zip(axes, taps, strict=True)])
    # The 2-D kernel multiplies the row's weight by the column's; the 3-D one x, y, then z.
    order = axes if len(axes) == 2 else axes[::-1]
    picked = taps if len(axes) == 2 else taps[::-1]
    weight = order[0].weight[picked[0]]
    for a, t in zip(order[1:], picked[1:], strict=True):
        weight = weight * a.weight[t]
    return index, inside, weight


def gather(a: np.ndarray, index: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Input `(N, C, S)` at flat positions `(N, P)`: `(N, C, P)`, zero where not inside."""
    values = np.take_along_axis(a, index[:, None, :], 2)
    return np.where(inside[:, None, :], values, values.dtype.type(0))


@quietly
def forward(a: np.ndarray, grid: np.ndarray, mode: str, padding: str, align: bool) -> np.ndarray:
    """The sampled output `(N, C, *out)` of input `(N, C, *size)` at `grid`."""
    n, c, *size_list = a.shape
    size = tuple(size_list)
    out = grid.shape[1:-1]
    if a.size == 0 or grid.size == 0:
        return np.zeros((n, c, *out), a.dtype)
    axes = plan(grid, size, mode, padding, align)
    flat = a.reshape(n, c, -1)
    total = None
    for taps in tap_product(axes):
        index, inside, weight = reads(axes, size, taps)
        term = gather(flat, index, inside) * weight[:, None, :]
        if (
            len(size) == 3
        ):  # the 3-D kernel adds only the taps inside (a NaN weight outside is skipped)
            term = np.where(inside[:, None, :], term, term.dtype.type(0))
        total = term if total is None else total + term
    assert total is not None
    return total.reshape(n, c, *out)


@quietly
def input_grad(
    g: np.ndarray,
    a_shape: tuple[int, ...],
    grid: np.ndarray,
    mode: str,
    padding: str,
    align: bool,
) -> np.ndarray:
    """The gradient in the input: each output's gradient, times each tap's weight, added
    where the tap read."""
    n, c, *size_list = a_shape
    size = tuple(size_list)
    total = math.prod(size)
    out = np.zeros(n * c * total, np.float64)
    if g.size == 0:
        return out.reshape(a_shape).astype(g.dtype)
    axes = plan(grid, size, mode, padding, align)
    gf = g.reshape(n, c, -1)
    plane = (np.arange(n * c) * total).reshape(n, c, 1)
    for taps in tap_product(axes):
        index, inside, weight = reads(axes, size, taps)
        where = plane + index[:, None, :]
        amount = np.where(inside[:, None, :], gf * weight[:, None, :], 0)
        out += np.bincount(where.ravel(), amount.ravel(), minlength=out.size)
    return out.reshape(a_shape).astype(g.dtype)


@quietly
def grid_grad(
    g: np.ndarray, a: np.ndarray, grid: np.ndarray, mode: str, padding: str, align: bool
) -> np.ndarray:
    """The gradient in the grid `(N, *out, k)`: per coordinate, the output's gradient
    times the input read, times the derivative of the taps' weights."""
    n, c, *size_list = a.shape
    size = tuple(size_list)
    k = len(size)
    result = np.zeros(grid.shape, a.dtype)
    if mode == "nearest" or g.size == 0 or a.size == 0:
        return result
    axes = plan(grid, size, mode, padding, align)
    gf = g.reshape(n, c, -1)
    flat = a.reshape(n, c, -1)
    per_dim = [np.zeros(gf.shape[::2], a.dtype) for _ in range(k)]
    for taps in tap_product(axes):
        index, inside, _ = reads(axes, size, taps)
        read = (gather(flat, index, inside) * gf).sum(1)  # (N, P)
        for j in range(k):
            factor = axes[j].dweight[taps[j]]
            for i in range(k):
                if i != j:
                    factor = factor * axes[i].weight[taps[i]]
            per_dim[j] += read * factor
    out = result.reshape(n, -1, k)
    for j in range(k):
        out[..., k - 1 - j] = per_dim[j] * axes[j].slope
    return result
