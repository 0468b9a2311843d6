"""Op table lines for nn.functional's spatial transformers (grid_sample, affine_grid) and
fractional max pooling. The NumPy references loop over output points, written from the
ops' definitions: a pixel position per grid coordinate, padded, then interpolated."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from op_table import Domain, Op, lib
from optable_nn_conv import TIE_NOTE, F

Ints = tuple[int, ...]
GRID = Domain(-1.2, 1.2)  # a little outside [-1, 1], so padding is read too
NO_FORWARD_AD = "torch has no forward mode for grid_sampler (NotImplementedError)"


# --- grid_sample --------------------------------------------------------------------------


def _keys(d: float) -> float:
    """Keys's cubic convolution kernel (a = -0.75) at distance d."""
    a, d = -0.75, abs(d)
    if d <= 1:
        return (a + 2) * d**3 - (a + 3) * d**2 + 1
    if d < 2:
        return a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a
    return 0.0


def _pixel(c: float, size: int, align: bool) -> float:
    return (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2


def _padded(p: float, size: int, padding: str, align: bool) -> float:
    if padding == "reflection":
        low, high = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        if high <= low:
            return 0.0
        span = high - low
        t = abs(p - low) % (2 * span)
        p = low + (t if t <= span else 2 * span - t)
    if padding in ("border", "reflection"):
        return min(max(p, 0.0), size - 1.0)
    return p


def _taps(p: float, size: int, mode: str, padding: str, align: bool) -> list[tuple[int, float]]:
    """(index, weight) of each pixel a position reads along one dim."""
    if mode == "nearest":
        return [(round(_padded(p, size, padding, align)), 1.0)]
    if mode == "bilinear":
        p = _padded(p, size, padding, align)
        base = math.floor(p)
        return [(base, 1 - (p - base)), (base + 1, p - base)]
    base = math.floor(p)
    return [
        (int(_padded(base + t, size, padding, align)), _keys(p - base - t)) for t in (-1, 0, 1, 2)
    ]


def grid_sample_ref(x: np.ndarray, grid: np.ndarray, mode: str, padding: str, align: bool) -> Any:
    n, c, *size = x.shape
    k = len(size)
    out = np.zeros((n, c, *grid.shape[1:-1]))
    for b in range(n):
        for o in np.ndindex(*grid.shape[1:-1]):
            pixels = [_pixel(grid[(b, *o, k - 1 - j)], size[j], align) for j in range(k)]
            taps = [_taps(p, s, mode, padding, align) for p, s in zip(pixels, size, strict=True)]
            for combo in itertools.product(*taps):
                index = tuple(i for i, _ in combo)
                if all(0 <= i < s for i, s in zip(index, size, strict=True)):
                    weight = math.prod(w for _, w in combo)
                    out[(b, slice(None), *o)] += weight * x[(b, slice(None), *index)]
    return out


def _sample(mode: str, padding: str, align: bool) -> Any:
    def fn(x: Any, g: Any) -> Any:
        return F(x).grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)

    def ref(x: np.ndarray, g: np.ndarray) -> Any:
        return grid_sample_ref(x, g, mode, padding, align)

    return fn, ref


SAMPLE_2D = ((1, 2, 3, 4), (1, 2, 3, 2))
SAMPLE_3D = ((1, 2, 3, 2, 3), (1, 2, 2, 1, 3))
SAMPLE_BATCH = ((2, 1, 4, 3), (2, 1, 3, 2))


# --- affine_grid --------------------------------------------------------------------------


def affine_grid_ref(theta: np.ndarray, size: Ints, align: bool) -> Any:
    spatial = size[2:]

    def steps(m: int) -> np.ndarray:
        if m == 1:
            return np.zeros(1)
        s = np.linspace(-1, 1, m)
        return s if align else s * (m - 1) / m

    coords = np.meshgrid(*(steps(m) for m in spatial), indexing="ij")  # per input dim
    base = np.stack([*coords[::-1], np.ones(spatial)], -1)  # x (last dim) first, then 1
    return np.einsum("...j,nij->n...i", base, theta)


def _affine(size: Ints, align: bool) -> Any:
    return (
        lambda t: F(t).affine_grid(t, size, align_corners=align),
        lambda t: affine_grid_ref(t, size, align),
    )


# --- fractional max pooling ----------------------------------------------------------------


def _starts(u: float, size: int, out: int, pool: int) -> list[int]:
    alpha = (size - pool) / (out - 1) if out > 1 else 0.0
    return [int((i + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - pool]


def fractional_ref(x: np.ndarray, samples: np.ndarray, kernel: Ints, out: Ints) -> Any:
    k = len(kernel)
    if x.ndim == k + 1:  # unbatched: the first plane's draws
        return fractional_ref(x[None], samples, kernel, out)[0]
    y = np.zeros((*x.shape[:2], *out))
    for b, c in np.ndindex(*x.shape[:2]):
        u = samples[b, c][::-1] if k == 2 else samples[b, c]  # 2-D draws are (W, H)
        starts = [_starts(u[j], x.shape[-k + j], out[j], kernel[j]) for j in range(k)]
        for o in np.ndindex(*out):
            window = tuple(
                slice(s[i], s[i] + kk) for s, i, kk in zip(starts, o, kernel, strict=True)
            )
            y[(b, c, *o)] = x[(b, c, *window)].max()
    return y


SAMPLES_2D = np.array([[[0.25, 0.5], [0.75, 0.125]], [[0.5, 0.875], [0.0, 0.375]]])
SAMPLES_3D = np.array([[[0.25, 0.5, 0.75], [0.125, 0.0, 0.625]]])


def _fractional(n: int, kernel: Ints, out: Ints, samples: np.ndarray) -> Any:
    def fn(x: Any) -> Any:
        s = lib(x).tensor(samples[: max(x.shape[0], 1)], dtype=x.dtype)
        pool = getattr(F(x), f"fractional_max_pool{n}d")
        return pool(x, kernel, out, _random_samples=s)

    return fn, lambda x: fractional_ref(x, samples, kernel, out)


# fmt: off
OPS: tuple[Op, ...] = (
    Op("F_grid_sample", *_sample("bilinear", "zeros", False), (SAMPLE_2D, SAMPLE_3D, SAMPLE_BATCH),
       (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_border_aligned", *_sample("bilinear", "border", True),
       (SAMPLE_2D, SAMPLE_3D), (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_reflection", *_sample("bilinear", "reflection", False),
       (SAMPLE_2D, SAMPLE_3D), (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_nearest", *_sample("nearest", "zeros", False), (SAMPLE_2D, SAMPLE_3D),
       (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_nearest_reflection", *_sample("nearest", "reflection", True),
       (SAMPLE_2D,), (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_bicubic", *_sample("bicubic", "zeros", False), (SAMPLE_2D, SAMPLE_BATCH),
       (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_bicubic_border", *_sample("bicubic", "border", True), (SAMPLE_2D,),
       (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_grid_sample_bicubic_reflection", *_sample("bicubic", "reflection", False),
       (SAMPLE_2D,), (Domain(), GRID), forward_ad=False, note=NO_FORWARD_AD),
    Op("F_affine_grid", *_affine((2, 3, 4, 5), False), (((2, 2, 3),),)),
    Op("F_affine_grid_aligned", *_affine((1, 2, 3, 2), True), (((1, 2, 3),),)),
    Op("F_affine_grid_3d", *_affine((2, 1, 2, 3, 4), False), (((2, 3, 4),),)),
    Op("F_affine_grid_3d_aligned", *_affine((1, 1, 3, 2, 2), True), (((1, 3, 4),),)),
    Op("F_fractional_max_pool2d", *_fractional(2, (2, 3), (3, 3), SAMPLES_2D),
       (((2, 2, 7, 9),), ((2, 7, 9),)), note=TIE_NOTE),
    Op("F_fractional_max_pool3d", *_fractional(3, (2, 1, 2), (2, 3, 2), SAMPLES_3D),
       (((1, 2, 5, 4, 5),), ((2, 5, 4, 5),)), note=TIE_NOTE),
)
# fmt: on
