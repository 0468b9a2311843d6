"""Constant padding of the trailing dims (negative amounts crop): PyTorch's constant_pad_nd,
and the same on arrays for the window kernels of convolution and pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..primitive import Primitive

__all__: list[str] = []


def pad_spatial(
    a: np.ndarray, lo: Sequence[int], hi: Sequence[int], value: float = 0
) -> np.ndarray:
    """`a` with `lo[i]`/`hi[i]` entries of `value` before/after spatial dim i (negative crops)."""
    if not any(lo) and not any(hi):
        return a
    lead = a.ndim - len(lo)
    crop = tuple(
        slice(max(-b, 0), a.shape[lead + i] - max(-e, 0))
        for i, (b, e) in enumerate(zip(lo, hi, strict=True))
    )
    index: tuple[Any, ...] = (Ellipsis, *crop)
    a = a[index]
    grow = [(max(b, 0), max(e, 0)) for b, e in zip(lo, hi, strict=True)]
    if not any(b or e for b, e in grow):
        return a
    spatial = a.shape[lead:]
    shape = a.shape[:lead] + tuple(s + b + e for s, (b, e) in zip(spatial, grow, strict=True))
    out = np.zeros(shape, a.dtype) if value == 0 else np.full(shape, value, a.dtype)
    inner: tuple[Any, ...] = (
        Ellipsis,
        *(slice(b, b + s) for s, (b, _) in zip(spatial, grow, strict=True)),
    )
    out[inner] = a
    return out


def _constant_pad_forward(a: np.ndarray, lo: Sequence[int], hi: Sequence[int], value: Any) -> Any:
    out = pad_spatial(a, lo, hi, value)
    return out.copy() if np.shares_memory(out, a) else out


_constant_pad: Primitive = Primitive(
    "ConstantPadNdBackward0",
    _constant_pad_forward,
    # The adjoint of padding is cropping by the same amounts: the opposite padding.
    grads=(
        lambda g, n: _constant_pad(
            g, lo=tuple(-p for p in n.lo), hi=tuple(-p for p in n.hi), value=0
        ),
    ),
    formulas=("grad with the padding cropped off",),
    # Forward mode pads the tangent with zeros: the padding value is a constant.
    tangent=lambda ts, p: _constant_pad(ts[0], lo=p.lo, hi=p.hi, value=0),
)


def constant_pad(input: Tensor, lo: Sequence[int], hi: Sequence[int], value: Any = 0) -> Tensor:
    """`input` with `lo[i]`/`hi[i]` entries of `value` before/after each of its last
    `len(lo)` dims (negative amounts crop)."""
    return _constant_pad(input, lo=tuple(lo), hi=tuple(hi), value=value)
