"""Elementwise unary math: the family's modules, and the in-place forms of the core unary ops.

unary_math     exponentials, logarithms, trigonometric and hyperbolic, logit, sinc
unary_rounding floor, ceil, round, trunc, frac, sgn, nan_to_num, isnan and friends
unary_clamp    clamp / clip, clamp_min, clamp_max
special        erf, erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, i0 (imported by the
               package itself; kernels in special_math and special_bessel)
"""

from __future__ import annotations

from . import clamp as unary_clamp
from . import exp_log_trig as unary_math
from . import rounding as unary_rounding
from .arithmetic import (
    abs,
    absolute,
    cos,
    exp,
    log,
    neg,
    negative,
    reciprocal,
    relu,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    tanh,
)
from .clamp import *  # noqa: F403
from .exp_log_trig import *  # noqa: F403
from .rounding import *  # noqa: F403
from .unary_common import inplace_form

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

__all__ = [
    *unary_clamp.__all__,
    *unary_math.__all__,
    *unary_rounding.__all__,
    "abs_",
    "cos_",
    "exp_",
    "log_",
    "neg_",
    "negative_",
    "reciprocal_",
    "relu_",
    "sigmoid_",
    "sin_",
    "sqrt_",
    "square_",
    "tanh_",
]
