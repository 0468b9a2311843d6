"""gammainc, gammaincc and zeta: values over wide ranges (mpmath, torch), the derivative
PyTorch refuses (in the first argument), dtypes and argument errors. The op table
checks the derivative in the second argument."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import chainrule

S = chainrule.special


def test_edges() -> None:
    a = chainrule.tensor([0.0, 0.0, 1.0, math.inf, math.inf, -1.0, 2.0, 3.0])
    x = chainrule.tensor([0.0, 1.0, 0.0, math.inf, 1.0, 1.0, -1.0, math.inf])
    lower = S.gammainc(a, x).tolist()
    upper = S.gammaincc(a, x).tolist()
    np.testing.assert_equal(lower, [math.nan, 1.0, 0.0, math.nan, 0.0, math.nan, math.nan, 1.0])
    np.testing.assert_equal(upper, [math.nan, 0.0, 1.0, math.nan, 1.0, math.nan, math.nan, 0.0])
    s = chainrule.tensor([1.0, 0.5, 2.0, 2.0, 2.5, 3.0])
    q = chainrule.tensor([1.0, 1.0, 0.0, -2.0, -1.5, -1.5])
    got = S.zeta(s, q).tolist()
    np.testing.assert_allclose(
        got, [math.inf, math.nan, math.inf, math.inf, math.nan, 0.118102025820864]
    )


def test_recorded_values() -> None:
    a = chainrule.tensor([0.5, 2.5, 30.0], dtype=chainrule.float64)
    x = chainrule.tensor([0.25, 4.0, 28.0], dtype=chainrule.float64)
    np.testing.assert_allclose(
        S.gammainc(a, x).tolist(),
        [0.5204998778130465, 0.8437643724222776, 0.3773896943143976],
        rtol=1e-13,
    )
    np.testing.assert_allclose(
        S.zeta(2.0, chainrule.tensor([1.0, 0.5])).tolist(),
        [math.pi**2 / 6, math.pi**2 / 2],
        rtol=1e-7,
    )


@pytest.mark.parametrize("upper", [False, True])
def test_gamma_against_mpmath(upper: bool) -> None:
    mp = pytest.importorskip("mpmath")
    rng = np.random.default_rng(11)
    a, x = 10 ** rng.uniform(-2, 3, (2, 200))
    got = (S.gammaincc if upper else S.gammainc)(chainrule.tensor(a), chainrule.tensor(x))
    with mp.workdps(40):
        bounds = [(q, mp.inf) if upper else (0, q) for q in x]
        want = [float(mp.gammainc(p, *b, regularized=True)) for p, b in zip(a, bounds, strict=True)]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-11, atol=1e-300)


def test_zeta_against_mpmath() -> None:
    mp = pytest.importorskip("mpmath")
    rng = np.random.default_rng(12)
    s, q = rng.uniform(1.05, 60, 200), rng.uniform(0.01, 30, 200)
    got = S.zeta(chainrule.tensor(s), chainrule.tensor(q)).numpy()
    with mp.workdps(40):
        want = [float(mp.zeta(a, b)) for a, b in zip(s, q, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc", "zeta"])
def test_matches_torch(torch: Any, name: str) -> None:
    rng = np.random.default_rng(13)
    a = np.concatenate([rng.uniform(1.01, 20, 300), [0.0, 1.0, math.inf, 2.0]])
    x = np.concatenate([rng.uniform(0.0, 20, 300), [1.0, 0.0, 1.0, -1.5]])
    for dtype in ("float64", "float32"):
        mine = getattr(S, name)(
            *(chainrule.tensor(v, dtype=getattr(chainrule, dtype)) for v in (a, x))
        )
        theirs = getattr(torch.special, name)(
            *(torch.tensor(v, dtype=getattr(torch, dtype)) for v in (a, x))
        )
        # torch's igamma is accurate to about 1e-9 for a > 20 (its asymptotic series)
        np.testing.assert_allclose(
            mine.numpy(), theirs.numpy(), rtol=1e-5 if dtype == "float32" else 1e-9
        )


def _first_argument_backward(m: Any, name: str) -> None:
    a = m.tensor([2.0, 3.0], requires_grad=True)
    getattr(m.special, name)(a, m.tensor([1.0, 2.0])).sum().backward()


FIRST = {"gammainc": "igamma: input", "gammaincc": "igammac: input", "zeta": "zeta"}


@pytest.mark.parametrize("name", sorted(FIRST))
def test_no_derivative_in_the_first_argument(name: str) -> None:
    with pytest.raises(
        NotImplementedError, match=f"the derivative for '{FIRST[name]}' is not implemented."
    ):
        _first_argument_backward(chainrule, name)


@pytest.mark.parametrize("name", sorted(FIRST))
def test_no_derivative_matches_torch(torch: Any, name: str) -> None:
    with pytest.raises(NotImplementedError) as theirs:
        _first_argument_backward(torch, name)
    with pytest.raises(NotImplementedError) as mine:
        _first_argument_backward(chainrule, name)
    assert str(mine.value) == str(theirs.value)


ERRORS = [
    lambda m: m.special.gammainc(m.tensor([1.0]), 2.0),
    lambda m: m.special.gammaincc(m.tensor([1, 2]), m.tensor([1, 2])),
    lambda m: m.special.zeta(2.0, 3.0),
    lambda m: m.special.zeta(m.ones(2, dtype=m.float16), m.ones(2, dtype=m.float16)),
]
RECORDED_ERRORS = [
    "special_gammainc(): argument 'other' (position 2) must be Tensor, not float",
    "\"igammac_cpu\" not implemented for 'Long'",
    "special_zeta() received an invalid combination of arguments - got (float, float), but "
    "expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
    " * (Number self, Tensor other, *, Tensor out = None)\n"
    " * (Tensor input, Number other, *, Tensor out = None)\n",
    "\"zeta_cpu\" not implemented for 'Half'",
]


@pytest.mark.parametrize(("call", "message"), zip(ERRORS, RECORDED_ERRORS, strict=True))
def test_errors(call: Any, message: str) -> None:
    with pytest.raises((TypeError, NotImplementedError)) as info:
        call(chainrule)
    assert str(info.value) == message


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises((TypeError, NotImplementedError)) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as mine:
        call(chainrule)
    assert str(mine.value) == str(theirs.value)


def test_dtypes() -> None:
    ints = chainrule.tensor([2, 3])
    assert S.zeta(ints, ints).dtype == chainrule.float32
    assert S.zeta(2, chainrule.tensor([2.0], dtype=chainrule.float64)).dtype == chainrule.float64
    half = chainrule.tensor([1.0, 2.0], dtype=chainrule.float16)
    assert S.gammainc(half, half).dtype == chainrule.float16
