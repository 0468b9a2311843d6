"""Resampling: pad, interpolate, pixel_shuffle and pixel_unshuffle.

Reflect, replicate and circular padding and every interpolation mode map each
spatial dim on its own with fixed taps (`_taps`): one primitive applies them,
its gradient scatters back through the same taps. Constant padding is the shape
family's `constant_pad`, whose gradient is the opposite padding (a crop).
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.primitive import Primitive
from ..._ops.shape.padding import constant_pad
from ..._tensor import Tensor
from . import _taps
from ._pool import adaptive_avg_pool1d, adaptive_avg_pool2d
from ._pool3d import adaptive_avg_pool3d
from ._spatial_common import shape_list

__all__ = [
    "interpolate",
    "pad",
    "pixel_shuffle",
    "pixel_unshuffle",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

Ints = tuple[int, ...]


# --- pad ----------------------------------------------------------------------------------


_FOLDED = "grad with the padding added back onto the positions it copies"
_reflect = {k: _taps.linear_pair(f"ReflectionPad{k}DBackward0", _FOLDED) for k in (1, 2, 3)}
_replicate = {k: _taps.linear_pair(f"ReplicationPad{k}DBackward0", _FOLDED) for k in (1, 2, 3)}


def _reflect_index(size: int, lo: int, hi: int) -> np.ndarray:
    j = np.abs(np.arange(-lo, size + hi))
    return np.where(j > size - 1, 2 * (size - 1) - j, j)


def _replicate_index(size: int, lo: int, hi: int) -> np.ndarray:
    return np.clip(np.arange(-lo, size + hi), 0, size - 1)


_INDEX: dict[str, Callable[[int, int, int], np.ndarray]] = {
    "reflect": _reflect_index,
    "replicate": _replicate_index,
}


def _circular_pad(input: Tensor, lo: Ints, hi: Ints) -> Tensor:
    """Circular padding as PyTorch does it, with slice copies (so its grad_fn is CopySlices):
    the input (cropped where an amount is negative) into the middle, then, last dim first,
    the wrapped-around ends copied from the other side of the result."""
    k, lead = len(lo), input.ndim - len(lo)
    size = tuple(s + b + e for s, b, e in zip(input._data.shape[lead:], lo, hi, strict=True))
    out = Tensor._make(np.zeros((*input._data.shape[:lead], *size), input._data.dtype))

    def along(d: int, start: int, stop: int) -> tuple[slice, ...]:
        return (slice(None),) * (lead + d) + (slice(start, stop),)

    source = input  # narrowed one dim at a time, as PyTorch's graph shows
    for d, (b, e) in enumerate(zip(lo, hi, strict=True)):
        start = max(-b, 0)
        source = source.narrow(lead + d, start, input._data.shape[lead + d] - max(-e, 0) - start)
    middle = tuple(slice(max(b, 0), n - max(e, 0)) for n, b, e in zip(size, lo, hi, strict=True))
    out[(slice(None),) * lead + middle] = source
    for d in reversed(range(k)):
        b, e, n = lo[d], hi[d], size[d]
        if b > 0:
            out[along(d, 0, b)] = out[along(d, n - b - max(e, 0), n - max(e, 0))]
        if e > 0:
            out[along(d, n - e, n)] = out[along(d, max(b, 0), max(b, 0) + e)]
    return out


def _pad_amounts(pad: Any) -> Ints:
    if isinstance(pad, Tensor):
        pad = pad.tolist()
    out = []
    for i, p in enumerate(pad):
        try:
            out.append(operator.index(p))
        except TypeError:
            raise TypeError(
                "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                f"type {type(p).__name__} at pos {i}"
            ) from None
    return tuple(out)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last `len(pad) // 2` dims, last dim first: `(left, right, top, bottom, ...)`.

    Modes: "constant" (with `value`; negative amounts crop), "reflect" (mirror
    without repeating the edge), "replicate" (repeat the edge), "circular" (wrap).
    """
    amounts = _pad_amounts(pad)
    if len(amounts) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(amounts) // 2
    if k > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(amounts)} and input of dimension {input.ndim}"
        )
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    # Pairs are given last dim first; lo/hi here run first spatial dim first.
    lo = tuple(amounts[2 * i] for i in reversed(range(k)))
    hi = tuple(amounts[2 * i + 1] for i in reversed(range(k)))
    shape = tuple(input._data.shape)
    if mode == "constant":
        if any(s + b + e < 0 for s, b, e in zip(shape[input.ndim - k :], lo, hi, strict=True)):
            raise RuntimeError("narrow(): length must be non-negative.")
        fill = 0 if value is None else value
        return constant_pad(input, lo, hi, fill)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(amounts)} is not supported for {input.ndim}D input tensor."
        )
    _check_pad_sizes(mode, shape, k, lo, hi)
    if mode == "circular":
        return _circular_pad(input, lo, hi)
    taps = tuple(
        _taps.Taps(_INDEX[mode](size, b, e)[None, :], None, size)
        for size, b, e in zip(shape[input.ndim - k :], lo, hi, strict=True)
    )
    return (_reflect if mode == "reflect" else _replicate)[k](input, taps=taps)


def _check_pad_sizes(mode: str, shape: Ints, k: int, lo: Ints, hi: Ints) -> None:
    spatial = shape[len(shape) - k :]
    if mode == "circular":
        if any(b > s or e > s for s, b, e in zip(spatial, lo, hi, strict=True)):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        return
    batch = 1 if len(shape) == k + 2 else 0
    if any(s == 0 for s in shape[batch:]):
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {shape_list(shape)}"
        )
    if mode == "reflect":
        for i in range(k):  # PyTorch reports the last dim first
            d = k - 1 - i
            if lo[d] >= spatial[d] or hi[d] >= spatial[d]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({lo[d]}, {hi[d]}) at dimension "
                    f"{len(shape) - k + d} of input {shape_list(shape)}"
                )


# --- interpolate --------------------------------------------------------------------------

_COPIED = "grad summed back onto the input position each output copied"
_INTERPOLATED = "grad spread back with the interpolation weights"
_upsample = {
    **{
        ("nearest", k): _taps.linear_pair(f"UpsampleNearest{k}DBackward0", _COPIED)
        for k in (1, 2, 3)
    },
    **{
        ("nearest-exact", k): _taps.linear_pair(f"UpsampleNearestExact{k}DBackward0", _COPIED)
        for k in (1, 2, 3)
    },
    ("linear", 1): _taps.linear_pair("UpsampleLinear1DBackward0", _INTERPOLATED),
    ("bilinear", 2): _taps.linear_pair("UpsampleBilinear2DBackward0", _INTERPOLATED),
    ("bicubic", 2): _taps.linear_pair("UpsampleBicubic2DBackward0", _INTERPOLATED),
    ("trilinear", 3): _taps.linear_pair("UpsampleTrilinear3DBackward0", _INTERPOLATED),
}
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _nearest_taps(size: int, out: int, scale: float | None, exact: bool) -> _taps.Taps:
    """Nearest neighbour in float32 arithmetic, as PyTorch computes it.

    Like PyTorch, "nearest" copies when the size is kept and halves indices when
    it doubles, whatever the scale factor says.
    """
    if not exact and out in (size, 2 * size):
        return _taps.Taps((np.arange(out) // (out // size))[None, :], None, size)
    ratio = np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)
    dst = np.arange(out, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0))
    src = np.minimum(np.floor(dst * ratio).astype(np.int64), size - 1)
    return _taps.Taps(src[None, :], None, size)


def _source(size: int, out: int, scale: float | None, align_corners: bool, cubic: bool) -> Any:
    """Where each output position samples the input (a real coordinate)."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return dst * ((size - 1) / (out - 1) if out > 1 else 0.0)
    ratio = 1.0 / scale if scale else size / out
    src = ratio * (dst + 0.5) - 0.5
    return src if cubic else np.maximum(src, 0.0)


def _linear_taps(size: int, out: int, scale: float | None, align_corners: bool) -> _taps.Taps:
    src = _source(size, out, scale, align_corners, cubic=False)
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    frac = np.clip(src - low, 0.0, 1.0)
    index = np.stack([low, np.minimum(low + 1, size - 1)])
    return _taps.Taps(index, np.stack([1 - frac, frac]), size)


def _cubic_taps(size: int, out: int, scale: float | None, align_corners: bool) -> _taps.Taps:
    """Cubic convolution (a = -0.75) over four neighbours, indices clamped at the borders."""
    src = _source(size, out, scale, align_corners, cubic=True)
    low = np.floor(src).astype(np.int64)
    t = src - low
    a = -0.75

    def near(x: Any) -> Any:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Any) -> Any:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weight = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)])
    index = np.clip(low[None, :] + np.arange(-1, 3)[:, None], 0, size - 1)
    return _taps.Taps(index, weight, size)


def _interpolate_sizes(
    input: Tensor, size: Any, scale_factor: Any, recompute_scale_factor: bool | None
) -> tuple[Ints, list[float | None]]:
    """Output sizes, and the scales the kernels use (None: from the sizes)."""
    k = input.ndim - 2
    spatial = [int(s) for s in input._data.shape[2:]]
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, list | tuple):
            if len(size) != k:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format."
                )
            return tuple(int(s) for s in size), [None] * k
        return (int(size),) * k, [None] * k
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, list | tuple):
        if len(scale_factor) != k:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {spatial} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                "and scale_factor in (s1, s2, ...,sK) format."
            )
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * k
    out = tuple(math.floor(n * s) for n, s in zip(spatial, scales, strict=True))
    if recompute_scale_factor:
        return out, [None] * k
    return out, list(scales)


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resample the spatial dims of `(N, C, *spatial)` to `size` or by `scale_factor`.

    Modes: "nearest", "nearest-exact", "linear" (3-D input), "bilinear" and
    "bicubic" (4-D), "trilinear" (5-D), "area" (adaptive average pooling).
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by chainrule")
    known = mode in ("nearest", "nearest-exact", "area") or mode in _LINEAR_DIMS
    if input.ndim not in (3, 4, 5) or not known:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_ALL_MODES} (got {mode})"
        )
    k = input.ndim - 2
    if mode in _LINEAR_DIMS and _LINEAR_DIMS[mode] != k:
        if mode == "bicubic":
            raise NotImplementedError(
                f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                f"for the modes: {_ALL_MODES} (got {mode})"
            )
        raise NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_DIMS[mode] + 2}D input"
        )
    out, scales = _interpolate_sizes(
        input, size, scale_factor, True if mode == "area" else recompute_scale_factor
    )
    if mode == "area":
        if k == 1:
            return adaptive_avg_pool1d(input, out[0])
        if k == 2:
            return adaptive_avg_pool2d(input, out)
        return adaptive_avg_pool3d(input, out)
    _check_interpolate(input, mode, out)
    spatial = input._data.shape[2:]
    taps = tuple(
        _mode_taps(mode, n, o, s, bool(align_corners))
        for n, o, s in zip(spatial, out, scales, strict=True)
    )
    return _upsample[mode, k](input, taps=taps)


def _mode_taps(mode: str, size: int, out: int, scale: float | None, corners: bool) -> _taps.Taps:
    if mode in ("nearest", "nearest-exact"):
        return _nearest_taps(size, out, scale, exact=mode == "nearest-exact")
    if mode == "bicubic":
        return _cubic_taps(size, out, scale, corners)
    return _linear_taps(size, out, scale, corners)


def _check_interpolate(input: Tensor, mode: str, out: Ints) -> None:
    shape = tuple(input._data.shape)
    spatial = shape[2:]
    if any(s <= 0 for s in (*spatial, *out)):
        names = ("D", "H", "W")[3 - len(spatial) :]
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, spatial, strict=True))
        wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, out, strict=True))
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"({given}) output ({wanted})"
        )
    if shape[1] == 0:
        raise RuntimeError(
            f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
            f"{shape_list(shape)}"
        )
    if input._data.dtype.kind != "f":
        kernel = {"nearest-exact": "nearest", "linear": "linear1d"}.get(mode, mode)
        suffix = f"{input.ndim - 2}d" if mode in ("nearest", "nearest-exact") else ""
        raise NotImplementedError(
            f'"upsample_{kernel}{suffix}_channels_last" not implemented for '
            f"'{scalar_name(input)}'"
        )


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=3,
    )


def upsample(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated spelling of `interpolate`."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: `interpolate(..., mode="nearest")`."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: `interpolate(..., mode="bilinear", align_corners=True)`."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- pixel shuffle ------------------------------------------------------------------------


def _shuffle(a: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = a.shape
    x = a.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(a: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = a.shape
    x = a.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


_pixel_unshuffle: Primitive
_pixel_shuffle = Primitive(
    "PixelShuffleBackward0",
    lambda a, r: _shuffle(a, r),
    grads=(lambda g, n: _pixel_unshuffle(g, r=n.r),),
    formulas=("pixel_unshuffle(grad, {r})",),
    tangent="linear",
)
_pixel_unshuffle = Primitive(
    "PixelUnshuffleBackward0",
    lambda a, r: _unshuffle(a, r),
    grads=(lambda g, n: _pixel_shuffle(g, r=n.r),),
    formulas=("pixel_shuffle(grad, {r})",),
    tangent="linear",
)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """`(*, C*r*r, H, W)` -> `(*, C, H*r, W*r)`: channels become r x r spatial blocks."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return _pixel_shuffle(input, r=r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """`(*, C, H*r, W*r)` -> `(*, C*r*r, H, W)`: the inverse of pixel_shuffle."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input._data.shape[-2:]
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={size} is not divisible by {r}"
            )
    return _pixel_unshuffle(input, r=r)
