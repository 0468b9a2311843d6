"""Shared pieces of the linear-algebra family: input checks, PyTorch's LinAlgError and
its messages, and small matrix helpers written in chainrule ops."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ... import _dtype
from ..._tensor import Tensor

__all__ = [
    "LinAlgError",
    "check_float",
    "check_matrix",
    "const",
    "diag_embed",
    "diagonal",
    "eye_like",
    "raise_for_info",
    "singular_info",
    "triangle",
]


class LinAlgError(RuntimeError):
    """A matrix the algorithm cannot handle: singular, not positive-definite, ... (as in torch)."""


LinAlgError.__module__ = "chainrule.linalg"


# --- checks -------------------------------------------------------------------------------


def check_matrix(op: str, a: Tensor, square: bool = True, name: str = "A") -> None:
    """At least 2-D (and square, if asked), with PyTorch's messages naming `op`."""
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    m, n = a._data.shape[-2:]
    if square and m != n:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {m} by {n} matrices"
        )


def check_float(op: str, a: Tensor, kernel: str | None = None, half: bool = False) -> None:
    """A floating-point input; float16 too if `half`, else refused as PyTorch's CPU kernel
    `kernel` refuses it (or as too low a precision, when the kernel is not named)."""
    if a._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. "
            f"Got {_dtype.scalar_name(a)}"
        )
    if a._data.dtype == np.float16 and not half:
        if kernel is None:
            raise RuntimeError(f"{op}: Low precision dtypes not supported. Got Half")
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")


def raise_for_info(op: str, info: np.ndarray, batched: bool, message: Callable[[int], str]) -> None:
    """Raise LinAlgError for the first matrix whose LAPACK-style `info` is nonzero."""
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size == 0:
        return
    first = int(bad[0])
    prefix = f"(Batch element {first}): " if batched else ""
    raise LinAlgError(f"{op}: {prefix}{message(int(flat[first]))}")


def lu_info(a: np.ndarray) -> np.ndarray:
    """LAPACK getrf's `info` of each matrix: 1 + the first exactly zero pivot, or 0.

    Partial-pivoting elimination over the whole stack at once (a loop over the
    columns, not the matrices); only called to word an error.
    """
    n = a.shape[-1]
    work = np.array(a, dtype=np.float64).reshape(-1, n, n)
    rows = np.arange(work.shape[0])
    info = np.zeros(work.shape[0], dtype=np.int64)
    for k in range(n):
        p = k + np.argmax(np.abs(work[:, k:, k]), axis=1)
        top = work[rows, k].copy()
        work[rows, k] = work[rows, p]
        work[rows, p] = top
        pivot = work[:, k, k]
        zero = pivot == 0
        info = np.where((info == 0) & zero, k + 1, info)
        factors = work[:, k + 1 :, k] / np.where(zero, 1.0, pivot)[:, None]
        factors[zero] = 0.0
        work[:, k + 1 :, k + 1 :] -= factors[:, :, None] * work[:, k, None, k + 1 :]
    return info.reshape(a.shape[:-2])


def cholesky_info(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK potrf's `info` (the order of the first leading minor that is not positive-definite)
    and the factor as far as it got, from the lower triangle; only called on failure."""
    n = a.shape[-1]
    work = np.array(a, dtype=np.float64).reshape(-1, n, n)
    low = np.zeros_like(work)
    info = np.zeros(work.shape[0], dtype=np.int64)
    for k in range(n):
        d = work[:, k, k] - np.sum(low[:, k, :k] ** 2, axis=1)
        bad = ~(d > 0)
        info = np.where((info == 0) & bad, k + 1, info)
        root = np.sqrt(np.where(bad, 1.0, d))
        low[:, k, k] = root
        below = work[:, k + 1 :, k] - np.einsum("bij,bj->bi", low[:, k + 1 :, :k], low[:, k, :k])
        low[:, k + 1 :, k] = below / root[:, None]
    return info.reshape(a.shape[:-2]), low.reshape(a.shape)


def singular_info(a: np.ndarray) -> np.ndarray:
    """LAPACK getrf's info for each matrix, exactly where NumPy's LU met a zero pivot."""
    info = lu_info(a)
    hit = np.linalg.det(a) == 0  # the same factorization NumPy's inverse and solve use
    return np.where(hit & (info == 0), a.shape[-1], np.where(hit, info, 0)).astype(np.int32)


# --- helpers in chainrule ops (differentiable, so rules built on them are too) -------------


def const(a: np.ndarray) -> Tensor:
    """An array as a constant tensor (no gradient)."""
    return Tensor._make(np.asarray(a))


def eye_like(x: Tensor, n: int | None = None) -> Tensor:
    """The n x n identity (n: x's last dim) in x's dtype, as a constant."""
    size = x._data.shape[-1] if n is None else n
    return const(np.eye(size, dtype=x._data.dtype))


def diagonal(x: Tensor) -> Tensor:
    """The main diagonals of a stack of matrices, shape (..., min(m, n))."""
    m, n = x._data.shape[-2:]
    k = min(m, n)
    if m != n:
        x = x[..., :k, :k]
    return (x * eye_like(x, k)).sum(-1)


def diag_embed(v: Tensor) -> Tensor:
    """A stack of diagonal matrices with the vectors `v` (..., k) on their diagonals."""
    return v.unsqueeze(-1) * eye_like(v)


def triangle(x: Tensor, lower: bool, offset: int = 0) -> Tensor:
    """tril(x, offset) if `lower` else triu(x, offset), as a product with a constant mask."""
    m, n = x._data.shape[-2:]
    ones = np.ones((m, n), dtype=x._data.dtype)
    return x * const(np.tril(ones, offset) if lower else np.triu(ones, offset))
