"""Exponentials and logarithms: exp, log, sqrt, reciprocal, sigmoid, expm1, exp2, log1p, log2,
log10, rsqrt, logit, each forward followed by its derivative rule."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ..primitive import Primitive
from .arithmetic import add_scalar, mul_scalar, times
from .conditional import where
from .forwards import float_unary_forward, one_minus
from .unary_common import check_tensor, float_forward, unary_function

__all__ = [
    "exp",
    "exp2",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "logit",
    "reciprocal",
    "rsqrt",
    "sigmoid",
    "sqrt",
]


_LN2 = math.log(2)
_LN10 = math.log(10)


_reciprocal = Primitive(
    "ReciprocalBackward0",
    float_unary_forward(np.reciprocal),
    grads=(lambda g, n: -g * n.result * n.result,),
    formulas=("-result²",),
    tangent="elementwise",
)
_exp = Primitive(
    "ExpBackward0",
    float_unary_forward(np.exp),
    grads=(lambda g, n: g * n.result,),
    formulas=("exp(self) = result",),
    tangent="elementwise",
    array_grads=(lambda g, n: times(g, n._array("result")),),
)
_log = Primitive(
    "LogBackward0",
    float_unary_forward(np.log),
    grads=(lambda g, n: g / n.self,),
    formulas=("1/self",),
    tangent="elementwise",
)
_sqrt = Primitive(
    "SqrtBackward0",
    float_unary_forward(np.sqrt),
    grads=(lambda g, n: g / mul_scalar(n.result, 2),),
    formulas=("1/(2 * result)",),
    tangent="elementwise",
)


_sigmoid_backward: Primitive = Primitive(  # g * y * (1 - y)
    "SigmoidBackwardBackward0",
    lambda g, y: g * (y * one_minus(y)),
    inputs=("grad_output", "output"),
    grads=(
        lambda gg, n: _sigmoid_backward(gg, n.output),
        lambda gg, n: gg * n.grad_output * add_scalar(mul_scalar(n.output, -2), 1),
    ),
    formulas=("output * (1 - output)", "grad_output * (1 - 2 * output)"),
    tangent="elementwise",
)


_sigmoid = Primitive(
    "SigmoidBackward0",
    float_unary_forward(lambda a: stable_sigmoid(a)),
    grads=(lambda g, n: _sigmoid_backward(g, n.result),),
    formulas=("result * (1 - result)",),
    tangent="elementwise",
)


def stable_sigmoid(a: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-a)) on arrays, exponentiating non-positive numbers only (so large |a|
    neither overflows nor warns)."""
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


reciprocal = unary_function(_reciprocal, "reciprocal")


exp = unary_function(_exp, "exp")


log = unary_function(_log, "log")


sqrt = unary_function(_sqrt, "sqrt")


sigmoid = unary_function(_sigmoid, "sigmoid")


# --- exponentials and logarithms -------------------------------------------------------------

_expm1 = Primitive(
    "Expm1Backward0",
    float_forward(np.expm1),
    grads=(lambda g, n: g * (n.result + 1),),
    formulas=("result + 1",),
    tangent="elementwise",
)
_exp2 = Primitive(
    "Exp2Backward0",
    float_forward(np.exp2),
    grads=(lambda g, n: g * n.result * _LN2,),
    formulas=("result * ln 2",),
    tangent="elementwise",
)
_log1p = Primitive(
    "Log1PBackward0",
    float_forward(np.log1p),
    grads=(lambda g, n: g / (n.self + 1),),
    formulas=("1/(1 + self)",),
    tangent="elementwise",
)
_log2 = Primitive(
    "Log2Backward0",
    float_forward(np.log2),
    grads=(lambda g, n: g / (n.self * _LN2),),
    formulas=("1/(self * ln 2)",),
    tangent="elementwise",
)
_log10 = Primitive(
    "Log10Backward0",
    float_forward(np.log10),
    grads=(lambda g, n: g / (n.self * _LN10),),
    formulas=("1/(self * ln 10)",),
    tangent="elementwise",
)
_rsqrt = Primitive(
    "RsqrtBackward0",
    float_forward(lambda a: 1 / np.sqrt(a)),
    grads=(lambda g, n: -0.5 * g * n.result**3,),
    formulas=("-result³/2",),
    tangent="elementwise",
)

expm1 = unary_function(_expm1, "expm1", "exp(x) - 1, accurate for small x.")
exp2 = unary_function(_exp2, "exp2", "2 ** x.")
log1p = unary_function(_log1p, "log1p", "log(1 + x), accurate for small x.")
log2 = unary_function(_log2, "log2", "The base-2 logarithm.")
log10 = unary_function(_log10, "log10", "The base-10 logarithm.")
rsqrt = unary_function(_rsqrt, "rsqrt", "1 / sqrt(x).")


# --- logit ---------------------------------------------------------------------------------


def _logit_forward(a: np.ndarray, eps: float | None) -> np.ndarray:
    if eps is not None:  # as PyTorch: the low bound is tested first (it wins if they cross)
        low, high = np.asarray(eps, a.dtype), np.asarray(1 - eps, a.dtype)
        a = np.where(a < low, low, np.where(a > high, high, a))
    return np.log(a / (1 - a))


def _logit_grad(g: Tensor, x: Tensor, eps: float | None) -> Tensor:
    # Without eps: nan outside [0, 1]; with eps: 0 where the input was clamped (PyTorch's rule).
    grad = g / (x * (1 - x))
    if eps is None:
        return where((x < 0) | (x > 1), math.nan, grad)
    return where((x < eps) | (x > 1 - eps), 0.0, grad)


_logit = Primitive(
    "LogitBackward0",
    float_forward(_logit_forward),
    grads=(lambda g, n: _logit_grad(g, n.self, n.eps),),
    formulas=("1/(self * (1 - self)), 0 where self is outside [eps, 1 - eps] (eps = {eps})",),
    tangent="elementwise",
)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] first when eps is given."""
    check_tensor("logit", input)
    if eps is not None and not isinstance(eps, int | float | np.number | np.bool_):
        raise TypeError(f"logit(): argument 'eps' must be float, not {type(eps).__name__}")
    return _logit(input, eps=None if eps is None else float(eps))
