"""NumPy forwards and messages shared by the elementwise ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..broadcasting import broadcast_error
from ..quiet import mute, unmute

__all__ = [
    "binary_forward",
    "float_unary_forward",
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


def scaled_binary_forward(np_fn: Any) -> Any:
    """`a op alpha * b`, the forward of add and sub (alpha 1 costs nothing)."""
    plain = binary_forward(np_fn)

    def forward(a: np.ndarray, b: np.ndarray, dt: np.dtype, alpha: Any = 1) -> np.ndarray:
        if alpha != 1:
            b = np.multiply(b, alpha, dtype=dt, casting="unsafe")
        return plain(a, b, dt)

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
