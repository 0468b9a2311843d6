"""Fractional max pooling in 2-D and 3-D: windows of a fixed size whose starts step by a
random, non-integer stride (Graham's pseudo-random sequence), one pair or triple of
uniform draws per (batch, channel) plane.

The draws are `rand(N, C, dims)` in the input's dtype, taken from the default generator
as PyTorch takes them, so a seed gives PyTorch's windows. The gradient is a max pool's:
scattered to each maximum's index (`_pool3d._with_indices`).
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._random_factories import rand
from ..._tensor import Tensor
from ._pool3d import _with_indices
from ._spatial_common import shape_list

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]

Ints = tuple[int, ...]
_WORDS = {2: "", 3: "three "}


def _starts(sample: np.ndarray, size: int, out: int, pool: int) -> np.ndarray:
    """Each window's first position along a dim of `size`, for every plane's draw `sample`.

    The arithmetic is in the draw's own dtype, as PyTorch's kernel does it: starts at
    `trunc((i + u) * a) - trunc(u * a)` with `a = (size - pool) / (out - 1)`; the last
    window ends at the edge."""
    dt = sample.dtype.type
    starts = np.empty((*sample.shape, out), np.int64)
    if out > 1:
        alpha = dt(size - pool) / dt(out - 1)
        steps = np.arange(out - 1).astype(sample.dtype)
        at = (steps + sample[..., None]) * alpha
        starts[..., :-1] = (
            np.trunc(at).astype(np.int64) - np.trunc(sample * alpha).astype(np.int64)[..., None]
        )
    if out > 0:
        starts[..., -1] = size - pool
    return starts


def _forward(
    a: np.ndarray, samples: np.ndarray, kernel: Ints, out: Ints, **_: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of each window and its flat index in the plane (the first maximum;
    a NaN wins, the last one seen)."""
    k = len(kernel)
    lead = a.shape[:-k]
    size = a.shape[-k:]
    plane = [math.prod(size[i + 1 :]) for i in range(k)]
    # 2-D draws are (W, H); 3-D ones (T, H, W).
    order = (1, 0) if k == 2 else (0, 1, 2)
    draws = samples[: lead[0]] if len(lead) == 2 else samples[:1]
    flat_start = np.zeros((*draws.shape[:2], *out), np.int64)
    for i in range(k):
        s = _starts(draws[..., order[i]], size[i], out[i], kernel[i])
        shape = [*s.shape[:2]] + [1] * k
        shape[2 + i] = out[i]
        flat_start = flat_start + (s * plane[i]).reshape(shape)
    flat_start = flat_start.reshape(*lead, *out)
    offsets = [
        sum(j * p for j, p in zip(o, plane, strict=True))
        for o in itertools.product(*(range(max(kk, 0)) for kk in kernel))
    ]
    values = a.reshape(*lead, math.prod(size))
    best = np.full(flat_start.shape, -np.inf, a.dtype)
    where = flat_start.copy()
    for offset in offsets:
        index = flat_start + offset
        flat = index.reshape(*lead, math.prod(out))
        v = np.take_along_axis(values, flat, -1).reshape(index.shape)
        take = (v > best) | np.isnan(v)
        best = np.where(take, v, best)
        where = np.where(take, index, where)
    return best, where


_fractional = {
    2: _with_indices("FractionalMaxPool2DBackward0", _forward),
    3: _with_indices("FractionalMaxPool3DBackward0", _forward),
}


def _int_list(value: Any, what: str, position: int, n: int) -> Ints:
    """An int or a sequence of ints, as PyTorch's argument parser reads one."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return (int(value),) * n
    try:
        return tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(
            f"fractional_max_pool{n}d(): argument '{what}' (position {position}) must be tuple "
            f"of ints, not {type(value).__name__}"
        ) from None


def _check(input: Tensor, kernel: Ints, out: Ints, samples: Any, n: int) -> tuple[str, Ints]:
    """PyTorch's checks, in its order; the op's name as the messages spell it."""
    name = f"fractional_max_pool{n}d"
    if len(kernel) != n:
        raise RuntimeError(
            f"{name}: kernel_size must either be a single Int or tuple of {_WORDS[n]}Ints"
        )
    if len(out) != n:
        raise RuntimeError(
            f"{name}: output_size must either be a single Int or tuple of {_WORDS[n]}Ints"
        )
    said = f"{name}()" if n == 2 else f"{name}_out()"
    shape = tuple(input._data.shape)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{said}: Expected {n + 1}D or {n + 2}D tensor, but got: {list(shape)}")
    for d in range(1, input.ndim):
        if shape[d] == 0:
            raise RuntimeError(
                f"{said}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got{shape_list(shape)} with dimension {d} being empty."
            )
    words = ("time", "height", "width")[-n:]
    for o, kk, s, word in zip(out, kernel, shape[-n:], words, strict=True):
        # (The 3-D op also refuses a last window that ends at the input's edge.)
        if o + kk - 1 > s or (n == 3 and o + kk - 1 == s):
            raise RuntimeError(f"{said}: pool {word} {kk} too large relative to input {word} {s}")
    if any(o < 0 for o in out):
        whole = (*shape[:-n], *out)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(out)}: {shape_list(whole)}"
        )
    if not isinstance(samples, Tensor):
        raise TypeError(
            f"{name}(): argument 'random_samples' (position 4) must be Tensor, not "
            f"{type(samples).__name__}"
        )
    if samples._data.dtype != input._data.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch, channels = (1, shape[0]) if input.ndim == n + 1 else shape[:2]
    drawn = samples._data.shape
    if drawn[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if drawn[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if drawn[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {drawn[2]}.")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{name}_out_frame\" not implemented for '{scalar_name(input)}'"
        )
    return name, out


def _fractional_max_pool(
    n: int,
    input: Tensor,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    samples: Any,
) -> tuple[Tensor, Tensor]:
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:
            raise ValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = tuple(output_ratio) if hasattr(output_ratio, "__iter__") else (output_ratio,) * n
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    if samples is None:
        if input._data.dtype.kind != "f":  # the draw in the input's dtype fails first
            raise NotImplementedError(
                f"\"check_uniform_bounds\" not implemented for '{scalar_name(input)}'"
            )
        batch = 1 if input.ndim == n + 1 else input.size(0)
        samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype)
    kernel = _int_list(kernel_size, "kernel_size", 2, n)
    out = _int_list(output_size, "output_size", 3, n)
    _check(input, kernel, out, samples, n)
    values, indices = _fractional[n](
        input,
        samples=samples._data,
        kernel=kernel,
        out=out,
        size=tuple(input._data.shape[-n:]),
        unique=False,
    )
    return values, indices


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling of `(N, C, H, W)` or `(C, H, W)`: (values, indices).

    The output is `output_size`, or `output_ratio` (a pair) times the input's size;
    `_random_samples` `(N, C, 2)` fixes the windows (else drawn from the generator).
    """
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Fractional max pooling of `(N, C, H, W)` or `(C, H, W)`; with `return_indices`,
    (values, indices) (see fractional_max_pool2d_with_indices)."""
    result = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return result if return_indices else result[0]


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling of `(N, C, T, H, W)` or `(C, T, H, W)`: (values, indices).

    The output is `output_size`, or `output_ratio` times the input's size;
    `_random_samples` `(N, C, 3)` fixes the windows (else drawn from the generator).
    """
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Fractional max pooling of `(N, C, T, H, W)` or `(C, T, H, W)`; with
    `return_indices`, (values, indices) (see fractional_max_pool3d_with_indices)."""
    result = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return result if return_indices else result[0]
