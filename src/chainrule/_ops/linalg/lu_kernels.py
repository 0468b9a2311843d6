"""LU factorization with partial pivoting on NumPy stacks, as LAPACK's getrf does it, and
the pieces built from its packed result (L, U, the permutation)."""

from __future__ import annotations

import numpy as np

from ..quiet import quietly

__all__ = ["getrf", "permutation", "permutation_matrix", "unpack_lu"]


@quietly  # a zero column leaves NaN/inf-free zeros; overflow follows the data, as in LAPACK
def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(LU, pivots, info) of every matrix in `a` (..., m, n), in `a`'s dtype.

    Column by column over the whole stack at once: the pivot is the first entry of
    largest magnitude on or below the diagonal (LAPACK's idamax, so ties go to the
    upper row), whole rows are swapped, the column below is scaled by the pivot's
    reciprocal (see below for when it is divided) and the trailing block takes a rank-one
    update. `pivots` are 1-based row numbers (int32); `info` is 1 + the first column whose
    pivot is exactly zero (its column is left unscaled and the factorization goes on), else 0.
    """
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    count = int(np.prod(batch))
    work = np.array(a, copy=True).reshape(count, m, n)
    rows = np.arange(work.shape[0])
    pivots = np.zeros((work.shape[0], k), dtype=np.int32)
    info = np.zeros(work.shape[0], dtype=np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(work[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        top = work[rows, j].copy()
        work[rows, j] = work[rows, p]
        work[rows, p] = top
        pivot = work[:, j, j]
        zero = pivot == 0
        info = np.where((info == 0) & zero, j + 1, info).astype(np.int32)
        # By the reciprocal, unless that overflows (a subnormal pivot): then divide, as LAPACK.
        # The LAPACK PyTorch ships (MKL) also divides in the last step of a square matrix of
        # order 4 or less, which makes the last bits agree.
        safe = np.abs(pivot) >= np.finfo(work.dtype).tiny
        if m == n <= 4 and j == n - 2:
            safe = np.zeros_like(safe)
        divisor = np.where(zero, 1, pivot)[:, None]
        below = work[:, j + 1 :, j]
        work[:, j + 1 :, j] = np.where(safe[:, None], below * (1 / divisor), below / divisor)
        work[:, j + 1 :, j + 1 :] -= work[:, j + 1 :, j, None] * work[:, j, None, j + 1 :]
    return work.reshape(a.shape), pivots.reshape((*batch, k)), info.reshape(batch)


def permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """perm (..., m): row i of P^T A is row perm[i] of A, from LAPACK's row swaps."""
    perm = np.broadcast_to(np.arange(m), (*pivots.shape[:-1], m)).copy()
    count = int(np.prod(pivots.shape[:-1]))
    flat = perm.reshape(count, m)
    swaps = pivots.reshape(count, pivots.shape[-1]).astype(np.int64) - 1
    rows = np.arange(flat.shape[0])
    for i in range(swaps.shape[1]):
        other = swaps[:, i]
        top = flat[rows, i].copy()
        flat[rows, i] = flat[rows, other]
        flat[rows, other] = top
    return perm


def permutation_matrix(pivots: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """P (..., m, m) with A = P L U: P[perm[j], j] = 1."""
    perm = permutation(pivots, m)
    eye = np.eye(m, dtype=dtype)
    return np.swapaxes(eye[perm], -1, -2).copy()


def unpack_lu(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """L (m, k), unit lower triangular, and U (k, n), upper triangular, from packed LU."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    up = np.triu(lu[..., :k, :])
    return low, up
