"""Products beyond matmul: inner, vdot, kron, tensordot, multi_dot and matrix_power (the
fused add-products are in fused_products.py); the family's top-level products (einsum
from contraction.py, cross and cdist from geometry.py) are listed here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._dtype import c_type_name, scalar_name
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim
from ..shape.views import clone_contiguous, unsafe_view
from .common import check_matrix
from .contraction import einsum
from .decompositions import inv
from .geometry import cdist, cross
from .matrix_multiply import mm

__all__ = [
    "cdist",
    "cross",
    "einsum",
    "inner",
    "kron",
    "matrix_power",
    "tensordot",
    "vdot",
]


def _shape_list(t: Tensor) -> list[int]:
    return list(t._data.shape)


def _require_tensor(fn: str, name: str, position: int, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


# --- vdot, inner, tensordot, kron -------------------------------------------------------

_vdot = Primitive(
    "VdotBackward0",
    lambda a, b: np.dot(a, b),
    inputs=("self", "other"),
    grads=(lambda g, n: g * n.other, lambda g, n: g * n.self),
    formulas=("other", "self"),
    tangent="multilinear",
)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors (complex conjugating the first, for real ones: dot)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    n, m = input._data.shape[0], other._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{scalar_name(input)} and {scalar_name(other)}"
        )
    return _vdot(input, other)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum of products over the last dims: shape input.shape[:-1] + other.shape[:-1]."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{_shape_list(input)} and {_shape_list(other)}"
        )
    return tensordot(input, other, dims=([-1], [-1]))


def _tensordot_dims(a: Tensor, b: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    """dims as two lists of dims of a and b to contract (as the user wrote them)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int | np.integer):
        d = int(dims)
        if d < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={d}")
        if d > a.ndim or d > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={d}")
        return list(range(-d, 0)), list(range(d))
    da, db = dims
    da = [da] if isinstance(da, int) else list(da)
    db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return da, db


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Contract dims of `a` with dims of `b` (the last/first `dims`, or two lists of dims)."""
    raw_a, raw_b = _tensordot_dims(a, b, dims)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    ca = [wrap_dim(d, a.ndim) for d in raw_a]
    cb = [wrap_dim(d, b.ndim) for d in raw_b]
    for i, (x, y) in enumerate(zip(ca, cb, strict=True)):
        sa, sb = a._data.shape[x], b._data.shape[y]
        if sa == sb:
            continue
        if sa == 1:  # a size-1 dim broadcasts: contract the other side by summing it
            b = b.sum(y, keepdim=True)
        elif sb == 1:
            a = a.sum(x, keepdim=True)
        else:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa} in dim "
                f"{raw_a[i]} and second has size {sb} in dim {raw_b[i]}"
            )
    free_a = [d for d in range(a.ndim) if d not in ca]
    free_b = [d for d in range(b.ndim) if d not in cb]
    shape_a = [a._data.shape[d] for d in free_a]
    shape_b = [b._data.shape[d] for d in free_b]
    k = int(np.prod([a._data.shape[d] for d in ca]))
    left = a.permute(*free_a, *ca).reshape(int(np.prod(shape_a)), k)
    right = b.permute(*cb, *free_b).reshape(k, int(np.prod(shape_b)))
    return mm(left, right).reshape(*shape_a, *shape_b)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: blocks input[i, j, ...] * other, shaped input.shape * other.shape."""
    _require_tensor("kron", "other", 2, other)
    nd = max(input.ndim, other.ndim)
    sa = (1,) * (nd - input.ndim) + tuple(input._data.shape)
    sb = (1,) * (nd - other.ndim) + tuple(other._data.shape)
    a = input.reshape([s for d in sa for s in (d, 1)])
    b = other.reshape([s for d in sb for s in (1, d)])
    prod = a * b
    return unsafe_view(prod, [x * y for x, y in zip(sa, sb, strict=True)])


# --- multi_dot, matrix_power ------------------------------------------------------------------


def multi_dot(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """A chain of matrix products in the cheapest order (first/last may be vectors)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], start=1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(tensors):
        if t._data.dtype != first._data.dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{c_type_name(first)} and tensor {i} {c_type_name(t)}"
            )
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(1)
    for i in range(n - 1):
        a, b = mats[i]._data.shape, mats[i + 1]._data.shape
        if a[1] != b[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                f"{list(tensors[i + 1].shape)} cannot be multiplied"
            )
    out_shape = [
        s
        for s, keep in ((mats[0].shape[0], first.ndim == 2), (mats[-1].shape[1], last.ndim == 2))
        if keep
    ]
    return _chain(mats, _chain_order(mats), 0, n - 1).reshape(out_shape)


def _chain_order(mats: Sequence[Tensor]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of mats[i..j] splits (classic chain DP)."""
    dims = [m._data.shape[0] for m in mats] + [mats[-1]._data.shape[1]]
    n = len(mats)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats: Sequence[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = split[i][j]
    return mm(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def matrix_power(input: Tensor, n: int) -> Tensor:
    """A square matrix (or batch) to an integer power; negative powers invert first."""
    check_matrix("linalg.matrix_power", input)
    if n == 0:  # the identity, copied into a clone of A as PyTorch does (a zero gradient)
        eye = Tensor._make(np.eye(input.shape[-1], dtype=input._data.dtype))
        return clone_contiguous(input).copy_(eye)
    if n < 0:
        input, n = inv(input), -n
    if n == 1:
        return clone_contiguous(input)
    product = mm if input.ndim == 2 else _batched_mm
    # Binary powering: multiply in z = A^(2^k) for each set bit k of n.
    while not n & 1:
        input, n = product(input, input), n >> 1
    result, z, n = input, input, n >> 1
    while n:
        z = product(z, z)
        if n & 1:
            result = product(z, result)
        n >>= 1
    return result


def _batched_mm(a: Tensor, b: Tensor) -> Tensor:
    return a.matmul(b)
