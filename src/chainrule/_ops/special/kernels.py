"""Special functions on float64 NumPy arrays, NumPy only: the erf and gamma families.

Each function takes and returns float64 arrays and is accurate to a few units in
the last place over its whole domain (the op forwards in `special.py` cast
other dtypes around them). Loops below run over series terms or recurrence
steps, never over elements.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = [
    "digamma",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "hurwitz_zeta",
    "lgamma",
    "log_ndtr",
    "polygamma",
]

_SQRT_PI = math.sqrt(math.pi)
_EULER_GAMMA = 0.5772156649015329
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# B_2, B_4, ..., B_24: the Bernoulli numbers of the asymptotic series.
_BERNOULLI = (
    1 / 6,
    -1 / 30,
    1 / 42,
    -1 / 30,
    5 / 66,
    -691 / 2730,
    7 / 6,
    -3617 / 510,
    43867 / 798,
    -174611 / 330,
    854513 / 138,
    -236364091 / 2730,
)


def _polyval(coefs: np.ndarray | list[float], z: np.ndarray) -> np.ndarray:
    """sum(coefs[k] * z**k), by Horner's rule (coefficients from the constant term up)."""
    out = np.zeros_like(z)
    for c in coefs[::-1]:
        out = out * z + c
    return out


def _nan_like(x: np.ndarray) -> np.ndarray:
    return np.full(x.shape, np.nan)


# --- erf, erfc, erfcx ----------------------------------------------------------------------

# erf(x) = 2/sqrt(pi) * x * exp(-x^2) * sum_n (2x^2)^n / (2n+1)!!: positive terms, no cancellation.
_ERF_SERIES = [1.0]
for _n in range(1, 22):
    _ERF_SERIES.append(_ERF_SERIES[-1] / (2 * _n + 1))
_SERIES_MAX = 0.75  # |x| below this: the series; above: the continued fraction for erfc


def _exp_square(a: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """exp(scale * a*a) without the rounding of a*a being magnified by exp (for |a| < 45).

    `hi` keeps 26 significant bits, so scale * hi*hi is exact (scale a power of 2)
    and the rest is small.
    """
    hi = np.round(a * 2.0**20) / 2.0**20
    return np.exp(scale * hi * hi) * np.exp(scale * (a - hi) * (a + hi))


def _exp_neg_square(a: np.ndarray) -> np.ndarray:
    return _exp_square(a, -1.0)


def _erf_series(x: np.ndarray) -> np.ndarray:
    return 2 / _SQRT_PI * x * _exp_neg_square(np.abs(x)) * _polyval(_ERF_SERIES, 2 * x * x)


def _erfcx_fraction(a: np.ndarray) -> np.ndarray:
    """exp(a^2) * erfc(a) for finite a >= 0.75, by the even part of Laplace's continued fraction.

    erfcx(a) = 2a/sqrt(pi) / (2a^2 + 1 - 1*2 / (2a^2 + 5 - 3*4 / (2a^2 + 9 - ...))); it
    converges faster the larger `a` is, so the terms are counted per range.
    """
    out = np.empty_like(a)
    for low, high, terms in ((0.75, 2.0, 160), (2.0, 6.0, 48), (6.0, 1e8, 12)):
        part = (a >= low) & (a < high)
        if part.any():
            z = 2 * a[part] ** 2
            f = z + (4 * terms + 1)
            for k in range(terms, 0, -1):
                f = z + (4 * k - 3) - (2 * k - 1) * (2 * k) / f
            out[part] = 2 * a[part] / (_SQRT_PI * f)
    huge = a >= 1e8  # erfcx(a) = 1/(a sqrt(pi)) to double precision
    out[huge] = 1 / (a[huge] * _SQRT_PI)
    return out


def _erfc_positive(a: np.ndarray) -> np.ndarray:
    """erfc(a) for a >= 0.75 (inf included)."""
    out = np.zeros_like(a)
    live = a < 27.5  # beyond it erfc underflows to 0
    out[live] = _exp_neg_square(a[live]) * _erfcx_fraction(a[live])
    return out


def erf(x: np.ndarray) -> np.ndarray:
    out = _nan_like(x)
    a = np.abs(x)
    small = a < _SERIES_MAX
    out[small] = _erf_series(x[small])
    large = a >= _SERIES_MAX
    out[large] = np.sign(x[large]) * (1 - _erfc_positive(a[large]))
    return out


def erfc(x: np.ndarray) -> np.ndarray:
    out = _nan_like(x)
    small = np.abs(x) < _SERIES_MAX
    out[small] = 1 - _erf_series(x[small])
    right = x >= _SERIES_MAX
    out[right] = _erfc_positive(x[right])
    left = x <= -_SERIES_MAX
    out[left] = 2 - _erfc_positive(-x[left])
    return out


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log of the standard normal cdf Phi(x), in relative precision down to x = -1e150."""
    out = _nan_like(x)
    z = np.abs(x) / math.sqrt(2)
    # Q = 1 - Phi(|x|) = erfc(|x| / sqrt 2) / 2, with exp(-x^2 / 2) taken from x itself.
    tail = np.where(z < _SERIES_MAX, 0.5 * erfc(z), 0.0)
    far = (z >= _SERIES_MAX) & (z < 27.5)
    tail[far] = 0.5 * _exp_square(np.abs(x[far]), -0.5) * _erfcx_fraction(z[far])
    right = x >= 0
    out[right] = np.log1p(-tail[right])
    left = x < 0  # log Q(-x) = log(erfcx(z) / 2) - x^2 / 2, which never underflows
    out[left] = np.log(0.5 * erfcx(z[left])) - 0.5 * x[left] * x[left]
    return out


def erfcx(x: np.ndarray) -> np.ndarray:
    """exp(x^2) * erfc(x): no underflow for large x (it overflows for x below about -26.6)."""
    out = _nan_like(x)
    right = x >= _SERIES_MAX
    out[right] = _erfcx_fraction(x[right])
    out[x == np.inf] = 0.0
    small = np.abs(x) < _SERIES_MAX
    out[small] = np.exp(x[small] ** 2) * erfc(x[small])
    left = x <= -_SERIES_MAX  # erfcx(x) = 2 exp(x^2) - erfcx(-x)
    out[left] = 2 * _exp_square(np.maximum(x[left], -27.0)) - _erfcx_fraction(-x[left])
    out[x < -27] = np.inf
    return out


# --- erfinv, erfcinv -------------------------------------------------------------------------


def _initial_inverse(log_one_minus_x2: np.ndarray) -> np.ndarray:
    """|erfinv(x)| to about 1e-3, from log(1 - x^2) (Winitzki's closed-form approximation)."""
    a = 0.147
    b = 2 / (math.pi * a) + log_one_minus_x2 / 2
    return np.sqrt(np.sqrt(b * b - log_one_minus_x2 / a) - b)


def _halley(y: np.ndarray, residual: np.ndarray, slope_sign: float) -> np.ndarray:
    """One Halley step for erf(y) = x or erfc(y) = t (f'' = -2y f' for both)."""
    u = residual / (slope_sign * 2 / _SQRT_PI * np.exp(-y * y))
    return y - u / (1 + y * u)


def _erfinv_central(x: np.ndarray) -> np.ndarray:
    """erfinv(x) for |x| <= 0.5: Halley on erf."""
    y = np.sign(x) * _initial_inverse(np.log1p(-x * x))
    for _ in range(3):
        y = _halley(y, erf(y) - x, 1.0)
    return y


def _erfcinv_tail(t: np.ndarray) -> np.ndarray:
    """erfcinv(t) for 0 < t <= 0.5: Halley on erfc, which keeps t's relative precision."""
    y = _initial_inverse(np.log(t * (2 - t)))
    for _ in range(4):
        y = _halley(y, erfc(y) - t, -1.0)
    return y


def erfinv(x: np.ndarray) -> np.ndarray:
    out = _nan_like(x)
    a = np.abs(x)
    central = a <= 0.5
    out[central] = _erfinv_central(x[central])
    tail = (a > 0.5) & (a < 1)
    out[tail] = np.sign(x[tail]) * _erfcinv_tail(1 - a[tail])  # 1 - a is exact here
    ends = a == 1
    out[ends] = np.sign(x[ends]) * np.inf
    return out


def erfcinv(t: np.ndarray) -> np.ndarray:
    """The inverse of erfc on [0, 2], accurate in relative terms for tiny t."""
    out = _nan_like(t)
    low = (t > 0) & (t < 0.5)
    out[low] = _erfcinv_tail(t[low])
    mid = (t >= 0.5) & (t <= 1.5)
    out[mid] = _erfinv_central(1 - t[mid])  # 1 - t is exact here
    high = (t > 1.5) & (t < 2)
    out[high] = -_erfcinv_tail(2 - t[high])
    out[t == 0] = np.inf
    out[t == 2] = -np.inf
    return out


# --- the Hurwitz zeta function, for polygamma ------------------------------------------------


def hurwitz_zeta(s: int, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2 and q > 0.

    The first terms are summed until q + k is large, then the Euler-Maclaurin
    formula gives the rest.
    """
    start = max(10.0, 1.2 * s)
    total = np.zeros_like(q)
    a = q.copy()
    for _ in range(int(start) + 1):
        near = a < start
        if not near.any():
            break
        total[near] += a[near] ** -s
        a[near] += 1
    tail = a ** (1 - s) / (s - 1) + a**-s / 2
    term = s * a ** (-s - 1)  # s (s+1) ... (s+2k-2) a^(-s-2k+1) / (2k)!, times B_2k below
    for k, b in enumerate(_BERNOULLI, start=1):
        tail += b * term / math.factorial(2 * k)
        term = term * (s + 2 * k - 1) * (s + 2 * k) / (a * a)
    return total + tail


# --- lgamma ------------------------------------------------------------------------------


# lgamma(2 + z) = (1 - gamma) z + sum_{k>=2} (-1)^k zeta(k, 2) / k z^k, used for |z| <= 0.5.
@functools.cache
def _lgamma_at_2() -> list[float]:
    # Made on first use: its 30 zeta values would cost every `import chainrule` 5 ms.
    return [0.0, 1 - _EULER_GAMMA] + [
        (-1) ** k * float(hurwitz_zeta(k, np.array([2.0]))[0]) / k for k in range(2, 32)
    ]


_STIRLING_MIN = 10.0


def _lgamma_stirling(x: np.ndarray) -> np.ndarray:
    """lgamma(x) for x >= 10, by Stirling's series."""
    inv, inv2 = 1 / x, 1 / (x * x)
    coefs = [b / (2 * k * (2 * k - 1)) for k, b in enumerate(_BERNOULLI[:8], start=1)]
    return (x - 0.5) * np.log(x) - x + _HALF_LOG_2PI + inv * _polyval(coefs, inv2)


def _lgamma_positive(x: np.ndarray) -> np.ndarray:
    """lgamma(x) for x > 0: the series about 2 after moving x into [1.5, 2.5), or Stirling."""
    out = np.empty_like(x)
    big = x >= _STIRLING_MIN
    out[big] = _lgamma_stirling(x[big])
    # Below 1.5: lgamma(x) = lgamma(x + m) - log(x (x+1) ... (x+m-1)), z = x + m - 2 exactly.
    tiny = x < 0.5
    out[tiny] = _polyval(_lgamma_at_2(), x[tiny]) - np.log(x[tiny]) - np.log1p(x[tiny])
    low = (x >= 0.5) & (x < 1.5)
    out[low] = _polyval(_lgamma_at_2(), x[low] - 1) - np.log(x[low])
    # From 1.5 to 10: lgamma(x) = lgamma(y) + log(y (y+1) ... (x-1)), y = x - m in [1.5, 2.5).
    mid = (x >= 1.5) & (x < _STIRLING_MIN)
    xm = x[mid]
    steps = np.floor(xm - 1.5)
    product = np.ones_like(xm)
    for j in range(1, int(_STIRLING_MIN)):
        product = np.where(steps >= j, product * (xm - j), product)
    out[mid] = _polyval(_lgamma_at_2(), xm - steps - 2) + np.log(product)
    return out


def _pi_times_fraction(x: np.ndarray) -> np.ndarray:
    """pi * (x - round(x)): the same sin/tan (up to sign) as pi * x, without its rounding."""
    return math.pi * (x - np.round(x))


def lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)|; inf at 0 and the negative integers, by reflection below 0."""
    out = np.full(x.shape, np.inf)
    out[np.isnan(x)] = np.nan
    positive = (x > 0) & (x < np.inf)
    out[positive] = _lgamma_positive(x[positive])
    negative = (x < 0) & (x != np.round(x))
    xn = x[negative]
    # lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    sin = np.abs(np.sin(_pi_times_fraction(xn)))
    out[negative] = np.log(math.pi / sin) - _lgamma_positive(1 - xn)
    return out


# --- digamma and polygamma -----------------------------------------------------------------

# The positive root of digamma (double-double), and the Taylor series about it:
# digamma(x0 + d) = sum_{k>=1} (-1)^(k+1) zeta(k+1, x0) d^k, used for |d| < 0.5.
_ROOT_HI, _ROOT_LO = 1.4616321449683622, 9.549995429965697e-17


@functools.cache
def _digamma_at_root() -> list[float]:
    # Made on first use, as _lgamma_at_2 (43 zeta values).
    return [0.0] + [
        (-1) ** (k + 1) * float(hurwitz_zeta(k + 1, np.array([_ROOT_HI]))[0]) for k in range(1, 44)
    ]


_ASYMPTOTIC_MIN = 10.0


def _digamma_positive(x: np.ndarray) -> np.ndarray:
    """digamma(x) for x > 0: recurrence up to 10, then the asymptotic series."""
    shifted = x.copy()
    total = np.zeros_like(x)
    for _ in range(int(_ASYMPTOTIC_MIN)):
        low = shifted < _ASYMPTOTIC_MIN
        if not low.any():
            break
        total[low] -= 1 / shifted[low]
        shifted[low] += 1
    inv2 = 1 / (shifted * shifted)
    coefs = [b / (2 * k) for k, b in enumerate(_BERNOULLI[:9], start=1)]
    out = np.log(shifted) - 0.5 / shifted - inv2 * _polyval(coefs, inv2) + total
    near_root = np.abs(x - _ROOT_HI) < 0.5  # where the sum above cancels to nearly 0
    d = (x[near_root] - _ROOT_HI) - _ROOT_LO
    out[near_root] = _polyval(_digamma_at_root(), d)
    return out


def digamma(x: np.ndarray) -> np.ndarray:
    """d/dx lgamma(x); -inf at +0 and +inf at -0 (as in PyTorch), nan at negative integers."""
    out = _nan_like(x)
    positive = x > 0
    out[positive] = _digamma_positive(x[positive])
    negative = (x < 0) & (x != np.round(x))
    xn = x[negative]
    # digamma(x) = digamma(1 - x) - pi / tan(pi x)
    out[negative] = _digamma_positive(1 - xn) - math.pi / np.tan(_pi_times_fraction(xn))
    zero = x == 0
    out[zero] = np.copysign(np.inf, -x[zero])
    return out


def _cot_derivative(n: int) -> np.ndarray:
    """Coefficients (constant term first) of P with d^n/dx^n cot(pi x) = P(cot(pi x))."""
    p = np.array([0.0, 1.0])
    for _ in range(n):
        # d/dx P(c) = P'(c) * dc/dx, and dc/dx = -pi (1 + c^2).
        derivative = p[1:] * np.arange(1, len(p))
        p = -math.pi * np.convolve([1.0, 0.0, 1.0], derivative)
    return p


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n+1, x), reflected below 0.

    At 0 and the negative integers the result is (-1)^(n+1) inf, as in PyTorch.
    """
    if n == 0:
        return digamma(x)
    scale = (-1.0) ** (n + 1) * (float(math.factorial(n)) if n <= 170 else math.inf)
    out = _nan_like(x)
    positive = (x > 0) & (x < np.inf)
    out[positive] = scale * hurwitz_zeta(n + 1, x[positive])
    out[x == np.inf] = 0.0
    pole = (x <= 0) & (x == np.round(x)) & (x > -np.inf)
    out[pole] = math.copysign(math.inf, scale)
    negative = (x < 0) & ~pole & (x > -np.inf)
    xn = x[negative]
    # d^n/dx^n of digamma(x) = digamma(1 - x) - pi cot(pi x)
    cot = 1 / np.tan(_pi_times_fraction(xn))
    reflected = scale * hurwitz_zeta(n + 1, 1 - xn)
    out[negative] = (-1) ** n * reflected - math.pi * _polyval(_cot_derivative(n), cot)
    return out
