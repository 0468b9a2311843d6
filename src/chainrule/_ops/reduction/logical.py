"""all, any and count_nonzero: reductions to bools and counts, outside the graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from .common import (
    dims_of,
)

__all__ = ["all", "any", "count_nonzero"]


# --- all, any, count_nonzero --------------------------------------------------------------


def _logical_reduce(np_fn: Any, name: str, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    dims = dims_of(input, dim, name)
    out = np.asarray(np_fn(input._data, axis=dims, keepdims=keepdim))
    # uint8 in, uint8 out (PyTorch's legacy byte masks); everything else gives bool.
    return Tensor._make(out.astype(np.uint8) if input._data.dtype == np.uint8 else out)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether every entry (over `dim`) is nonzero; bool."""
    return _logical_reduce(np.all, "all", input, dim, keepdim)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether some entry (over `dim`) is nonzero; bool."""
    return _logical_reduce(np.any, "any", input, dim, keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of nonzero entries over `dim` (all dims when None); int64."""
    dims = dims_of(input, dim, "count_nonzero")
    return Tensor._make(np.asarray(np.sum(input._data != 0, axis=dims, dtype=np.int64)))
