"""addr (beta * input + alpha * the outer product of two vectors), and the in-place forms
of the add-products: addmm_, addmv_, baddbmm_, addbmm_, addr_.

An in-place add-product writes the out-of-place result into `self` and records the same
node (`AddmmBackward0`, ...); `self` must already have the result's shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype
from ..._strides import elementwise
from ..._tensor import Tensor
from ..inplace import apply_inplace, bump_version, check_castable, check_writable
from ..primitive import Primitive
from .fused_products import _scaled, addbmm, addmm, addmv, baddbmm

__all__ = ["addmv_", "addr"]


def _addr_forward(
    a: np.ndarray, v1: np.ndarray, v2: np.ndarray, beta: Any, alpha: Any, dt: np.dtype
) -> Any:
    a, v1, v2 = a.astype(dt, copy=False), v1.astype(dt, copy=False), v2.astype(dt, copy=False)
    shape = (v1.shape[0], v2.shape[0])
    if dt == np.bool_:  # PyTorch's logical form: (beta and self) or (alpha and v1 and v2)
        out = np.logical_and.outer(v1, v2) & bool(alpha)
        return out | (np.broadcast_to(a, shape) & bool(beta)) if beta else out
    # PyTorch's order: alpha * vec1 * vec2, then beta * self added (self ignored at beta 0).
    out = np.multiply.outer(v1 * dt.type(alpha), v2) if alpha != 1 else np.multiply.outer(v1, v2)
    if beta != 0:
        out = out + (a if beta == 1 else a * dt.type(beta))
    return np.broadcast_to(out, shape).astype(dt, copy=False)


def _addr_layout(out: np.ndarray, a: np.ndarray, v1: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """As PyTorch's TensorIterator lays out `beta * self + alpha * vec1[:, None] * vec2`."""
    shape = out.shape
    rows, cols = np.broadcast_to(v1[:, None], shape), np.broadcast_to(v2[None, :], shape)
    return elementwise(out, np.broadcast_to(a, shape), rows, cols)


_addr = Primitive(
    "AddrBackward0",
    _addr_forward,
    inputs=("self", "vec1", "vec2"),
    grads=(
        lambda g, n: _scaled(g, n.beta),
        lambda g, n: _scaled(g.mv(n.vec2), n.alpha),
        lambda g, n: _scaled(g.t().mv(n.vec1), n.alpha),
    ),
    formulas=("beta = {beta}", "alpha * grad · vec2, alpha = {alpha}", "alpha * gradᵀ · vec1"),
    layout=_addr_layout,
)


def _check_scalar(dt: _dtype.dtype, value: Any, name: str) -> None:
    """PyTorch's checks of beta or alpha against the result dtype."""
    if isinstance(value, bool | np.bool_) and dt != _dtype.bool_:
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if not dt.is_floating_point and isinstance(value, float | np.floating):
        raise RuntimeError(
            f"For integral input tensors, argument {name} must not be a floating point number."
        )


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (the outer product of vec1 and vec2), input broadcasting to it."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    # Expanded, a 0-d input counts as a full operand in promotion (as in PyTorch).
    expanded = Tensor._make(input._data).expand(vec1._data.shape[0], vec2._data.shape[0])
    dt = _dtype.result_type(expanded, vec1, vec2)
    _check_scalar(dt, beta, "beta")
    _check_scalar(dt, alpha, "alpha")
    return _addr(input, vec1, vec2, beta=beta, alpha=alpha, dt=dt.np)


# --- in place ------------------------------------------------------------------------------


def _same_shape(self: Tensor, result: Tensor) -> Tensor:
    if result._data.shape != self._data.shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(self._data.shape)} and output tensor "
            f"size {list(result._data.shape)} should match"
        )
    return result


def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return apply_inplace(
        self, lambda old: _same_shape(self, addmm(old, mat1, mat2, beta=beta, alpha=alpha))
    )


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return apply_inplace(
        input, lambda old: _same_shape(input, addmv(old, mat, vec, beta=beta, alpha=alpha))
    )


def baddbmm_(
    self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    return apply_inplace(
        self, lambda old: _same_shape(self, baddbmm(old, batch1, batch2, beta=beta, alpha=alpha))
    )


def addbmm_(
    self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    """In place; unlike the other add-products, `self` may broadcast to the result's shape
    and is then resized to it (as PyTorch's addbmm_ writes through its out= form)."""

    def compute(old: Tensor) -> Tensor:
        return addbmm(old, batch1, batch2, beta=beta, alpha=alpha)

    if batch1.ndim == batch2.ndim == 3:
        shape = (batch1._data.shape[1], batch2._data.shape[2])
        if self._data.shape != shape:
            return _resized(self, compute)
    return apply_inplace(self, lambda old: _same_shape(self, compute(old)))


def _resized(self: Tensor, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """`self` replaced by `compute(self)`, of another shape (checked before any change)."""
    check_writable(self)
    old = Tensor._make(self._data, self._requires_grad, self._grad_fn, self._output_nr)
    old._accumulator = self._accumulator
    new = compute(old)
    check_castable(new._data.dtype, self._data.dtype)
    self._data = new._data.astype(self._data.dtype)
    if new._requires_grad:
        self._grad_fn, self._output_nr, self._requires_grad = new._grad_fn, 0, True
    bump_version(self)
    return self


def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    def compute(old: Tensor) -> Tensor:
        if self.ndim != 2:
            raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
        for name, v in (("vec1", vec1), ("vec2", vec2)):
            if v.ndim != 1:
                raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
        shape = (vec1._data.shape[0], vec2._data.shape[0])
        if self._data.shape != shape:
            raise RuntimeError(
                f"size mismatch, input: {list(self._data.shape)}, v1: {list(vec1._data.shape)}, "
                f"v2: {list(vec2._data.shape)}"
            )
        return addr(old, vec1, vec2, beta=beta, alpha=alpha)

    return apply_inplace(self, compute)
