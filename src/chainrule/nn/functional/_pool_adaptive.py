"""Adaptive pooling: average and max pooling to a fixed output size, in 1-D and 2-D.

Window o of n covers [floor(o*size/n), ceil((o+1)*size/n)) along each dim;
average pooling is then a separable linear map (`_taps`), max pooling records
indices like max_pool2d and shares its scatter/gather gradient pair.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from . import _taps, _windows
from ._spatial_common import check_not_bool, gather_plane, plane_scatter, shape_list

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
]

Ints = tuple[int, ...]


# --- adaptive pooling -------------------------------------------------------------------

_adaptive_avg_pool2d = _taps.linear_pair(
    "AdaptiveAvgPool2DBackward0", "grad / window size, spread over each window"
)


def _output_size(name: str, input: Tensor, output_size: Any) -> Ints:
    size = (output_size,) * 2 if isinstance(output_size, int | np.integer | None) else output_size
    if len(size) != 2:
        raise RuntimeError(f"{name}: output_size must be 2")
    return tuple(
        int(s) if s is not None else int(n)
        for s, n in zip(size, input._data.shape[-2:], strict=True)
    )


def _check_adaptive(name: str, input: Tensor, output_size: Any) -> None:
    shape = input._data.shape
    if isinstance(output_size, list | tuple) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if input.ndim not in (3, 4):
        got = "but got: " if "max" in name else "but got "
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, {got}{shape_list(shape)}")
    for d in range(1, input.ndim):
        if shape[d] == 0 and (d > 0 or input.ndim == 3):
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape_list(shape)} with dimension {d} being empty"
            )


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed `output_size` (H_out, W_out; None keeps that dim)."""
    _check_adaptive("adaptive_avg_pool2d", input, output_size)
    out = _output_size("adaptive_avg_pool2d", input, output_size)
    if any(o < 0 for o in out):
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{out[0]}, {out[1]}}}"
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"adaptive_avg_pool2d\" not implemented for '{scalar_name(input)}'"
        )
    if out == (1, 1):  # PyTorch takes the mean here
        return input.mean((-2, -1), keepdim=True)
    size = input._data.shape[-2:]
    taps = tuple(_taps.adaptive_taps(n, o) for n, o in zip(size, out, strict=True))
    return _adaptive_avg_pool2d(input, taps=taps)


def _check_1d(name: str, input: Tensor, output_size: Any) -> int:
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {name})"
        )
    if hasattr(output_size, "__len__"):
        if len(output_size) != 1:
            raise RuntimeError(
                f"{name}() argument 'output_size' should contain one int (got {len(output_size)})"
            )
        output_size = output_size[0]
    return int(output_size)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of `(N, C, L)` or `(C, L)` to length `output_size`."""
    size = _check_1d("adaptive_avg_pool1d", input, output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_forward(a: np.ndarray, taps: Any, **_: Any) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of each adaptive window of the last `len(taps)` dims, and its flat index
    in that plane (ties and NaN as in max_pool)."""
    k = len(taps)
    size = a.shape[a.ndim - k :]
    plane = [math.prod(size[i + 1 :]) for i in range(k)]
    out = tuple(t.index.shape[1] for t in taps)
    if 0 in out:  # no windows, and so no taps to read
        shape = (*a.shape[: a.ndim - k], *out)
        return np.empty(shape, a.dtype), np.empty(shape, np.int64)

    def along(i: int, v: np.ndarray) -> np.ndarray:  # a vector over output dim i, broadcastable
        return v.reshape([-1 if j == i else 1 for j in range(k)])

    def read(offsets: tuple[int, ...]) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """The positions the offsets' taps read, and their flat indices."""
        at = tuple(along(i, t.index[o]) for i, (t, o) in enumerate(zip(taps, offsets, strict=True)))
        return at, sum((p * x for p, x in zip(plane, at, strict=True)), np.zeros((1,) * k, int))

    best = np.full((*a.shape[: a.ndim - k], *out), _windows.lowest(a.dtype), a.dtype)
    where = np.broadcast_to(read((0,) * k)[1], best.shape).astype(np.int64)
    nan = a.dtype.kind == "f" and bool(np.isnan(a).any())
    for offsets in itertools.product(*(range(t.index.shape[0]) for t in taps)):
        at, flat = read(offsets)
        index: tuple[Any, ...] = (Ellipsis, *at)
        v = a[index]
        take = v > best
        if nan:
            take |= np.isnan(v)
        np.maximum(best, v, out=best)  # (arithmetic updates: see _windows.max_pool)
        where += take * (flat - where)
    return best, where


_adaptive_scatter = plane_scatter("AdaptiveMaxPool2DBackward0")
_adaptive_max_pool2d = Primitive(
    "AdaptiveMaxPool2DBackward0",
    adaptive_max_forward,
    grads=(
        lambda g, n: _adaptive_scatter(g[0], indices=n.indices._data, size=n.size, unique=False),
    ),
    formulas=("grad[0] added where each window's maximum was (indices), zeros elsewhere",),
    outputs=("result", "indices"),
    # Forward mode: each window's tangent is that of its maximum (the indices get none).
    tangent=lambda ts, p: (
        gather_plane(ts[0], p.indices._data, len(p.size)),
        None,
    ),
)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to a fixed `output_size` (None keeps that dim); optionally the indices."""
    _check_adaptive("adaptive_max_pool2d", input, output_size)
    out = _output_size("adaptive_max_pool2d", input, output_size)
    if any(o < 0 for o in out):
        shape = (*input._data.shape[:-2], *out)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(out)}: {shape_list(shape)}"
        )
    check_not_bool("adaptive_max_pool2d", input)
    size = tuple(input._data.shape[-2:])
    taps = tuple(_taps.adaptive_taps(n, o) for n, o in zip(size, out, strict=True))
    values, indices = _adaptive_max_pool2d(input, taps=taps, size=size)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of `(N, C, L)` or `(C, L)` to length `output_size`."""
    size = _check_1d("adaptive_max_pool1d", input, output_size)
    values, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True)
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values
