"""torch.special's orthogonal polynomials and Bessel functions: values (against NumPy's
polynomial module, mpmath and torch), no graph, and PyTorch's errors.

PyTorch's own kernels for J and Y are accurate to about 1e-7 only, and its Ai to
3e-6 near x = -2.2; chainrule's are accurate to ~1e-12, so the comparison with
torch uses a loose tolerance and the one with mpmath a tight one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre

import chainrule

S = chainrule.special
POLYNOMIALS = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]
BESSEL = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
]


def _reference(name: str, x: np.ndarray, n: int) -> np.ndarray:
    """P_n(x) from NumPy's polynomial classes (V and W from their relation to U)."""
    e = np.eye(n + 1)[n]
    y = 2 * x - 1 if name.startswith("shifted") else x
    kind = name[-1]
    if kind == "t" and "chebyshev" in name:
        return chebyshev.chebval(y, e)
    if kind in "uvw" and "chebyshev" in name:
        u = [np.sin((k + 1) * np.arccos(y)) / np.sin(np.arccos(y)) for k in (n, n - 1)]
        u_prev = u[1] if n else 0.0
        return {"u": u[0], "v": u[0] - u_prev, "w": u[0] + u_prev}[kind]
    if name == "hermite_polynomial_h":
        return hermite.hermval(x, e)
    if name == "hermite_polynomial_he":
        return hermite_e.hermeval(x, e)
    if name == "laguerre_polynomial_l":
        return laguerre.lagval(x, e)
    return legendre.legval(x, e)


X = np.linspace(0.05, 0.95, 7)  # inside (0, 1): every family's interval


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 9, 12])
def test_polynomials_match_numpy(name: str, n: int) -> None:
    x = X if name.startswith("shifted") else 2 * X - 1
    got = getattr(S, name)(chainrule.tensor(x), n).numpy()
    np.testing.assert_allclose(got, _reference(name, x, n), rtol=1e-10, atol=1e-10)


def test_polynomial_special_cases() -> None:
    x = chainrule.tensor([1.0, -1.0, 0.3, 0.3, 0.3, 0.3])
    n = chainrule.tensor([7.0, 7.0, -1.0, 2.9, math.nan, math.inf])
    assert S.chebyshev_polynomial_t(x, n).tolist() == pytest.approx(
        [1.0, -1.0, 0.0, 2 * 0.09 - 1, 0.0, 0.0]
    )
    assert S.chebyshev_polynomial_u(x, n).tolist()[:2] == [8.0, -8.0]
    assert S.hermite_polynomial_h(chainrule.tensor([0.5]), 600).isnan().all()
    assert S.hermite_polynomial_h(chainrule.tensor([0.5], dtype=chainrule.float32), 200).isnan()
    assert S.laguerre_polynomial_l(chainrule.tensor([0.0]), 5).item() == 1.0
    assert S.legendre_polynomial_p(0.5, chainrule.tensor([2])).item() == -0.125


def test_no_graph_and_dtypes() -> None:
    x = chainrule.tensor([0.5, 1.5], requires_grad=True)
    for name in POLYNOMIALS:
        out = getattr(S, name)(x, 3)
        assert not out.requires_grad and out.grad_fn is None
        assert getattr(S, name)(chainrule.tensor([1, 2]), chainrule.tensor([2, 3])).dtype == (
            chainrule.float32
        )
    for name in BESSEL:
        out = getattr(S, name)(x)
        assert not out.requires_grad and out.grad_fn is None
        assert getattr(S, name)(chainrule.tensor([1, 2])).dtype == chainrule.float32
        assert getattr(S, name)(x.double()).dtype == chainrule.float64


ERRORS = [
    (
        lambda m: m.special.chebyshev_polynomial_t(0.5, 3),
        TypeError,
        "special_chebyshev_polynomial_t() received an invalid combination of arguments - got "
        "(float, int), but expected one of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
        " * (Number x, Tensor n, *, Tensor out = None)\n"
        " * (Tensor x, Number n, *, Tensor out = None)\n",
    ),
    (
        lambda m: m.special.legendre_polynomial_p(m.ones(2, dtype=m.float16), 3),
        NotImplementedError,
        "\"legendre_polynomial_p_cpu\" not implemented for 'Half'",
    ),
    (
        lambda m: m.special.hermite_polynomial_he(m.ones(2), m.ones(3)),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    (
        lambda m: m.special.bessel_j0(2.0),
        TypeError,
        "special_bessel_j0(): argument 'input' (position 1) must be Tensor, not float",
    ),
    (
        lambda m: m.special.modified_bessel_k1(m.ones(2, dtype=m.float16)),
        NotImplementedError,
        "\"modified_bessel_k1_cpu\" not implemented for 'Half'",
    ),
]


@pytest.mark.parametrize(("call", "kind", "message"), ERRORS)
def test_errors(call: Any, kind: type, message: str) -> None:
    with pytest.raises(kind) as info:
        call(chainrule)
    assert str(info.value) == message


@pytest.mark.parametrize(("call", "kind", "message"), ERRORS)
def test_errors_match_torch(torch: Any, call: Any, kind: type, message: str) -> None:
    with pytest.raises(kind) as theirs:
        call(torch)
    with pytest.raises(kind) as mine:
        call(chainrule)
    assert str(mine.value) == str(theirs.value)


# --- Bessel functions -------------------------------------------------------------------------

RECORDED = {  # mpmath, 30 digits, rounded
    "airy_ai": {-1.0: 0.5355608832923521, 0.0: 0.3550280538878172, 2.0: 0.03492413042327437},
    "bessel_j0": {-1.0: 0.7651976865579666, 0.0: 1.0, 2.0: 0.22389077914123567},
    "bessel_j1": {-1.0: -0.44005058574493355, 0.0: 0.0, 2.0: 0.5767248077568734},
    "bessel_y0": {-1.0: math.nan, 0.0: -math.inf, 2.0: 0.5103756726497451},
    "bessel_y1": {-1.0: math.nan, 0.0: -math.inf, 2.0: -0.10703243154093754},
    "modified_bessel_i0": {-1.0: 1.2660658777520084, 0.0: 1.0, 2.0: 2.2795853023360673},
    "modified_bessel_i1": {-1.0: -0.5651591039924851, 0.0: 0.0, 2.0: 1.5906368546373291},
    "modified_bessel_k0": {-1.0: math.nan, 0.0: math.inf, 2.0: 0.11389387274953344},
    "modified_bessel_k1": {-1.0: math.nan, 0.0: math.inf, 2.0: 0.13986588181652243},
    "scaled_modified_bessel_k0": {-1.0: math.nan, 0.0: math.inf, 2.0: 0.8415682150707714},
    "scaled_modified_bessel_k1": {-1.0: math.nan, 0.0: math.inf, 2.0: 1.0334768470686886},
    "spherical_bessel_j0": {-1.0: 0.8414709848078965, 0.0: 1.0, 2.0: 0.45464871341284085},
}


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_recorded_values(name: str) -> None:
    points = RECORDED[name]
    got = getattr(S, name)(chainrule.tensor(list(points), dtype=chainrule.float64)).tolist()
    np.testing.assert_allclose(got, list(points.values()), rtol=1e-14)


MPMATH = {
    "airy_ai": lambda mp, v: mp.airyai(v),
    "bessel_j0": lambda mp, v: mp.besselj(0, v),
    "bessel_j1": lambda mp, v: mp.besselj(1, v),
    "bessel_y0": lambda mp, v: mp.bessely(0, v),
    "bessel_y1": lambda mp, v: mp.bessely(1, v),
    "modified_bessel_k0": lambda mp, v: mp.besselk(0, v),
    "modified_bessel_k1": lambda mp, v: mp.besselk(1, v),
    "scaled_modified_bessel_k0": lambda mp, v: mp.besselk(0, v) * mp.exp(v),
    "scaled_modified_bessel_k1": lambda mp, v: mp.besselk(1, v) * mp.exp(v),
}


@pytest.mark.parametrize("name", sorted(MPMATH))
def test_bessel_against_mpmath(name: str) -> None:
    mp = pytest.importorskip("mpmath")
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-40, 40, 60), 10 ** rng.uniform(-5, 2, 20)])
    x = np.concatenate([x, [1.0, 2.0, 2.5, -2.5, 4.0, 15.0, -15.0, 25.0, 25.5]])
    if "y" in name or "k" in name:
        x = np.abs(x)
    got = getattr(S, name)(chainrule.tensor(x, dtype=chainrule.float64)).numpy()
    with mp.workdps(30):
        expected = np.array([float(MPMATH[name](mp, v)) for v in x])
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_matches_torch(torch: Any, name: str) -> None:
    x = np.concatenate([np.linspace(-30, 30, 601), [0.0, -0.0, 1e-300, 1e10, 300.0, 1e300]])
    x = np.concatenate([x, [math.inf, -math.inf, math.nan]])
    for dtype in ("float64", "float32"):
        if dtype == "float32":  # torch's float32 kernels lose the phase of huge arguments
            x = x[~(np.abs(x) > 1e3)]
        mine = getattr(S, name)(chainrule.tensor(x, dtype=getattr(chainrule, dtype))).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype)))
        np.testing.assert_allclose(mine, theirs.numpy(), rtol=1e-5, atol=5e-6)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch(torch: Any, name: str) -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-1.5, 1.5, 300), [-1.0, 1.0, 0.0, 0.5] * 6])
    n = np.concatenate([rng.integers(-2, 25, 300), np.arange(24)]).astype(float)
    n[:6] = [math.nan, math.inf, -math.inf, 2.7, 600, 2.0**70]
    for dtype, tol in (("float64", 1e-9), ("float32", 1e-4)):
        mine = getattr(S, name)(
            chainrule.tensor(x, dtype=getattr(chainrule, dtype)),
            chainrule.tensor(n, dtype=getattr(chainrule, dtype)),
        ).numpy()
        as_torch = [torch.tensor(v, dtype=getattr(torch, dtype)) for v in (x, n)]
        theirs = getattr(torch.special, name)(*as_torch).numpy()
        np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol, equal_nan=True)
    # a number on either side
    assert getattr(S, name)(0.25, chainrule.tensor([3])).tolist() == pytest.approx(
        getattr(torch.special, name)(0.25, torch.tensor([3])).tolist()
    )
