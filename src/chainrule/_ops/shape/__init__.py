"""Shape ops: views and copies that move elements without arithmetic.

views      view, reshape, flatten, transpose, permute, squeeze, unsqueeze, expand, narrow,
           clone, contiguous, to, cat, stack
rearrange  movedim, tile, repeat_interleave, flip, roll, rot90, atleast_*d, hstack, vstack, ...
diagonals  tril, triu, diagonal, diag, diag_embed, trace
splitting  split, split_with_sizes, chunk, tensor_split, hsplit, vsplit, dsplit
padding    constant_pad (F.pad's constant mode; nothing public)
inplace_views  t_, transpose_, squeeze_, unsqueeze_ (a tensor's own shape changed), adjoint
combining  broadcast_tensors, broadcast_shapes, meshgrid, cartesian_prod, ravel, diagflat
scatters   diagonal_scatter, select_scatter, slice_scatter (a copy with one view replaced)
strided    as_strided, as_strided_, as_strided_scatter, unfold, fill_diagonal_ (views by
           strides over the base's memory)
"""

from __future__ import annotations

from . import combining, diagonals, inplace_views, rearrange, scatters, splitting, strided, views
from .combining import *  # noqa: F403
from .diagonals import *  # noqa: F403
from .inplace_views import *  # noqa: F403
from .rearrange import *  # noqa: F403
from .scatters import *  # noqa: F403
from .splitting import *  # noqa: F403
from .strided import *  # noqa: F403
from .views import *  # noqa: F403

__all__ = [
    *combining.__all__,
    *diagonals.__all__,
    *inplace_views.__all__,
    *rearrange.__all__,
    *scatters.__all__,
    *splitting.__all__,
    *strided.__all__,
    *views.__all__,
]
