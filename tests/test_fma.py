"""The fused multiply-add, chainrule._float_math.fma: a * b + c rounded once, as PyTorch's
CPU kernels compute it (its `add(alpha=)`, `addcmul`, `lerp` and optimizers' updates).

Checked against exact fractions (hypothesis, ties made on purpose, recorded cases),
against the exact emulation run on every element (millions of them, which tests the
marking that lets `fma` skip it), and against PyTorch itself.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chainrule import _float_math as fm

FLOATS = [np.dtype(np.float32), np.dtype(np.float64)]


def _round_fraction(value: Fraction, dtype: np.dtype) -> float:
    """`value` rounded to the nearest `dtype` value, ties to even (subnormals, overflow)."""
    info = np.finfo(dtype)
    digits, lowest, highest = int(info.nmant), int(info.minexp), int(info.maxexp) - 1
    size = abs(value)
    exponent = size.numerator.bit_length() - size.denominator.bit_length()
    if Fraction(2) ** exponent > size:
        exponent -= 1
    quantum = Fraction(2) ** (max(exponent, lowest) - digits)
    steps, rest = divmod(size, quantum)
    if 2 * rest > quantum or (2 * rest == quantum and steps % 2 == 1):
        steps += 1
    rounded = steps * quantum
    sign = -1.0 if value < 0 else 1.0
    if rounded >= Fraction(2) ** (highest + 1):
        return sign * math.inf
    return math.copysign(float(rounded), sign)


def _reference(a: float, b: float, c: float, dtype: np.dtype) -> float:
    """a * b + c rounded once to `dtype`, by IEEE 754's rules for fma."""
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        return c + a * b  # an exact (or infinite, or nan) product: the sum rounds once
    if not math.isfinite(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    return 0.0 if exact == 0 else _round_fraction(exact, dtype)


def reference(a: Any, b: Any, c: Any, dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype) for x in (a, b, c)))
    flat = zip(a.ravel().tolist(), b.ravel().tolist(), c.ravel().tolist(), strict=True)
    values = [_reference(x, y, z, dtype) for x, y, z in flat]
    return np.array(values, dtype).reshape(a.shape)


def assert_same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal to the bit (so -0.0 is not 0.0), any nan matching any nan."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    ints = f"i{got.dtype.itemsize}"
    same = (got.view(ints) == expected.view(ints)) | (np.isnan(got) & np.isnan(expected))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, f"{bad.size} differ, first at {bad[:3]}: {got.flat[bad[0]]!r}"


def random_floats(rng: np.random.Generator, n: int, dtype: Any, low: int, high: int) -> np.ndarray:
    """`n` values of random sign and mantissa, exponents uniform in [low, high)."""
    mantissas = rng.random(n) + 1
    values = np.ldexp(mantissas, rng.integers(low, high, n)) * rng.choice([-1.0, 1.0], n)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def with_specials(rng: np.random.Generator, values: np.ndarray, share: float) -> np.ndarray:
    """`values` with a `share` of them replaced by zeros, infinities, nan and extremes."""
    info = np.finfo(values.dtype)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.smallest_normal]
    specials += [info.smallest_subnormal, -info.smallest_subnormal]
    where = rng.random(values.size) < share
    values[where] = rng.choice(np.array(specials, values.dtype), int(where.sum()))
    return values


# Exponent ranges for random operands, with how many elements to draw from each: everyday
# sizes and every size, then the subnormals and the edge of overflow (fewer: there most
# elements are fused one at a time, by Python's integers).
def exponent_ranges(dtype: np.dtype, many: int) -> list[tuple[int, int, int]]:
    info = np.finfo(dtype)
    lowest, highest = int(info.minexp) - int(info.nmant), int(info.maxexp)
    few = many // 20
    return [
        (-30, 30, many),
        (lowest, highest, many),
        (lowest, lowest + 80, few),
        (highest - 80, highest, few),
    ]


def exactly(dtype: np.dtype) -> Any:
    """The exact emulation `fma` falls back on, run on every element."""
    if dtype == np.float64:
        return fm._fused_float64
    return functools.partial(fm._fused_narrow, dt=dtype)


# --- against exact fractions ---------------------------------------------------------------


@st.composite
def operands(draw: st.DrawFn) -> tuple[np.ndarray, Any, np.ndarray, np.dtype]:
    dtype = draw(st.sampled_from(FLOATS))
    width = 8 * dtype.itemsize
    floats = st.floats(width=width)  # subnormals, infinities, nan and both zeros included
    column = st.lists(floats, min_size=1, max_size=30)
    a = np.array(draw(column), dtype)
    c = np.array(draw(st.lists(floats, min_size=a.size, max_size=a.size)), dtype)
    scalar = draw(st.booleans())
    b = (
        np.asarray(draw(floats), dtype)
        if scalar
        else np.array(draw(st.lists(floats, min_size=a.size, max_size=a.size)), dtype)
    )
    return a, b, c, dtype


@given(operands())
def test_fma_rounds_once_as_ieee_says(case: tuple[np.ndarray, Any, np.ndarray, np.dtype]) -> None:
    a, b, c, dtype = case
    assert_same_bits(fm.fma(a, b, c), reference(a, b, c, dtype))


@given(operands())
def test_fma_in_tiny_slices_rounds_once_too(
    case: tuple[np.ndarray, Any, np.ndarray, np.dtype],
) -> None:
    # Slices of a few elements: every way a slice can end (clean, a few marked, most
    # marked, fused whole from then on) meets every other in one small array.
    a, b, c, dtype = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fm, "_BRACKET_SLICE_BYTES", 4 * dtype.itemsize)
        patch.setattr(fm, "_EXACT_SLICE", {np.dtype(np.float64): 3})
        patch.setattr(fm, "_NARROW_SLICE", 3)
        got = fm.fma(a, b, c)
    assert_same_bits(got, reference(a, b, c, dtype))


def tie_cases(rng: np.random.Generator, n: int, dtype: np.dtype) -> tuple[np.ndarray, ...]:
    """Operands where c + fl(a * b) lands exactly halfway between two neighbours, so that
    the product's rounding error alone decides the fused result.

    With p = fl(a * b) = P * u (P an integer of the type's precision) and c = C * u of
    the same sign and binade, c + p = (C + P) u lies in the next binade, where the values
    are 2u apart: an odd C + P puts it halfway.
    """
    digits = int(np.finfo(dtype).nmant)
    a = random_floats(rng, n, dtype, -20, 20)
    b = random_floats(rng, n, dtype, -20, 20)
    p = a * b
    mantissa, exponent = np.frexp(p)  # p = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    units = np.abs(np.ldexp(mantissa, digits + 1)).astype(np.int64)  # P
    c_units = rng.integers(2**digits, 2 ** (digits + 1), n, dtype=np.int64)
    c_units += (c_units + units + 1) % 2  # C + P odd
    c = (np.sign(p) * np.ldexp(c_units.astype(np.float64), exponent - digits - 1)).astype(dtype)
    return a, b, c


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_ties_made_on_purpose_go_the_product_errors_way(dtype: np.dtype) -> None:
    rng = np.random.default_rng(15)
    a, b, c = tie_cases(rng, 4000, dtype)
    plain = c + a * b
    expected = reference(a, b, c, dtype)
    assert (plain != expected).mean() > 0.25  # rounding twice gets these wrong often
    assert_same_bits(fm.fma(a, b, c), expected)
    scalar = b[:1].reshape(())
    assert_same_bits(fm.fma(a, scalar, c), reference(a, scalar, c, dtype))


# Each found where fma was once wrong, or an edge IEEE 754 settles: (a, b, c, result).
RECORDED = {
    # float32 among the subnormals: exactly below a halfway point there, whose low bits
    # are not the ones a normal float32's halfway point has.
    "float32 subnormal": (
        np.float32,
        ((1 + 2**-23) * 2**-24, (1 - 2**-23) * 2**-126, (2**23 - 1) * 2.0**-149),
        (2**23 - 1) * 2.0**-149,
    ),
    # float64: the product overflows, c brings the sum back below the largest float64.
    "float64 product past the largest": (
        np.float64,
        (2.0**1000, 1.5 * 2**23, -np.finfo(np.float64).max),
        -(2.0**1022) + 2.0**971,
    ),
    "float64 finite product of -inf": (np.float64, (2.0**1000, 2.0**100, -np.inf), -np.inf),
    # A product of half the smallest subnormal breaks a tie the plain sum settles by evenness.
    "float64 product below the subnormals": (
        np.float64,
        (2.0**-600, 2.0**-475, 2.0**-1022 + 2.0**-1074),
        2.0**-1022 + 2.0**-1073,
    ),
    # A negative product too small to show keeps its sign: -0.0, where the sum gives 0.0.
    "float64 negative underflow": (np.float64, (2.0**-600, -(2.0**-500), 0.0), -0.0),
    "float64 sum of negative zeros": (np.float64, (-0.0, 1.0, -0.0), -0.0),
    "float64 cancelling all but the product's error": (np.float64, (3.0, 1 / 3, -1.0), -(2.0**-54)),
    "float64 inf times zero": (np.float64, (np.inf, 0.0, 1.0), np.nan),
}


@pytest.mark.parametrize("case", RECORDED.values(), ids=list(RECORDED))
def test_recorded_cases(case: tuple[Any, tuple[float, float, float], float]) -> None:
    dtype, (a, b, c), result = case
    expected = np.array([result], dtype)
    operands = [np.array([x], dtype) for x in (a, b, c)]
    assert_same_bits(fm.fma(*operands), expected)
    assert_same_bits(reference(*operands, dtype), expected)


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64], ids=["float16", "float32", "float64"]
)
def test_every_magnitude_rounds_once(dtype: Any) -> None:
    rng = np.random.default_rng(3)
    dtype = np.dtype(dtype)
    for low, high, _ in exponent_ranges(dtype, 0):
        a, b, c = (
            with_specials(rng, random_floats(rng, 3000, dtype, low, high), 0.02) for _ in "abc"
        )
        assert_same_bits(fm.fma(a, b, c), reference(a, b, c, dtype))


# --- against the exact emulation on every element ------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_marking_misses_no_element(dtype: np.dtype) -> None:
    # `fma` emulates only the elements it marks; run on all, the emulation must agree.
    rng = np.random.default_rng(7)
    for low, high, n in [*exponent_ranges(dtype, 500_000), (-3, 3, 500_000)]:
        for spread in (0, 12, 40):  # how far below c's size a * b lies
            a = random_floats(rng, n, dtype, low, high)
            c = random_floats(rng, n, dtype, low, high)
            c = with_specials(rng, c, 0.001)
            b = np.asarray(random_floats(rng, 1, dtype, -spread - 1, -spread)[0])
            expected = np.empty(n, dtype)
            with np.errstate(all="ignore"):
                exactly(dtype)(a, b, c, expected)
            assert_same_bits(fm.fma(a, b, c), expected)


def test_an_optimizers_step_marks_few_elements() -> None:
    # p - 0.01 g with |g| far below |p|: the plain sums stand almost everywhere.
    rng = np.random.default_rng(0)
    for dtype in FLOATS:
        p = rng.uniform(-0.05, 0.05, 100_000).astype(dtype)
        g = (rng.standard_normal(100_000) * 1e-3).astype(dtype)
        step = np.asarray(-0.01, dtype)
        expected = np.empty_like(p)
        exactly(dtype)(g, step, p, expected)
        assert_same_bits(fm.fma(g, step, p), expected)
        assert (expected != p + step * g).any()  # rounding twice is wrong somewhere


# --- shapes and types -------------------------------------------------------------------------


def test_shapes_broadcast_and_numbers_stay_numbers() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1))
    b = rng.standard_normal((1, 4))
    c = rng.standard_normal(4)
    assert_same_bits(fm.fma(a, b, c), reference(a, b, c, np.float64))
    assert fm.fma(np.float64(2), 3.0, 1.0).shape == ()
    assert fm.fma(np.empty((0, 2)), 1.0, 1.0).shape == (0, 2)
    strided = rng.standard_normal((5, 6))[:, ::2]
    assert_same_bits(
        fm.fma(strided, 0.5, strided[0]), reference(strided, 0.5, strided[0], np.float64)
    )


def test_dtype_decides_the_rounding() -> None:
    a = np.array([1 + 2**-23], np.float32)
    # float32 from float32 operands; float64 from the same ones, exactly.
    assert fm.fma(a, a[0], np.float32(-1)).dtype == np.float32
    wide = fm.fma(a, a[0], np.float32(-1), np.float64)
    assert wide.dtype == np.float64 and wide[0] == 2**-22 + 2**-46
    # An operand of another type counts at its own precision (here float64's).
    assert fm.fma(a, 1 + 2**-40, np.float32(-1))[0] == np.float32(2**-23 + 2**-40)


# --- against PyTorch ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_matches_torch_add_with_alpha_and_addcmul(torch: Any, dtype: np.dtype) -> None:
    rng = np.random.default_rng(2024)
    for low, high, n in exponent_ranges(dtype, 250_000):
        for trial in range(3):
            a = with_specials(rng, random_floats(rng, n, dtype, low, high), 0.01 * trial)
            c = with_specials(rng, random_floats(rng, n, dtype, low, high), 0.01 * trial)
            b = random_floats(rng, n, dtype, low, high)
            alpha = b[:1].reshape(())
            ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
            assert_same_bits(fm.fma(a, alpha, c), torch.add(tc, ta, alpha=float(alpha)).numpy())
            assert_same_bits(fm.fma(a, b, c), torch.addcmul(tc, ta, tb).numpy())


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_ties_match_torch(torch: Any, dtype: np.dtype) -> None:
    a, b, c = tie_cases(np.random.default_rng(16), 20_000, dtype)
    ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
    assert_same_bits(fm.fma(a, b, c), torch.addcmul(tc, ta, tb).numpy())
