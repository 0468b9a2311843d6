"""Smooth elementwise functions: exponentials, logarithms, trigonometric, hyperbolic, logit, sinc.

Each forward is followed by its derivative rule. Integer and bool inputs give
the default float dtype, as in PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..primitive import Primitive, tensor_method
from .arithmetic import where
from .unary_common import check_tensor, float_forward, inplace_form

__all__ = [
    "acos",
    "acos_",
    "acosh",
    "acosh_",
    "arccos",
    "arccos_",
    "arccosh",
    "arccosh_",
    "arcsin",
    "arcsin_",
    "arcsinh",
    "arcsinh_",
    "arctan",
    "arctan_",
    "arctanh",
    "arctanh_",
    "asin",
    "asin_",
    "asinh",
    "asinh_",
    "atan",
    "atan_",
    "atanh",
    "atanh_",
    "cosh",
    "cosh_",
    "deg2rad",
    "deg2rad_",
    "exp2",
    "exp2_",
    "expm1",
    "expm1_",
    "log1p",
    "log1p_",
    "log2",
    "log2_",
    "log10",
    "log10_",
    "logit",
    "logit_",
    "positive",
    "rad2deg",
    "rad2deg_",
    "rsqrt",
    "rsqrt_",
    "sinc",
    "sinc_",
    "sinh",
    "sinh_",
    "tan",
    "tan_",
]

_LN2 = math.log(2)
_LN10 = math.log(10)
_DEG = math.pi / 180


def _function(prim: Primitive, name: str, doc: str) -> Callable[[Tensor], Tensor]:
    """The function `name` running `prim` on one tensor."""

    def op(input: Tensor) -> Tensor:
        check_tensor(name, input)
        return prim(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def _op(prim: Primitive, name: str, doc: str) -> Callable[[Tensor], Tensor]:
    """The function and Tensor method `name` running `prim` on one tensor."""
    return tensor_method(_function(prim, name, doc))


def _one_minus_square(x: Tensor) -> Tensor:
    """1 - x^2 as (1 - x)(1 + x): no cancellation near |x| = 1."""
    return (1 - x) * (1 + x)


# --- exponentials and logarithms -------------------------------------------------------------

_expm1 = Primitive(
    "Expm1Backward0",
    float_forward(np.expm1),
    grads=(lambda g, n: g * (n.result + 1),),
    tangent="elementwise",
)
_exp2 = Primitive(
    "Exp2Backward0",
    float_forward(np.exp2),
    grads=(lambda g, n: g * n.result * _LN2,),
    tangent="elementwise",
)
_log1p = Primitive(
    "Log1PBackward0",
    float_forward(np.log1p),
    grads=(lambda g, n: g / (n.self + 1),),
    tangent="elementwise",
)
_log2 = Primitive(
    "Log2Backward0",
    float_forward(np.log2),
    grads=(lambda g, n: g / (n.self * _LN2),),
    tangent="elementwise",
)
_log10 = Primitive(
    "Log10Backward0",
    float_forward(np.log10),
    grads=(lambda g, n: g / (n.self * _LN10),),
    tangent="elementwise",
)
_rsqrt = Primitive(
    "RsqrtBackward0",
    float_forward(lambda a: 1 / np.sqrt(a)),
    grads=(lambda g, n: -0.5 * g * n.result**3,),
    tangent="elementwise",
)

expm1 = _op(_expm1, "expm1", "exp(x) - 1, accurate for small x.")
exp2 = _op(_exp2, "exp2", "2 ** x.")
log1p = _op(_log1p, "log1p", "log(1 + x), accurate for small x.")
log2 = _op(_log2, "log2", "The base-2 logarithm.")
log10 = _op(_log10, "log10", "The base-10 logarithm.")
rsqrt = _op(_rsqrt, "rsqrt", "1 / sqrt(x).")

# --- trigonometric and hyperbolic ------------------------------------------------------------

_tan = Primitive(
    "TanBackward0",
    float_forward(np.tan),
    grads=(lambda g, n: g * (1 + n.result**2),),
    tangent="elementwise",
)
_asin = Primitive(
    "AsinBackward0",
    float_forward(np.arcsin),
    grads=(lambda g, n: g * rsqrt(_one_minus_square(n.self)),),
    tangent="elementwise",
)
_acos = Primitive(
    "AcosBackward0",
    float_forward(np.arccos),
    grads=(lambda g, n: -g * rsqrt(_one_minus_square(n.self)),),
    tangent="elementwise",
)
_atan = Primitive(
    "AtanBackward0",
    float_forward(np.arctan),
    grads=(lambda g, n: g / (n.self**2 + 1),),
    tangent="elementwise",
)
_sinh = Primitive(
    "SinhBackward0",
    float_forward(np.sinh),
    grads=(lambda g, n: g * n.self.cosh(),),
    tangent="elementwise",
)
_cosh = Primitive(
    "CoshBackward0",
    float_forward(np.cosh),
    grads=(lambda g, n: g * n.self.sinh(),),
    tangent="elementwise",
)
_asinh = Primitive(
    "AsinhBackward0",
    float_forward(np.arcsinh),
    grads=(lambda g, n: g * rsqrt(n.self**2 + 1),),
    tangent="elementwise",
)
_acosh = Primitive(
    "AcoshBackward0",
    float_forward(np.arccosh),
    grads=(lambda g, n: g * rsqrt((n.self - 1) * (n.self + 1)),),
    tangent="elementwise",
)
_atanh = Primitive(
    "AtanhBackward0",
    float_forward(np.arctanh),
    grads=(lambda g, n: g / _one_minus_square(n.self),),
    tangent="elementwise",
)

tan = _op(_tan, "tan", "The tangent (radians).")
asin = _op(_asin, "asin", "The inverse sine, in [-pi/2, pi/2].")
acos = _op(_acos, "acos", "The inverse cosine, in [0, pi].")
atan = _op(_atan, "atan", "The inverse tangent, in (-pi/2, pi/2).")
sinh = _op(_sinh, "sinh", "The hyperbolic sine.")
cosh = _op(_cosh, "cosh", "The hyperbolic cosine.")
asinh = _op(_asinh, "asinh", "The inverse hyperbolic sine.")
acosh = _op(_acosh, "acosh", "The inverse hyperbolic cosine (x >= 1).")
atanh = _op(_atanh, "atanh", "The inverse hyperbolic tangent (|x| < 1).")
arcsin = _op(_asin, "arcsin", "Alias of `asin`.")
arccos = _op(_acos, "arccos", "Alias of `acos`.")
arctan = _op(_atan, "arctan", "Alias of `atan`.")
arcsinh = _op(_asinh, "arcsinh", "Alias of `asinh`.")
arccosh = _op(_acosh, "arccosh", "Alias of `acosh`.")
arctanh = _op(_atanh, "arctanh", "Alias of `atanh`.")

# --- angles, sinc --------------------------------------------------------------------------

_deg2rad = Primitive(
    "Deg2RadBackward0",
    float_forward(lambda a: a * np.asarray(_DEG, a.dtype)),
    grads=(lambda g, n: g * _DEG,),
    tangent="linear",
)
_rad2deg = Primitive(
    "Rad2DegBackward0",
    float_forward(lambda a: a * np.asarray(1 / _DEG, a.dtype)),
    grads=(lambda g, n: g * (1 / _DEG),),
    tangent="linear",
)

deg2rad = _op(_deg2rad, "deg2rad", "Degrees to radians.")
rad2deg = _op(_rad2deg, "rad2deg", "Radians to degrees.")


def _sinc_forward(a: np.ndarray) -> np.ndarray:
    pi_a = a * np.asarray(math.pi, a.dtype)
    safe = np.where(a == 0, 1, pi_a)
    return np.where(a == 0, 1, np.sin(safe) / safe)


# sinc'(x) = sum_{k>=1} (-1)^k 2k pi^2k x^(2k-1) / (2k+1)!, used near 0 where the closed form
# below cancels (it is exact there to double precision up to |x| = 0.1).
_SINC_SLOPE = [
    (-1) ** k * 2 * k * math.pi ** (2 * k) / math.factorial(2 * k + 1) for k in range(1, 8)
]


def _sinc_grad(g: Tensor, x: Tensor, result: Tensor) -> Tensor:
    # Away from 0: (cos(pi x) - sinc(x)) / x, kept off x = 0 so no nan reaches the where's
    # other branch (nor a second derivative).
    small = x.abs() < 0.1
    safe = where(small, 1.0, x)
    far = ((safe * math.pi).cos() - result) / safe
    x2 = x * x
    near = x * _SINC_SLOPE[-1]
    for c in _SINC_SLOPE[-2::-1]:
        near = near * x2 + x * c
    return g * where(small, near, far)


_sinc = Primitive(
    "SincBackward0",
    float_forward(_sinc_forward),
    grads=(lambda g, n: _sinc_grad(g, n.self, n.result),),
    tangent="elementwise",
)
sinc = _op(_sinc, "sinc", "The normalized sinc: sin(pi x) / (pi x), and 1 at 0.")

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
    tangent="elementwise",
)


@tensor_method
def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] first when eps is given."""
    check_tensor("logit", input)
    if eps is not None and not isinstance(eps, int | float | np.number | np.bool_):
        raise TypeError(f"logit(): argument 'eps' must be float, not {type(eps).__name__}")
    return _logit(input, eps=None if eps is None else float(eps))


@tensor_method
def positive(input: Tensor) -> Tensor:
    """The input itself (unary plus); refused for bool tensors, as in PyTorch."""
    check_tensor("positive", input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


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
asinh_ = inplace_form(_function(_asinh_recorded, "asinh", asinh.__doc__ or ""), "asinh_")
acosh_ = inplace_form(_function(_acosh_recorded, "acosh", acosh.__doc__ or ""), "acosh_")
atanh_ = inplace_form(_function(_atanh_recorded, "atanh", atanh.__doc__ or ""), "atanh_")
arcsinh_ = inplace_form(_function(_asinh_recorded, "arcsinh", ""), "arcsinh_")
arccosh_ = inplace_form(_function(_acosh_recorded, "arccosh", ""), "arccosh_")
arctanh_ = inplace_form(_function(_atanh_recorded, "arctanh", ""), "arctanh_")
deg2rad_, rad2deg_, sinc_, logit_ = map(_inplace, (deg2rad, rad2deg, sinc, logit))
