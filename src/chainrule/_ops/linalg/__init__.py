"""Linear algebra: products, factorizations, solves, spectra and norms.

matrix_multiply mm, mv, dot, bmm, matmul, outer
products        inner, vdot, kron, tensordot, multi_dot, matrix_power
fused_products  addmm, addmv, baddbmm, addbmm (beta * input + alpha * a product)
products_inplace  addr, and addmm_, addmv_, baddbmm_, addbmm_, addr_ (in place)
contraction     einsum
decompositions  inv, det, slogdet, logdet, cholesky, qr
lu_decomposition lu_factor, lu_factor_ex, lu, lu_unpack, lu_solve (and the older torch.lu, lu_solve)
lu_kernels      LAPACK's partially pivoted LU (getrf) on NumPy stacks
householder     householder_product, orgqr
ldl             ldl_factor, ldl_factor_ex, ldl_solve (Bunch-Kaufman; no derivative, as in PyTorch)
solve           solve, solve_ex, solve_triangular
factored_solve  cholesky_solve, cholesky_inverse, triangular_solve
spectral        eigh, eigvalsh, svd, svdvals, pinv, matrix_rank, lstsq
norms           vector_norm, matrix_norm, norm (of chainrule.linalg)
geometry        cross, cdist
exponential     matrix_exp
correlation     cov, corrcoef (compositions)
composed        vecdot, vander, diagonal, cond, tensorinv, tensorsolve (compositions)
vandermonde     torch.vander (composed, as PyTorch builds it)
deprecated      chain_matmul, frobenius_norm, nuclear_norm (warn, then their replacements)
common          input checks, LinAlgError, small helpers
"""

from __future__ import annotations

from . import (
    contraction,
    correlation,
    decompositions,
    deprecated,
    exponential,
    factored_solve,
    fused_products,
    geometry,
    householder,
    ldl,
    lu_decomposition,
    matrix_multiply,
    products,
    products_inplace,
    solve,
    spectral,
    vandermonde,
)
from .contraction import *  # noqa: F403
from .correlation import *  # noqa: F403
from .decompositions import *  # noqa: F403
from .deprecated import *  # noqa: F403
from .exponential import *  # noqa: F403
from .factored_solve import *  # noqa: F403
from .fused_products import *  # noqa: F403
from .geometry import *  # noqa: F403
from .householder import *  # noqa: F403
from .ldl import *  # noqa: F403
from .lu_decomposition import *  # noqa: F403
from .matrix_multiply import *  # noqa: F403
from .products import *  # noqa: F403
from .products_inplace import *  # noqa: F403
from .solve import *  # noqa: F403
from .spectral import *  # noqa: F403
from .vandermonde import *  # noqa: F403

__all__ = [
    *decompositions.__all__,
    *deprecated.__all__,
    *contraction.__all__,
    *correlation.__all__,
    *geometry.__all__,
    *matrix_multiply.__all__,
    *exponential.__all__,
    *factored_solve.__all__,
    *fused_products.__all__,
    *householder.__all__,
    *ldl.__all__,
    *lu_decomposition.__all__,
    *products.__all__,
    *products_inplace.__all__,
    *solve.__all__,
    *spectral.__all__,
    *vandermonde.__all__,
]
