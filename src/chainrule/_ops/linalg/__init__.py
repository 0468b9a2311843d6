"""Linear algebra: products, factorizations, solves, spectra and norms.

matrix_multiply mm, mv, dot, bmm, matmul, outer
products        inner, vdot, kron, tensordot, addmm, addmv, baddbmm, addbmm, multi_dot,
                matrix_power
products_inplace  addr, and addmm_, addmv_, baddbmm_, addbmm_, addr_ (in place)
contraction     einsum
decompositions  inv, det, slogdet, logdet, cholesky, qr
solve           solve, solve_ex, solve_triangular
spectral        eigh, eigvalsh, svd, svdvals, pinv, matrix_rank, lstsq
norms           vector_norm, matrix_norm, norm (of chainrule.linalg)
geometry        cross, cdist
exponential     matrix_exp
composed        vecdot, vander, diagonal, cond, tensorinv, tensorsolve (compositions)
deprecated      chain_matmul, frobenius_norm, nuclear_norm (warn, then their replacements)
common          input checks, LinAlgError, small helpers
"""

from __future__ import annotations

from . import (
    contraction,
    decompositions,
    deprecated,
    exponential,
    geometry,
    matrix_multiply,
    products,
    products_inplace,
    solve,
    spectral,
)
from .contraction import *  # noqa: F403
from .decompositions import *  # noqa: F403
from .deprecated import *  # noqa: F403
from .exponential import *  # noqa: F403
from .geometry import *  # noqa: F403
from .matrix_multiply import *  # noqa: F403
from .products import *  # noqa: F403
from .products_inplace import *  # noqa: F403
from .solve import *  # noqa: F403
from .spectral import *  # noqa: F403

__all__ = [
    *decompositions.__all__,
    *deprecated.__all__,
    *contraction.__all__,
    *geometry.__all__,
    *matrix_multiply.__all__,
    *exponential.__all__,
    *products.__all__,
    *products_inplace.__all__,
    *solve.__all__,
    *spectral.__all__,
]
