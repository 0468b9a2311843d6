"""PyTorch's compiled rounding, reproduced on NumPy arrays (chainrule._float_math)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chainrule import _float_math as fm


def _exact_fma(a: float, b: float, c: float, dtype: Any) -> Any:
    """a * b + c computed exactly, then rounded once to `dtype`."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if dtype == np.float64:
        return np.float64(float(exact))  # Python rounds a Fraction correctly
    # Round to float32 once: float() may round to a float64 that sits halfway, so compare
    # the two float32 neighbours of that float64 with the exact value.
    near = np.float32(float(exact))
    below, above = np.nextafter(near, np.float32(-np.inf)), np.nextafter(near, np.float32(np.inf))
    return min(
        (near, below, above),
        key=lambda v: (abs(Fraction(float(v)) - exact), int(v.view(np.int32)) & 1),
    )


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False).filter(
    lambda v: abs(v) < 1e15
)
finite64 = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150)


@given(st.lists(st.tuples(finite32, finite32, finite32), min_size=1, max_size=20))
def test_float32_fma_rounds_once(triples: list[tuple[float, float, float]]) -> None:
    a, b, c = (np.array(column, dtype=np.float32) for column in zip(*triples, strict=True))
    got = fm.fma(a, b, c)
    for i in range(len(a)):
        assert got[i] == _exact_fma(a[i], b[i], c[i], np.float32)


@given(st.lists(st.tuples(finite64, finite64, finite64), min_size=1, max_size=20))
def test_float64_fma_rounds_once(triples: list[tuple[float, float, float]]) -> None:
    a, b, c = (np.array(column, dtype=np.float64) for column in zip(*triples, strict=True))
    got = fm.fma(a, b, c)
    for i in range(len(a)):
        assert got[i] == _exact_fma(a[i], b[i], c[i], np.float64)


# a * b + c = 1 + 3 * 2**-24 - 2**-70: just below the point halfway between the float32
# values 1 + 2**-23 and 1 + 2**-22. Rounded once it is 1 + 2**-23; rounded to float64
# first it becomes the halfway point, which then rounds to the even 1 + 2**-22.
HALFWAY_CASE = (
    np.array([2.0**-12 * (1 + 2**-23)], dtype=np.float32),
    np.float32(2.0**-12 * (1 - 2**-23)),
    np.float32(1 + 2**-23),
)


def test_float32_fma_where_rounding_twice_would_be_wrong() -> None:
    a, b, c = HALFWAY_CASE
    assert fm.fma(a, b, c)[0] == np.float32(1 + 2**-23) == _exact_fma(a[0], b, c, np.float32)
    assert fm.fma_float32_grid(a, b, c)[0] == np.float32(1 + 2**-22)  # off grid: wrong


def test_float64_fma_where_separate_rounding_is_wrong() -> None:
    a = np.array([1 + 2**-30], dtype=np.float64)
    c = -1 - 2**-29
    assert fm.fma(a, a[0], c)[0] == 2.0**-60  # a * a - c: only the square's tail is left
    assert a[0] * a[0] + c != 2.0**-60


def _checking_fma(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """`fma_float32_grid`, failing if a step ever rounds twice where once would differ."""
    product = np.multiply(a, b, dtype=np.float64)
    total, error = fm._two_sum(product, np.broadcast_to(np.asarray(c, np.float64), product.shape))
    halfway = (total.view(np.int64) & np.int64(2**29 - 1)) == np.int64(2**28)  # float32's
    assert not (halfway & (error != 0)).any()
    return total.astype(np.float32)


def test_the_check_catches_rounding_twice() -> None:
    with pytest.raises(AssertionError):
        _checking_fma(*HALFWAY_CASE)


def test_the_normal_samplers_float32_math_is_exact_on_all_its_inputs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The float32 normal sampler feeds log 1 - u and sincos 2 pi u, for u one of the 2**24
    # float32 uniforms. For every one of them, no step of either function rounds the
    # float64 sum to a halfway point unless it is exact, so rounding twice is rounding once.
    monkeypatch.setattr(fm, "fma_float32_grid", _checking_fma)
    count = 2**24
    for start in range(0, count, 2**20):
        u = (np.arange(start, start + 2**20) * 2.0**-24).astype(np.float32)
        fm.log_float32(np.float32(1) - u)
        fm.sincos_float32(np.float32(2.0 * math.pi) * u)


def test_float32_log_and_sincos_are_close_to_the_true_values() -> None:
    x = np.linspace(1e-6, 1, 10_001, dtype=np.float32)
    np.testing.assert_allclose(
        fm.log_float32(x), np.log(x.astype(np.float64)), rtol=3e-7, atol=1e-7
    )
    theta = np.linspace(0, 2 * math.pi, 10_001, dtype=np.float32)
    sin, cos = fm.sincos_float32(theta)
    np.testing.assert_allclose(sin, np.sin(theta.astype(np.float64)), atol=3e-7)
    np.testing.assert_allclose(cos, np.cos(theta.astype(np.float64)), atol=3e-7)
