"""float32 log, sine and cosine computed step by step as PyTorch's vectorised normal sampler does.

PyTorch fills float32 normal tensors of 16 or more elements with Cephes-style polynomial
approximations in single precision (Julien Pommier's SSE/AVX math functions), not the C
library's. Each step below is one float32 operation rounded as the vector instruction
rounds it, and where the compiler fuses a multiply and an add into one instruction
(rounded once), so do we; NumPy's own float32 log, sin and cos differ in the last bits.
"""

from __future__ import annotations

import numpy as np

_F = np.float32
_EXPONENT_BITS = np.int32(0x7F800000)
_HALF_BITS = np.int32(0x3F000000)
_SQRT_HALF = _F(0.707106781186547524)

# log(1 + x) ~ x - x**2 / 2 + x**3 * P(x) on [sqrt(1/2) - 1, sqrt(2) - 1]; P's
# coefficients from the highest power down.
_LOG_P = [
    _F(7.0376836292e-2),
    _F(-1.1514610310e-1),
    _F(1.1676998740e-1),
    _F(-1.2420140846e-1),
    _F(1.4249322787e-1),
    _F(-1.6668057665e-1),
    _F(2.0000714765e-1),
    _F(-2.4999993993e-1),
    _F(3.3333331174e-1),
]
# log(2) split in two, so that e * log(2) keeps its precision.
_LN2_LOW, _LN2_HIGH = _F(-2.12194440e-4), _F(0.693359375)

_FOUR_OVER_PI = _F(1.27323954473516)
# pi / 4 split in three, for the argument reduction.
_PI4_PARTS = [_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8)]
_SIN_P = [_F(-1.9515295891e-4), _F(8.3321608736e-3), _F(-1.6666654611e-1)]
_COS_P = [_F(2.443315711809948e-005), _F(-1.388731625493765e-003), _F(4.166664568298827e-002)]


def _fused(a: np.ndarray, b: np.floating | np.ndarray, c: np.floating | np.ndarray) -> np.ndarray:
    """a * b + c in float32 rounded once, as a fused multiply-add does.

    The float32 product is exact in float64; the sum then rounds twice (to float64, then
    to float32), which differs from one rounding only in vanishingly rare ties.
    """
    exact = a.astype(np.float64) * np.float64(b) if np.ndim(b) == 0 else a * b.astype(np.float64)
    return (exact + np.asarray(c, np.float64)).astype(_F)


def log(x: np.ndarray) -> np.ndarray:
    """Natural log of positive, normal float32 values."""
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 127).astype(_F) + _F(1)
    mantissa = ((bits & ~_EXPONENT_BITS) | _HALF_BITS).view(_F)  # in [0.5, 1)
    small = mantissa < _SQRT_HALF
    # Keep the reduced argument in [sqrt(1/2) - 1, sqrt(2) - 1]: below sqrt(1/2), double it.
    exponent = exponent - np.where(small, _F(1), _F(0))
    t = (mantissa - _F(1)) + np.where(small, mantissa, _F(0))
    t_squared = t * t
    poly = np.full_like(t, _LOG_P[0])
    for coefficient in _LOG_P[1:]:
        poly = _fused(poly, t, coefficient)
    poly = _fused(poly * t, t_squared, exponent * _LN2_LOW)
    poly = poly - t_squared * _F(0.5)
    return (t + poly) + exponent * _LN2_HIGH


def sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sine and cosine of float32 values (accurate for |x| up to a few thousand)."""
    negative = np.signbit(x)
    x = np.abs(x)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)  # truncates, as the conversion does
    octant = (octant + 1) & ~np.int32(1)
    y = octant.astype(_F)
    for part in _PI4_PARTS:
        x = _fused(y, part, x)
    sin_flips = negative ^ ((octant & 4) != 0)
    cos_flips = (~(octant - 2) & 4) != 0
    near_zero = (octant & 2) == 0  # the sine polynomial gives the sine here, else the cosine

    z = x * x
    cos_poly = np.full_like(x, _COS_P[0])
    for coefficient in _COS_P[1:]:
        cos_poly = _fused(cos_poly, z, coefficient)
    cos_poly = _fused(cos_poly * z, z, -(z * _F(0.5))) + _F(1)
    sin_poly = np.full_like(x, _SIN_P[0])
    for coefficient in _SIN_P[1:]:
        sin_poly = _fused(sin_poly, z, coefficient)
    sin_poly = _fused(sin_poly * z, x, x)

    sin = np.where(near_zero, sin_poly, cos_poly)
    cos = np.where(near_zero, cos_poly, sin_poly)
    return np.where(sin_flips, -sin, sin), np.where(cos_flips, -cos, cos)
