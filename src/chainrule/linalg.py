"""`chainrule.linalg`: linear algebra with gradients (PyTorch's torch.linalg)."""

from __future__ import annotations

from ._ops.decompositions import cholesky_ex, det, inv, inv_ex
from ._ops.decompositions import linalg_cholesky as cholesky
from ._ops.decompositions import linalg_qr as qr
from ._ops.decompositions import linalg_slogdet as slogdet
from ._ops.linalg import matmul
from ._ops.linalg_geometry import linalg_cross as cross
from ._ops.linalg_matrix_exp import matrix_exp
from ._ops.linalg_norms import matrix_norm, norm, vector_norm
from ._ops.linalg_solve import solve, solve_ex, solve_triangular
from ._ops.linalg_spectral import eigh, eigvalsh, lstsq, matrix_rank, pinv, svdvals
from ._ops.linalg_spectral import linalg_svd as svd
from ._ops.linalg_util import LinAlgError
from ._ops.products import matrix_power, multi_dot

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cross",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "inv_ex",
    "lstsq",
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
    "vector_norm",
]
