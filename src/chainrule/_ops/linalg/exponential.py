"""matrix_exp: Pade approximation with scaling and squaring (Higham 2005) on NumPy, and its
gradient through the block identity exp([[A^T, G], [0, A^T]]) = [[., grad_A], [0, .]]."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..primitive import Primitive
from ..quiet import quiet
from ..shape.views import cat
from .common import check_float, check_matrix, const

__all__ = ["matrix_exp"]

# Pade coefficients b_0..b_m and the 1-norm below which degree m is accurate in double
# precision (Higham, "The scaling and squaring method for the matrix exponential revisited").
_PADE = {
    3: (1.495585217958292e-2, (120, 60, 12, 1)),
    5: (2.539398330063230e-1, (30240, 15120, 3360, 420, 30, 1)),
    7: (9.504178996162932e-1, (17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1)),
    9: (
        2.097847961257068e0,
        (17643225600, 8821612800, 2075673600, 302702400, 30270240, 2162160, 110880, 3960, 90, 1),
    ),
}
_THETA_13 = 5.371920351148152e0
_B13 = (
    64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800, 129060195264000,
    10559470521600, 670442572800, 33522128640, 1323241920, 40840800, 960960, 16380, 182, 1,
)  # fmt: skip


def _pade_low(a: np.ndarray, b: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """U = a * (odd part), V = even part of the degree-m Pade numerator."""
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    a2 = a @ a
    odd, even, power = b[1] * eye, b[0] * eye, eye
    for j in range(1, len(b) // 2):
        power = power @ a2
        odd = odd + b[2 * j + 1] * power
        even = even + b[2 * j] * power
    return a @ odd, even


def _pade13(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = _B13
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (
        a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye
    )
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    return u, v


def _expm(a: np.ndarray) -> np.ndarray:
    """exp of each matrix in a stack, computed in float64 (overflow gives inf, quietly)."""
    return quiet(_expm64, a.astype(np.float64)).astype(a.dtype)


def _expm64(a: np.ndarray) -> np.ndarray:
    if a.size == 0:
        return np.zeros(a.shape)
    norm = np.abs(a).sum(-2).max(-1)  # the 1-norm of each matrix
    for theta, b in _PADE.values():
        if norm.max() <= theta:  # every matrix small enough for a low degree
            u, v = _pade_low(a, b)
            return np.linalg.solve(v - u, v + u)
    # Scale each matrix by its own power of two, then square it back as many times.
    finite = np.isfinite(norm)
    s = np.ceil(np.log2(np.where(finite, norm, 1.0) / _THETA_13))
    s = np.maximum(0, np.nan_to_num(s, neginf=0.0)).astype(int)
    u, v = _pade13(np.where(finite[..., None, None], a / (2.0**s)[..., None, None], 0.0))
    r = np.linalg.solve(v - u, v + u)
    for step in range(int(s.max())):
        r = np.where((step < s)[..., None, None], r @ r, r)
    return np.where(finite[..., None, None], r, np.nan)


def _matrix_exp_grad(g: Tensor, a: Tensor) -> Tensor:
    """grad_A = D exp(A^T)[G]: the top-right block of exp([[A^T, G], [0, A^T]])."""
    n = a._data.shape[-1]
    at = a.mT
    zeros = const(np.zeros(g._data.shape, dtype=g._data.dtype))
    block = cat([cat([at, g], -1), cat([zeros, at], -1)], -2)
    return matrix_exp(block)[..., :n, n:]


_matrix_exp = Primitive(
    "LinalgMatrixExpBackward0",
    _expm,
    grads=(lambda g, n: _matrix_exp_grad(g, n.self),),
    formulas=("the top-right block of matrix_exp([[selfᵀ, grad], [0, selfᵀ]])",),
)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential sum_k A^k / k! of a square matrix (or of each in a batch)."""
    check_matrix("linalg.matrix_exp", A)
    check_float("linalg.matrix_exp", A, half=True)
    return _matrix_exp(A)
