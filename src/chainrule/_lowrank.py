"""svd_lowrank and pca_lowrank: randomized low-rank SVD (Halko, Martinsson and Tropp, 2009,
algorithms 4.4 and 5.1), composed of chainrule ops in PyTorch's order, so a seed gives
PyTorch's random matrix and the graph is differentiable through every step."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._ops.linalg.decompositions import linalg_qr
from ._ops.linalg.spectral import linalg_svd
from ._random_factories import randn
from ._tensor import Tensor

__all__ = ["pca_lowrank", "svd_lowrank"]


def _floating(A: Tensor) -> Any:
    """A's dtype if floating, else float32 (the dtype of the random test matrix)."""
    return A.dtype if A._data.dtype.kind == "f" else np.float32


def _minus(x: Tensor, m: Tensor | None, r: Tensor) -> Tensor:
    """x - m @ r, or x when there is no m."""
    return x if m is None else x - m @ r


def approximate_basis(A: Tensor, q: int, niter: int | None = 2, M: Tensor | None = None) -> Tensor:
    """Q with q orthonormal columns whose span nearly holds the range of A - M.

    A random n x q matrix, then `niter` rounds of subspace iteration, each re-orthonormalized
    by QR so that the small singular directions are not lost to rounding.
    """
    niter = 2 if niter is None else niter
    r = randn(A._data.shape[-1], q, dtype=_floating(A))
    q_ = linalg_qr(_minus(A @ r, M, r)).Q
    for _ in range(niter):
        q_ = linalg_qr(_minus(A.mT @ q_, None if M is None else M.mT, q_)).Q
        q_ = linalg_qr(_minus(A @ q_, M, q_)).Q
    return q_


def _svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    q = 6 if q is None else q
    m, n = A._data.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:  # work on the tall transpose: the basis is of the smaller side
        A = A.mT
        if M is not None:
            M = M.mT
    basis = approximate_basis(A, q, niter=niter, M=M)
    b = basis.mT @ A
    if M is not None:
        b = b - basis.mT @ M
    u, s, vh = linalg_svd(b, full_matrices=False)
    v = vh.mT
    u = basis.matmul(u)
    return (v, s, u) if m < n else (u, s, v)


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, V) with A - M ≈ U diag(S) Vᵀ, of rank q, from a random subspace."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components of the rows of A: svd_lowrank of A minus its column means."""
    m, n = A._data.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
