"""torch.linalg functions PyTorch writes as compositions of other ops: vecdot, vander,
diagonal, cond, tensorinv, tensorsolve. Each composes chainrule's ops in PyTorch's
order, so the graph records the same nodes and needs no rule of its own."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..elementwise.unary_common import check_tensor
from ..shape.diagonals import diagonal as _diagonal
from ..shape.rearrange import movedim
from ..shape.views import cat
from .common import check_float, raise_for_info
from .decompositions import inv_ex, inverse_message
from .norms import matrix_norm
from .products import vdot
from .solve import solve
from .spectral import svdvals

__all__: list[str] = []  # torch.linalg's names only: see chainrule.linalg


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The dot product of x and y along dim, broadcasting the other dims."""
    check_tensor("linalg_vecdot", x, "x")
    check_tensor("linalg_vecdot", y, "y", position=2)
    check_float("linalg.vecdot", x)
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_dtype.scalar_name(x)} and y of type {_dtype.scalar_name(y)} instead"
        )
    if x.ndim == 1 and y.ndim == 1:  # PyTorch's shortcut: one vdot node
        return vdot(x, y)
    return (x * y).sum(dim)  # x.conj() is x for real tensors


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix of A (torch.diagonal with matrix-style defaults)."""
    check_tensor("linalg_diagonal", A, "A")
    return _diagonal(A, offset, dim1, dim2)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of x: columns x^0, x^1, ..., x^(N-1)."""
    check_tensor("linalg_vander", x, "x")
    kind = x._data.dtype
    if not (kind in (np.float32, np.float64) or kind.kind in "iu"):
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{_dtype.scalar_name(x)}"
        )
    base = x.unsqueeze(-1) if x.ndim == 0 else x
    shape = list(base.shape)
    n = shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = base.unsqueeze(-1).expand(*shape, n - 1).cumprod(-1)
    ones = powers.new_ones((*shape, 1))
    return cat([ones, powers], -1)


# --- the condition number ---------------------------------------------------------------------

_INVERSE_ORDERS = ("fro", "nuc", 1, -1, math.inf, -math.inf)


def _order_name(p: Any) -> str:
    if isinstance(p, float) and p.is_integer():
        return str(int(p))
    return str(p)


def cond(A: Tensor, p: Any = None, *, out: Any = None) -> Tensor:
    """The condition number of each matrix of A in the norm p (2 by default)."""
    check_tensor("linalg_cond", A, "A")
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    two = p is None or (not isinstance(p, str) and abs(p) == 2)
    if not two and not isinstance(p, str) and p not in _INVERSE_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_order_name(p)}")
    if not two:
        m, n = A.shape[-2:]
        if m != n:
            raise RuntimeError(
                f"linalg.cond(ord={_order_name(p)}): A must be batches of square matrices, "
                f"but they are {m} by {n} matrices"
            )
        if isinstance(p, str) and p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.numel() == 0:
        check_float("linalg.cond", A)
        return A.new_zeros(A.shape[:-2])
    if two:
        s = svdvals(A)
        largest, smallest = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)
        ratio = smallest / largest if p is not None and p < 0 else largest / smallest
        return ratio.squeeze(-1)
    if p == "nuc":
        s = svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    check_float("linalg.inv", A)
    inverse, info = inv_ex(A)
    inverse.masked_fill_((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    # 0 * inf: a singular matrix's condition number is inf, as in NumPy
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


# --- tensor equations ---------------------------------------------------------------------------


def tensorinv(A: Tensor, ind: int = 2, *, out: Any = None) -> Tensor:
    """The inverse of A for tensordot over its first `ind` dims."""
    check_tensor("linalg_tensorinv", A, "A")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    after, before = list(A.shape[ind:]), list(A.shape[:ind])
    rows, cols = math.prod(after), math.prod(before)
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {rows} != {cols}"
        )
    check_float("linalg.inv", A)
    inverse, info = inv_ex(A.reshape(rows, rows))
    raise_for_info("inv", info._data, False, inverse_message)
    return inverse.reshape(*after, *before)


def tensorsolve(
    A: Tensor, B: Tensor, dims: Sequence[int] | None = None, *, out: Any = None
) -> Tensor:
    """X such that tensordot(A, X, X.ndim) == B."""
    check_tensor("linalg_tensorsolve", A, "A")
    check_tensor("linalg_tensorsolve", B, "B", position=2)
    moved = A
    if dims is not None:
        dims = list(dims)
        moved = movedim(A, dims, list(range(A.ndim - len(dims), A.ndim)))
    result_shape = list(moved.shape[B.ndim :])
    size, other = math.prod(result_shape), B.numel()
    if size != other:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {size} != {other}"
        )
    return solve(moved.reshape(size, size), B.flatten()).reshape(result_shape)
