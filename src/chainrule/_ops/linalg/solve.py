"""Linear solves: solve (batched, broadcasting, vectors or matrices, AX = B or XA = B) and
solve_triangular, with gradients that are solves themselves."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._dtype import scalar_name
from ..._strides import column_major
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..primitive import Primitive
from ..quiet import quietly
from .common import (
    check_float,
    check_matrix,
    raise_for_info,
    singular_info,
    triangle,
)

__all__: list[str] = []


def _solve_forward(
    a: np.ndarray, b: np.ndarray, left: bool, vector: bool, check: bool, op: str
) -> tuple[np.ndarray, np.ndarray]:
    if vector:
        b = b[..., None]
    if not left:
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    info = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), dtype=np.int32)
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        info = np.broadcast_to(singular_info(a), info.shape).astype(np.int32)
        if check:
            raise_for_info(
                op,
                info,
                info.ndim > 0,
                lambda _: "The solver failed because the input matrix is singular.",
            )
        bad = (info != 0)[..., None, None]
        eye = np.eye(a.shape[-1], dtype=a.dtype)
        x = np.where(bad, np.nan, np.linalg.solve(np.where(bad, eye, a), b)).astype(a.dtype)
    x = column_major(x)  # LAPACK's layout, as in PyTorch (row-major once swapped back)
    if not left:
        x = np.swapaxes(x, -1, -2)
    return (x[..., 0] if vector else x), info


def _solve_grad_a(g: Tensor, a: Tensor, x: Tensor, left: bool, vector: bool) -> Tensor:
    gb = solve(a.mT, g, left=left)
    if vector:
        return -(gb.unsqueeze(-1) * x.unsqueeze(-2))
    return -(gb @ x.mT) if left else -(x.mT @ gb)


# AX = B: grad_B = A^-T grad (or grad A^-T for XA = B); grad_A = -grad_B X^T (-X^T grad_B).
_solve_ex = Primitive(
    "LinalgSolveExBackward0",
    _solve_forward,
    inputs=("self", "other"),
    outputs=("result", "info"),
    grads=(
        lambda g, n: _solve_grad_a(g[0], n.self, n.result, n.left, n.vector),
        lambda g, n: solve(n.self.mT, g[0], left=n.left),
    ),
    formulas=(
        "-(selfᵀ)⁻¹ · grad[0] · resultᵀ (left = {left}: else -resultᵀ · grad[0] · (selfᵀ)⁻¹)",
        "(selfᵀ)⁻¹ · grad[0] (left = {left}: else grad[0] · (selfᵀ)⁻¹)",
    ),
)


def _check_solve(op: str, A: Tensor, B: Tensor, left: bool) -> bool:
    """Check solve's inputs; whether B is a (batch of) vector(s)."""
    check_matrix(op, A)
    check_float(op, A, "lu_cpu")
    if B._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_name(A)} and B of type {scalar_name(B)} instead"
        )
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._data.shape == A._data.shape[:-1])
    n = A._data.shape[-1]
    b_rows, b_cols = (B._data.shape[-1], 1) if vector else B._data.shape[-2:]
    if (left and b_rows != n) or (not left and (vector or b_cols != n)):
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
            f"({n}x{n} and {b_rows}x{b_cols})"
        )
    batch_b = B._data.shape[:-1] if vector else B._data.shape[:-2]
    broadcast_shapes(batch_b, A._data.shape[:-2])
    return vector


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Any = None) -> Tensor:
    """X with AX = B (XA = B if not `left`); batched and broadcasting; B may be vectors."""
    vector = _check_solve("linalg.solve", A, B, left)
    out_ = _solve_ex(A, B, left=left, vector=vector, check=True, op="torch.linalg.solve")
    return out_[0]


def solve_ex(
    A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None
) -> Any:
    """solve, and LAPACK's info (nonzero for singular matrices, whose solution is NaN)."""
    vector = _check_solve("linalg.solve_ex", A, B, left)
    return return_types.linalg_solve_ex(
        _solve_ex(A, B, left=left, vector=vector, check=check_errors, op="linalg.solve_ex")
    )


def triangular_forward(
    a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unitriangular: bool
) -> np.ndarray:
    a = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        a = a - a * np.eye(a.shape[-1], dtype=a.dtype) + np.eye(a.shape[-1], dtype=a.dtype)
    if not left:
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:  # a zero on the diagonal: substitute, giving inf/NaN
        x = _substitute(a, b, upper if left else not upper)
    return column_major(np.swapaxes(x, -1, -2) if not left else x)


@quietly  # a zero pivot gives inf and nan, as in PyTorch
def _substitute(a: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    """Back (upper) or forward substitution, one row at a time over the whole batch."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=a.dtype)
    for i in range(n - 1, -1, -1) if upper else range(n):
        done = np.einsum("...k,...kj->...j", a[..., i, :], x)
        x[..., i, :] = (b[..., i, :] - done) / a[..., i, i, None]
    return x


def _triangular_grad_a(g: Tensor, a: Tensor, x: Tensor, n: Any) -> Tensor:
    gb = solve_triangular(a.mT, g, upper=not n.upper, left=n.left, unitriangular=n.unitriangular)
    ga = -(gb @ x.mT) if n.left else -(x.mT @ gb)
    return triangle(ga, lower=not n.upper, offset=(1 if n.upper else -1) * n.unitriangular)


_solve_triangular = Primitive(
    "LinalgSolveTriangularBackward0",
    triangular_forward,
    inputs=("self", "B"),
    grads=(
        lambda g, n: _triangular_grad_a(g, n.self, n.result, n),
        lambda g, n: solve_triangular(
            n.self.mT, g, upper=not n.upper, left=n.left, unitriangular=n.unitriangular
        ),
    ),
    formulas=(
        "-(selfᵀ)⁻¹ · grad · resultᵀ, kept to self's triangle (upper = {upper})",
        "(selfᵀ)⁻¹ · grad (left = {left}: else grad · (selfᵀ)⁻¹)",
    ),
)


def solve_triangular(
    A: Tensor,
    B: Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Any = None,
) -> Tensor:
    """X with AX = B (XA = B if not `left`) for a triangular A (only its triangle is read)."""
    op = "linalg.solve_triangular"
    if B.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    check_matrix(op, A)
    check_float(op, A, "triangular_solve_cpu")
    if B._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_name(A)} and B of type {scalar_name(B)} instead"
        )
    n = A._data.shape[-1]
    rows, cols = B._data.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
            f"({n}x{n} and {rows}x{cols})"
        )
    broadcast_shapes(A._data.shape[:-2], B._data.shape[:-2])
    return _solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
