"""The LU factorization A = P L U and what uses it: lu_factor(_ex), lu, lu_unpack and
lu_solve (and the older torch.lu, torch.lu_solve), with gradients written in chainrule
ops. Pivots are constants: the gradient is that of the factorization at fixed P."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._dtype import scalar_name
from ..._strides import column_major, contiguous_array
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..primitive import Primitive
from ..shape.views import cat
from .common import check_float, check_matrix, const, triangle
from .decompositions import warn_once
from .lu_kernels import getrf, permutation_matrix, unpack_lu
from .solve import solve_triangular, triangular_forward

__all__ = ["lu", "lu_solve", "lu_unpack"]


def _check_lu_input(op: str, A: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(
            f"{op}: Expected tensor with 2 or more dimensions. Got size: {list(A._data.shape)} "
            "instead"
        )
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{scalar_name(A)}'")


def _check_pivot(pivot: bool) -> None:
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _zero_pivot(k: int) -> str:
    return (
        f"U[{k},{k}] is zero and using it on lu_solve would result in a division by zero. If you "
        "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
        "linalg.lu_factor_ex(A, pivot)"
    )


# --- the gradient of A = P L U, shared by every factorization node ----------------------------


def lu_grad(gl: Tensor, gu: Tensor, p: Tensor, low: Tensor, up: Tensor) -> Tensor:
    """grad_A from the gradients of L (m x k) and U (k x n), P held constant.

    Square: P^T dA = dL U + L dU gives grad_A = P L^-T (tril₋₁(Lᵀ gL) + triu(gU Uᵀ)) U^-T.
    Wide (m < n), U = [U1 | U2]: U2 = L^-1 P^T A2 adds -gU2 U2ᵀ to Lᵀ gL, and grad_A2 =
    P L^-T gU2. Tall (m > n), L = [L1; L2]: L2 = A2' U^-1 adds -L2ᵀ gL2 to gU Uᵀ, and the
    lower rows get gL2 U^-T.
    """
    m, n = low._data.shape[-2], up._data.shape[-1]
    if m == n:
        inner = triangle(low.mT @ gl, lower=True, offset=-1) + triangle(gu @ up.mT, lower=False)
        left = solve_triangular(low.mT, inner, upper=True, unitriangular=True)
        return p @ solve_triangular(up.mT, left, upper=False, left=False)
    if m < n:
        u1, u2, gu1, gu2 = up[..., :m], up[..., m:], gu[..., :m], gu[..., m:]
        inner = triangle(low.mT @ gl - gu2 @ u2.mT, lower=True, offset=-1)
        inner = inner + triangle(gu1 @ u1.mT, lower=False)
        right = cat([solve_triangular(u1.mT, inner, upper=False, left=False), gu2], -1)
        return p @ solve_triangular(low.mT, right, upper=True, unitriangular=True)
    l1, l2, gl1, gl2 = low[..., :n, :], low[..., n:, :], gl[..., :n, :], gl[..., n:, :]
    inner = triangle(l1.mT @ gl1, lower=True, offset=-1)
    inner = inner + triangle(gu @ up.mT - l2.mT @ gl2, lower=False)
    top = solve_triangular(l1.mT, inner, upper=True, unitriangular=True)
    return p @ solve_triangular(up.mT, cat([top, gl2], -2), upper=False, left=False)


def unpacked(lu: Tensor) -> tuple[Tensor, Tensor]:
    """L and U of a packed LU tensor, in chainrule ops (so gradients reach LU)."""
    m, n = lu._data.shape[-2:]
    k = min(m, n)
    low = triangle(lu[..., :, :k], lower=True, offset=-1) + const(
        np.eye(m, k, dtype=lu._data.dtype)
    )
    return low, triangle(lu[..., :k, :], lower=False)


def _pivot_matrix(lu: Tensor, pivots: Tensor) -> Tensor:
    return const(permutation_matrix(pivots._data, lu._data.shape[-2], lu._data.dtype))


def _lu_factor_grad(g: Any, lu: Tensor, pivots: Tensor) -> Tensor:
    m, n = lu._data.shape[-2:]
    k = min(m, n)
    low, up = unpacked(lu)
    return lu_grad(g[0][..., :, :k], g[0][..., :k, :], _pivot_matrix(lu, pivots), low, up)


def _lu_factor_forward(a: np.ndarray, check: bool, op: str) -> tuple[np.ndarray, ...]:
    lu, pivots, info = getrf(a)
    bad = np.flatnonzero(info.reshape(-1))
    if check and bad.size:  # a plain RuntimeError in PyTorch, not a LinAlgError
        first = int(bad[0])
        prefix = f"(Batch element {first}): " if a.ndim > 2 else ""
        raise RuntimeError(f"{op}: {prefix}{_zero_pivot(int(info.reshape(-1)[first]))}")
    return lu, pivots, info


_lu_factor_ex = Primitive(
    "LinalgLuFactorExBackward0",
    _lu_factor_forward,
    outputs=("LU", "pivots", "info"),
    grads=(lambda g, n: _lu_factor_grad(g, n.LU, n.pivots),),
    formulas=("grad[0] split into its L (strictly lower) and U parts, taken back through A = PLU",),
    layout=(column_major, contiguous_array, contiguous_array),
)


def lu_factor_ex(
    A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None
) -> Any:
    """The packed LU factorization, LAPACK's pivots and info (nonzero: a zero pivot)."""
    _check_lu_input("torch.lu_factor", A)
    _check_pivot(pivot)
    return return_types.linalg_lu_factor_ex(
        _lu_factor_ex(A, check=check_errors, op="torch.linalg.lu_factor_ex")
    )


def lu_factor(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """(LU, pivots): L below the diagonal (its unit diagonal implied), U on and above."""
    _check_lu_input("torch.lu_factor", A)
    _check_pivot(pivot)
    lu_, pivots, _ = _lu_factor_ex(A, check=True, op="torch.linalg.lu_factor")
    return return_types.linalg_lu_factor((lu_, pivots))


def _lu_with_info(A: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
    warn_once(
        "lu",
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)",
    )
    _check_lu_input("torch.lu_factor", A)
    _check_pivot(pivot)
    return _lu_factor_ex(A, check=False, op="torch.lu")


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    """The deprecated torch.lu: (LU, pivots), and info as well when `get_infos`."""
    result = _lu_with_info(A, pivot)
    if get_infos:
        return return_types._lu_with_info(result)
    return result[0], result[1]


def tensor_lu(self: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """Tensor.lu: torch.lu, returning a plain tuple."""
    result = _lu_with_info(self, pivot)
    return result if get_infos else (result[0], result[1])


# --- linalg.lu: P, L, U at once -----------------------------------------------------------------


def _lu_forward(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lu_, pivots, _ = getrf(a)
    low, up = unpack_lu(lu_)
    return permutation_matrix(pivots, a.shape[-2], a.dtype), low, up


_linalg_lu = Primitive(
    "LinalgLuBackward0",
    _lu_forward,
    outputs=("P", "L", "U"),
    grads=(lambda g, n: lu_grad(g[1], g[2], n.P, n.L, n.U),),
    formulas=("P · L⁻ᵀ · (tril₋₁(Lᵀ · grad[1]) + triu(grad[2] · Uᵀ)) · U⁻ᵀ (square A)",),
    layout=contiguous_array,
)


def _constant(t: Tensor) -> Tensor:
    """The permutation: a result without a gradient, as in PyTorch."""
    return Tensor._make(t._data)


def linalg_lu(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """A = P L U: P a permutation, L unit lower triangular (m x k), U upper (k x n)."""
    _check_lu_input("linalg.lu", A)
    _check_pivot(pivot)
    p, low, up = _linalg_lu(A)
    return return_types.linalg_lu((_constant(p), low, up))


# --- lu_unpack ----------------------------------------------------------------------------------


def _unpack_forward(
    lu_: np.ndarray, pivots: Tensor, unpack_data: bool, unpack_pivots: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    empty = np.zeros((0,), dtype=lu_.dtype)
    low, up = unpack_lu(lu_) if unpack_data else (empty, empty)
    if not unpack_pivots:
        return empty, low, up
    batch = lu_.shape[:-2]
    piv = pivots._data
    p = permutation_matrix(np.broadcast_to(piv, (*batch, piv.shape[-1])), lu_.shape[-2], lu_.dtype)
    return p, low, up


def _unpack_grad(g: Any, lu_: Tensor) -> Tensor:
    """LU holds L strictly below its diagonal and U on and above it."""
    gl, gu = g[1], g[2]
    m, n = lu_._data.shape[-2:]
    gl = triangle(gl, lower=True, offset=-1)
    gu = triangle(gu, lower=False)
    if m > n:
        zeros = const(np.zeros((*gu._data.shape[:-2], m - n, n), dtype=gu._data.dtype))
        gu = cat([gu, zeros], -2)
    elif m < n:
        zeros = const(np.zeros((*gl._data.shape[:-2], m, n - m), dtype=gl._data.dtype))
        gl = cat([gl, zeros], -1)
    return gl + gu


_lu_unpack = Primitive(
    "LuUnpackBackward0",
    _unpack_forward,
    inputs=("LU_data",),  # the pivots are an argument: PyTorch's node has no edge for them
    outputs=("P", "L", "U"),
    grads=(lambda g, n: _unpack_grad(g, n.LU_data),),
    formulas=("tril₋₁(grad[1]) + triu(grad[2]), laid into LU_data's shape",),
    layout=contiguous_array,
)


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Any = None,
) -> Any:
    """P, L, U from lu_factor's packed result (empty where not asked for)."""
    if LU_data.ndim < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data._data.shape)} instead"
        )
    if unpack_pivots:
        if LU_pivots._data.dtype != np.int32:
            raise RuntimeError(
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                "dtype.\nNote: this function is intended to be used with the output produced by "
                "torch.linalg.lu_factor"
            )
        piv = LU_pivots._data
        if piv.size and (piv.min() < 1 or piv.max() > LU_data._data.shape[-2]):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                "properly pass the result of lu_factor?"
            )
    p, low, up = _lu_unpack(
        LU_data, pivots=LU_pivots, unpack_data=unpack_data, unpack_pivots=unpack_pivots
    )
    return return_types.lu_unpack((_constant(p), low, up))


# --- lu_solve -----------------------------------------------------------------------------------


def _solve_left(lu_: np.ndarray, pivots: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    """X with A X = B (Aᵀ X = B if `adjoint`), A = P L U given packed."""
    low, up = unpack_lu(lu_)
    perm = permutation_matrix(pivots, lu_.shape[-2], lu_.dtype)
    if adjoint:  # Uᵀ Lᵀ Pᵀ X = B
        y = triangular_forward(np.swapaxes(up, -1, -2), b, False, True, False)
        y = triangular_forward(np.swapaxes(low, -1, -2), y, True, True, True)
        return np.asarray(perm @ y)
    y = triangular_forward(low, np.swapaxes(perm, -1, -2) @ b, False, True, True)
    return triangular_forward(up, y, True, True, False)


def _lu_solve_forward(
    lu_: np.ndarray, b: np.ndarray, pivots: Tensor, left: bool, adjoint: bool
) -> np.ndarray:
    if left:
        return column_major(_solve_left(lu_, pivots._data, b, adjoint))
    # X A = B is Aᵀ Xᵀ = Bᵀ (and X Aᵀ = B is A Xᵀ = Bᵀ)
    x = _solve_left(lu_, pivots._data, np.swapaxes(b, -1, -2), not adjoint)
    return np.swapaxes(column_major(x), -1, -2)


def _lu_solve_grad_b(g: Tensor, n: Any) -> Tensor:
    return _lu_solve(n.LU, g, pivots=n.pivots, left=n.left, adjoint=not n.adjoint)


def _lu_solve_grad_lu(g: Tensor, n: Any) -> Tensor:
    """grad_A as for solve, then to the packed factors: A = P L U at fixed P."""
    gb = _lu_solve_grad_b(g, n)
    x = n.result
    if n.left:
        ga = -(x @ gb.mT) if n.adjoint else -(gb @ x.mT)
    else:
        ga = -(gb.mT @ x) if n.adjoint else -(x.mT @ gb)
    low, up = unpacked(n.LU)
    pga = _pivot_matrix(n.LU, n.pivots).mT @ ga
    return triangle(pga @ up.mT, lower=True, offset=-1) + triangle(low.mT @ pga, lower=False)


_lu_solve = Primitive(
    "LinalgLuSolveBackward0",
    _lu_solve_forward,
    inputs=("LU", "B"),  # the pivots are an argument: PyTorch's node has no edge for them
    grads=(_lu_solve_grad_lu, _lu_solve_grad_b),
    formulas=(
        "tril₋₁(Pᵀ grad_A Uᵀ) + triu(Lᵀ Pᵀ grad_A), grad_A = -A⁻ᵀ · grad · resultᵀ (left)",
        "A⁻ᵀ · grad (left = {left}, adjoint = {adjoint})",
    ),
)


def _check_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, left: bool) -> None:
    op = "torch.linalg.lu_solve"
    check_matrix(op, LU)
    check_float(op, LU)
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = LU._data.shape[-1]
    rows, cols = B._data.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(
            "linalg.lu_solve: Incompatible shapes of A and B for the equation "
            f"{'AX' if left else 'XA'} = B ({n}x{n} and {rows}x{cols})"
        )
    if pivots.ndim == 0 or pivots._data.shape[-1] != n:
        raise RuntimeError(
            "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
            "matrix"
        )
    if LU._data.shape[:-1] != pivots._data.shape:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {list(pivots._data.shape)} instead"
        )
    if B._data.dtype != LU._data.dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{scalar_name(LU)} and B of type {scalar_name(B)} instead"
        )
    if pivots._data.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    broadcast_shapes(B._data.shape[:-2], LU._data.shape[:-2])
    piv = pivots._data
    if piv.size and piv.min() < 1:
        raise RuntimeError(
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
            "the result of lu_factor?"
        )
    if piv.size and piv.max() > n:
        raise RuntimeError(
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
            "properly pass the result of lu_factor?"
        )


def linalg_lu_solve(
    LU: Tensor,
    pivots: Tensor,
    B: Tensor,
    *,
    left: bool = True,
    adjoint: bool = False,
    out: Any = None,
) -> Tensor:
    """X with AX = B from A's lu_factor (XA = B if not `left`; Aᵀ in place of A if `adjoint`)."""
    _check_lu_solve(LU, pivots, B, left)
    return _lu_solve(LU, B, pivots=pivots, left=left, adjoint=adjoint)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out: Any = None) -> Tensor:
    """The deprecated torch.lu_solve: linalg.lu_solve with its arguments in the old order."""
    warn_once(
        "lu_solve",
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
        "torch.linalg.lu_solve(LU, pivots, B)",
    )
    return linalg_lu_solve(LU_data, LU_pivots, b)
