"""The in-place forms of the elementwise unary ops (`exp_`, `neg_`, `asinh_`, ...)."""

from __future__ import annotations

from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..operands import Number, as_operands
from ..primitive import Primitive
from .arithmetic import add, div, mul, neg, negative, pow, square, sub
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
absolute_ = inplace_form(absolute, "absolute_")
sign_ = inplace_form(sign, "sign_")


# --- in-place forms --------------------------------------------------------------------------

# PyTorch records asinh_, acosh_ and atanh_ under nodes of their own (which it cannot
# differentiate through; chainrule can).
_asinh_recorded = Primitive(
    "AsinhBackward1",
    _asinh.forward,
    grads=_asinh.grads,
    formulas=_asinh.formulas,
    tangent="elementwise",
)
_acosh_recorded = Primitive(
    "AcoshBackward1",
    _acosh.forward,
    grads=_acosh.grads,
    formulas=_acosh.formulas,
    tangent="elementwise",
)
_atanh_recorded = Primitive(
    "AtanhBackward1",
    _atanh.forward,
    grads=_atanh.grads,
    formulas=_atanh.formulas,
    tangent="elementwise",
)


expm1_ = inplace_form(expm1, "expm1_")
exp2_ = inplace_form(exp2, "exp2_")
log1p_ = inplace_form(log1p, "log1p_")
log2_ = inplace_form(log2, "log2_")
log10_ = inplace_form(log10, "log10_")
rsqrt_ = inplace_form(rsqrt, "rsqrt_")
tan_ = inplace_form(tan, "tan_")
asin_ = inplace_form(asin, "asin_")
acos_ = inplace_form(acos, "acos_")
atan_ = inplace_form(atan, "atan_")
sinh_ = inplace_form(sinh, "sinh_")
cosh_ = inplace_form(cosh, "cosh_")
arcsin_ = inplace_form(arcsin, "arcsin_")
arccos_ = inplace_form(arccos, "arccos_")
arctan_ = inplace_form(arctan, "arctan_")
asinh_ = inplace_form(unary_function(_asinh_recorded, "asinh", asinh.__doc__ or ""), "asinh_")
acosh_ = inplace_form(unary_function(_acosh_recorded, "acosh", acosh.__doc__ or ""), "acosh_")
atanh_ = inplace_form(unary_function(_atanh_recorded, "atanh", atanh.__doc__ or ""), "atanh_")
arcsinh_ = inplace_form(unary_function(_asinh_recorded, "arcsinh", ""), "arcsinh_")
arccosh_ = inplace_form(unary_function(_acosh_recorded, "arccosh", ""), "arccosh_")
arctanh_ = inplace_form(unary_function(_atanh_recorded, "arctanh", ""), "arctanh_")
deg2rad_ = inplace_form(deg2rad, "deg2rad_")
rad2deg_ = inplace_form(rad2deg, "rad2deg_")
sinc_ = inplace_form(sinc, "sinc_")
logit_ = inplace_form(logit, "logit_")


# --- the in-place arithmetic forms (methods only: x.add_(y), x += y) ------------------------
# PyTorch's order: the arguments (as_operands' TypeError), the op's own checks (sub's of
# bools), then the shape and dtype of the result (apply_inplace's).


def add_(self: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
    """`self += alpha * other`, in place."""
    as_operands(self, other)
    return apply_inplace(self, lambda old: add(old, other, alpha=alpha))


def sub_(self: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor:
    """`self -= alpha * other`, in place."""
    as_operands(self, other)
    return apply_inplace(self, lambda old: sub(old, other, alpha=alpha))


def mul_(self: Tensor, other: Tensor | Number) -> Tensor:
    """`self *= other`, in place."""
    as_operands(self, other)
    return apply_inplace(self, lambda old: mul(old, other))


def div_(self: Tensor, other: Tensor | Number, *, rounding_mode: str | None = None) -> Tensor:
    """`self /= other`, in place (rounded as `div` rounds, when `rounding_mode` is given)."""
    as_operands(self, other)
    return apply_inplace(self, lambda old: div(old, other, rounding_mode=rounding_mode))


pow_ = inplace_form(pow, "pow_")
