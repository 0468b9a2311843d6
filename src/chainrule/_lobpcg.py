"""torch.lobpcg: a few extreme eigenpairs of a large symmetric positive-definite (generalized)
eigenproblem by LOBPCG (the iteration is in _lobpcg_worker.py), differentiable in A through
a custom Function, as PyTorch's is: the gradient of k eigenpairs of a symmetric matrix."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._creation import empty, eye
from ._dtype import bool_
from ._lobpcg_worker import LOBPCG
from ._ops.elementwise.conditional import where
from ._ops.linalg.solve import solve
from ._random_factories import randn
from ._tensor import Tensor
from .autograd import Function
from .random import Generator

__all__ = ["lobpcg"]

_EPS = {np.dtype(np.float32): 1.2e-07, np.dtype(np.float64): 2.23e-16}


def _floating(A: Tensor) -> Any:
    return A.dtype if A._data.dtype.kind == "f" else np.float32


# --- the gradient --------------------------------------------------------------------------------


def _complete_eigenspace_grad(g_d: Tensor, g_u: Tensor, d: Tensor, u: Tensor) -> Tensor:
    """A = U diag(D) Uᵀ, U square: grad_A = U (diag(gD) + F ∘ Uᵀ gU) Uᵀ, F_ij = 1/(d_j - d_i)."""
    f = d.unsqueeze(-2) - d.unsqueeze(-1)
    f = where(eye(f.shape[-1], dtype=bool_), float("inf"), f) ** -1
    ut = u.mT
    return u @ ((g_d.diag_embed() + (ut @ g_u) * f) @ ut)


def _partial_eigenspace_grad(g_d: Tensor, g_u: Tensor, a: Tensor, d: Tensor, u: Tensor) -> Tensor:
    """k < m eigenpairs: the part in span(U) as for all of them, plus the part of each dU_i
    outside it, which solves (A - d_i) x_i = (I - U Uᵀ) gU_i there: grad_A -= [x_i] Uᵀ.

    The complement is spanned by (I - U Uᵀ) times a fixed random matrix (PyTorch's seed), so
    the solves are small and the result does not depend on the choice of basis.
    """
    m, k = u.shape[-2], u.shape[-1]
    projector = eye(m, dtype=u.dtype) - u @ u.mT
    draws = randn((*a.shape[:-1], m - k), dtype=a.dtype, generator=Generator())
    basis = projector @ draws
    bt = basis.mT
    reduced_a, gram = bt @ a @ basis, bt @ basis
    shifted = reduced_a.unsqueeze(-3) - d.unsqueeze(-1).unsqueeze(-1) * gram.unsqueeze(-3)
    rhs = (bt @ g_u).mT.unsqueeze(-1)  # one right-hand side per eigenpair
    coords = solve(shifted, rhs).squeeze(-1).mT
    return _complete_eigenspace_grad(g_d, g_u, d, u) - (basis @ coords) @ u.mT


class LOBPCGAutogradFunction(Function):
    """lobpcg on a symmetric A that requires grad: the eigenpairs, and their gradient."""

    @staticmethod
    def forward(ctx: Any, A: Tensor, *args: Any) -> tuple[Tensor, Tensor]:
        B = args[1]
        d, u = _lobpcg(A, *args)
        ctx.save_for_backward(A, B, d, u)
        ctx.largest = args[7]
        return d, u

    @staticmethod
    def backward(ctx: Any, g_d: Tensor, g_u: Tensor) -> tuple[Any, ...]:
        a, b, d, u = ctx.saved_tensors
        if b is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        if u.shape[-1] == u.shape[-2]:
            grad_a = _complete_eigenspace_grad(g_d, g_u, d, u)
        else:
            grad_a = _partial_eigenspace_grad(g_d, g_u, a, d, u)
        return (grad_a, *([None] * 13))


# --- the forward ---------------------------------------------------------------------------------


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Any = None,
    ortho_iparams: dict[str, int] | None = None,
    ortho_fparams: dict[str, float] | None = None,
    ortho_bparams: dict[str, bool] | None = None,
) -> tuple[Tensor, Tensor]:
    """The k largest (or smallest) eigenpairs of A X = B X E, A and B symmetric and B
    positive definite; X (m x n, n >= k) starts the iteration (random if not given)."""
    args = (k, B, X, n, iK, niter, tol, largest, method, tracker)
    ortho = (ortho_iparams, ortho_fparams, ortho_bparams)
    if A.requires_grad or (B is not None and B.requires_grad):
        a_sym = (A + A.mT) / 2
        b_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(
            a_sym, k, b_sym, X, n, iK, niter, tol, largest, method, tracker, *ortho
        )
    return _lobpcg(A, *args, *ortho)


def _parameters(
    m: int, n: int, k: int, niter: int | None, tol: float, largest: bool | None, ortho: Any
) -> tuple[dict[str, int], dict[str, float], dict[str, bool]]:
    """The worker's integer, float and boolean settings; with `ortho` (the method's own
    settings, or None for the basic method), the orthogonalization's defaults too."""
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if ortho is None:
        return iparams, fparams, bparams
    given_i, given_f, given_b = ortho
    iparams.update(given_i or {})
    fparams.update(given_f or {})
    bparams.update(given_b or {})
    iparams["ortho_i_max"] = iparams.get("ortho_i_max", 3)
    iparams["ortho_j_max"] = iparams.get("ortho_j_max", 3)
    for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
        fparams[key] = fparams.get(key, tol)
    bparams["ortho_use_drop"] = bparams.get("ortho_use_drop", False)
    return iparams, fparams, bparams


def _lobpcg(
    A: Tensor,
    k: int | None,
    B: Tensor | None,
    X: Tensor | None,
    n: int | None,
    iK: Tensor | None,
    niter: int | None,
    tol: float | None,
    largest: bool | None,
    method: str | None,
    tracker: Any,
    *ortho: Any,
) -> tuple[Tensor, Tensor]:
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = _floating(A)
    if tol is None:
        tol = _EPS[np.dtype(A._data.dtype if A._data.dtype.kind == "f" else np.float32)] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    method = "ortho" if method is None else method
    settings = ortho if method == "ortho" else None
    iparams, fparams, bparams = _parameters(m, n, k, niter, tol, largest, settings)

    def solve_one(a: Tensor, b: Tensor | None, x: Tensor | None) -> LOBPCG:
        x = randn((m, n), dtype=dtype) if x is None else x
        if not (len(x.shape) == 2 and tuple(x.shape) == (m, n)):
            raise AssertionError(f"X shape mismatch: got {x.shape}, expected {(m, n)}")
        worker = LOBPCG(a, b, x, iK, iparams, fparams, bparams, method, tracker)
        worker.run()
        return worker

    if len(A.shape) == 2:
        worker = solve_one(A, B, X)
        return worker.E[:k], worker.X[:, :k]
    count = int(np.prod(A.shape[:-2]))
    b_a = A.reshape((count, *A.shape[-2:]))
    b_b = B.reshape((count, *A.shape[-2:])) if B is not None else None
    b_x = X.reshape((count, *X.shape[-2:])) if X is not None else None
    values = empty((count, k), dtype=dtype)
    vectors = empty((count, m, k), dtype=dtype)
    for i in range(count):
        iparams["batch_index"] = i
        b_i = b_b[i] if b_b is not None else None
        worker = solve_one(b_a[i], b_i, b_x[i] if b_x is not None else None)
        values[i] = worker.E[:k]
        vectors[i] = worker.X[:, :k]
    return values.reshape((*A.shape[:-2], k)), vectors.reshape((*A.shape[:-2], m, k))
