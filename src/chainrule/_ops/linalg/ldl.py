"""The LDLᵀ factorization of symmetric matrices with Bunch-Kaufman pivoting (LAPACK's
sytrf, lower triangle, done as its unblocked sytf2 does) and solves with it (sytrs).
PyTorch has no derivative for either: their nodes say so when backward reaches them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import return_types
from ..._dtype import scalar_name
from ..._strides import column_major, contiguous_array
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..primitive import Primitive
from ..quiet import quietly
from .common import check_float, check_matrix

__all__: list[str] = []

_ALPHA = (1 + math.sqrt(17)) / 8  # Bunch and Kaufman's growth bound


def _first_largest(x: np.ndarray) -> int:
    """LAPACK's idamax: the first index of the largest magnitude."""
    return int(np.argmax(np.abs(x)))


def _choose_pivot(w: np.ndarray, k: int) -> tuple[int, int, bool]:
    """(kp, kstep, singular) for column k of the lower-stored symmetric `w`."""
    n = w.shape[0]
    absakk = abs(w[k, k])
    if k < n - 1:
        imax = k + 1 + _first_largest(w[k + 1 :, k])
        colmax = abs(w[imax, k])
    else:
        imax, colmax = k, 0.0
    if max(absakk, colmax) == 0 or math.isnan(absakk):
        return k, 1, True
    if absakk >= _ALPHA * colmax:
        return k, 1, False
    jmax = k + _first_largest(w[imax, k:imax])  # row imax, left of the diagonal
    rowmax = abs(w[imax, jmax])
    if imax < n - 1:
        jmax = imax + 1 + _first_largest(w[imax + 1 :, imax])
        rowmax = max(rowmax, abs(w[jmax, imax]))
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if abs(w[imax, imax]) >= _ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _interchange(w: np.ndarray, k: int, kk: int, kp: int, kstep: int) -> None:
    """Swap rows and columns kk and kp of the trailing lower triangle."""
    w[kp + 1 :, [kk, kp]] = w[kp + 1 :, [kp, kk]]
    middle = w[kk + 1 : kp, kk].copy()
    w[kk + 1 : kp, kk] = w[kp, kk + 1 : kp]
    w[kp, kk + 1 : kp] = middle
    w[[kk, kp], [kk, kp]] = w[[kp, kk], [kp, kk]]
    if kstep == 2:
        w[[k + 1, kp], k] = w[[kp, k + 1], k]


def _sytf2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(LD, pivots, info) of one matrix, from its lower triangle."""
    w = np.tril(a).astype(a.dtype, copy=True)
    n = w.shape[0]
    pivots = np.zeros(n, dtype=np.int32)
    info, k = 0, 0
    tiny = np.finfo(a.dtype).tiny
    while k < n:
        kp, kstep, singular = _choose_pivot(w, k)
        if singular:
            info = info or k + 1
        else:
            kk = k + kstep - 1
            if kp != kk:
                _interchange(w, k, kk, kp, kstep)
            if kstep == 1 and k < n - 1:
                x = w[k + 1 :, k].copy()
                if abs(w[k, k]) >= tiny:
                    d11 = 1 / w[k, k]
                    w[k + 1 :, k + 1 :] += np.tril(np.outer(x, -d11 * x))
                    w[k + 1 :, k] = x * d11
                else:
                    w[k + 1 :, k] = x / w[k, k]
                    w[k + 1 :, k + 1 :] += np.tril(
                        np.outer(w[k + 1 :, k], -w[k, k] * w[k + 1 :, k])
                    )
            elif kstep == 2 and k < n - 2:
                d21 = w[k + 1, k]
                d11, d22 = w[k + 1, k + 1] / d21, w[k, k] / d21
                d21 = (1 / (d11 * d22 - 1)) / d21
                first, second = w[k + 2 :, k].copy(), w[k + 2 :, k + 1].copy()
                wk = d21 * (d11 * first - second)
                wkp1 = d21 * (d22 * second - first)
                update = np.outer(first, wk) + np.outer(second, wkp1)
                w[k + 2 :, k + 2 :] -= np.tril(update)
                w[k + 2 :, k], w[k + 2 :, k + 1] = wk, wkp1
        pivots[k : k + kstep] = kp + 1 if kstep == 1 else -(kp + 1)
        k += kstep
    return np.tril(w), pivots, info


def _ldl_factor_forward(a: np.ndarray, check: bool, op: str) -> tuple[np.ndarray, ...]:
    n = a.shape[-1]
    batch = a.shape[:-2]
    ld = np.zeros(a.shape, dtype=a.dtype)
    pivots = np.zeros((*batch, n), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    for index in np.ndindex(*batch):
        ld[index], pivots[index], info[index] = _sytf2(a[index])
    if check and np.any(info):
        code = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
        raise RuntimeError(
            'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
            'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
            f"{op}: Unknown error code: {code}."
        )
    return ld, pivots, info


def _no_factor_derivative(g: Any, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _no_solve_derivative(g: Any, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


# PyTorch records these without a derivative: backward through them raises.
_ldl_factor_ex = Primitive(
    "torch::autograd::NotImplemented",
    _ldl_factor_forward,
    outputs=("LD", "pivots", "info"),
    grads=(_no_factor_derivative,),
    formulas=("none: aten::linalg_ldl_factor_ex has no derivative",),
    layout=(column_major, contiguous_array, contiguous_array),
)


def _check_ldl(op: str, A: Tensor) -> None:
    check_matrix(op, A)
    check_float(op, A, "ldl_factor_kernel_cpu")


def ldl_factor_ex(
    A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """(LD, pivots, info): D's 1x1 and 2x2 blocks on LD's diagonal, L's multipliers below
    it, LAPACK's interchanges (negative for a 2x2 block); only A's lower triangle is read."""
    _check_ldl("torch.linalg.ldl_factor_ex", A)
    return return_types.linalg_ldl_factor_ex(
        _ldl_factor_ex(A, check=check_errors, op="torch.linalg.ldl_factor_ex")
    )


def ldl_factor(A: Tensor, *, hermitian: bool = False, out: Any = None) -> Any:
    """(LD, pivots) of a symmetric A = P L D Lᵀ Pᵀ (see ldl_factor_ex)."""
    _check_ldl("torch.linalg.ldl_factor_ex", A)
    ld, pivots, _ = _ldl_factor_ex(A, check=True, op="torch.linalg.ldl_factor")
    return return_types.linalg_ldl_factor((ld, pivots))


# --- ldl_solve ----------------------------------------------------------------------------------


@quietly  # a zero block gives inf and nan, as LAPACK's does
def _sytrs(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """X with A X = B for one matrix, A given by its lower LDLᵀ factorization."""
    x = np.array(b, dtype=b.dtype, copy=True)
    n = ld.shape[0]
    k = 0
    while k < n:  # L D Y = P B, forward
        if pivots[k] > 0:
            kp = pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            x[k + 1 :] -= np.outer(ld[k + 1 :, k], x[k])
            x[k] = x[k] / ld[k, k]
            k += 1
            continue
        kp = -pivots[k] - 1
        x[[k + 1, kp]] = x[[kp, k + 1]]
        x[k + 2 :] -= np.outer(ld[k + 2 :, k], x[k])
        x[k + 2 :] -= np.outer(ld[k + 2 :, k + 1], x[k + 1])
        akm1k = ld[k + 1, k]
        akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
        denom = akm1 * ak - 1
        bkm1, bk = x[k] / akm1k, x[k + 1] / akm1k
        x[k], x[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
        k += 2
    k = n - 1
    while k >= 0:  # Lᵀ Pᵀ X = Y, backward
        if pivots[k] > 0:
            x[k] -= ld[k + 1 :, k] @ x[k + 1 :]
            kp = pivots[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 1
            continue
        x[k] -= ld[k + 1 :, k] @ x[k + 1 :]
        x[k - 1] -= ld[k + 1 :, k - 1] @ x[k + 1 :]
        kp = -pivots[k] - 1
        x[[k, kp]] = x[[kp, k]]
        k -= 2
    return x


def _ldl_solve_forward(ld: np.ndarray, b: np.ndarray, pivots: Tensor) -> np.ndarray:
    batch = broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    ld = np.broadcast_to(ld, (*batch, *ld.shape[-2:]))
    piv = np.broadcast_to(pivots._data, (*batch, ld.shape[-1]))
    b = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    x = np.zeros(b.shape, dtype=b.dtype)
    for index in np.ndindex(*batch):
        x[index] = _sytrs(ld[index], piv[index], b[index])
    return column_major(x)


_ldl_solve = Primitive(
    "torch::autograd::NotImplemented",
    _ldl_solve_forward,
    inputs=("LD", "B"),  # the pivots are an argument: PyTorch's node has no edge for them
    grads=(_no_solve_derivative, _no_solve_derivative),
    formulas=("none: aten::linalg_ldl_solve has no derivative", "none"),
)


def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Any = None
) -> Tensor:
    """X with A X = B, A given by ldl_factor's (LD, pivots)."""
    op = "torch.linalg.ldl_solve"
    check_matrix(op, LD)
    if LD._data.shape[:-1] != pivots._data.shape:
        raise RuntimeError(
            f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
            f"shape {list(pivots._data.shape)} instead"
        )
    if pivots._data.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got {scalar_name(pivots)}")
    check_float(op, LD, "ldl_solve_kernel_cpu")
    if B.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(B.ndim, 1)}, "
            f"{max(B.ndim, 1) - 1}], but got -2)"
        )
    if B._data.dtype != LD._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {scalar_name(B)} and "
            f"A of type {scalar_name(LD)} instead."
        )
    n = LD._data.shape[-1]
    rows, cols = B._data.shape[-2:]
    if rows != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix "
            f"is {rows} by {cols}"
        )
    piv = pivots._data
    if piv.size and np.abs(piv).max() > n:
        raise RuntimeError(
            "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you properly "
            "pass the result of ldl_factor?"
        )
    return _ldl_solve(LD, B, pivots=pivots)
