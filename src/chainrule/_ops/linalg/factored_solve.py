"""Solves and inverses from a triangular factor already at hand: cholesky_solve,
cholesky_inverse and the older triangular_solve (which also hands back a copy of A)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._dtype import scalar_name
from ..._strides import column_major
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..primitive import Primitive
from .common import raise_for_info, triangle
from .decompositions import warn_once
from .solve import triangular_forward

__all__ = ["cholesky_inverse", "cholesky_solve", "triangular_solve"]


def _not_implemented(kernel: str, t: Tensor) -> None:
    if t._data.dtype.kind != "f" or t._data.dtype == np.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(t)}'")


def _check_pair(b: Tensor, A: Tensor, op: str, b_name: str, a_name: str, prefix: str) -> None:
    """The checks cholesky_solve and triangular_solve share, with their messages."""
    for t, name in ((b, b_name), (A, a_name)):
        if t.ndim < 2:
            if prefix:
                raise RuntimeError(
                    f"{prefix}Expected {name} to have at least 2 dimensions, but it has "
                    f"{t.ndim} dimensions instead"
                )
            raise RuntimeError(
                f"{name} should have at least 2 dimensions, but has {t.ndim} dimensions instead"
            )
    if b._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {scalar_name(b)} and "
            f"A of type {scalar_name(A)} instead."
        )
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    rows, cols = b._data.shape[-2:]
    if rows != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix "
            f"is {rows} by {cols}"
        )
    broadcast_shapes(b._data.shape[:-2], A._data.shape[:-2])


def _lower(factor: np.ndarray, upper: bool) -> np.ndarray:
    """The lower-triangular L with A = L Lᵀ, read from the named triangle of `factor`."""
    return np.swapaxes(np.triu(factor), -1, -2) if upper else np.tril(factor)


# --- cholesky_solve ------------------------------------------------------------------------------


def _cholesky_solve_forward(b: np.ndarray, factor: np.ndarray, upper: bool) -> np.ndarray:
    low = _lower(factor, upper)
    y = triangular_forward(low, b, False, True, False)
    return column_major(triangular_forward(np.swapaxes(low, -1, -2), y, True, True, False))


def _cholesky_solve_grad_factor(g: Tensor, n: Any) -> Tensor:
    """X = (L Lᵀ)⁻¹ B: grad_L = -(gB Xᵀ + X gBᵀ) L (-U (M + Mᵀ) for A = Uᵀ U), gB = A⁻¹ grad."""
    gb = cholesky_solve(g, n.input2, n.upper)
    m = gb @ n.result.mT
    m = m + m.mT
    return -(n.input2 @ m) if n.upper else -(m @ n.input2)


_cholesky_solve = Primitive(
    "CholeskySolveBackward0",
    _cholesky_solve_forward,
    inputs=("self", "input2"),
    grads=(lambda g, n: cholesky_solve(g, n.input2, n.upper), _cholesky_solve_grad_factor),
    formulas=(
        "(L Lᵀ)⁻¹ · grad, L = input2 (upper = {upper}: Uᵀ U)",
        "-(G · resultᵀ + result · Gᵀ) · input2, G = (L Lᵀ)⁻¹ · grad (upper: input2 first)",
    ),
)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """X with A X = B, A = L Lᵀ given by its Cholesky factor (A = Uᵀ U if `upper`)."""
    _check_pair(B, L, "cholesky_solve", "b", "u", "")
    _not_implemented("cholesky_solve_cpu", B)
    return _cholesky_solve(B, L, upper=upper)


# --- cholesky_inverse ----------------------------------------------------------------------------


def _inverse_message(k: int) -> str:
    return (
        f"The diagonal element {k} is zero, the inversion could not be completed because the "
        "input matrix is singular."
    )


def _cholesky_inverse_forward(factor: np.ndarray, upper: bool) -> np.ndarray:
    low = _lower(factor, upper)
    diag = np.diagonal(low, axis1=-2, axis2=-1)
    info = np.where((diag == 0).any(-1), (diag == 0).argmax(-1) + 1, 0)
    raise_for_info("cholesky_inverse", info, factor.ndim > 2, _inverse_message)
    eye = np.broadcast_to(np.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
    return _cholesky_solve_forward(eye, low, False)


def _cholesky_inverse_grad(g: Tensor, n: Any) -> Tensor:
    """C = (L Lᵀ)⁻¹: grad_L = -C (G + Gᵀ) C L (-U C (G + Gᵀ) C for C = (Uᵀ U)⁻¹)."""
    c = n.result
    common = c @ (g + g.mT) @ c
    return -(n.self @ common) if n.upper else -(common @ n.self)


_cholesky_inverse = Primitive(
    "CholeskyInverseBackward0",
    _cholesky_inverse_forward,
    grads=(_cholesky_inverse_grad,),
    formulas=("-result · (grad + gradᵀ) · result · self (lower; upper = {upper})",),
)


def cholesky_inverse(L: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """(L Lᵀ)⁻¹ from the Cholesky factor L ((Uᵀ U)⁻¹ if `upper`)."""
    op = "cholesky_inverse"
    if L.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    m, n = L._data.shape[-2:]
    if m != n:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    _not_implemented("cholesky_inverse_out_cpu", L)
    return _cholesky_inverse(L, upper=upper)


# --- triangular_solve ----------------------------------------------------------------------------


def _triangular_solve_forward(
    b: np.ndarray, a: np.ndarray, upper: bool, transpose: bool, unitriangular: bool
) -> tuple[np.ndarray, np.ndarray]:
    tri = np.swapaxes(a, -1, -2) if transpose else a
    x = triangular_forward(tri, b, upper != transpose, True, unitriangular)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return x, column_major(np.broadcast_to(a, (*batch, *a.shape[-2:])))


def _triangular_grad_b(g: Any, a: Tensor, n: Any) -> Tensor:
    """op(A) X = b: grad_b = op(A)⁻ᵀ grad[0]."""
    return _triangular_solve(
        g[0], a, upper=n.upper, transpose=not n.transpose, unitriangular=n.unitriangular
    )[0]


def _triangular_grad_a(g: Any, a: Tensor, x: Tensor, n: Any) -> Tensor:
    """grad_A = -grad_b Xᵀ (its transpose for op = transpose), kept to A's triangle; the
    copy of A passes its gradient straight through."""
    gb = _triangular_grad_b(g, a, n)
    ga = -(x @ gb.mT) if n.transpose else -(gb @ x.mT)
    offset = (1 if n.upper else -1) * n.unitriangular
    return triangle(ga, lower=not n.upper, offset=offset) + g[1]


_triangular_solve = Primitive(
    "TriangularSolveBackward0",
    _triangular_solve_forward,
    inputs=("self", "A"),
    outputs=("solution", "cloned_coefficient"),
    grads=(
        lambda g, n: _triangular_grad_b(g, n.A, n),
        lambda g, n: _triangular_grad_a(g, n.A, n.solution, n),
    ),
    formulas=(
        "op(A)⁻ᵀ · grad[0] (op: transpose = {transpose})",
        "-grad_self · solutionᵀ kept to A's triangle (upper = {upper}), plus grad[1]",
    ),
    layout=column_major,
)


def triangular_solve(
    input: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: Any = None,
) -> Any:
    """The deprecated torch.triangular_solve: (X with op(A) X = input, a copy of A)."""
    warn_once(
        "triangular_solve",
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
        "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\nX = "
        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B).",
    )
    _check_pair(input, A, "triangular_solve", "b", "A", "torch.triangular_solve: ")
    _not_implemented("triangular_solve_cpu", input)
    return return_types.triangular_solve(
        _triangular_solve(input, A, upper=upper, transpose=transpose, unitriangular=unitriangular)
    )
