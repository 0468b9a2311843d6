"""Trigonometric and hyperbolic functions, angle conversion and sinc, each forward followed by
its derivative rule."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ..primitive import Primitive
from .arithmetic import mul_scalar, times
from .conditional import where
from .exp_log import rsqrt
from .forwards import float_unary_forward, one_minus
from .unary_common import float_forward, unary_function

__all__ = [
    "acos",
    "acosh",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "cos",
    "cosh",
    "deg2rad",
    "rad2deg",
    "sin",
    "sinc",
    "sinh",
    "tan",
    "tanh",
]


_DEG = math.pi / 180


def _one_minus_square(x: Tensor) -> Tensor:
    """1 - x^2 as (1 - x)(1 + x): no cancellation near |x| = 1."""
    return (1 - x) * (1 + x)


_sin = Primitive(
    "SinBackward0",
    float_unary_forward(np.sin),
    grads=(lambda g, n: g * n.self.cos(),),
    formulas=("cos(self)",),
    tangent="elementwise",
    array_grads=(lambda g, n: times(g, _cos.on_arrays(n._array("self"))),),
)
_cos: Primitive = Primitive(
    "CosBackward0",
    float_unary_forward(np.cos),
    grads=(lambda g, n: -g * n.self.sin(),),
    formulas=("-sin(self)",),
    tangent="elementwise",
)
# tanh and sigmoid get their gradients from ops of their own (as PyTorch has), one
# NumPy expression each, whose own rules give the second derivatives.
_tanh_backward: Primitive = Primitive(  # g * (1 - y^2)
    "TanhBackwardBackward0",
    lambda g, y: g * one_minus(y * y),
    inputs=("grad_output", "output"),
    grads=(
        lambda gg, n: _tanh_backward(gg, n.output),
        lambda gg, n: gg * (mul_scalar(n.output, -2) * n.grad_output),
    ),
    formulas=("1 - output²", "-2 * output * grad_output"),
    tangent="elementwise",
)


_tanh = Primitive(
    "TanhBackward0",
    float_unary_forward(np.tanh),
    grads=(lambda g, n: _tanh_backward(g, n.result),),
    formulas=("1 - result²",),
    tangent="elementwise",
    array_grads=(lambda g, n: _tanh_backward.on_arrays(g, n._array("result")),),
)


sin = unary_function(_sin, "sin")


cos = unary_function(_cos, "cos")


tanh = unary_function(_tanh, "tanh")


# --- trigonometric and hyperbolic ------------------------------------------------------------

_tan = Primitive(
    "TanBackward0",
    float_forward(np.tan),
    grads=(lambda g, n: g * (1 + n.result**2),),
    formulas=("1 + result²",),
    tangent="elementwise",
)
_asin = Primitive(
    "AsinBackward0",
    float_forward(np.arcsin),
    grads=(lambda g, n: g * rsqrt(_one_minus_square(n.self)),),
    formulas=("1/√(1 - self²)",),
    tangent="elementwise",
)
_acos = Primitive(
    "AcosBackward0",
    float_forward(np.arccos),
    grads=(lambda g, n: -g * rsqrt(_one_minus_square(n.self)),),
    formulas=("-1/√(1 - self²)",),
    tangent="elementwise",
)
_atan = Primitive(
    "AtanBackward0",
    float_forward(np.arctan),
    grads=(lambda g, n: g / (n.self**2 + 1),),
    formulas=("1/(1 + self²)",),
    tangent="elementwise",
)
_sinh = Primitive(
    "SinhBackward0",
    float_forward(np.sinh),
    grads=(lambda g, n: g * n.self.cosh(),),
    formulas=("cosh(self)",),
    tangent="elementwise",
)
_cosh = Primitive(
    "CoshBackward0",
    float_forward(np.cosh),
    grads=(lambda g, n: g * n.self.sinh(),),
    formulas=("sinh(self)",),
    tangent="elementwise",
)
_asinh = Primitive(
    "AsinhBackward0",
    float_forward(np.arcsinh),
    grads=(lambda g, n: g * rsqrt(n.self**2 + 1),),
    formulas=("1/√(self² + 1)",),
    tangent="elementwise",
)
_acosh = Primitive(
    "AcoshBackward0",
    float_forward(np.arccosh),
    grads=(lambda g, n: g * rsqrt((n.self - 1) * (n.self + 1)),),
    formulas=("1/√(self² - 1)",),
    tangent="elementwise",
)
_atanh = Primitive(
    "AtanhBackward0",
    float_forward(np.arctanh),
    grads=(lambda g, n: g / _one_minus_square(n.self),),
    formulas=("1/(1 - self²)",),
    tangent="elementwise",
)

tan = unary_function(_tan, "tan", "The tangent (radians).")
asin = unary_function(_asin, "asin", "The inverse sine, in [-pi/2, pi/2].")
acos = unary_function(_acos, "acos", "The inverse cosine, in [0, pi].")
atan = unary_function(_atan, "atan", "The inverse tangent, in (-pi/2, pi/2).")
sinh = unary_function(_sinh, "sinh", "The hyperbolic sine.")
cosh = unary_function(_cosh, "cosh", "The hyperbolic cosine.")
asinh = unary_function(_asinh, "asinh", "The inverse hyperbolic sine.")
acosh = unary_function(_acosh, "acosh", "The inverse hyperbolic cosine (x >= 1).")
atanh = unary_function(_atanh, "atanh", "The inverse hyperbolic tangent (|x| < 1).")
arcsin = unary_function(_asin, "arcsin", "Alias of `asin`.")
arccos = unary_function(_acos, "arccos", "Alias of `acos`.")
arctan = unary_function(_atan, "arctan", "Alias of `atan`.")
arcsinh = unary_function(_asinh, "arcsinh", "Alias of `asinh`.")
arccosh = unary_function(_acosh, "arccosh", "Alias of `acosh`.")
arctanh = unary_function(_atanh, "arctanh", "Alias of `atanh`.")

# --- angles, sinc --------------------------------------------------------------------------

_deg2rad = Primitive(
    "Deg2RadBackward0",
    float_forward(lambda a: a * np.asarray(_DEG, a.dtype)),
    grads=(lambda g, n: g * _DEG,),
    formulas=("π/180",),
    tangent="linear",
)
_rad2deg = Primitive(
    "Rad2DegBackward0",
    float_forward(lambda a: a * np.asarray(1 / _DEG, a.dtype)),
    grads=(lambda g, n: g * (1 / _DEG),),
    formulas=("180/π",),
    tangent="linear",
)

deg2rad = unary_function(_deg2rad, "deg2rad", "Degrees to radians.")
rad2deg = unary_function(_rad2deg, "rad2deg", "Radians to degrees.")


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
    formulas=("(cos(π * self) - result)/self, 0 at self = 0",),
    tangent="elementwise",
)
sinc = unary_function(_sinc, "sinc", "The normalized sinc: sin(pi x) / (pi x), and 1 at 0.")
