"""Floating-point arithmetic rounded as PyTorch's CPU kernels round it.

PyTorch's samplers are C++ compiled for the vector units: a multiply followed by an
add becomes one fused multiply-add (rounded once, not twice), float32 log, sine and
cosine come from polynomial approximations rather than the C library, and float64
ones from the C library rather than NumPy's own vectorised routines. NumPy has none
of these as such, so this module builds them from exact float64 pieces. It sits
below Tensor and knows only arrays.
"""

from __future__ import annotations

import functools
import math
import operator
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

# --- a * b + c rounded once -----------------------------------------------------------------
#
# Note: how `fma` stays exact at NumPy speed. A few plain NumPy passes over a slice of
# the elements give each one's result and mark the elements where that result may not
# be the fused one; only the marked ones are then fused exactly, by many more passes.
# Numbers stay NumPy scalars, never broadcast. Slices: the plain passes write into
# buffers made once per call, so their slices can be large (fewer calls); the exact
# ones make temporaries: float64's dozens of them stay under the C library's 128 KiB
# threshold (above it, until a larger array has been freed, each one is mapped from
# the OS and given back, paying for every page: five times the arithmetic), while the
# narrow kernel's few gain more from fewer calls. Sizes measured on W2's update and on
# dense data.

_BRACKET_SLICE_BYTES = 2**18
_EXACT_SLICE = {np.dtype(np.float64): 2**13}  # elements; float32 and float16: _NARROW_SLICE
_NARROW_SLICE = 2**15


def fma(a: Any, b: Any, c: Any, dtype: Any = None) -> np.ndarray:
    """a * b + c rounded once, as a fused multiply-add does, in `dtype` (default: a's).

    Exact for every input, as the hardware instruction is (inf and nan included, nan
    payloads aside).
    """
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dt = a.dtype if dtype is None else np.dtype(dtype)
    if dt == np.float64:
        a, b, c = np.asarray(a, dt), np.asarray(b, dt), np.asarray(c, dt)
    if a.shape == c.shape and b.ndim == 0:  # the common case, without NumPy's Python helpers
        shape = a.shape
    else:
        shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    out = np.empty(shape, dt)
    a, b, c = _flat(a, shape), _flat(b, shape), _flat(c, shape)
    exact = _fused_float64 if dt == np.float64 else functools.partial(_fused_narrow, dt=dt)
    with np.errstate(all="ignore"):  # PyTorch's kernels overflow and make nan silently
        if dt in (np.float32, np.float64) and a.dtype == b.dtype == c.dtype == dt:
            _fused_bracketed(a, b, c, out.reshape(-1), exact)
        else:  # float16, and operands of another type: through float64
            _sliced(exact, a, b, c, out.reshape(-1))
    return out


def _flat(x: np.ndarray, shape: tuple[int, ...]) -> Any:
    """An operand as `fma`'s kernels take it: a NumPy scalar, or a flat array of `shape`."""
    if x.ndim == 0:
        return x[()]
    return (x if x.shape == shape else np.broadcast_to(x, shape)).reshape(-1)


def _take(x: Any, where: Any) -> Any:
    """The elements `where` of a flat operand (a scalar stands for all of them)."""
    return x if x.ndim == 0 else x[where]


def _sliced(exact: Any, a: Any, b: Any, c: Any, out: np.ndarray) -> None:
    """`exact(a, b, c, out)` over slices of `out`'s dtype's exact slice size."""
    step = _EXACT_SLICE.get(out.dtype, _NARROW_SLICE)
    for start in range(0, out.size, step):
        part = slice(start, start + step)
        exact(_take(a, part), _take(b, part), _take(c, part), out[part])


def _fused_bracketed(a: Any, b: Any, c: Any, out: np.ndarray, exact: Any) -> None:
    """`fma` for flat float32 or float64 operands of `out`'s dtype: NumPy's plain sums,
    checked, and `exact` where the check fails.

    Why the check is sound. Let p = fl(a * b), p+ its neighbour away from zero (its bits
    plus one) and p- = 2p - (p+), computed exactly (p - (p+) is exact as they are so
    close, and p- is a float: the neighbour toward zero, or for a power of two p the one
    beyond it). a * b lies between p- and p+: rounding moved it less than a step
    (a step down from a power of two is half a step up, so even then); for p = +-0,
    a * b is 0 or too small to show with p's sign, and p+ is the smallest subnormal of
    that sign, p- of the other; an infinite p (an overflow or an infinite factor) or a
    nan makes p+ a nan, and the element is marked below. So c + a * b lies between
    c + p- and c + p+, and rounding to nearest is monotone: the fused result lies
    between fl(c + p-) and fl(c + p+), NumPy's two sums. Where they are equal (same
    bits: two zeros cannot both be, as p- != p+), it is that value; only where they
    differ is the element marked. That is where c + a * b is within a step of p from a
    rounding boundary: rare when |p| is far below |c| (an optimizer's small step added
    to a parameter), common when not; a slice with many marks is fused whole, and so
    are the later ones (data like that rarely changes within an array).
    """
    step = _BRACKET_SLICE_BYTES // out.itemsize
    width = min(out.size, step)
    product, other = np.empty(width, out.dtype), np.empty(width, out.dtype)
    ints = np.dtype(f"i{out.itemsize}")
    product_bits, other_bits, one = product.view(ints), other.view(ints), ints.type(1)
    marks = np.empty(width, bool)
    left, bracketing = [], True
    for start in range(0, out.size, step):
        part = slice(start, start + step)
        x, y, z, o = _take(a, part), _take(b, part), _take(c, part), out[part]
        if not bracketing:
            _sliced(exact, x, y, z, o)
            continue
        n = o.shape[0]
        p, q, m = product[:n], other[:n], marks[:n]
        np.multiply(x, y, out=p)
        np.add(product_bits[:n], one, out=other_bits[:n])
        np.add(z, q, out=o)
        np.subtract(p, q, out=q)  # minus the step, exactly
        np.add(p, q, out=q)  # the neighbour on the other side
        np.add(z, q, out=q)
        np.not_equal(o, q, out=m)  # a nan (from inf or nan) is marked too
        marked = np.flatnonzero(m)
        if marked.size > n // 8:  # gathering them would cost more than fusing all
            _sliced(exact, x, y, z, o)
            bracketing = False
        elif marked.size:
            left.append(marked + start)
    if left:  # the few elements the slices marked, fused together
        where = np.concatenate(left)
        fused = np.empty(where.size, out.dtype)
        _sliced(exact, _take(a, where), _take(b, where), _take(c, where), fused)
        out[where] = fused


def _fused_narrow(a: Any, b: Any, c: Any, out: np.ndarray, *, dt: np.dtype) -> None:
    """a * b + c rounded once to float32 or float16, through float64.

    The product of two such values is exact in float64, so the float64 sum is the exact
    sum v rounded once. Rounding that to `dt` gives v rounded to `dt` except where it
    is exactly halfway between two values of `dt`: every such midpoint is a float64, and
    rounding is monotone, so no other v can cross one; on a midpoint itself the tie may
    go the wrong way. The low bits show the midpoints of normal values; among the
    subnormals of `dt` (fewer bits) they have other low bits, so every sum up to the
    smallest normal value (where rounding up from them lands) is redone too, from the
    exact sum rounded to odd (a float64 with at least two bits more than `dt`, which
    rounds to the nearest `dt` value as the exact sum does). Operands of a wider type
    count with their product rounded to float64.
    """
    total = np.multiply(a, b, dtype=np.float64)
    total += c
    np.copyto(out, total, casting="unsafe")
    spare = 52 - int(np.finfo(dt).nmant)  # the float64 mantissa bits `dt` has not
    redo = (total.view(np.int64) & np.int64(2**spare - 1)) == np.int64(2 ** (spare - 1))
    smallest = np.finfo(dt).smallest_normal
    tiny = np.abs(out) <= smallest
    if tiny.any():  # the subnormals' halfway points, but not the exact zeros
        redo |= tiny & (total != 0)
    if redo.any():
        marked = np.flatnonzero(redo)
        product = np.multiply(_take(a, marked), _take(b, marked), dtype=np.float64)
        out[marked] = _sum_rounded_to_odd(product, np.asarray(_take(c, marked), np.float64))


# --- exact float64 fused multiply-add ---------------------------------------------------

# Splits a float64 into two halves whose products are exact (Dekker's trick).
_SPLITTER = np.float64(2**27 + 1)
# Where Dekker's product, Knuth's sum and rounding to odd are exact: no split overflows
# (|a|, |b| <= _SPLIT_LIMIT), no sum does (|c|, |a * b| <= _SUM_LIMIT), and nothing falls
# below the subnormals: the partial products are multiples of ulp(a) ulp(b), at least
# |a * b| 2**-106 >= 2**-1021 when |a * b| >= _PRODUCT_LOW, and so is any nonzero result.
_SPLIT_LIMIT, _PRODUCT_LOW, _SUM_LIMIT = 2.0**995, 2.0**-915, 2.0**1020


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a + b as a rounded sum and its exact rounding error (Knuth)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b as a rounded product and its exact rounding error (Dekker)."""
    product = a * b
    (a_high, a_low), (b_high, b_low) = _split(a), _split(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def _sum_rounded_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded to odd: exact if representable, else the neighbour with an odd last bit.

    Rounding to odd first and to nearest after gives the same result as rounding the
    exact value to nearest once, which is what makes the fused operations here exact.
    """
    total, error = _two_sum(a, b)
    bits = total.view(np.int64)
    inexact = (error != 0).astype(np.int64)
    # An inexact sum steps to its odd neighbour on the exact value's side: one down in
    # the bits (toward zero) when the error's sign is not the sum's, then the last bit
    # set. An odd sum stays put either way, an even one moves one step.
    toward_zero = ((error.view(np.int64) ^ bits) >> 63) & -inexact
    return ((bits + toward_zero) | inexact).view(np.float64)


def _fused_float64(a: Any, b: Any, c: Any, out: np.ndarray) -> None:
    """a * b + c rounded once, for float64 operands (1-d or 0-d): Boldo and Melquiond's
    emulation (an exact product and sum, the small parts rounded to odd) where it is
    exact, `_outside_emulation` elsewhere."""
    high, low = _two_product(a, b)
    total, error = _two_sum(c, high)
    np.add(total, _sum_rounded_to_odd(error, low), out=out)
    # Where the emulation is exact: |a * b| within its bounds, |c|, |a| and |b| below theirs.
    bounds = [
        (high, _PRODUCT_LOW, _SUM_LIMIT),
        (c, 0, _SUM_LIMIT),
        (a, 0, _SPLIT_LIMIT),
        (b, 0, _SPLIT_LIMIT),
    ]
    if not all(_within(x, least, most, each=False) for x, least, most in bounds):
        emulated = functools.reduce(operator.and_, (_within(*bound, each=True) for bound in bounds))
        _outside_emulation(~emulated, a, b, c, high, total, out)


def _within(x: Any, low: float, high: float, each: bool) -> Any:
    """Whether low <= |x| <= high: for `each` element, or for all (by the extremes)."""
    size = np.abs(x)
    if each:
        return (low <= size) & (size <= high)
    return bool(low <= size.min() and size.max() <= high)


# Where |a * b| < _PRODUCT_LOW and |c| is at least this, a * b is under a quarter of c's
# last bit (2**-912 or more), so c + a * b rounds to c, as the plain sum does.
_NEGLIGIBLE_UNDER = 2.0**-860


def _outside_emulation(
    where: Any, a: Any, b: Any, c: Any, product: Any, total: Any, out: np.ndarray
) -> None:
    """Fuse the elements `where` the emulation may be wrong: where the product is exact
    (a zero, inf or nan factor) or negligible the plain sum is right, where c is inf or
    nan and the product finite c is, and the few others have extreme magnitudes and go
    through Python's integers."""
    a, b, c, product, total, where = (
        np.broadcast_to(x, out.shape).reshape(-1) for x in (a, b, c, product, total, where)
    )
    flat_out = out.reshape(-1)
    finite = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    plain = ~finite | ((np.abs(product) < _PRODUCT_LOW) & (np.abs(c) >= _NEGLIGIBLE_UNDER))
    np.copyto(flat_out, total, where=where & plain)
    keep_c = finite & ~np.isfinite(c)
    np.copyto(flat_out, c, where=where & keep_c)
    for i in np.flatnonzero(where & ~plain & ~keep_c).tolist():
        flat_out[i] = _fused_exactly(float(a[i]), float(b[i]), float(c[i]))


def _fused_exactly(a: float, b: float, c: float) -> float:
    """a * b + c for finite a, b, c, by Python's integers: its division of two integers
    rounds once, to nearest (ties to even), with the sign of a result that underflows."""
    (a_top, a_bottom), (b_top, b_bottom), (c_top, c_bottom) = (
        a.as_integer_ratio(),
        b.as_integer_ratio(),
        c.as_integer_ratio(),
    )
    top = a_top * b_top * c_bottom + c_top * a_bottom * b_bottom
    if top == 0:
        return 0.0  # a product cancelled by c: +0.0, as IEEE 754 makes every exact zero sum
    try:
        return top / (a_bottom * b_bottom * c_bottom)
    except OverflowError:
        return math.inf if top > 0 else -math.inf


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
