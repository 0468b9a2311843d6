"""Indexing: reading and writing elements chosen by position, index tensor or mask.

getitem         x[index] (views for basic indexing, copies for advanced), select, unbind
gather_scatter  gather, scatter, scatter_add, index_select, index_add, index_copy, index_fill
masked          masked_fill, masked_select, masked_scatter, nonzero, argwhere, index_put
take_along      take, take_along_dim, put
reduce_into     scatter_reduce, index_reduce (sum, prod, mean, amax, amin)
positions       combinations, unravel_index (index arithmetic, composed)
common          index and fill-value checks shared by the above
view_copies     the `*_copy` forms of the views (permute_copy, split_copy, ...)
writes          x[index] = value, copy_, fill_, zero_ (through the in-place path,
                `_ops/inplace.py`)
"""

from __future__ import annotations

from . import (
    gather_scatter,
    getitem,
    masked,
    positions,
    reduce_into,
    take_along,
    view_copies,
    writes,
)
from .gather_scatter import *  # noqa: F403
from .getitem import *  # noqa: F403
from .masked import *  # noqa: F403
from .positions import *  # noqa: F403
from .reduce_into import *  # noqa: F403
from .take_along import *  # noqa: F403
from .view_copies import *  # noqa: F403
from .writes import *  # noqa: F403

__all__ = [
    *getitem.__all__,
    *masked.__all__,
    *gather_scatter.__all__,
    *reduce_into.__all__,
    *take_along.__all__,
    *positions.__all__,
    *writes.__all__,
    *view_copies.__all__,
]
