"""NumPy forwards and messages shared by the elementwise ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..broadcasting import broadcast_error
from ..quiet import mute, quietly, unmute

__all__ = [
    "binary_forward",
    "float_unary_forward",
    "fma",
    "number_forward",
    "scaled_binary_forward",
]


def binary_forward(np_fn: Any) -> Any:
    """A forward that computes in the promoted dtype `dt` (Note: no cast node in the graph)."""

    def forward(a: np.ndarray, b: np.ndarray, dt: np.dtype, **_: Any) -> np.ndarray:
        token = mute()
        try:
            if a.dtype == dt and b.dtype == dt:
                return np_fn(a, b)
            # Unsafe: a 0-d int8 with a uint8 tensor computes in uint8, wrapping, as PyTorch.
            return np_fn(a, b, dtype=dt, casting="unsafe")
        except ValueError:
            if _broadcast(a.shape, b.shape):
                raise  # NumPy's own refusal (an integer to a negative integer power)
            raise RuntimeError(broadcast_error(a.shape, b.shape)) from None
        finally:
            unmute(token)

    return forward


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def float_unary_forward(np_fn: Any) -> Any:
    def forward(a: np.ndarray) -> np.ndarray:
        if a.dtype.kind != "f":
            a = a.astype(_dtype.get_default_dtype().np)
        token = mute()  # log(0), sqrt(-1): silent, as in PyTorch (quiet(), spelled out)
        try:
            return np_fn(a)
        finally:
            unmute(token)

    return forward


_SPLIT = 134217729.0  # 2**27 + 1: splits a float64 into two halves of 26 bits


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    high = c - (c - a)
    return high, a - high


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a + b as a rounded sum and its exact rounding error (Knuth's TwoSum)."""
    total = a + b
    back = total - a
    return total, (a - (total - back)) + (b - back)


@quietly
def fma(a: Any, b: Any, c: Any, dt: np.dtype) -> np.ndarray:
    """a * b + c rounded once, in `dt` (what a fused multiply-add gives)."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    product = a * b
    if dt != np.float64:
        # The product of two float32s is exact in float64. The sum is rounded to
        # odd there (an inexact result keeps an odd last bit), so that rounding
        # it again to dt rounds as once.
        total, error = _two_sum(product, c)
        even = (total.view(np.int64) & 1) == 0
        toward = np.where(error > 0, np.inf, -np.inf)
        total = np.where((error != 0) & even, np.nextafter(total, toward), total)
        return np.asarray(total).astype(dt)
    (a_hi, a_lo), (b_hi, b_lo) = _split(a), _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total, sum_error = _two_sum(product, c)
    fused = total + (sum_error + product_error)
    # Overflow or inf in the splitting, or a sum of zeros (-0.0 + -0.0 is -0.0): the
    # plain result is right there.
    plain = ~np.isfinite(fused) | ((product == 0) & (c == 0))
    return np.asarray(np.where(plain, total, fused))


def scaled_binary_forward(np_fn: Any) -> Any:
    """`a op alpha * b`, the forward of add and sub (alpha 1 costs nothing).

    torch adds `alpha * b` with a fused multiply-add in float32 and float64 (sub
    adds `-alpha * b`), so those round once here too.
    """
    plain = binary_forward(np_fn)
    sign = -1 if np_fn is np.subtract else 1

    def forward(a: np.ndarray, b: np.ndarray, dt: np.dtype, alpha: Any = 1) -> np.ndarray:
        if alpha == 1:
            return plain(a, b, dt)
        if dt in (np.float32, np.float64):
            scale = np.asarray(sign * alpha).astype(dt)
            return fma(b.astype(dt, copy=False), scale, a.astype(dt, copy=False), dt)
        return plain(a, np.multiply(b, alpha, dtype=dt, casting="unsafe"), dt)

    return forward


def number_forward(np_fn: Any) -> Any:
    """The forward of `tensor op number` in the tensor's float dtype (an integer tensor
    computes in the default float), quietly."""

    def forward(a: np.ndarray, other: Any) -> np.ndarray:
        if a.dtype.kind != "f":
            a = a.astype(_dtype.get_default_dtype().np)
        token = mute()
        try:
            return np_fn(a, other, dtype=a.dtype)
        finally:
            unmute(token)

    return forward
