"""What the scatter modules share: index and fill-value checks, zeros and padding in
gradients, PyTorch's dtype names in messages, and in-place methods made from ops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

import numpy as np

from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..shape.padding import constant_pad

__all__: list[str] = []

P = ParamSpec("P")

INT_INDEX = ("int32", "int64")


def require_index(
    index: Any, ok: tuple[str, ...], message: str, fn: str = "", exc: type[Exception] = RuntimeError
) -> np.ndarray:
    """The array of an index tensor of an allowed dtype, else PyTorch's error."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype.name not in ok:
        raise exc(message)
    return index._data


def check_bounds(idx: np.ndarray, size: int, dim: int, **kw: Any) -> None:
    """PyTorch's error for the first index outside `[0, size)` (`[-size, size)` if negative)."""
    bad = (idx < (-size if kw.get("negative") else 0)) | (idx >= size)
    if bad.any():
        value = int(idx.ravel()[np.argmax(bad.ravel())])
        message = kw.get("prefix", "") + f"index {value} is out of bounds for dimension {dim} "
        raise kw.get("exc", RuntimeError)(message + f"with size {size}")


def fill_value(fn: str, input: Tensor, value: Any) -> np.ndarray:
    """A Python number as a 0-d array of `input`'s dtype (floats truncate into integers)."""
    if not isinstance(value, bool | int | float | np.number):
        raise TypeError(
            f"{fn}() received an invalid combination of arguments - got ({type(value).__name__}),"
            " but expected a Number or a Tensor"
        )
    return np.asarray(value).astype(input._data.dtype)


def zeros_of(g: Tensor, shape: Any) -> Tensor:
    """Constant zeros of `shape` in `g`'s dtype (what a scatter-like gradient starts from)."""
    return Tensor._make(np.zeros(tuple(shape), dtype=g._data.dtype))


def pad_to(g: Tensor, shape: Any) -> Tensor:
    """`g` in the leading corner of zeros of `shape` (its gradient crops it back out)."""
    return constant_pad(g, [0] * len(shape), [s - n for s, n in zip(shape, g.shape, strict=True)])


def inplace_method(
    name: str, fn: Callable[Concatenate[Tensor, P], Tensor]
) -> Callable[Concatenate[Tensor, P], Tensor]:
    """The method `x.name(...)` (as `scatter_`): `fn`'s checks and result, written into `x`."""

    def method(self: Tensor, *args: P.args, **kwargs: P.kwargs) -> Tensor:
        return apply_inplace(self, lambda old: fn(old, *args, **kwargs))

    method.__name__ = name
    return method
