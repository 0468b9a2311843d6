"""Inverses, determinants and the Cholesky and QR factorizations, each with its
matrix-calculus gradient written in chainrule ops (so second derivatives follow);
also the top-level names of the family (chainrule.det, .svd, .matrix_exp, ...)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import return_types
from ..._strides import column_major
from ..._tensor import Tensor
from ..elementwise.conditional import where
from ..primitive import Primitive
from ..quiet import quiet
from ..shape.views import cat
from .common import (
    check_float,
    check_matrix,
    cholesky_info,
    const,
    diag_embed,
    diagonal,
    eye_like,
    raise_for_info,
    singular_info,
    triangle,
)
from .exponential import matrix_exp
from .solve import solve_triangular
from .spectral import linalg_svd, pinverse, svd

__all__ = [
    "cholesky",
    "det",
    "inverse",
    "logdet",
    "matrix_exp",
    "pinverse",
    "qr",
    "slogdet",
    "svd",
]


def inverse_message(k: int) -> str:
    return (
        f"The diagonal element {k} is zero, the inversion could not be completed because the "
        "input matrix is singular."
    )


# --- inv ---------------------------------------------------------------------------------------


def _inv_forward(a: np.ndarray, op: str, check: bool) -> tuple[np.ndarray, np.ndarray]:
    try:
        return np.linalg.inv(a), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info = singular_info(a)
    if check:
        raise_for_info(op, info, a.ndim > 2, inverse_message)
    bad = (info != 0)[..., None, None]
    out = np.linalg.inv(np.where(bad, np.eye(a.shape[-1], dtype=a.dtype), a))
    return np.where(bad, np.nan, out).astype(a.dtype), info


# d(A^-1) = -A^-1 dA A^-1, so grad_A = -A^-T grad A^-T.
_inv_ex = Primitive(
    "LinalgInvExBackward0",
    _inv_forward,
    outputs=("inverse", "info"),
    grads=(lambda g, n: -(n.inverse.mT @ g[0] @ n.inverse.mT),),
    formulas=("-inverseᵀ · grad[0] · inverseᵀ",),
    layout=column_major,  # LAPACK's results are stored by columns, as in PyTorch
)


def _check_square_float(op: str, a: Tensor, kernel: str | None = None) -> None:
    check_matrix(op, a)
    check_float(op, a, kernel)


def inv(A: Tensor, *, out: Any = None) -> Tensor:
    """The inverse of a square matrix (or of each in a batch)."""
    _check_square_float("linalg.inv", A)
    return _inv_ex(A, op="linalg.inv", check=True)[0]


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """inv, and LAPACK's info (nonzero for singular matrices, whose inverse is NaN)."""
    check_matrix("linalg.inv_ex", A)
    check_float("linalg.inv", A)
    return return_types.linalg_inv_ex(_inv_ex(A, op="linalg.inv_ex", check=check_errors))


def inverse(input: Tensor, *, out: Any = None) -> Tensor:
    return inv(input)


# --- det, slogdet, logdet --------------------------------------------------------------------


def _cofactor(a: Tensor) -> Tensor:
    """det(A) A^-T, also for singular A: U diag(prod of the other singular values) Vh, signed."""
    u, s, vh = linalg_svd(a, full_matrices=False)
    sign = const(np.linalg.det(u._data) * np.linalg.det(vh._data))
    eye = eye_like(a)
    rows = s.unsqueeze(-2) * (1 - eye) + eye  # row i: the singular values, 1 in place of s_i
    others = rows[..., 0]
    for k in range(1, a._data.shape[-1]):
        others = others * rows[..., k]
    return sign.unsqueeze(-1).unsqueeze(-1) * ((u * others.unsqueeze(-2)) @ vh)


def _det_grad(g: Tensor, a: Tensor, det: Tensor) -> Tensor:
    g = g.unsqueeze(-1).unsqueeze(-1)
    if a._data.shape[-1] == 0:
        return a * 0
    if np.all(det._data != 0):
        return g * det.unsqueeze(-1).unsqueeze(-1) * inv(a).mT
    return g * _cofactor(a)  # Note: PyTorch gives 0 here; the cofactor is the derivative


_det = Primitive(
    "LinalgDetBackward0",
    lambda a: np.linalg.det(a),
    grads=(lambda g, n: _det_grad(g, n.self, n.result),),
    formulas=("grad * the cofactor matrix of self (result * self⁻ᵀ when invertible)",),
)


def _logabsdet_grad(g: Tensor, a: Tensor, logabsdet: Tensor) -> Tensor:
    """d log|det A| = A^-T (infinite for a singular A, as in PyTorch); the sign has none.

    Note: when only the sign was used, PyTorch gives no gradient (None) and this
    gives zeros: a rule cannot tell a missing output gradient from a zero one.
    """
    g = g.unsqueeze(-1).unsqueeze(-1)
    if np.all(np.isfinite(logabsdet._data)):
        return g * inv(a).mT
    return quiet(lambda: g * _cofactor(a) / _det(a).unsqueeze(-1).unsqueeze(-1))


_slogdet = Primitive(
    "LinalgSlogdetBackward0",
    lambda a: np.linalg.slogdet(a),
    outputs=("sign", "logabsdet"),
    grads=(lambda g, n: _logabsdet_grad(g[1], n.self, n.logabsdet),),
    formulas=("grad[1] * self⁻ᵀ (the sign has no gradient)",),
)


def det(A: Tensor, *, out: Any = None) -> Tensor:
    """The determinant of a square matrix (or of each in a batch)."""
    _check_square_float("linalg.det", A, "lu_cpu")
    return _det(A)


def linalg_slogdet(A: Tensor, *, out: Any = None) -> Any:
    """(sign, log|det|) of a square matrix: det without overflow or underflow."""
    _check_square_float("linalg.slogdet", A)
    return return_types.linalg_slogdet(_slogdet(A))


def slogdet(input: Tensor) -> Any:
    """The old torch.slogdet: the same, in a `torch.return_types.slogdet`."""
    _check_square_float("linalg.slogdet", input)
    return return_types.slogdet(_slogdet(input))


def logdet(input: Tensor) -> Tensor:
    """log(det(input)): NaN for a negative determinant, -inf for a zero one."""
    _check_square_float("logdet", input)
    sign, logabsdet = _slogdet(input)
    return where(sign < 0, float("nan"), logabsdet)


# --- cholesky ------------------------------------------------------------------------------


def _not_pd(k: int) -> str:
    return (
        "The factorization could not be completed because the input is not positive-definite "
        f"(the leading minor of order {k} is not positive-definite)."
    )


def _cholesky_forward(
    a: np.ndarray, upper: bool, check: bool, op: str
) -> tuple[np.ndarray, np.ndarray]:
    try:
        low = np.linalg.cholesky(a)
        info = np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info, low = cholesky_info(a)
        if check:
            raise_for_info(op, info, a.ndim > 2, _not_pd)
        low = low.astype(a.dtype)
    return (np.swapaxes(low, -1, -2) if upper else low), info.astype(np.int32)


def _cholesky_grad(g: Tensor, low: Tensor, upper: bool) -> Tensor:
    """A = L L^T: grad_A = sym(L^-T Phi(L^T grad_L) L^-1), Phi = lower triangle, half diagonal."""
    if upper:
        low, g = low.mT, g.mT
    p = low.mT @ g
    p = triangle(p, lower=True) - 0.5 * diag_embed(diagonal(p))
    s = solve_triangular(low.mT, p, upper=True)
    s = solve_triangular(low, s, upper=False, left=False)
    return (s + s.mT) * 0.5


def _cholesky_prim(name: str) -> Primitive:
    return Primitive(
        name,
        _cholesky_forward,
        outputs=("L", "info"),
        grads=(lambda g, n: _cholesky_grad(g[0], n.L, n.upper),),
        formulas=("sym(L⁻ᵀ · Φ(Lᵀ · grad[0]) · L⁻¹), Φ: the lower triangle, diagonal halved",),
        layout=column_major,
    )


_cholesky_ex = _cholesky_prim("LinalgCholeskyExBackward0")
_cholesky_legacy = _cholesky_prim("CholeskyBackward0")


def linalg_cholesky(A: Tensor, *, upper: bool = False, out: Any = None) -> Tensor:
    """L, lower triangular with positive diagonal, with A = L L^T (U = L^T if `upper`)."""
    _check_square_float("linalg.cholesky", A, "cholesky_cpu")
    return _cholesky_ex(A, upper=upper, check=True, op="linalg.cholesky")[0]


def cholesky_ex(
    A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """cholesky, and LAPACK's info: the order of the first leading minor that is not PD."""
    _check_square_float("linalg.cholesky_ex", A, "cholesky_cpu")
    return return_types.linalg_cholesky_ex(
        _cholesky_ex(A, upper=upper, check=check_errors, op="linalg.cholesky_ex")
    )


_warned: set[str] = set()


def warn_once(key: str, message: str) -> None:
    """PyTorch's deprecation warnings are shown once per process."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def cholesky(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """The deprecated torch.cholesky: linalg.cholesky under its old name and messages."""
    warn_once(
        "cholesky",
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
        "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
        "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
        "for all valid (symmetric positive definite) inputs.",
    )
    _check_square_float("cholesky", input, "cholesky_cpu")
    return _cholesky_legacy(input, upper=upper, check=True, op="cholesky")[0]


# --- qr ------------------------------------------------------------------------------------


def _qr_forward(a: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray]:
    if mode == "r":
        return np.zeros((0,), dtype=a.dtype), np.asarray(np.linalg.qr(a, mode="r"))
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    return q, r


def _copyltu(m: Tensor) -> Tensor:
    """The symmetric matrix with m's lower triangle."""
    low = triangle(m, lower=True, offset=-1)
    return low + low.mT + diag_embed(diagonal(m))


def _qr_grad_tall(gq: Tensor, gr: Tensor, q: Tensor, r: Tensor) -> Tensor:
    """A = QR with m >= n: grad_A = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    m = r @ gr.mT - gq.mT @ q
    b = gq + q @ _copyltu(m)
    return solve_triangular(r.mT, b, upper=False, left=False)


def _qr_grad(g: Any, q: Tensor, r: Tensor, a: Tensor, mode: str) -> Tensor:
    gq, gr = g
    rows, cols = a._data.shape[-2:]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    if mode == "complete" and rows > cols:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if rows >= cols:
        return _qr_grad_tall(gq, gr, q, r)
    # A = [X | Y] with X square: X = QU, V = Q^T Y, so Y and Q pass gradient both ways.
    y = a[..., rows:]
    gu, gv = gr[..., :rows], gr[..., rows:]
    gx = _qr_grad_tall(gq + y @ gv.mT, gu, q, r[..., :rows])
    return cat([gx, q @ gv], -1)


_qr = Primitive(
    "LinalgQrBackward0",
    _qr_forward,
    outputs=("Q", "R"),
    grads=(lambda g, n: _qr_grad(g, n.Q, n.R, n.self, n.mode),),
    formulas=("grad[0] (of Q) and grad[1] (of R) taken back through self = QR, mode {mode}",),
    layout=column_major,
)


def linalg_qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> Any:
    """Q with orthonormal columns and upper triangular R, A = QR ('reduced', 'complete', 'r')."""
    check_matrix("linalg.qr", A, square=False)
    check_float("linalg.qr", A, "geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    return return_types.linalg_qr(_qr(A, mode=mode))


def qr(input: Tensor, some: bool = True, *, out: Any = None) -> Any:
    """The deprecated torch.qr: `some` chooses the reduced (True) or complete factorization."""
    warn_once(
        "qr",
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')",
    )
    check_matrix("linalg.qr", input, square=False)
    check_float("linalg.qr", input, "geqrf_cpu")
    return return_types.qr(_qr(input, mode="reduced" if some else "complete"))
