"""Window functions for signal processing: bartlett, blackman, hamming, hann and kaiser.

Each is computed as PyTorch computes it, step by step in the window's own dtype
(`arange`, then a scale, a cosine, ...), so float32 windows round as PyTorch's do.
A periodic window of length N is the first N values of the symmetric one of N + 1.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtype
from ._creation import arange, ones
from ._device import require_cpu
from ._ops.reduction.common import invalid_arguments
from ._ops.special.bessel import i0
from ._tensor import Tensor

__all__ = [
    "bartlett_window",
    "blackman_window",
    "hamming_window",
    "hann_window",
    "kaiser_window",
]

_OPTIONS = (
    "*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)


def _signatures(extra: tuple[str, ...]) -> list[str]:
    """PyTorch's overloads of a window: the length, then periodic, then each extra number."""
    heads = ["int window_length", "int window_length, bool periodic"]
    for i in range(len(extra)):
        heads.append(heads[1] + "".join(f", float {e}" for e in extra[: i + 1]))
    return [f"{h}, {_OPTIONS}" for h in heads]


def _window(
    name: str,
    window_length: Any,
    periodic: Any,
    numbers: dict[str, Any],
    dtype: Any,
    device: Any,
    requires_grad: bool,
    values: Callable[[Tensor, int], Tensor],
) -> Tensor:
    """Checks the arguments, then the symmetric window of `values` (the arange of its
    length, and that length), cut to a periodic one if asked.

    `periodic` and `numbers` are None where not given: PyTorch's overloads take them in
    order, so one given after one left out matches none of them.
    """
    optional = {"periodic": periodic, **numbers}
    given = [v is not None for v in optional.values()]
    if any(later and not earlier for earlier, later in itertools.pairwise(given)):
        gap = given.index(False)
        positional = (window_length, *list(optional.values())[:gap])
        named = {k: v for k, v in list(optional.items())[gap:] if v is not None}
        raise invalid_arguments(name, positional, named, _signatures(tuple(numbers)))
    periodic = True if periodic is None else periodic
    args = (window_length, periodic, *[v for v in numbers.values() if v is not None])
    if (
        isinstance(window_length, bool)
        or not isinstance(window_length, int | np.integer)
        or not isinstance(periodic, bool)
        or any(isinstance(v, bool) or not isinstance(v, int | float | None) for v in args[2:])
    ):
        if not isinstance(window_length, int | np.integer) or isinstance(window_length, bool):
            raise TypeError(
                f"{name}(): argument 'window_length' (position 1) must be int, not "
                f"{type(window_length).__name__}"
            )
        raise invalid_arguments(name, args, {}, _signatures(tuple(numbers)))
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if device is not None:
        require_cpu(device)
    if not dt.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_dtype.c_type_name(dt)}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    n = int(window_length)
    if n <= 1:
        out = ones(n, dtype=dt)
    else:
        full = n + 1 if periodic else n
        out = values(arange(full, dtype=dt), full)
        out = out[: full - 1].clone() if periodic else out
    return out.requires_grad_(bool(requires_grad))


def bartlett_window(
    window_length: int,
    periodic: bool | None = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """A triangle: rising linearly from 0 to 1 at the middle and back to 0."""

    def values(k: Tensor, n: int) -> Tensor:
        k = k * (2.0 / (n - 1))
        half = (n - 1) // 2 + 1
        k[half:] = k[half:] * -1 + 2
        return k

    return _window(
        "bartlett_window", window_length, periodic, {}, dtype, device, requires_grad, values
    )


def blackman_window(
    window_length: int,
    periodic: bool | None = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """0.42 - 0.5 cos(2πk/(N-1)) + 0.08 cos(4πk/(N-1))."""

    def values(k: Tensor, n: int) -> Tensor:
        k = k * (math.pi / (n - 1))
        return (k * 4).cos() * 0.08 - (k * 2).cos() * 0.5 + 0.42

    return _window(
        "blackman_window", window_length, periodic, {}, dtype, device, requires_grad, values
    )


def _raised_cosine(alpha: float, beta: float) -> Callable[[Tensor, int], Tensor]:
    """alpha - beta cos(2πk/(N-1)): hamming's and hann's shape."""

    def values(k: Tensor, n: int) -> Tensor:
        return (k * (math.pi * 2.0 / (n - 1))).cos() * -beta + alpha

    return values


def hamming_window(
    window_length: int,
    periodic: bool | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """alpha - beta cos(2πk/(N-1)) (alpha 0.54, beta 0.46 unless given)."""
    values = _raised_cosine(
        0.54 if alpha is None else float(alpha), 0.46 if beta is None else float(beta)
    )
    numbers = {"alpha": alpha, "beta": beta}
    return _window(
        "hamming_window", window_length, periodic, numbers, dtype, device, requires_grad, values
    )


def hann_window(
    window_length: int,
    periodic: bool | None = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """0.5 - 0.5 cos(2πk/(N-1)): a raised cosine reaching 0 at both ends."""
    values = _raised_cosine(0.5, 0.5)
    return _window("hann_window", window_length, periodic, {}, dtype, device, requires_grad, values)


def kaiser_window(
    window_length: int,
    periodic: bool | None = None,
    beta: float | None = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """I0(beta sqrt(1 - ((k - a)/a)²)) / I0(beta), a = (N-1)/2: the Kaiser-Bessel window."""

    shape = 12.0 if beta is None else float(beta)

    def values(k: Tensor, n: int) -> Tensor:
        a = (n - 1) / 2.0
        inside = (1 - ((k - a) / a) ** 2).abs().sqrt() * shape
        return i0(inside) / i0(inside.new_full((), shape))

    numbers = {"beta": beta}
    return _window(
        "kaiser_window", window_length, periodic, numbers, dtype, device, requires_grad, values
    )
