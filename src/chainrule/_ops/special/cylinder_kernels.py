"""Bessel functions J, Y and K of orders 0 and 1, and Airy's Ai, on float64 arrays, NumPy only.

Three regimes each, chosen so that no step loses more than a few digits:
a power series near 0; an integral representation, evaluated by a quadrature
rule that converges exponentially for its smooth integrand, in the middle; and
Hankel's asymptotic series for large arguments. Loops run over series terms,
never over elements.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from .bessel import modified_i

__all__ = ["airy_ai", "bessel_j", "bessel_y", "scaled_bessel_k"]

_EULER_GAMMA = 0.5772156649015329
_ASYMPTOTIC_MIN = 25.0  # beyond it Hankel's series is exact to double precision


@functools.cache
def _gauss_legendre(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of Gauss-Legendre quadrature on [0, 1]."""
    nodes, weights = np.polynomial.legendre.leggauss(count)
    return (nodes + 1) / 2, weights / 2


def _integrate(f: Callable[[np.ndarray], np.ndarray], length: np.ndarray, count: int) -> np.ndarray:
    """The integral of f(t) over [0, length] (one length per element), by Gauss-Legendre."""
    nodes, weights = _gauss_legendre(count)
    t = length[:, None] * nodes
    return np.asarray(f(t) @ weights * length)


# --- Hankel's asymptotic series, for J, Y (and Ai through them) ------------------------------


def _hankel(nu: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P and Q of J_nu(x) = sqrt(2 / (pi x)) (P cos(chi) - Q sin(chi)), chi = x - (nu/2 + 1/4) pi:
    P = sum_k (-1)^k a_2k / x^2k, Q = sum_k (-1)^k a_(2k+1) / x^(2k+1),
    a_k = (4nu^2 - 1)(4nu^2 - 9)...(4nu^2 - (2k-1)^2) / (k! 8^k)."""
    mu = 4 * nu * nu
    p, q = np.ones_like(x), np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            q = q + sign * term
        else:
            p = p + sign * term
    return p, q


def _hankel_jy(order: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, q = _hankel(order, x)
    chi = x - (order / 2 + 0.25) * math.pi
    scale = np.sqrt(2 / (math.pi * x))
    return scale * (p * np.cos(chi) - q * np.sin(chi)), scale * (p * np.sin(chi) + q * np.cos(chi))


# --- J_n and Y_n ------------------------------------------------------------------------------


def _j_middle(order: int, x: np.ndarray) -> np.ndarray:
    """J_n(x) = 1/(2 pi) * integral over a period of cos(n t - x sin t), by the trapezoidal
    rule, whose error (of the size of J_(64-n)(x)) is below rounding for |x| <= 25."""
    t = np.arange(64) * (2 * math.pi / 64)
    return np.asarray(np.cos(order * t - x[:, None] * np.sin(t)).mean(axis=1))


def _j_series(order: int, x: np.ndarray) -> np.ndarray:
    """J_n(x) for |x| <= 2: sum_k (-u)^k / (k! (k+n)!) (x/2)^n, u = x^2/4."""
    u = x * x / 4
    term = np.ones_like(x) if order == 0 else x / 2
    total = term.copy()
    for k in range(1, 30):
        term = term * -u / (k * (k + order))
        total = total + term
    return total


def bessel_j(order: int, x: np.ndarray) -> np.ndarray:
    """J_0 or J_1, the Bessel function of the first kind (J_0 even, J_1 odd)."""
    a = np.abs(x)
    out = np.full(x.shape, np.nan)
    small = a <= 2
    out[small] = _j_series(order, a[small])
    middle = (a > 2) & (a <= _ASYMPTOTIC_MIN)
    out[middle] = _j_middle(order, a[middle])
    far = (a > _ASYMPTOTIC_MIN) & np.isfinite(a)
    out[far] = _hankel_jy(order, a[far])[0]
    return np.where(np.signbit(x), -out, out) if order == 1 else out


def _harmonic(k: int) -> float:
    return sum(1 / j for j in range(1, k + 1))


def _y_series(order: int, x: np.ndarray) -> np.ndarray:
    """Y_n(x) for 0 < x <= 4 by its series, whose terms stay below 2 there:
    Y0 = 2/pi [(log(x/2) + gamma) J0 + sum_(k>=1) (-1)^(k+1) H_k u^k / k!^2],
    Y1 = -2/(pi x) + 2/pi log(x/2) J1 - 1/pi sum_(k>=0) (-1)^k (psi(k+1) + psi(k+2))
         (x/2)^(2k+1) / (k! (k+1)!), with u = x^2/4 and psi(k+1) = H_k - gamma."""
    u = x * x / 4
    log_half = np.log(x / 2)
    total = np.zeros_like(x)
    if order == 0:
        term = np.ones_like(x)
        for k in range(1, 40):
            term = term * -u / (k * k)
            total = total - term * _harmonic(k)
        return 2 / math.pi * ((log_half + _EULER_GAMMA) * bessel_j(0, x) + total)
    term = x / 2
    for k in range(40):
        if k:
            term = term * -u / (k * (k + 1))
        total = total + term * (_harmonic(k) + _harmonic(k + 1) - 2 * _EULER_GAMMA)
    return -2 / (math.pi * x) + 2 / math.pi * log_half * bessel_j(1, x) - total / math.pi


def _y_middle(order: int, x: np.ndarray) -> np.ndarray:
    """Y_n(x) = 1/pi int_0^pi sin(x sin t - n t) dt
    - 1/pi int_0^inf (e^(n t) + (-1)^n e^(-n t)) e^(-x sinh t) dt, for 4 < x <= 25 (the
    second integrand is below e^-50 past asinh(50/x))."""
    sign = (-1.0) ** order
    oscillating = _integrate(
        lambda t: np.sin(x[:, None] * np.sin(t) - order * t), np.full(x.shape, math.pi), 96
    )

    def tail(t: np.ndarray) -> np.ndarray:
        return (np.exp(order * t) + sign * np.exp(-order * t)) * np.exp(-x[:, None] * np.sinh(t))

    decaying = _integrate(tail, np.arcsinh(50 / x), 64)
    return np.asarray((oscillating - decaying) / math.pi)


def bessel_y(order: int, x: np.ndarray) -> np.ndarray:
    """Y_0 or Y_1, the Bessel function of the second kind: -inf at 0, nan below."""
    out = np.full(x.shape, np.nan)
    out[x == 0] = -np.inf
    small = (x > 0) & (x <= 4)
    out[small] = _y_series(order, x[small])
    middle = (x > 4) & (x <= _ASYMPTOTIC_MIN)
    out[middle] = _y_middle(order, x[middle])
    far = (x > _ASYMPTOTIC_MIN) & np.isfinite(x)
    out[far] = _hankel_jy(order, x[far])[1]
    return out


# --- K_0 and K_1, scaled by e^x ---------------------------------------------------------------


def _k_series(order: int, x: np.ndarray) -> np.ndarray:
    """K_n(x) for 0 < x <= 1:
    K0 = -(log(x/2) + gamma) I0 + sum_(k>=1) H_k u^k / k!^2,
    K1 = 1/x + log(x/2) I1 - x/4 sum_(k>=0) (psi(k+1) + psi(k+2)) u^k / (k! (k+1)!)."""
    u = x * x / 4
    log_half = np.log(x / 2)
    total = np.zeros_like(x)
    term = np.ones_like(x)
    if order == 0:
        for k in range(1, 30):
            term = term * u / (k * k)
            total = total + term * _harmonic(k)
        return -(log_half + _EULER_GAMMA) * modified_i(0, x) + total
    for k in range(30):
        if k:
            term = term * u / (k * (k + 1))
        total = total + term * (_harmonic(k) + _harmonic(k + 1) - 2 * _EULER_GAMMA)
    return 1 / x + log_half * modified_i(1, x) - x / 4 * total


def _scaled_k_integral(nu: float, x: np.ndarray) -> np.ndarray:
    """e^x K_nu(x) = int_0^inf e^(-x (cosh t - 1)) cosh(nu t) dt, for x > 0 not tiny.

    The integrand is even and analytic in a strip, so the trapezoidal rule converges
    exponentially: 64 steps up to where it falls below e^-50."""
    length = 2 * np.arcsinh(np.sqrt(25 / x))  # arccosh(1 + 50/x), without its rounding
    h = length / 64
    t = h[:, None] * np.arange(65)
    values = np.exp(-2 * x[:, None] * np.sinh(t / 2) ** 2) * np.cosh(nu * t)  # cosh t - 1
    return np.asarray(h * (values.sum(axis=1) - values[:, 0] / 2))


def scaled_bessel_k(order: int, x: np.ndarray) -> np.ndarray:
    """e^x K_0(x) or e^x K_1(x), the modified Bessel function of the second kind:
    inf at 0, nan below, 0 at inf."""
    out = np.full(x.shape, np.nan)
    out[x == 0] = np.inf
    out[x == np.inf] = 0.0
    small = (x > 0) & (x <= 1)
    out[small] = _k_series(order, x[small]) * np.exp(x[small])
    rest = (x > 1) & (x < np.inf)
    out[rest] = _scaled_k_integral(order, x[rest])
    return out


# --- Airy's Ai --------------------------------------------------------------------------------

_AI_0 = 0.355028053887817239  # Ai(0) = 1 / (3^(2/3) Gamma(2/3))
_AI_SLOPE_0 = 0.258819403792806798  # -Ai'(0) = 1 / (3^(1/3) Gamma(1/3))


def _airy_series(x: np.ndarray) -> np.ndarray:
    """Ai(x) = Ai(0) f(x) - |Ai'(0)| g(x) by Maclaurin's series, for -2.5 <= x <= 1:
    f = sum 3^k (1/3)_k x^3k / (3k)!, g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!."""
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(1, 40):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI_0 * f - _AI_SLOPE_0 * g


def _bessel_j_fraction(nu: float, x: np.ndarray) -> np.ndarray:
    """J_nu(x) for a non-integer nu and 2 <= x <= 40:
    1/pi int_0^pi cos(nu t - x sin t) dt - sin(nu pi)/pi int_0^inf e^(-x sinh t - nu t) dt."""
    oscillating = _integrate(
        lambda t: np.cos(nu * t - x[:, None] * np.sin(t)), np.full(x.shape, math.pi), 128
    )
    decaying = _integrate(
        lambda t: np.exp(-x[:, None] * np.sinh(t) - nu * t), np.arcsinh(50 / x), 64
    )
    return np.asarray((oscillating - math.sin(nu * math.pi) * decaying) / math.pi)


def _airy_negative(z: np.ndarray) -> np.ndarray:
    """Ai(-z) for z > 2.5: (sqrt(z) / 3) (J_(1/3)(zeta) + J_(-1/3)(zeta)), zeta = 2/3 z^(3/2),
    by the integrals up to z = 15 and Hankel's series beyond."""
    zeta = 2 / 3 * z**1.5
    out = np.empty_like(z)
    middle = z <= 15
    zm = zeta[middle]
    both = _bessel_j_fraction(1 / 3, zm) + _bessel_j_fraction(-1 / 3, zm)
    out[middle] = np.sqrt(z[middle]) / 3 * both
    far = ~middle
    zf = zeta[far]
    parts = []
    for nu in (1 / 3, -1 / 3):
        p, q = _hankel(nu, zf)
        chi = zf - (nu / 2 + 0.25) * math.pi
        parts.append(p * np.cos(chi) - q * np.sin(chi))
    out[far] = np.sqrt(z[far]) / 3 * np.sqrt(2 / (math.pi * zf)) * (parts[0] + parts[1])
    return out


def airy_ai(x: np.ndarray) -> np.ndarray:
    """Airy's function Ai: nan at +-inf (as in PyTorch), 0 once it underflows."""
    out = np.full(x.shape, np.nan)
    near = (x >= -2.5) & (x <= 1)
    out[near] = _airy_series(x[near])
    out[(x > 200) & (x < np.inf)] = 0.0  # below the smallest double
    right = (x > 1) & (x <= 200)
    xr = x[right]
    zeta = 2 / 3 * xr**1.5
    k = _scaled_k_integral(1 / 3, zeta) * np.exp(-zeta)  # Ai = sqrt(x/3) K_(1/3)(zeta) / pi
    out[right] = np.sqrt(xr / 3) * k / math.pi
    left = (x < -2.5) & (x > -np.inf)
    out[left] = _airy_negative(-x[left])
    return out
