"""Products beyond matmul: inner, vdot, kron, tensordot, the fused add-products (addmm,
addmv, baddbmm, addbmm), multi_dot and matrix_power; the family's top-level products
(einsum from linalg_einsum.py, cross and cdist from linalg_geometry.py) are listed here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..._dtype import c_type_name, scalar_name
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim
from ..shape.views import clone_contiguous, transposed, unsafe_view
from ..shape.views import t as matrix_t
from .common import check_matrix
from .contraction import einsum
from .decompositions import inv
from .geometry import cdist, cross
from .matrix_multiply import (
    bmm,
    first_factor_grad,
    layout_of,
    mm,
    mm_arrays,
    mv,
    second_factor_grad,
)

__all__ = [
    "addbmm",
    "addmm",
    "addmv",
    "baddbmm",
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


# --- fused add-products: beta * input + alpha * (product) ------------------------------------


def _scaled(g: Tensor, factor: Any) -> Tensor:
    return g if factor == 1 else g * factor


def _fused(product: Any) -> Any:
    """A forward computing beta * input + alpha * product(b, c) (input ignored when beta is 0)."""

    def forward(
        a: np.ndarray, b: np.ndarray, c: np.ndarray, beta: Any, alpha: Any, **layouts: Any
    ) -> Any:
        out = product(b, c)
        if alpha != 1:
            out = out * alpha
        if beta == 1 and a.dtype == out.dtype:
            out += a  # into the new product (the callers checked that `a` broadcasts to it)
        elif beta != 0:
            out = out + (a if beta == 1 else a * beta)  # a new array
        else:
            out = np.broadcast_to(out, np.broadcast_shapes(out.shape, a.shape)).copy()
        return np.asarray(out, dtype=np.result_type(a, b, c))

    return forward


def _fused_tangent(product: Callable[[Tensor, Tensor], Tensor], first: str, second: str) -> Any:
    """Forward mode's rule for beta * input + alpha * product(first, second).

    The op is linear in input plus bilinear in the factors, so it is neither
    "linear" nor "multilinear": its tangent is beta * (input's tangent) + alpha *
    (the product rule).
    """

    def tangent(tangents: Sequence[Tensor | None], p: Any) -> Tensor | None:
        t_input, t_first, t_second = tangents
        total = None
        if t_first is not None:
            total = product(t_first, getattr(p, second))
        if t_second is not None:
            term = product(getattr(p, first), t_second)
            total = term if total is None else total + term
        if total is not None:
            total = _scaled(total, p.alpha)
        if t_input is not None and p.beta != 0:  # beta 0: input is ignored (even nan)
            term = _scaled(t_input, p.beta)
            total = term if total is None else total + term
        return total  # None: only an ignored input moved (a zero tangent)

    return tangent


def _batch_sum(b: Tensor, c: Tensor) -> Tensor:
    return b.bmm(c).sum(0)


_addmm = Primitive(
    "AddmmBackward0",
    _fused(np.ndarray.dot),  # mm's BLAS call, at less overhead than np.matmul's
    inputs=("self", "mat1", "mat2"),
    grads=(  # the factors' gradients laid out as mm's are (see matrix_multiply)
        lambda g, n: _scaled(g, n.beta),
        lambda g, n: _scaled(
            first_factor_grad(g, n.mat2, n.mat1_sym_sizes, n.mat1_sym_strides, mm, matrix_t),
            n.alpha,
        ),
        lambda g, n: _scaled(
            second_factor_grad(g, n.mat1, n.mat2_sym_sizes, n.mat2_sym_strides, mm, matrix_t),
            n.alpha,
        ),
    ),
    formulas=(
        "beta = {beta}",
        "alpha * grad · mat2ᵀ, alpha = {alpha}",
        "alpha * mat1ᵀ · grad, alpha = {alpha}",
    ),
    tangent=_fused_tangent(mm, "mat1", "mat2"),
    array_grads=(  # alpha 1 (as nn.Linear's); the tensor rules scale
        None,
        lambda g, n: (
            first_factor_grad(
                g, n._array("mat2"), n.mat1_sym_sizes, n.mat1_sym_strides, mm_arrays, transposed
            )
            if n.alpha == 1
            else None
        ),
        lambda g, n: (
            second_factor_grad(
                g, n._array("mat1"), n.mat2_sym_sizes, n.mat2_sym_strides, mm_arrays, transposed
            )
            if n.alpha == 1
            else None
        ),
    ),
)
_addmv = Primitive(
    "AddmvBackward0",
    _fused(np.matmul),
    inputs=("self", "mat", "vec"),
    grads=(
        lambda g, n: _scaled(g, n.beta),
        lambda g, n: _scaled(g.unsqueeze(1) * n.vec, n.alpha),
        lambda g, n: _scaled(n.mat.t().mv(g), n.alpha),
    ),
    formulas=(
        "beta = {beta}",
        "alpha * grad ⊗ vec, alpha = {alpha}",
        "alpha * matᵀ · grad, alpha = {alpha}",
    ),
    tangent=_fused_tangent(mv, "mat", "vec"),
)
_baddbmm = Primitive(
    "BaddbmmBackward0",
    _fused(np.matmul),
    inputs=("self", "batch1", "batch2"),
    grads=(
        lambda g, n: _scaled(g, n.beta),
        lambda g, n: _scaled(g.bmm(n.batch2.mT), n.alpha),
        lambda g, n: _scaled(n.batch1.mT.bmm(g), n.alpha),
    ),
    formulas=(
        "beta = {beta}",
        "alpha * grad · batch2ᵀ, batch by batch, alpha = {alpha}",
        "alpha * batch1ᵀ · grad, batch by batch, alpha = {alpha}",
    ),
    tangent=_fused_tangent(bmm, "batch1", "batch2"),
)
_addbmm = Primitive(
    "AddbmmBackward0",
    _fused(lambda b, c: np.matmul(b, c).sum(0)),
    inputs=("self", "batch1", "batch2"),
    grads=(
        lambda g, n: _scaled(g, n.beta),
        lambda g, n: _scaled(g.matmul(n.batch2.mT), n.alpha),
        lambda g, n: _scaled(n.batch1.mT.matmul(g), n.alpha),
    ),
    formulas=(
        "beta = {beta}",
        "alpha * grad · batch2ᵀ for every batch, alpha = {alpha}",
        "alpha * batch1ᵀ · grad for every batch, alpha = {alpha}",
    ),
    tangent=_fused_tangent(_batch_sum, "batch1", "batch2"),
)


def _check_broadcastable(input: Tensor, shape: tuple[int, ...]) -> None:
    """`input` must expand to `shape` (PyTorch's expand message otherwise)."""
    have = input._data.shape
    if len(have) > len(shape) or any(
        h != 1 and h != s for h, s in zip(reversed(have), reversed(shape), strict=False)
    ):
        Tensor._make(input._data).expand(shape)  # raises, in PyTorch's words


def _check_same_dtype(op: str, input: Tensor, b: Tensor, c: Tensor) -> None:
    """PyTorch's check that an add-product's three tensors share a dtype, in `op`'s words."""
    if input._data.dtype == b._data.dtype == c._data.dtype:
        return
    if op == "addmv":
        names = ", ".join(scalar_name(t) for t in (input, b))
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {names}, and {scalar_name(c)}"
        )
    if op == "baddbmm":
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {c_type_name(input)}, batch1: "
            f"{c_type_name(b)}, batch2: {c_type_name(c)}"
        )
    first, name = (b, "mat1") if b._data.dtype != c._data.dtype else (input, "self")
    raise RuntimeError(
        f"{name} and mat2 must have the same dtype, but got {scalar_name(first)} and "
        f"{scalar_name(c)}"
    )


def addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2), input broadcasting to the product's shape."""
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    (n, k), (k2, p) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
    _check_same_dtype("addmm", input, mat1, mat2)
    _check_broadcastable(input, (n, p))
    return _addmm(
        input,
        mat1,
        mat2,
        beta=beta,
        alpha=alpha,
        mat1_sym_sizes=mat1._data.shape,
        mat1_sym_strides=layout_of(mat1),
        mat2_sym_sizes=mat2._data.shape,
        mat2_sym_strides=layout_of(mat2),
    )


def addmv(
    input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}"
        )
    (n, k), k2 = mat._data.shape, vec._data.shape[0]
    if k != k2 or (input.ndim == 1 and input._data.shape[0] not in (1, n)):
        size = input._data.shape[0] if input.ndim else 1
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{k}), vec ({k2})")
    _check_same_dtype("addmv", input, mat, vec)
    return _addmv(input, mat, vec, beta=beta, alpha=alpha)


def _check_batches(batch1: Tensor, batch2: Tensor) -> tuple[int, int, int, int]:
    for name, m in (("batch1", batch1), ("batch2", batch2)):
        if m.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (b, n, k), p = batch1._data.shape, batch2._data.shape[2]
    return b, n, k, p


def baddbmm(
    input: Tensor,
    batch1: Tensor,
    batch2: Tensor,
    *,
    beta: Any = 1,
    alpha: Any = 1,
    out: Any = None,
) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    b, n, k, p = _check_batches(batch1, batch2)
    if batch2._data.shape[:2] != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but "
            f"got: [{batch2._data.shape[0]}, {batch2._data.shape[1]}]."
        )
    _check_same_dtype("baddbmm", input, batch1, batch2)
    _check_broadcastable(input, (b, n, p))
    return _baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def addbmm(
    input: Tensor,
    batch1: Tensor,
    batch2: Tensor,
    *,
    beta: Any = 1,
    alpha: Any = 1,
    out: Any = None,
) -> Tensor:
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    b, n, k, p = _check_batches(batch1, batch2)
    b2, k2 = batch2._data.shape[:2]
    if b != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{p})")
    _check_same_dtype("addbmm", input, batch1, batch2)
    _check_broadcastable(input, (n, p))
    return _addbmm(input, batch1, batch2, beta=beta, alpha=alpha)


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
