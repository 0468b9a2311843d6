"""Random tensors: rand, randn, randint, randperm and their `*_like` forms.

Each draws from the generator passed as `generator=`, else from the default one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtype
from ._creation import _finish, _float_dtype, _size_args
from ._tensor import Tensor
from .random import _generator_or_default

__all__ = [
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
]


def rand(
    *size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    """Uniform samples on [0, 1)."""
    draw = _generator_or_default(generator, "rand")._uniform(_size_args(size))
    return _finish(draw.astype(_float_dtype(dtype)), requires_grad, device)


def randn(
    *size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    """Standard normal samples."""
    draw = _generator_or_default(generator, "randn")._normal(_size_args(size))
    return _finish(draw.astype(_float_dtype(dtype)), requires_grad, device)


def randint(
    low: int,
    high: Any = None,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Integers uniform on [low, high); `randint(high, size)` starts at 0."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    source = _generator_or_default(generator, "randint")
    dt = _dtype.to_dtype(dtype).np if dtype is not None else np.dtype(np.int64)
    data = source._integers(low, high, _size_args((size,))).astype(dt)
    return _finish(data, requires_grad, device)


def randperm(
    n: int, *, generator: Any = None, dtype: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    """0, ..., n - 1 in random order."""
    source = _generator_or_default(generator, "randperm")
    dt = _dtype.to_dtype(dtype).np if dtype is not None else np.dtype(np.int64)
    return _finish(source._permutation(n).astype(dt), requires_grad)


def rand_like(
    input: Tensor,
    *,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    source = _generator_or_default(generator, "rand_like")
    dt = dtype or input.dtype
    return rand(input.shape, generator=source, dtype=dt, requires_grad=requires_grad)


def randn_like(
    input: Tensor,
    *,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    source = _generator_or_default(generator, "randn_like")
    dt = dtype or input.dtype
    return randn(input.shape, generator=source, dtype=dt, requires_grad=requires_grad)


def randint_like(
    input: Tensor, low: int, high: Any = None, *, generator: Any = None, dtype: Any = None
) -> Tensor:
    source = _generator_or_default(generator, "randint_like")
    return randint(low, high, tuple(input.shape), generator=source, dtype=dtype or input.dtype)
