"""Dim arguments checked and made non-negative, as PyTorch does (below Tensor and the ops)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

__all__ = ["wrap_dim", "wrap_dims"]


def wrap_dim(dim: int, ndim: int) -> int:
    """A possibly negative dim as an index into the shape, with PyTorch's IndexError."""
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, got {type(dim).__name__}") from None
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not low <= dim <= high:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
        )
    return dim % max(ndim, 1)


def wrap_dims(dims: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Several dims (None or [] meaning all of them), checked for repeats."""
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, int | np.integer):
        dims = (int(dims),)
    if len(dims) == 0:
        return tuple(range(ndim))
    out = tuple(wrap_dim(d, ndim) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out
