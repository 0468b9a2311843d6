"""Index arithmetic over positions: combinations (the elements of a 1-d tensor at every
increasing tuple of positions) and unravel_index (flat positions as coordinates), both
composed of other ops as PyTorch composes them."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..elementwise.division import floor_divide, remainder
from ..shape.combining import meshgrid
from ..shape.views import stack
from .getitem import unbind
from .masked import masked_select

__all__ = ["combinations", "unravel_index"]


def _increasing_mask(n: int, r: int, with_replacement: bool) -> Tensor:
    """True at the positions (i, j, k, ...) of an n x n x ... grid where i < j < k < ...
    (i <= j <= k <= ... with replacement)."""
    grids = np.indices((n,) * r)
    keep = np.ones((n,) * r, dtype=bool)
    before = operator.le if with_replacement else operator.lt
    for a, b in itertools.pairwise(grids):
        keep &= before(a, b)
    return Tensor._make(keep)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every length-`r` combination of the elements of the 1-d `input`, one per row, in
    order of position (as itertools.combinations; with repeats if `with_replacement`)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.empty((0,), input._data.dtype))
    grids = meshgrid(*[input] * r, indexing="ij")
    mask = _increasing_mask(input._data.shape[0], r, with_replacement)
    return stack([masked_select(g, mask) for g in grids], 1)


def _check_unravel(indices: Tensor, shape: Any) -> tuple[int, ...]:
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int | np.integer) and not isinstance(shape, bool):
        dims: tuple[int, ...] = (int(shape),)
    elif isinstance(shape, Sequence) and not isinstance(shape, str):
        for d in shape:
            if not isinstance(d, int | np.integer):
                raise TypeError(
                    f"expected 'shape' sequence to only contain ints, but got {type(d)}"
                )
        dims = tuple(int(d) for d in shape)
    else:
        kind = "<class 'chainrule.Tensor'>" if isinstance(shape, Tensor) else str(type(shape))
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {kind}")
    if any(d < 0 for d in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {dims}")
    return dims


def unravel_index(indices: Tensor, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of `shape` of each flat (row-major) index: one tensor per
    dim, shaped as `indices`. Negative indices count from the end, as in Python."""
    dims = _check_unravel(indices, shape)
    # How far apart consecutive entries of each dim lie in the flat order.
    strides = list(itertools.accumulate(reversed((*dims[1:], 1)), operator.mul))[::-1]
    coefs = Tensor._make(np.array(strides, dtype=np.int64))
    sizes = Tensor._make(np.array(dims, dtype=np.int64))
    return unbind(remainder(floor_divide(indices.unsqueeze(-1), coefs), sizes), -1)
