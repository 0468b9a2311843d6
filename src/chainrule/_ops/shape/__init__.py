"""Shape ops: views and copies that move elements without arithmetic.

views      view, reshape, flatten, transpose, permute, squeeze, unsqueeze, expand, narrow,
           clone, contiguous, to, cat, stack
rearrange  movedim, tile, repeat_interleave, flip, roll, rot90, atleast_*d, hstack, vstack, ...
diagonals  tril, triu, diagonal, diag, diag_embed, trace
splitting  split, chunk, tensor_split, hsplit, vsplit, dsplit
padding    constant_pad (F.pad's constant mode; nothing public)
inplace_views  t_, transpose_, squeeze_, unsqueeze_ (a tensor's own shape changed), adjoint
combining  broadcast_tensors, broadcast_shapes, meshgrid, cartesian_prod, ravel, diagflat
"""

from __future__ import annotations

from . import combining, diagonals, inplace_views, rearrange, splitting, views
from .combining import *  # noqa: F403
from .diagonals import *  # noqa: F403
from .inplace_views import *  # noqa: F403
from .rearrange import *  # noqa: F403
from .splitting import *  # noqa: F403
from .views import *  # noqa: F403

__all__ = [
    *combining.__all__,
    *diagonals.__all__,
    *inplace_views.__all__,
    *rearrange.__all__,
    *splitting.__all__,
    *views.__all__,
]
