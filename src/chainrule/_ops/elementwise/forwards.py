"""NumPy forwards and messages shared by the elementwise ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._float_math import fma as fused_multiply_add
from ..._strides import elementwise
from ..broadcasting import broadcast_error
from ..quiet import mute, quietly, unmute

__all__ = [
    "binary_forward",
    "float_unary_forward",
    "fma",
    "number_forward",
    "one_minus",
    "scaled_binary_forward",
]


def binary_forward(np_fn: Any) -> Any:
    """A forward that computes in the promoted dtype `dt` (Note: no cast node in the graph)."""

    def forward(a: np.ndarray, b: np.ndarray, dt: np.dtype, **_: Any) -> np.ndarray:
        token = mute()
        try:
            if a.dtype == dt and b.dtype == dt:
                return elementwise(np_fn(a, b), a, b)
            # Unsafe: a 0-d int8 with a uint8 tensor computes in uint8, wrapping, as PyTorch.
            return elementwise(np_fn(a, b, dtype=dt, casting="unsafe"), a, b)
        except ValueError:
            if _broadcast(a.shape, b.shape):
                raise  # NumPy's own refusal (an integer to a negative integer power)
            raise RuntimeError(broadcast_error(a.shape, b.shape)) from None
        finally:
            unmute(token)

    forward.ufunc = np_fn  # type: ignore[attr-defined]  # (see Primitive.ufunc)
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
            return elementwise(np_fn(a), a)
        finally:
            unmute(token)

    forward.ufunc = np_fn  # type: ignore[attr-defined]  # (see Primitive.ufunc)
    return forward


@quietly
def fma(a: Any, b: Any, c: Any, dt: np.dtype) -> np.ndarray:
    """a * b + c rounded once, in `dt` (what a fused multiply-add gives)."""
    return fused_multiply_add(a, b, c, dt)


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
            return elementwise(
                fma(b.astype(dt, copy=False), scale, a.astype(dt, copy=False), dt), a, b
            )
        return plain(a, np.multiply(b, alpha, dtype=dt, casting="unsafe"), dt)

    forward.ufunc = np_fn  # type: ignore[attr-defined]  # (alpha 1 only: see Primitive.ufunc)
    return forward


def number_forward(np_fn: Any) -> Any:
    """The forward of `tensor op number` in the tensor's float dtype (an integer tensor
    computes in the default float), quietly."""

    def forward(a: np.ndarray, other: Any) -> np.ndarray:
        if a.dtype.kind != "f":
            a = a.astype(_dtype.get_default_dtype().np)
        token = mute()
        try:
            return elementwise(np_fn(a, other, dtype=a.dtype), a)
        finally:
            unmute(token)

    return forward


def one_minus(a: np.ndarray) -> np.ndarray:
    """`1 - a` in `a`'s dtype, with the 1 as a 0-d array of that dtype: the same values as
    a Python 1 gives, in half the time (NumPy resolves a Python number's type per call)."""
    one = _ONES.get(a.dtype)
    if one is None:
        one = _ONES[a.dtype] = np.ones((), a.dtype)
        one.flags.writeable = False
    return one - a


_ONES: dict[np.dtype, np.ndarray] = {}
