"""Spectral decompositions and what is built on them: eigh, eigvalsh, svd, svdvals, pinv,
matrix_rank and lstsq. Gradients of eigenvectors and singular vectors are defined only for
losses that do not depend on their signs (the gauge); they need distinct eigen/singular values."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._dtype import scalar_name
from ..._strides import column_major, contiguous_array
from ..._tensor import Tensor
from ..elementwise.conditional import where
from ..primitive import Primitive, tracks
from .common import check_float, check_matrix, const, diag_embed

__all__ = ["pinverse", "svd"]


def _may_contribute(g: Tensor) -> bool:
    """Whether the gradient of an output can add anything: it is nonzero, or it is part of a
    recorded graph (then zeros now still have a derivative, as jvp's zero grad_outputs do)."""
    return g._requires_grad or bool(g._data.any())


def _off_diagonal_inverse(d: Tensor) -> Tensor:
    """1 / d off the diagonal, 0 on it (d: differences of eigen/singular values)."""
    on = const(np.eye(d._data.shape[-1], dtype=bool))
    return where(on, 0, 1 / where(on, 1, d))


# --- eigh --------------------------------------------------------------------------------------


def _eigh_grad(g: Any, values: Tensor, vectors: Tensor) -> Tensor:
    """A = V diag(L) V^T: grad_A = V (diag(gL) + F o skew(V^T gV)) V^T, F_ij = 1 / (L_j - L_i).

    skew(X) = (X - X^T) / 2 makes the gradient symmetric, as PyTorch's is: the
    input is taken to be symmetric (only one triangle is read).
    """
    g_values, g_vectors = g
    inner = diag_embed(g_values)
    if _may_contribute(g_vectors):
        f = _off_diagonal_inverse(values.unsqueeze(-2) - values.unsqueeze(-1))
        vtgv = vectors.mT @ g_vectors
        inner = inner + f * ((vtgv - vtgv.mT) * 0.5)
    return vectors @ inner @ vectors.mT


_eigh = Primitive(
    "LinalgEighBackward0",
    lambda a, UPLO: np.linalg.eigh(a, UPLO="U" if UPLO == "U" else "L"),
    outputs=("eigenvalues", "eigenvectors"),
    grads=(lambda g, n: _eigh_grad(g, n.eigenvalues, n.eigenvectors),),
    formulas=(
        "V · (diag(grad[0]) + F ∘ skew(Vᵀ · grad[1])) · Vᵀ, V = eigenvectors, F_ij = 1/(λ_j - λ_i)",
    ),
    layout=(contiguous_array, column_major),
)


def _check_eigh(op: str, A: Tensor, UPLO: str) -> None:
    check_matrix(op, A)
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{scalar_name(A)}'")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Any:
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix.

    Only the triangle named by UPLO is read.
    """
    _check_eigh("linalg.eigh", A, UPLO)
    return return_types.linalg_eigh(_eigh(A, UPLO=UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Tensor:
    """The eigenvalues of a symmetric matrix, ascending."""
    _check_eigh("linalg.eigh", A, UPLO)
    if tracks(A):
        return _eigh(A, UPLO=UPLO)[0]
    return Tensor._make(np.linalg.eigvalsh(A._data, UPLO="U" if UPLO == "U" else "L"))


# --- svd ---------------------------------------------------------------------------------------


def _svd_grad(g: Any, u: Tensor, s: Tensor, vh: Tensor, full: bool) -> Tensor:
    """A = U S Vh (Townsend, "Differentiating the singular value decomposition", 2016).

    grad_A = U [(F o (U^T gU - gU^T U)) S + diag(gS) + S (F o (V^T gV - gV^T V))] Vh
             + (I - U U^T) gU S^-1 Vh + U S^-1 gV^T (I - V V^T),   F_ij = 1 / (s_j^2 - s_i^2).
    """
    gu, gs, gvh = g
    m, n = u._data.shape[-2], vh._data.shape[-1]
    k = min(m, n)
    if full:  # the columns past min(m, n) do not depend on A smoothly: their gradient is ignored
        u, gu, vh, gvh = u[..., :k], gu[..., :k], vh[..., :k, :], gvh[..., :k, :]
    has_u, has_v = _may_contribute(gu), _may_contribute(gvh)
    inner = diag_embed(gs)
    if has_u or has_v:
        f = _off_diagonal_inverse((s * s).unsqueeze(-2) - (s * s).unsqueeze(-1))
    if has_u:
        utgu = u.mT @ gu
        inner = inner + (f * (utgu - utgu.mT)) * s.unsqueeze(-2)
    if has_v:
        v, gv = vh.mT, gvh.mT
        vtgv = v.mT @ gv
        inner = inner + s.unsqueeze(-1) * (f * (vtgv - vtgv.mT))
    out = u @ inner @ vh
    if has_u and m > k:
        out = out + ((gu - u @ (u.mT @ gu)) / s.unsqueeze(-2)) @ vh
    if has_v and n > k:
        out = out + (u / s.unsqueeze(-2)) @ (gv - v @ (v.mT @ gv)).mT
    return out


_svd = Primitive(
    "LinalgSvdBackward0",
    lambda a, full_matrices: np.linalg.svd(a, full_matrices=full_matrices),
    outputs=("U", "S", "Vh"),
    grads=(lambda g, n: _svd_grad(g, n.U, n.S, n.Vh, n.full_matrices),),
    formulas=("grad[0], grad[1], grad[2] (of U, S, Vh) taken back through self = U diag(S) Vh",),
    layout=(column_major, contiguous_array, column_major),  # LAPACK's U and Vh, by columns
)


def _check_svd(A: Tensor) -> None:
    check_matrix("linalg.svd", A, square=False)
    check_float("linalg.svd", A, "linalg_svd_cpu")


def linalg_svd(
    A: Tensor, full_matrices: bool = True, *, driver: str | None = None, out: Any = None
) -> Any:
    """A = U diag(S) Vh, singular values descending; U and Vh square if `full_matrices`."""
    _check_svd(A)
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
            "cuSOLVER backend."
        )
    return return_types.linalg_svd(_svd(A, full_matrices=full_matrices))


def svdvals(A: Tensor, *, driver: str | None = None, out: Any = None) -> Tensor:
    """The singular values of A, descending."""
    _check_svd(A)
    if tracks(A):
        return _svd(A, full_matrices=False)[1]
    return Tensor._make(np.linalg.svd(A._data, compute_uv=False))


def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Any = None) -> Any:
    """The old torch.svd: returns V (not Vh); zero U and V when not `compute_uv`."""
    _check_svd(input)
    if compute_uv:
        u, s, vh = _svd(input, full_matrices=not some)
        return return_types.svd((u, s, vh.mT))
    s = _svd(input, full_matrices=False)[1] if tracks(input) else svdvals(input)
    m, n = input._data.shape[-2:]
    batch = input._data.shape[:-2]
    zeros = [Tensor._make(np.zeros((*batch, k, k), dtype=input._data.dtype)) for k in (m, n)]
    return return_types.svd((zeros[0], s, zeros[1]))


# --- pinv, matrix_rank ---------------------------------------------------------------------------


def _cutoff(s_max: np.ndarray, shape: tuple[int, ...], atol: Any, rtol: Any, dt: Any) -> Any:
    """The singular values kept are those above max(atol, rtol * largest)."""
    if rtol is None:
        given = atol is not None and np.any(np.asarray(atol) > 0)
        rtol = 0.0 if given else np.finfo(dt).eps * max(shape[-2:])
    atol = 0.0 if atol is None else atol
    as_array = [
        np.asarray(v._data if isinstance(v, Tensor) else v)[..., None] for v in (atol, rtol)
    ]
    return np.maximum(as_array[0], as_array[1] * s_max)


def _pinv_forward(a: np.ndarray, atol: Any, rtol: Any, hermitian: bool) -> np.ndarray:
    """A = left diag(s) right (SVD, or eigh if hermitian): pinv = right^T diag(1/s) left^T,
    inverting only the s of size above the cutoff."""
    if hermitian:
        w, v = np.linalg.eigh(a)
        left, s, right = v, w, np.swapaxes(v, -1, -2)
    else:
        left, s, right = np.linalg.svd(a, full_matrices=False)
    size = np.abs(s)
    keep = size > _cutoff(size.max(-1, keepdims=True, initial=0.0), a.shape, atol, rtol, a.dtype)
    inv_s = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(a.dtype)
    return np.asarray(
        (np.swapaxes(right, -1, -2) * inv_s[..., None, :]) @ np.swapaxes(left, -1, -2)
    )


def pinv_grad(g: Tensor, a: Tensor, p: Tensor) -> Tensor:
    """For constant rank (Golub & Pereyra): -P^T G P^T + (I - AP) G^T P P^T + P^T P G^T (I - PA)."""
    gt = g.mT
    right = gt @ (p @ p.mT)
    left = (p.mT @ p) @ gt
    return -(p.mT @ g @ p.mT) + right - a @ (p @ right) + left - (left @ p) @ a


_pinv = Primitive(
    "LinalgPinvBackward0",
    _pinv_forward,
    grads=(lambda g, n: pinv_grad(g, n.self, n.result),),
    formulas=("-resultᵀ · grad · resultᵀ, plus the terms of the range and null-space projections",),
)


def pinv(
    A: Tensor,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Tensor:
    """The Moore-Penrose pseudo-inverse, from the singular values above the tolerance."""
    if A.ndim < 2 or A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise RuntimeError(
            f"linalg.pinv({scalar_name(A)}{{{list(A._data.shape)}}}): expected a tensor with 2 or "
            "more dimensions of float, double, cfloat or cdouble types"
        )
    if rcond is not None:
        rtol = rcond
    return _pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    return pinv(input, rtol=rcond)


def matrix_rank(
    A: Tensor,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Tensor:
    """The number of singular values above the tolerance (an int64 tensor, no gradient)."""
    if A.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    a = A._data
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    s_max = s.max(-1, keepdims=True, initial=0.0)
    rank = np.sum(s > _cutoff(s_max, a.shape, atol, rtol, a.dtype), axis=-1)
    return Tensor._make(np.asarray(rank, dtype=np.int64))


# --- lstsq ---------------------------------------------------------------------------------------


def _lstsq_forward(a: np.ndarray, b: np.ndarray, rtol: Any, vector: bool) -> np.ndarray:
    p = _pinv_forward(a, None, rtol, False)
    return np.asarray((p @ b[..., None])[..., 0] if vector else p @ b)


def _lstsq_grad_a(g: Tensor, a: Tensor, b: Tensor, rtol: Any, vector: bool) -> Tensor:
    gp = g.unsqueeze(-1) * b.unsqueeze(-2) if vector else g @ b.mT
    return pinv_grad(gp, a, _pinv(a, atol=None, rtol=rtol, hermitian=False))


def _lstsq_grad_b(g: Tensor, a: Tensor, rtol: Any, vector: bool) -> Tensor:
    pt = _pinv(a, atol=None, rtol=rtol, hermitian=False).mT
    return (pt @ g.unsqueeze(-1))[..., 0] if vector else pt @ g


# X = pinv(A) B: the minimum-norm least-squares solution, differentiated as such.
_lstsq = Primitive(
    "LinalgLstsqBackward0",
    _lstsq_forward,
    inputs=("self", "b"),
    grads=(
        lambda g, n: _lstsq_grad_a(g, n.self, n.b, n.rtol, n.vector),
        lambda g, n: _lstsq_grad_b(g, n.self, n.rtol, n.vector),
    ),
    formulas=(
        "pinv's vector-Jacobian product at self for grad · bᵀ",
        "pinv(self)ᵀ · grad",
    ),
)


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """The least-squares solution of AX = B, with residuals, rank and singular values as the
    LAPACK driver (default 'gelsy') would report them."""
    op = "torch.linalg.lstsq"
    if A.ndim < B.ndim or A.ndim - B.ndim > 1:
        raise RuntimeError(
            f"{op}: input.dim() must be greater or equal to other.dim() and (input.dim() - "
            "other.dim()) <= 1"
        )
    check_matrix("torch.linalg.lstsq", A, square=False, name="input")
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    vector = B.ndim == A.ndim - 1
    if B._data.shape[-1 if vector else -2] != A._data.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    solution = _lstsq(A, B, rtol=rcond, vector=vector)
    a, dt = A._data, A._data.dtype
    s = np.linalg.svd(a, compute_uv=False)
    s_max = s.max(-1, keepdims=True, initial=0.0)
    ranks = np.sum(s > _cutoff(s_max, a.shape, None, rcond, dt), axis=-1).astype(np.int64)
    empty = Tensor._make(np.zeros((0,), dtype=dt))
    rank = Tensor._make(ranks) if driver != "gels" else Tensor._make(np.zeros(0, np.int64))
    values = Tensor._make(s) if driver in ("gelsd", "gelss") else empty
    m, n = a.shape[-2:]
    residuals = empty
    if driver != "gelsy" and m > n and np.all(ranks == n):
        diff = A @ (solution.unsqueeze(-1) if vector else solution) - (
            B.unsqueeze(-1) if vector else B
        )
        residuals = (diff * diff).sum(-2)
    return return_types.linalg_lstsq((solution, residuals, rank, values))
