"""Floating-point arithmetic rounded as PyTorch's CPU kernels round it.

PyTorch's samplers are C++ compiled for the vector units: a multiply followed by an
add becomes one fused multiply-add (rounded once, not twice), float32 log, sine and
cosine come from polynomial approximations rather than the C library, and float64
ones from the C library rather than NumPy's own vectorised routines. NumPy has none
of these as such, so this module builds them from exact float64 pieces. It sits
below Tensor and knows only arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "cos",
    "exp",
    "fma",
    "fma_float32_grid",
    "libm",
    "log",
    "log1p",
    "log_float32",
    "sin",
    "sincos_float32",
    "tan",
]

# Splits a float64 into two halves whose products are exact (Dekker's trick).
_SPLITTER = np.float64(2**27 + 1)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a + b as a rounded sum and its exact rounding error (Knuth)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b as a rounded product and its exact rounding error (Dekker)."""
    product = a * b
    scaled = _SPLITTER * a
    a_high = scaled - (scaled - a)
    a_low = a - a_high
    scaled = _SPLITTER * b
    b_high = scaled - (scaled - b)
    b_low = b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def _sum_rounded_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded to odd: exact if representable, else the neighbour with an odd last bit.

    Rounding to odd first and to nearest after gives the same result as rounding the
    exact value to nearest once, which is what makes the fused operations below exact.
    """
    total, error = _two_sum(a, b)
    bits = total.view(np.int64)
    # An inexact sum with an even last bit moves one step toward the exact value: one up
    # in the integer that holds the float's bits when that grows its magnitude in the
    # error's direction, one down otherwise (the sum is never zero when inexact).
    step = ((error != 0) & ((bits & 1) == 0)).view(np.int8).astype(np.int64)
    step[(error < 0) != (total < 0)] *= -1
    return (bits + step).view(np.float64)


# A float64 whose low 29 mantissa bits read 1 followed by zeros lies halfway between two
# float32 values: only there can rounding to float64 first change the float32 result.
_BELOW_FLOAT32 = np.int64(2**29 - 1)
_FLOAT32_HALFWAY = np.int64(2**28)
# Large arrays are fused in slices that stay in the CPU's cache.
_SLICE = 2**15


def fma(a: Any, b: Any, c: Any, dtype: Any = None) -> np.ndarray:
    """a * b + c rounded once, as a fused multiply-add does, in `dtype` (default: a's).

    float32 and float16 products are exact in float64, so the sum needs care only when
    it lands halfway between two values of the narrow type; float64 uses Boldo and
    Melquiond's emulation (an exact product and sum, the small parts rounded to odd).
    """
    a = np.asarray(a)
    dt = np.dtype(dtype if dtype is not None else a.dtype)
    shape = np.broadcast_shapes(a.shape, np.shape(b), np.shape(c))
    if math.prod(shape) <= _SLICE:
        return _fma(a, b, c, dt)
    a, b, c = np.broadcast_arrays(a, b, c)
    out = np.empty(shape, dt)
    flat = [x.reshape(-1) for x in (a, b, c, out)]
    for start in range(0, out.size, _SLICE):
        part = slice(start, start + _SLICE)
        flat[3][part] = _fma(flat[0][part], flat[1][part], flat[2][part], dt)
    return out


def _fma(a: Any, b: Any, c: Any, dt: np.dtype) -> np.ndarray:
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    # At least 1-d: 0-d arrays cannot be indexed by masks.
    a, b, c = np.broadcast_arrays(*(np.atleast_1d(x) for x in (a, b, c)))
    if dt == np.float64:
        return _fma_float64(a.astype(np.float64, copy=False), b, c).reshape(shape)
    total = np.add(np.multiply(a, b, dtype=np.float64), c, dtype=np.float64)
    spare = 52 - int(np.finfo(dt).nmant)  # the float64 bits the narrow type has not
    halfway = (total.view(np.int64) & np.int64(2**spare - 1)) == np.int64(2 ** (spare - 1))
    if halfway.any():
        product, wide_c = np.broadcast_arrays(np.multiply(a, b, dtype=np.float64), c)
        total[halfway] = _sum_rounded_to_odd(product[halfway], wide_c[halfway].astype(np.float64))
    return total.astype(dt).reshape(shape)


def _fma_float64(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    wide_b, wide_c = np.asarray(b, np.float64), np.asarray(c, np.float64)
    high, low = _two_product(a, wide_b)
    total, error = _two_sum(np.broadcast_to(wide_c, high.shape), high)
    fused = total + _sum_rounded_to_odd(error, low)
    # Where splitting overflows or meets inf or nan, and for a sum of zeros (-0.0 + -0.0
    # is -0.0), the plain sum is the fused one.
    plain = ~np.isfinite(fused) | ((high == 0) & (wide_c == 0))
    return np.where(plain, total, fused) if plain.any() else fused


def fma_float32_grid(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """`fma` for float32 without the halfway check: the float64 sum rounded to float32.

    Exact wherever the float64 sum never lands halfway between two float32 values
    unless it is exact. That holds for every step of `log_float32` and `sincos_float32`
    on the inputs the normal sampler gives them (1 - u and 2 pi u for each of the 2**24
    float32 uniforms u): tests/test_float_math.py checks all of them.
    """
    total = np.multiply(a, b, dtype=np.float64)
    total += c
    return total.astype(np.float32)


def libm(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """`fn` (one of `math`'s, which call the C library) applied to each float64 element."""

    def apply(values: np.ndarray) -> np.ndarray:
        flat = np.fromiter(map(fn, values.ravel().tolist()), np.float64, values.size)
        return flat.reshape(values.shape)

    return apply


log1p, log, exp, tan = libm(math.log1p), libm(math.log), libm(math.exp), libm(math.tan)
cos, sin = libm(math.cos), libm(math.sin)


# --- float32 log, sine and cosine as PyTorch's vectorised normal sampler computes them ---
#
# PyTorch fills float32 normal tensors of 16 or more elements with Cephes-style polynomial
# approximations in single precision (Julien Pommier's SSE/AVX math functions), not the C
# library's. Each step below is one float32 operation rounded as the vector instruction
# rounds it, and where the compiler fuses a multiply and an add into one instruction
# (rounded once), so do we; NumPy's own float32 log, sin and cos differ in the last bits.

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


def log_float32(x: np.ndarray) -> np.ndarray:
    """Natural log of positive, normal float32 values (exact to PyTorch's vectorised log on
    the normal sampler's inputs; see `fma_float32_grid`)."""
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 127).astype(_F) + _F(1)
    mantissa = ((bits & ~_EXPONENT_BITS) | _HALF_BITS).view(_F)  # in [0.5, 1)
    small = mantissa < _SQRT_HALF
    # Keep the reduced argument in [sqrt(1/2) - 1, sqrt(2) - 1]: below sqrt(1/2), double it.
    exponent = exponent - small.astype(_F)
    t = (mantissa - _F(1)) + mantissa * small
    t_squared = t * t
    poly = fma_float32_grid(t, _LOG_P[0], _LOG_P[1])
    for coefficient in _LOG_P[2:]:
        poly = fma_float32_grid(poly, t, coefficient)
    poly = fma_float32_grid(poly * t, t_squared, exponent * _LN2_LOW)
    poly = poly - t_squared * _F(0.5)
    return (t + poly) + exponent * _LN2_HIGH


def sincos_float32(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sine and cosine of float32 values (accurate for |x| up to a few thousand; exact to
    PyTorch's vectorised sincos on the normal sampler's inputs, see `fma_float32_grid`)."""
    negative = np.signbit(x)
    x = np.abs(x)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)  # truncates, as the conversion does
    octant = (octant + 1) & ~np.int32(1)
    y = octant.astype(_F)
    for part in _PI4_PARTS:
        x = fma_float32_grid(y, part, x)
    sin_flips = negative ^ ((octant & 4) != 0)
    cos_flips = (~(octant - 2) & 4) != 0
    near_zero = (octant & 2) == 0  # the sine polynomial gives the sine here, else the cosine

    z = x * x
    cos_poly = fma_float32_grid(z, _COS_P[0], _COS_P[1])
    for coefficient in _COS_P[2:]:
        cos_poly = fma_float32_grid(cos_poly, z, coefficient)
    cos_poly = fma_float32_grid(cos_poly * z, z, -(z * _F(0.5))) + _F(1)
    sin_poly = fma_float32_grid(z, _SIN_P[0], _SIN_P[1])
    for coefficient in _SIN_P[2:]:
        sin_poly = fma_float32_grid(sin_poly, z, coefficient)
    sin_poly = fma_float32_grid(sin_poly * z, x, x)

    return _pick(near_zero, sin_poly, cos_poly, sin_flips), _pick(
        near_zero, cos_poly, sin_poly, cos_flips
    )


def _pick(
    condition: np.ndarray, if_true: np.ndarray, if_false: np.ndarray, negate: np.ndarray
) -> np.ndarray:
    """`where(condition, if_true, if_false)`, negated where `negate`, by bit operations
    (NumPy's masked selections are several times slower than these)."""
    true_bits = -condition.astype(np.int32)  # all ones where true
    bits = (if_true.view(np.int32) & true_bits) | (if_false.view(np.int32) & ~true_bits)
    return (bits ^ (negate.astype(np.int32) << 31)).view(_F)
