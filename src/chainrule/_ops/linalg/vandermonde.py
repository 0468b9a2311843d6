"""torch.vander: the Vandermonde matrix, built as PyTorch builds it (a column of ones, the
input copied into the other columns, their running product copied back, flipped unless
`increasing`), so it records PyTorch's nodes: FlipBackward0 over CopySlices."""

from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..indexing.getitem import select
from ..indexing.writes import copy_, fill_
from ..reduction.scans import cumprod
from ..shape.rearrange import flip
from ..view_tracking import slice_dim

__all__ = ["vander"]


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Columns x^(N-1), ..., x, 1 (the other way round if `increasing`) of the 1-d `x`;
    N defaults to x's length. Integer inputs give int64, as the running product does.

    Note: as in PyTorch, the running product's saved input is overwritten by the copy
    that follows it, so backward through a result that needs it raises the in-place error.
    """
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dt = _dtype.promote_types(x.dtype, _dtype.int64)
    result = Tensor._make(np.zeros((x._data.shape[0], n), dt.np))
    if n > 0:
        fill_(select(result, 1, 0), 1)
    if n > 1:
        copy_(slice_dim(result, 1, 1, n), x.unsqueeze(1))
        copy_(slice_dim(result, 1, 1, n), cumprod(slice_dim(result, 1, 1, n), 1))
    return result if increasing else flip(result, [1])
