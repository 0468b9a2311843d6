"""Arithmetic: add, sub, rsub, mul, div (and their tensor-and-number nodes), neg, pow, square."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._strides import contiguous_array
from ..._tensor import Tensor
from .. import lane
from ..operands import Number, as_operands, pair_dtype, scalar_tensor
from ..primitive import Primitive, tangents_or_zeros
from ..quiet import quiet
from .binary_common import Binary
from .conditional import where
from .division import div_rounded
from .forwards import (
    binary_forward,
    number_forward,
    scaled_binary_forward,
)

# Numbers join add, sub, mul and div as 0-d tensors (as_operands): their nodes take two
# tensors. `_add.both` is the node's Primitive, which Tensor's operators call directly.
_add: Binary = Binary(
    scaled_binary_forward(np.add),
    (lambda g, n: g, lambda g, n: g if n.alpha == 1 else g * n.alpha),
    "AddBackward0",
    formulas=("1", "{alpha}"),
    tangent=lambda ts, p: _add.both(
        *tangents_or_zeros(ts, (p.self, p.other)), dt=p.dt, alpha=p.alpha
    ),
    array_rules=(lambda g, n: g, lambda g, n: g if n.alpha == 1 else None),
)
_subtract = scaled_binary_forward(np.subtract)
_sub: Binary = Binary(
    _subtract,
    (lambda g, n: g, lambda g, n: -g if n.alpha == 1 else g * -n.alpha),
    "SubBackward0",
    formulas=("1", "-{alpha}"),
    tangent=lambda ts, p: _sub.both(
        *tangents_or_zeros(ts, (p.self, p.other)), dt=p.dt, alpha=p.alpha
    ),
    array_rules=(lambda g, n: g, lambda g, n: _neg.on_arrays(g) if n.alpha == 1 else None),
)
_mul = Binary(
    binary_forward(np.multiply),
    (lambda g, n: g * n.other, lambda g, n: g * n.self),
    "MulBackward0",
    formulas=("other", "self"),
    tangent="multilinear",
    array_rules=(lambda g, n: times(g, n._array("other")), lambda g, n: times(g, n._array("self"))),
)


def times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a * b` for arrays of one float dtype, as the operator computes it on tensors (for
    array rules)."""
    if a.dtype is b.dtype:  # the common case, without the parameters: see lane
        data = lane.apply2(np.multiply, a, b)
        if data is not None:
            return data
    return _mul.both.on_arrays(a, b, dt=a.dtype)


# A tensor times a Python number as PyTorch's derivative formulas and composites write
# it (`2 * result` in sqrt's): one input, so its node is MulBackward1. The operator
# `tensor * number` makes the number a tensor instead (MulBackward0).
_mul_scalar: Primitive = Primitive(
    "MulBackward1",
    number_forward(np.multiply),
    grads=(lambda g, n: mul_scalar(g, n.other),),
    formulas=("{other}",),
    tangent="linear",
)


def mul_scalar(input: Tensor, other: Any) -> Tensor:
    """`input * other` for a tensor and a Python number, recorded as MulBackward1 (an
    integer tensor computes in the default float dtype)."""
    return _mul_scalar(input, other=other)


_div_scalar: Primitive = Primitive(  # the same for `/`: DivBackward1
    "DivBackward1",
    number_forward(np.true_divide),
    grads=(lambda g, n: g / n.other,),
    formulas=("1/{other}",),
    tangent="linear",
)


def div_scalar(input: Tensor, other: Any) -> Tensor:
    """`input / other` for a tensor and a Python number, recorded as DivBackward1 (an
    integer tensor computes in the default float dtype)."""
    return _div_scalar(input, other=other)


_add_scalar: Primitive = Primitive(  # the same for `+`: AddBackward1
    "AddBackward1",
    number_forward(np.add),
    grads=(lambda g, n: g,),
    formulas=("1",),
    tangent="elementwise",
)


def add_scalar(input: Tensor, other: Any) -> Tensor:
    """`input + other` for a tensor and a Python number, recorded as AddBackward1 (an
    integer tensor computes in the default float dtype)."""
    return _add_scalar(input, other=other)


_div = Binary(
    binary_forward(np.true_divide),
    (lambda g, n: g / n.other, lambda g, n: -g * (n.self / n.other / n.other)),
    "DivBackward0",
    formulas=("1/other", "-self/other²"),
)


def _scaled(other: Any, alpha: Any) -> Any:
    if alpha == 1:
        return other
    return other * alpha


def _check_alpha(values: list[Tensor], alpha: Any, op: str) -> None:
    if isinstance(alpha, float) and all(v._data.dtype.kind in "iub" for v in values):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


def add(input: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
    """input + alpha * other, broadcasting."""
    dt, (a, b) = as_operands(input, other)
    if alpha != 1 and b._requires_grad is False and not isinstance(other, Tensor):
        b = scalar_tensor(other * alpha, dt)
        alpha = 1
    elif alpha != 1:
        _check_alpha([a, b], alpha, "add")
    return _add.both(a, b, dt=dt.np, alpha=alpha)


def sub(input: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
    """input - alpha * other, broadcasting."""
    dt, (a, b) = as_operands(input, other)
    _check_no_bool(dt, input, other)
    return _sub.both(a, b, dt=dt.np, alpha=alpha)


subtract = sub


def _check_no_bool(dt: _dtype.dtype, *values: Any) -> None:
    """PyTorch refuses to subtract when either side is a bool (tensor or Python bool)."""
    if dt is _dtype.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if any(
        isinstance(v, bool | np.bool_) or (isinstance(v, Tensor) and v._data.dtype == np.bool_)
        for v in values
    ):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


# other - alpha * self; a number `other` is no input (RsubBackward1 has one edge).
_rsub: Binary = Binary(
    lambda a, b, dt, alpha=1: _subtract(b, a, dt, alpha),
    (lambda g, n: -g if n.alpha == 1 else g * -n.alpha, lambda g, n: g),
    "RsubBackward0",
    "RsubBackward1",
    formulas=("-{alpha}", "1"),
    tangent=lambda ts, p: _rsub.both(
        *tangents_or_zeros(ts, (p.self, p.other)), dt=p.dt, alpha=p.alpha
    ),
)


def rsub(input: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
    """other - alpha * input."""
    if isinstance(other, Tensor):
        dt, (a, b) = as_operands(input, other)
        _check_no_bool(dt, input, other)
        return _rsub.both(a, b, dt=dt.np, alpha=alpha)
    dt, (a, b) = as_operands(input, other)
    _check_no_bool(dt, input, other)
    if alpha != 1:
        a = a * alpha
    return _rsub.second(a, other=b, dt=dt.np, alpha=1)


def mul(input: Tensor, other: Tensor | Number) -> Tensor:
    """Elementwise product, broadcasting."""
    dt, (a, b) = as_operands(input, other)
    return _mul.both(a, b, dt=dt.np)


multiply = mul


def div(input: Tensor, other: Tensor | Number, *, rounding_mode: str | None = None) -> Tensor:
    """True division (integers give floats), broadcasting."""
    if rounding_mode is not None:
        return div_rounded(input, other, rounding_mode)
    dt, (a, b) = as_operands(input, other)
    if dt._category != 2:  # integers and bools divide to the default float
        dt = _dtype.get_default_dtype()
        # A Python number joins as that float (int8 tensor / 128 divides by 128, not -128).
        a, b = (v if isinstance(v, Tensor) else scalar_tensor(v, dt) for v in (input, other))
    return _div.both(a, b, dt=dt.np)


divide = true_divide = div


# --- unary ------------------------------------------------------------------------

_neg: Primitive = Primitive(
    "NegBackward0", np.negative, grads=(lambda g, n: -g,), formulas=("-1",), tangent="linear"
)


def neg(input: Tensor) -> Tensor:
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _neg(input)


negative = neg


def square(input: Tensor) -> Tensor:
    return pow(input, 2)


# --- pow --------------------------------------------------------------------------

_pow_scalar = Primitive(  # tensor ** number
    "PowBackward0",
    lambda a, exponent, dt: quiet(np.power, a.astype(dt, copy=False), exponent),
    # x ** (p - 1) is computed even for p = 2, so higher derivatives still depend on x
    # (PyTorch's graph does the same: d3(x^2)/dx3 is a zero that requires grad).
    grads=(
        lambda g, n: (
            g * 0 if n.exponent == 0 else g * mul_scalar(n.self ** (n.exponent - 1), n.exponent)
        ),
    ),
    formulas=("exponent * self^(exponent - 1), exponent = {exponent}",),
    tangent="elementwise",
)
# tensor ** tensor, and number ** tensor (the number is no input: one edge, as in PyTorch).
_pow = Binary(
    binary_forward(np.power),
    (
        lambda g, n: where(n.exponent == 0, 0, g * n.exponent * n.self ** (n.exponent - 1)),
        lambda g, n: where((n.self == 0) & (n.exponent >= 0), 0, g * n.result * n.self.log()),
    ),
    "PowBackward1",
    number_first="PowBackward2",
    first_rule=lambda g, n: where(
        (n.base == 0) & (n.exponent >= 0), 0, g * n.result * n.base.log()
    ),
    inputs=("self", "exponent"),
    first_number="base",
    formulas=("exponent * self^(exponent - 1)", "result * log(self)"),
    first_formula="result * log(base), base = {base}",
    first_layout=contiguous_array,  # torch's pow(number, tensor) writes a new contiguous tensor
)

__all__ = [
    "add",
    "div",
    "divide",
    "mul",
    "multiply",
    "neg",
    "negative",
    "pow",
    "rsub",
    "square",
    "sub",
    "subtract",
    "true_divide",
]


def pow(input: Tensor | Number, exponent: Tensor | Number) -> Tensor:
    """input ** exponent, for a tensor and/or number on either side."""
    if not isinstance(input, Tensor):
        dt, (base, exp_) = as_operands(input, exponent)
        return _pow.first(exp_, base=base, dt=dt.np)
    if isinstance(exponent, Tensor):
        dt, (a, b) = as_operands(input, exponent)
        return _pow.both(a, b, dt=dt.np)
    dt = pair_dtype(input, exponent) or _dtype.result_type(input, exponent)
    if dt._category != 2 and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _pow_scalar(input, exponent=exponent, dt=dt.np)
