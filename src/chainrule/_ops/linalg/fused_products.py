"""The fused add-products: beta * input + alpha * a product, as one op each (addmm,
addmv, baddbmm, addbmm), with their nodes; `linear` is addmm."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..._dtype import c_type_name, scalar_name
from ..._tensor import Tensor
from ..primitive import Primitive
from ..shape.views import t as matrix_t
from ..shape.views import transposed
from .matrix_multiply import (
    bmm,
    first_factor_grad,
    layout_of,
    mm,
    mm_arrays,
    mv,
    second_factor_grad,
)

__all__ = ["addbmm", "addmm", "addmv", "baddbmm"]


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
        if out.dtype == a.dtype == b.dtype == c.dtype:
            return out
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
    return checked_addmm(input, mat1, mat2, beta, alpha)


def checked_addmm(input: Tensor, mat1: Tensor, mat2: Tensor, beta: Any, alpha: Any) -> Tensor:
    """addmm on arguments the caller has checked as addmm does (`linear`, in its words)."""
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
