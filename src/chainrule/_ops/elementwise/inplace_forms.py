"""The in-place forms of the elementwise unary ops (`exp_`, `neg_`, `asinh_`, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..primitive import Primitive, as_operands
from .arithmetic import add, div, mul, neg, negative, square, sub
from .clamping import relu
from .exp_log import (
    exp,
    exp2,
    expm1,
    log,
    log1p,
    log2,
    log10,
    logit,
    reciprocal,
    rsqrt,
    sigmoid,
    sqrt,
)
from .rounding import abs, absolute, sign
from .trig import (
    _acosh,
    _asinh,
    _atanh,
    acos,
    acosh,
    arccos,
    arcsin,
    arctan,
    asin,
    asinh,
    atan,
    atanh,
    cos,
    cosh,
    deg2rad,
    rad2deg,
    sin,
    sinc,
    sinh,
    tan,
    tanh,
)
from .unary_common import inplace_form, unary_function

__all__ = [
    "abs_",
    "acos_",
    "acosh_",
    "arccos_",
    "arccosh_",
    "arcsin_",
    "arcsinh_",
    "arctan_",
    "arctanh_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "cos_",
    "cosh_",
    "deg2rad_",
    "exp2_",
    "exp_",
    "expm1_",
    "log1p_",
    "log2_",
    "log10_",
    "log_",
    "logit_",
    "neg_",
    "negative_",
    "rad2deg_",
    "reciprocal_",
    "relu_",
    "rsqrt_",
    "sigmoid_",
    "sin_",
    "sinc_",
    "sinh_",
    "sqrt_",
    "square_",
    "tan_",
    "tanh_",
]

exp_ = inplace_form(exp, "exp_")
log_ = inplace_form(log, "log_")
sqrt_ = inplace_form(sqrt, "sqrt_")
sin_ = inplace_form(sin, "sin_")
cos_ = inplace_form(cos, "cos_")
tanh_ = inplace_form(tanh, "tanh_")
sigmoid_ = inplace_form(sigmoid, "sigmoid_")
abs_ = inplace_form(abs, "abs_")
neg_ = inplace_form(neg, "neg_")
negative_ = inplace_form(negative, "negative_")
relu_ = inplace_form(relu, "relu_")
reciprocal_ = inplace_form(reciprocal, "reciprocal_")
square_ = inplace_form(square, "square_")
inplace_form(absolute, "absolute_")
inplace_form(sign, "sign_")


# --- in-place forms --------------------------------------------------------------------------

# PyTorch records asinh_, acosh_ and atanh_ under nodes of their own (which it cannot
# differentiate through; chainrule can).
_asinh_recorded = Primitive(
    "AsinhBackward1", _asinh.forward, grads=_asinh.grads, tangent="elementwise"
)
_acosh_recorded = Primitive(
    "AcoshBackward1", _acosh.forward, grads=_acosh.grads, tangent="elementwise"
)
_atanh_recorded = Primitive(
    "AtanhBackward1", _atanh.forward, grads=_atanh.grads, tangent="elementwise"
)


def _inplace(fn: Callable[..., Tensor]) -> Any:
    return inplace_form(fn, fn.__name__ + "_")


expm1_, exp2_, log1p_, log2_, log10_, rsqrt_ = map(
    _inplace, (expm1, exp2, log1p, log2, log10, rsqrt)
)
tan_, asin_, acos_, atan_, sinh_, cosh_ = map(_inplace, (tan, asin, acos, atan, sinh, cosh))
arcsin_, arccos_, arctan_ = map(_inplace, (arcsin, arccos, arctan))
asinh_ = inplace_form(unary_function(_asinh_recorded, "asinh", asinh.__doc__ or ""), "asinh_")
acosh_ = inplace_form(unary_function(_acosh_recorded, "acosh", acosh.__doc__ or ""), "acosh_")
atanh_ = inplace_form(unary_function(_atanh_recorded, "atanh", atanh.__doc__ or ""), "atanh_")
arcsinh_ = inplace_form(unary_function(_asinh_recorded, "arcsinh", ""), "arcsinh_")
arccosh_ = inplace_form(unary_function(_acosh_recorded, "arccosh", ""), "arccosh_")
arctanh_ = inplace_form(unary_function(_atanh_recorded, "arctanh", ""), "arctanh_")
deg2rad_, rad2deg_, sinc_, logit_ = map(_inplace, (deg2rad, rad2deg, sinc, logit))


def _inplace_binary(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    # PyTorch's order: the arguments (as_operands' TypeError), the op's own checks (sub's
    # of bools), then the shape and dtype of the result.
    def op(self: Tensor, other: Any, **kwargs: Any) -> Tensor:
        as_operands(self, other)
        return apply_inplace(self, lambda old: fn(old, other, **kwargs))

    op.__name__ = name
    return op


for _name, _fn in (("add_", add), ("sub_", sub), ("mul_", mul), ("div_", div)):
    setattr(Tensor, _name, _inplace_binary(_fn, _name))
for _alias, _name in (
    ("__iadd__", "add_"),
    ("__isub__", "sub_"),
    ("__imul__", "mul_"),
    ("__itruediv__", "div_"),
    ("subtract_", "sub_"),
    ("multiply_", "mul_"),
    ("divide_", "div_"),
):
    setattr(Tensor, _alias, getattr(Tensor, _name))
