"""Random tensors: rand, randn, randint, randperm and their `*_like` forms.

Each draws from the generator passed as `generator=`, else from the default one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtype
from ._creation import _finish, _float_dtype, _size_args, filled_like
from ._random_samplers import normal_, random_, uniform_
from ._tensor import Tensor
from .random import Generator, _generator_or_default

__all__ = [
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
]


def _float_sampler(
    name: str, draw: Callable[[Generator, tuple[int, ...], np.dtype], np.ndarray], doc: str
) -> Callable[..., Tensor]:
    """`rand` or `randn`: draws of the requested size, made in the requested dtype."""

    def sample(
        *size: Any,
        generator: Generator | None = None,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        **_: Any,
    ) -> Tensor:
        dt = np.dtype(_float_dtype(dtype))
        data = draw(_generator_or_default(generator, name), _size_args(size), dt)
        return _finish(data, requires_grad, device)

    sample.__name__ = sample.__qualname__ = name
    sample.__doc__ = doc
    return sample


def _unit_uniform(source: Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    return source._uniform(shape, dtype=dtype)


rand = _float_sampler("rand", _unit_uniform, "Uniform samples on [0, 1).")
randn = _float_sampler("randn", Generator._normal, "Standard normal samples.")


def randint(
    low: int,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
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
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    """0, ..., n - 1 in random order."""
    source = _generator_or_default(generator, "randperm")
    dt = _dtype.to_dtype(dtype).np if dtype is not None else np.dtype(np.int64)
    return _finish(source._permutation(n).astype(dt), requires_grad, device)


def _like(fill: Callable[..., Tensor], name: str, what: str) -> Callable[..., Tensor]:
    """`rand_like` or `randn_like`: as PyTorch makes them, a tensor laid out like `input`
    filled in place (so a non-contiguous one is filled in memory order, one value at a
    time for normals)."""

    def sample_like(
        input: Tensor,
        *,
        generator: Generator | None = None,
        dtype: Any = None,
        requires_grad: bool = False,
        **_: Any,
    ) -> Tensor:
        source = _generator_or_default(generator, name)
        dt = np.dtype(_float_dtype(dtype or input.dtype))
        out = fill(Tensor._make(filled_like(input, 0, dt)), generator=source)
        return _finish(out._data, requires_grad)

    sample_like.__name__ = sample_like.__qualname__ = name
    sample_like.__doc__ = f"{what} shaped and laid out like `input`."
    return sample_like


rand_like = _like(uniform_, "rand_like", "Uniform samples on [0, 1)")
randn_like = _like(normal_, "randn_like", "Standard normal samples")


def randint_like(
    input: Tensor,
    low: Any = None,
    high: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    **_: Any,
) -> Tensor:
    """`randint` shaped like `input`: `randint_like(x, high)` or `(x, low, high)`."""
    if high is None:
        low, high = 0, low
    if high is None:
        raise TypeError("randint_like() missing required argument 'high'")
    source = _generator_or_default(generator, "randint_like")
    low = 0 if low is None else low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    dt = _dtype.to_dtype(dtype).np if dtype is not None else input._data.dtype
    return random_(Tensor._make(filled_like(input, 0, dt)), low, high, generator=source)
