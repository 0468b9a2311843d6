"""Ternary ops: lerp, addcmul, addcdiv (and their in-place forms).

torch computes these with fused multiply-adds; `forwards.fma` reproduces them, so
results agree with torch's to the last bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._dtype import c_type_name
from ..._strides import elementwise
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..inplace import apply_inplace
from ..operands import Number, as_operands
from ..primitive import Primitive
from ..quiet import quiet
from .binary_common import (
    NUMBER,
    invalid_arguments,
    not_implemented_for,
    require_tensors,
)
from .forwards import fma

__all__ = [
    "addcdiv",
    "addcmul",
    "lerp",
]

# --- lerp ----------------------------------------------------------------------------------


def _lerp_forward(a: np.ndarray, b: np.ndarray, w: Any, **_: Any) -> np.ndarray:
    """a + w (b - a), from the nearer end: exact at w = 0 and w = 1 (torch's formula)."""
    dt = a.dtype
    operands = (a, b, w) if isinstance(w, np.ndarray) else (a, b)  # a number weight is none
    w = np.asarray(w, dt)
    broadcast_shapes(a.shape, b.shape, w.shape)
    diff = np.subtract(b, a, dtype=dt)
    near_start = np.abs(w) < 0.5
    out = np.where(near_start, fma(w, diff, a, dt), fma(-diff, 1 - w, b, dt))
    return elementwise(np.asarray(out, dt), *operands)


_lerp_scalar = Primitive(
    "LerpBackward0",
    lambda a, b, weight: _lerp_forward(a, b, weight),
    inputs=("self", "end"),
    grads=(lambda g, n: g * (1 - n.weight), lambda g, n: g * n.weight),
    formulas=("1 - weight, weight = {weight}", "weight = {weight}"),
    tangent="linear",  # in (input, end) together, for a fixed number weight
)
_lerp_tensor = Primitive(
    "LerpBackward1",
    _lerp_forward,
    inputs=("self", "end", "weight"),
    grads=(
        lambda g, n: g * (1 - n.weight),
        lambda g, n: g * n.weight,
        lambda g, n: g * (n.end - n.self),
    ),
    formulas=("1 - weight", "weight", "end - self"),
    tangent="elementwise",
)
_LERP_SIGNATURES = (
    "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
    "Tensor input, Tensor end, Number weight, *, Tensor out = None",
)


def _check_lerp(op: str, input: Any, end: Any, weight: Any, method: bool) -> None:
    if not (
        isinstance(input, Tensor)
        and isinstance(end, Tensor)
        and isinstance(weight, (Tensor, *NUMBER))
    ):
        args = (end, weight) if method else (input, end, weight)
        raise invalid_arguments(op, args, {}, _LERP_SIGNATURES, method)


def _lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    dt = input.dtype
    if end.dtype is not dt:
        raise RuntimeError(
            f"expected dtype {c_type_name(dt)} for `end` but got dtype {c_type_name(end.dtype)}"
        )
    if not isinstance(weight, Tensor):
        if not dt.is_floating_point:
            raise not_implemented_for("lerp_kernel_scalar", dt)
        return _lerp_scalar(input, end, weight=weight)
    if weight.ndim and weight.dtype is not dt:
        raise RuntimeError(
            f"expected dtype {c_type_name(dt)} for `weight` but got dtype "
            f"{c_type_name(weight.dtype)}"
        )
    if not dt.is_floating_point:
        raise not_implemented_for("lerp_kernel_tensor", dt)
    return _lerp_tensor(input, end, weight)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """input + weight * (end - input), with a number or a tensor as weight."""
    _check_lerp("lerp", input, end, weight, method=False)
    return _lerp(input, end, weight)


def lerp_method(self: Tensor, end: Tensor, weight: Tensor | Number) -> Tensor:
    """self + weight * (end - self), with a number or a tensor as weight."""
    _check_lerp("lerp", self, end, weight, method=True)
    return _lerp(self, end, weight)


def lerp_(self: Tensor, end: Tensor, weight: Tensor | Number) -> Tensor:
    """In-place `lerp`."""
    _check_lerp("lerp_", self, end, weight, method=True)
    return apply_inplace(self, lambda old: _lerp(old, end, weight), (end, weight))


lerp_method.__name__ = lerp_method.__qualname__ = "lerp"


# --- addcmul, addcdiv ----------------------------------------------------------------------


def _addcmul_forward(a: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: Any, dt: Any) -> Any:
    operands = a, t1, t2
    a, t1, t2 = (x.astype(dt, copy=False) for x in (a, t1, t2))
    v = np.asarray(value).astype(dt)
    broadcast_shapes(a.shape, t1.shape, t2.shape)
    if dt.kind != "f":
        return elementwise(quiet(lambda: a + v * t1 * t2), *operands)  # integers wrap, as in torch
    return elementwise(fma(v * t1, t2, a, dt), *operands)


def _addcdiv_forward(a: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: Any, dt: Any) -> Any:
    operands = a, t1, t2
    a, t1, t2 = (x.astype(dt, copy=False) for x in (a, t1, t2))
    broadcast_shapes(a.shape, t1.shape, t2.shape)
    return elementwise(quiet(lambda: a + np.asarray(value, dt) * t1 / t2), *operands)


_addcmul = Primitive(
    "AddcmulBackward0",
    _addcmul_forward,
    inputs=("self", "tensor1", "tensor2"),
    grads=(
        lambda g, n: g,
        lambda g, n: g * n.tensor2 * n.value,
        lambda g, n: g * n.tensor1 * n.value,
    ),
    formulas=("1", "value * tensor2, value = {value}", "value * tensor1, value = {value}"),
    tangent="elementwise",
)
_addcdiv = Primitive(
    "AddcdivBackward0",
    _addcdiv_forward,
    inputs=("self", "tensor1", "tensor2"),
    grads=(
        lambda g, n: g,
        lambda g, n: g * n.value / n.tensor2,
        lambda g, n: -g * n.value * n.tensor1 / (n.tensor2 * n.tensor2),
    ),
    formulas=("1", "value/tensor2, value = {value}", "-value * tensor1/tensor2², value = {value}"),
    tangent="elementwise",
)

_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes."
)


def _value(op: str, value: Any) -> Any:
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    if not isinstance(value, NUMBER):
        raise TypeError(f"{op}(): argument 'value' must be Number, not {type(value).__name__}")
    return value


def _pointwise(op: str, input: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any) -> Tensor:
    value = _value(op, value)
    dt, _ = as_operands(input, tensor1, tensor2)
    if op == "addcdiv":
        integers = tensor1.dtype._category < 2 and tensor2.dtype._category < 2
        if integers:
            raise RuntimeError(_INTEGER_ADDCDIV)
        return _addcdiv(input, tensor1, tensor2, value=value, dt=dt.np)
    if dt is _dtype.bool_:
        raise not_implemented_for("addcmul_cpu_out", dt)
    return _addcmul(input, tensor1, tensor2, value=value, dt=dt.np)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    require_tensors("addcmul", input=input, tensor1=tensor1, tensor2=tensor2)
    return _pointwise("addcmul", input, tensor1, tensor2, value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """input + value * tensor1 / tensor2 (floating-point tensor1 or tensor2)."""
    require_tensors("addcdiv", input=input, tensor1=tensor1, tensor2=tensor2)
    return _pointwise("addcdiv", input, tensor1, tensor2, value)


# The methods name only the other tensors in their errors.


def addcmul_method(
    self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Tensor | Number = 1
) -> Tensor:
    """self + value * tensor1 * tensor2."""
    require_tensors("addcmul", tensor1=tensor1, tensor2=tensor2)
    return _pointwise("addcmul", self, tensor1, tensor2, value)


def addcmul_(
    self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Tensor | Number = 1
) -> Tensor:
    """In-place `addcmul`."""
    require_tensors("addcmul_", tensor1=tensor1, tensor2=tensor2)
    return apply_inplace(
        self, lambda old: _pointwise("addcmul", old, tensor1, tensor2, value), (tensor1, tensor2)
    )


def addcdiv_method(
    self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Tensor | Number = 1
) -> Tensor:
    """self + value * tensor1 / tensor2 (floating-point tensor1 or tensor2)."""
    require_tensors("addcdiv", tensor1=tensor1, tensor2=tensor2)
    return _pointwise("addcdiv", self, tensor1, tensor2, value)


def addcdiv_(
    self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Tensor | Number = 1
) -> Tensor:
    """In-place `addcdiv`."""
    require_tensors("addcdiv_", tensor1=tensor1, tensor2=tensor2)
    return apply_inplace(
        self, lambda old: _pointwise("addcdiv", old, tensor1, tensor2, value), (tensor1, tensor2)
    )


addcmul_method.__name__ = addcmul_method.__qualname__ = "addcmul"
addcdiv_method.__name__ = addcdiv_method.__qualname__ = "addcdiv"


# --- where and comparisons ----------------------------------------------------------
