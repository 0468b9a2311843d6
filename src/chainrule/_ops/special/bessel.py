"""Modified Bessel functions of the first kind, orders 0 and 1 (i0, i1, and the scaled i0e, i1e).

Kernels in float64 (a power series up to |x| = 20, Hankel's asymptotic series
beyond), each followed by its op and derivative rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..._tensor import Tensor
from ..elementwise.conditional import where
from ..elementwise.unary_common import float64_forward, inplace_form, unary_function
from ..primitive import Primitive

__all__ = ["i0", "i0_"]  # the kernel `modified_i` is for the family's other modules

_SERIES_MAX = 20.0
# I0(x) = sum_k u^k / (k!)^2 and I1(x) = x/2 sum_k u^k / (k! (k+1)!), u = x^2/4: positive terms.
_I0_SERIES = [1 / math.factorial(k) ** 2 for k in range(64)]
_I1_SERIES = [1 / (math.factorial(k) * math.factorial(k + 1)) for k in range(64)]


def _polyval(coefs: list[float], z: np.ndarray) -> np.ndarray:
    out = np.zeros_like(z)
    for c in coefs[::-1]:
        out = out * z + c
    return out


def _hankel(order: int, a: np.ndarray) -> np.ndarray:
    """sqrt(2 pi a) exp(-a) I_order(a) for a > 20, by Hankel's asymptotic series:
    sum_k (-1)^k prod_{j<=k} (4 order^2 - (2j-1)^2) / (k! (8a)^k)."""
    total = np.ones_like(a)
    term = np.ones_like(a)
    for k in range(1, 40):
        term = term * -(4 * order**2 - (2 * k - 1) ** 2) / (k * 8 * a)
        total = total + term
    return total


def _scaled(order: int, x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I_order(x)."""
    a = np.abs(x)
    out = np.empty_like(a)
    small = a <= _SERIES_MAX
    u = a[small] ** 2 / 4
    if order == 0:
        out[small] = _polyval(_I0_SERIES, u) * np.exp(-a[small])
    else:
        out[small] = a[small] / 2 * _polyval(_I1_SERIES, u) * np.exp(-a[small])
    large = ~small
    out[large] = _hankel(order, a[large]) / np.sqrt(2 * math.pi * a[large])
    out[np.isnan(a)] = np.nan
    return out if order == 0 else np.copysign(out, x)


def modified_i(order: int, x: np.ndarray) -> np.ndarray:
    """I_order(x), as exp(|x|) times the scaled value (in two steps: no early overflow)."""
    half = np.exp(np.abs(x) / 2)
    return _scaled(order, x) * half * half


def _near_zero(x: Tensor, near: Tensor | float, rest: Callable[[Tensor], Tensor]) -> Tensor:
    """`rest(x)`, which divides by x, or for |x| < 1e-8 its expansion `near` (exact there to
    double precision; 1/x would overflow for subnormal x)."""
    small = x.abs() < 1e-8
    return where(small, near, rest(where(small, 1.0, x)))


# I0' = I1;  I1' = I0 - I1/x;  (e^-|x| I0)' = I1e - sgn(x) I0e;  I1e' = I0e - I1e (sgn(x) + 1/x).
# (Each rule names ops defined further down; a rule looks its names up when it runs.)
_i0: Primitive = Primitive(
    "I0Backward0",
    float64_forward(lambda x: modified_i(0, x)),
    grads=(lambda g, n: g * _i1(n.self),),
    formulas=("i1(self)",),
    tangent="elementwise",
)
_i1: Primitive = Primitive(
    "SpecialI1Backward0",
    float64_forward(lambda x: modified_i(1, x)),
    grads=(lambda g, n: g * _near_zero(n.self, 0.5, lambda x: _i0(x) - _i1(x) / x),),
    formulas=("i0(self) - i1(self)/self",),
    tangent="elementwise",
)
_i0e: Primitive = Primitive(
    "SpecialI0EBackward0",
    float64_forward(lambda x: _scaled(0, x)),
    grads=(lambda g, n: g * (_i1e(n.self) - n.self.sgn() * n.result),),
    formulas=("i1e(self) - sgn(self) * result",),
    tangent="elementwise",
)
_i1e: Primitive = Primitive(
    "SpecialI1EBackward0",
    float64_forward(lambda x: _scaled(1, x)),
    grads=(lambda g, n: g * _near_zero(n.self, 0.5 - n.self.abs(), _i1e_slope),),
    formulas=("i0e(self) - result * (sgn(self) + 1/self)",),
    tangent="elementwise",
)


def _i1e_slope(x: Tensor) -> Tensor:
    return _i0e(x) - _i1e(x) * (x.sgn() + 1 / x)


i0 = unary_function(_i0, "i0", "The modified Bessel function of the first kind, order 0.")
special_i1 = unary_function(
    _i1, "special_i1", "The modified Bessel function of the first kind, order 1."
)
special_i0e = unary_function(_i0e, "special_i0e", "exp(-|x|) * i0(x).")
special_i1e = unary_function(_i1e, "special_i1e", "exp(-|x|) * i1(x).")
i0_ = inplace_form(i0, "i0_")
