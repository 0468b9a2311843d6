"""`chainrule.linalg`: linear algebra with gradients (PyTorch's torch.linalg)."""

from __future__ import annotations

from ._ops.keywords import accept_in
from ._ops.linalg.common import LinAlgError
from ._ops.linalg.composed import cond, diagonal, tensorinv, tensorsolve, vander, vecdot
from ._ops.linalg.decompositions import cholesky_ex, det, inv, inv_ex
from ._ops.linalg.decompositions import linalg_cholesky as cholesky
from ._ops.linalg.decompositions import linalg_qr as qr
from ._ops.linalg.decompositions import linalg_slogdet as slogdet
from ._ops.linalg.exponential import matrix_exp
from ._ops.linalg.geometry import linalg_cross as cross
from ._ops.linalg.householder import householder_product
from ._ops.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._ops.linalg.lu_decomposition import linalg_lu as lu
from ._ops.linalg.lu_decomposition import linalg_lu_solve as lu_solve
from ._ops.linalg.lu_decomposition import lu_factor, lu_factor_ex
from ._ops.linalg.matrix_multiply import matmul
from ._ops.linalg.norms import matrix_norm, norm, vector_norm
from ._ops.linalg.products import matrix_power, multi_dot
from ._ops.linalg.solve import solve, solve_ex, solve_triangular
from ._ops.linalg.spectral import eigh, eigvalsh, lstsq, matrix_rank, pinv, svdvals
from ._ops.linalg.spectral import linalg_svd as svd

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

# Every op takes the spellings PyTorch's argument parser adds (`axis=`, `out=`, ...).
accept_in(globals(), "torch.linalg", __all__)
