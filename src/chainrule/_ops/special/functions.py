"""Special functions as ops: erf, erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, i0
(from `special_bessel`), and the ones only `chainrule.special` names (erfcx, ndtri, ...).

Values come from the float64 kernels of `special_math` (NumPy only); each
derivative is written with these same ops, so every order is available.
"""

from __future__ import annotations

import math

import numpy as np

from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..elementwise.exp_log import exp
from ..elementwise.unary_common import check_tensor, float64_forward, inplace_form, unary_function
from ..primitive import Primitive
from . import kernels as sm

__all__ = [
    "digamma",
    "erf",
    "erf_",
    "erfc",
    "erfc_",
    "erfinv",
    "lgamma",
    "mvlgamma",
    "polygamma",
]

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


# --- the error function and its inverse -------------------------------------------------------

_erf = Primitive(
    "ErfBackward0",
    float64_forward(sm.erf),
    grads=(lambda g, n: g * _TWO_OVER_SQRT_PI * exp(-(n.self**2)),),
    formulas=("2/√π * exp(-self²)",),
    tangent="elementwise",
)
_erfc = Primitive(
    "ErfcBackward0",
    float64_forward(sm.erfc),
    grads=(lambda g, n: -g * _TWO_OVER_SQRT_PI * exp(-(n.self**2)),),
    formulas=("-2/√π * exp(-self²)",),
    tangent="elementwise",
)
_erfinv = Primitive(
    "ErfinvBackward0",
    float64_forward(sm.erfinv),
    grads=(lambda g, n: g / _TWO_OVER_SQRT_PI * exp(n.result**2),),
    formulas=("√π/2 * exp(result²)",),
    tangent="elementwise",
)
_erfcx = Primitive(
    "SpecialErfcxBackward0",
    float64_forward(sm.erfcx),
    grads=(lambda g, n: g * (2 * n.self * n.result - _TWO_OVER_SQRT_PI),),
    formulas=("2 * self * result - 2/√π",),
    tangent="elementwise",
)

erf = unary_function(_erf, "erf", "The error function, 2/sqrt(pi) * integral of exp(-t^2).")
erfc = unary_function(_erfc, "erfc", "1 - erf(x), accurate where erf(x) is near 1.")
erfinv = unary_function(_erfinv, "erfinv", "The inverse of erf on [-1, 1].")
special_erfcx = unary_function(
    _erfcx, "special_erfcx", "exp(x^2) * erfc(x), which stays finite for large x."
)

# --- the normal distribution's log-cdf and quantile ------------------------------------------

_log_ndtr = Primitive(
    "SpecialLogNdtrBackward0",
    float64_forward(sm.log_ndtr),
    grads=(lambda g, n: g * exp(-(n.result + n.self**2 / 2)) / _SQRT_2PI,),
    formulas=("exp(-self²/2 - result)/√(2π)",),
    tangent="elementwise",
)
_ndtri = Primitive(
    "SpecialNdtriBackward0",
    float64_forward(lambda p: -math.sqrt(2) * sm.erfcinv(2 * p)),
    grads=(lambda g, n: g * _SQRT_2PI * exp(n.result**2 / 2),),
    formulas=("√(2π) * exp(result²/2)",),
    tangent="elementwise",
)
special_log_ndtr = unary_function(_log_ndtr, "special_log_ndtr", "log of the standard normal cdf.")
special_ndtri = unary_function(
    _ndtri, "special_ndtri", "The standard normal quantile (inverse cdf)."
)

# --- the gamma function family -----------------------------------------------------------------

_lgamma = Primitive(
    "LgammaBackward0",
    float64_forward(sm.lgamma),
    grads=(lambda g, n: g * n.self.digamma(),),
    formulas=("digamma(self)",),
    tangent="elementwise",
)
_digamma = Primitive(
    "DigammaBackward0",
    float64_forward(sm.digamma),
    grads=(lambda g, n: g * polygamma(1, n.self),),
    formulas=("polygamma(1, self)",),
    tangent="elementwise",
)


def _polygamma_grad(g: Tensor, x: Tensor, order: int) -> Tensor:
    return g * polygamma(order + 1, x)


_polygamma = Primitive(
    "PolygammaBackward0",
    float64_forward(lambda a, n: sm.polygamma(n, a)),
    grads=(lambda g, node: _polygamma_grad(g, node.self, node.n),),
    formulas=("polygamma(n + 1, self), n = {n}",),
    tangent="elementwise",
)
# x.polygamma_(n) records a node of its own name in PyTorch.
_polygamma_inplace = Primitive(
    "PolygammaBackward1",
    _polygamma.forward,
    grads=_polygamma.grads,
    formulas=_polygamma.formulas,
    tangent="elementwise",
)

lgamma = unary_function(_lgamma, "lgamma", "log |Gamma(x)|.")
digamma = unary_function(_digamma, "digamma", "d/dx lgamma(x), the psi function.")


def _check_order(n: object, input: object, name: str = "polygamma") -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"{name}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    check_tensor(name, input, position=2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma (n = 0 is digamma itself)."""
    return _polygamma(input, n=_check_order(n, input))


def polygamma_method(self: Tensor, n: int) -> Tensor:
    """As a method the tensor comes first: `x.polygamma(n)`."""
    return _polygamma(self, n=_check_order(n, self))


polygamma_method.__name__ = polygamma_method.__qualname__ = "polygamma"


def _polygamma_recorded_in_place(self: Tensor, n: int) -> Tensor:
    return _polygamma_inplace(self, n=_check_order(n, self))


_polygamma_recorded_in_place.__name__ = "polygamma"
polygamma_ = inplace_form(_polygamma_recorded_in_place, "polygamma_")


def _mvlgamma_kernel(x: np.ndarray, p: int) -> np.ndarray:
    terms = [sm.lgamma(x - j / 2) for j in range(p)]
    return np.sum(terms, axis=0) + p * (p - 1) / 4 * math.log(math.pi)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    total = digamma(x)
    for j in range(1, p):
        total = total + digamma(x - j / 2)
    return total


_mvlgamma = Primitive(
    "MvlgammaBackward0",
    float64_forward(_mvlgamma_kernel),
    grads=(lambda g, n: g * _mvdigamma(n.self, n.p),),
    formulas=("Σ_(i < p) digamma(self - i/2), p = {p}",),
    tangent="elementwise",
    layout=contiguous_array,  # torch sums a stack of lgammas: a new contiguous tensor
)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension p."""
    check_tensor("mvlgamma", input)
    if isinstance(p, bool) or not isinstance(p, int | np.integer):
        raise TypeError(
            f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}"
        )
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return _mvlgamma(input, p=int(p))


# --- entropy --------------------------------------------------------------------------------


def _entr_kernel(x: np.ndarray) -> np.ndarray:
    out = np.full(x.shape, -np.inf)
    positive = x > 0
    out[positive] = -x[positive] * np.log(x[positive])
    out[x == 0] = 0.0
    out[np.isnan(x)] = np.nan
    return out


_entr = Primitive(
    "SpecialEntrBackward0",
    float64_forward(_entr_kernel),
    grads=(lambda g, n: -g * (1 + n.self.log()),),
    formulas=("-(1 + log(self))",),
    tangent="elementwise",
)
special_entr = unary_function(_entr, "special_entr", "-x log(x) (0 at 0, -inf below 0).")

# --- in-place forms ---------------------------------------------------------------------------

erf_ = inplace_form(erf, "erf_")
erfc_ = inplace_form(erfc, "erfc_")
erfinv_ = inplace_form(erfinv, "erfinv_")
lgamma_ = inplace_form(lgamma, "lgamma_")
digamma_ = inplace_form(digamma, "digamma_")
mvlgamma_ = inplace_form(mvlgamma, "mvlgamma_")
