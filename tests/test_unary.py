"""The unary math family beyond the op table: special-function accuracy, conventions at
kinks and ties, special values, dtype rules, errors and the function/method/in-place forms.

Accuracy is checked against mpmath (a dependency of torch's sympy) and Python's
`math`; behaviour against torch. Either is skipped when missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import gradcheck, gradgradcheck

INF, NAN = math.inf, math.nan


@pytest.fixture(scope="module")
def mpmath() -> Any:
    return pytest.importorskip("mpmath")


def values(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def f64(a: Any, requires_grad: bool = False) -> chainrule.Tensor:
    return chainrule.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def both(torch: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> tuple:
    """The same values as a chainrule and a torch tensor."""
    with np.errstate(over="ignore"):
        arr = np.asarray(a).astype(dtype)
    return (
        chainrule.tensor(arr, requires_grad=requires_grad),
        torch.tensor(arr, requires_grad=requires_grad),
    )


def same(mine: Any, theirs: Any, rtol: float = 1e-13, atol: float = 0.0) -> None:
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a, b = values(mine), values(theirs)
    if a.dtype == np.bool_:
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def raises_like(torch: Any, fn: Callable[[Any], Any]) -> None:
    """`fn(lib)` raises the same exception type, with the same first line, in both."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as mine:
        fn(chainrule)
    first = str(theirs.value).splitlines()[0] if str(theirs.value) else ""
    assert str(mine.value).splitlines()[0] == first


# --- accuracy of the special functions (float64) --------------------------------------------

RNG = np.random.default_rng(20240607)
POSITIVE_WIDE = np.concatenate(
    [RNG.uniform(0.001, 30, 300), 10 ** RNG.uniform(-300, 300, 60), RNG.uniform(0.9, 2.6, 100)]
)
NEGATIVE = RNG.uniform(-30, -0.001, 300)
NEGATIVE = NEGATIVE[np.abs(NEGATIVE - np.round(NEGATIVE)) > 1e-3]
ERF_ARGS = np.concatenate(
    [RNG.uniform(-6, 6, 400), 10 ** RNG.uniform(-300, 0.5, 60), -(10 ** RNG.uniform(-8, 0.5, 60))]
)


def relative_error(mine: np.ndarray, exact: np.ndarray, atol: float = 0.0) -> float:
    err = np.abs(mine - exact)
    err = np.where(err <= atol, 0.0, err / np.maximum(np.abs(exact), 1e-300))
    return float(err.max())


def mp_values(mpmath: Any, fn: Callable[[Any], Any], xs: np.ndarray) -> np.ndarray:
    with mpmath.workdps(40):
        return np.array([float(fn(mpmath.mpf(float(v)))) for v in xs])


BESSEL_ARGS = np.concatenate([RNG.uniform(-30, 30, 200), 10 ** RNG.uniform(-10, 2.85, 60)])


def _scaled_bessel(order: int) -> Callable[[Any], Any]:
    return lambda mp: lambda v: mp.besseli(order, v) * mp.exp(-abs(v))


ACCURACY = [
    # name, op, mpmath reference, arguments, relative tolerance, absolute floor
    ("erf", chainrule.erf, lambda mp: mp.erf, ERF_ARGS, 1e-15, 0.0),
    (
        "erfc",
        chainrule.erfc,
        lambda mp: mp.erfc,
        np.concatenate([ERF_ARGS, RNG.uniform(5, 27, 100)]),
        1e-15,
        0.0,
    ),
    (
        "erfcx",
        chainrule.special.erfcx,
        lambda mp: lambda v: mp.exp(v * v) * mp.erfc(v),
        np.concatenate([ERF_ARGS, 10 ** RNG.uniform(0, 100, 50), RNG.uniform(-26, 0, 50)]),
        1e-14,
        0.0,
    ),
    (
        "erfinv",
        chainrule.erfinv,
        lambda mp: mp.erfinv,
        np.concatenate(
            [
                RNG.uniform(-1, 1, 300),
                1 - 10 ** RNG.uniform(-16, -0.3, 80),
                10 ** RNG.uniform(-300, -1, 40),
            ]
        ),
        1e-15,
        0.0,
    ),
    (
        "ndtri",
        chainrule.special.ndtri,
        lambda mp: lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1),
        np.concatenate([RNG.uniform(1e-3, 1 - 1e-3, 200), 1 - 10 ** RNG.uniform(-16, -1, 40)]),
        1e-14,
        0.0,
    ),
    (
        "log_ndtr",
        chainrule.special.log_ndtr,
        lambda mp: lambda v: mp.log(mp.ncdf(v)),
        np.concatenate([RNG.uniform(-40, 10, 200), -(10 ** RNG.uniform(1, 150, 30))]),
        1e-14,
        0.0,
    ),
    ("lgamma", chainrule.lgamma, lambda mp: mp.loggamma, POSITIVE_WIDE, 1e-15, 0.0),
    # Below 0 (reflection) lgamma has roots, near which only absolute accuracy is kept.
    (
        "lgamma_negative",
        chainrule.lgamma,
        lambda mp: lambda v: mp.re(mp.loggamma(v)),
        NEGATIVE,
        1e-14,
        1e-14,
    ),
    ("digamma", chainrule.digamma, lambda mp: mp.digamma, POSITIVE_WIDE[:-60], 5e-15, 0.0),
    ("digamma_negative", chainrule.digamma, lambda mp: mp.digamma, NEGATIVE, 1e-14, 1e-14),
    ("i0", chainrule.i0, lambda mp: lambda v: mp.besseli(0, v), BESSEL_ARGS, 5e-15, 0.0),
    ("i1", chainrule.special.i1, lambda mp: lambda v: mp.besseli(1, v), BESSEL_ARGS, 5e-15, 0.0),
    ("i0e", chainrule.special.i0e, _scaled_bessel(0), BESSEL_ARGS, 5e-15, 0.0),
    ("i1e", chainrule.special.i1e, _scaled_bessel(1), BESSEL_ARGS, 5e-15, 0.0),
]


@pytest.mark.parametrize(
    ("name", "op", "ref", "xs", "rtol", "atol"), ACCURACY, ids=[a[0] for a in ACCURACY]
)
def test_special_function_accuracy(
    mpmath: Any, name: str, op: Any, ref: Any, xs: np.ndarray, rtol: float, atol: float
) -> None:
    mine = values(op(f64(xs)))
    exact = mp_values(mpmath, ref(mpmath), xs)
    finite = np.isfinite(exact)
    assert relative_error(mine[finite], exact[finite], atol) < rtol
    np.testing.assert_array_equal(mine[~finite], exact[~finite])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 12])
def test_polygamma_accuracy(mpmath: Any, n: int) -> None:
    xs = np.concatenate([RNG.uniform(0.01, 30, 120), 10 ** RNG.uniform(-20, 20, 30), NEGATIVE])
    mine = values(chainrule.polygamma(n, f64(xs)))
    exact = mp_values(mpmath, lambda v: mpmath.polygamma(n, v), xs)
    # Below 0 the reflection subtracts two large terms; 1e-13 there, 1e-14 above.
    assert relative_error(mine[xs > 0], exact[xs > 0]) < 1e-14
    assert relative_error(mine[xs < 0], exact[xs < 0]) < 1e-13


def test_digamma_near_its_root(mpmath: Any) -> None:
    """Relative accuracy where digamma crosses 0 (x0 = 1.4616...), which recurrence loses."""
    root = 1.4616321449683622
    xs = root + np.concatenate([10 ** RNG.uniform(-15, -1, 40), -(10 ** RNG.uniform(-15, -1, 40))])
    exact = mp_values(mpmath, mpmath.digamma, xs)
    assert relative_error(values(chainrule.digamma(f64(xs))), exact) < 1e-14


def test_against_pythons_math() -> None:
    """erf, erfc, lgamma agree with the standard library to a few ulp (no mpmath needed)."""
    for op, ref, xs in (
        (chainrule.erf, math.erf, ERF_ARGS),
        (chainrule.erfc, math.erfc, ERF_ARGS),
        (chainrule.lgamma, math.lgamma, np.concatenate([POSITIVE_WIDE[:400], NEGATIVE])),
    ):
        xs = xs[np.abs(xs) < 1e300]
        exact = np.array([ref(float(v)) for v in xs])
        assert relative_error(values(op(f64(xs))), exact, atol=1e-14) < 1e-14


@pytest.mark.parametrize(
    "name", ["erf", "erfc", "erfinv", "lgamma", "digamma", "trigamma", "polygamma3"]
)
def test_special_functions_match_torch_float32_and_float64(torch: Any, name: str) -> None:
    xs = {
        "erf": RNG.uniform(-5, 5, 200),
        "erfc": RNG.uniform(-5, 10, 200),
        "erfinv": RNG.uniform(-1, 1, 200),
    }.get(name, np.concatenate([RNG.uniform(0.05, 25, 150), NEGATIVE[:50]]))
    call = {
        "trigamma": lambda lib, t: lib.polygamma(1, t),
        "polygamma3": lambda lib, t: lib.polygamma(3, t),
    }.get(name, lambda lib, t: getattr(lib, name)(t))
    # torch's trigamma is accurate to ~5e-10 (its series stops early); the others to ~1e-15.
    # In float32 torch reflects negative arguments with a float32 sin(pi x), which loses
    # digits near the poles; those are compared in float64 only.
    rtol64 = 1e-9 if name == "trigamma" else 1e-12
    for dtype, rtol, args in (("float64", rtol64, xs), ("float32", 2e-5, xs[xs > 0])):
        mine, theirs = both(torch, args, dtype)
        same(call(chainrule, mine), call(torch, theirs), rtol=rtol, atol=1e-30)


# --- special values ---------------------------------------------------------------------------

EDGES = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -2.5, 1e-300, 1e300, INF, -INF, NAN]


@pytest.mark.parametrize(
    "name",
    ["erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma2", "polygamma3", "trigamma_pos"],
)
def test_special_values_match_torch(torch: Any, name: str) -> None:
    edges = list(EDGES)
    call = {
        "polygamma2": lambda lib, t: lib.polygamma(2, t),
        "polygamma3": lambda lib, t: lib.polygamma(3, t),
        "trigamma_pos": lambda lib, t: lib.polygamma(1, t),
    }.get(name, lambda lib, t: getattr(lib, name)(t))
    if name.startswith("polygamma") or name == "trigamma_pos":
        # Deliberate: polygamma(n, +inf) is 0 (torch: nan for n >= 2) and nan at -inf for every
        # n (torch: +-inf for n >= 2); trigamma at negative integers is inf (torch gives
        # finite garbage such as 6.6e32 from sin(pi x) rounding).
        edges = [e for e in edges if e not in (INF, -INF, -1.0, -2.0)]
    if name == "erfinv":
        edges += [0.5, -0.999999, 1.0 - 1e-16]
    mine, theirs = both(torch, edges)
    same(call(chainrule, mine), call(torch, theirs), rtol=1e-9 if name == "trigamma_pos" else 1e-12)
    for dtype in ("float32", "float16"):
        mine, theirs = both(torch, edges[:6], dtype)
        same(call(chainrule, mine), call(torch, theirs), rtol=2e-3)


def test_polygamma_edge_values_chosen_deliberately() -> None:
    x = f64([INF, -INF, -1.0, 0.0, -0.0])
    np.testing.assert_array_equal(values(chainrule.polygamma(1, x)), [0.0, NAN, INF, INF, INF])
    np.testing.assert_array_equal(values(chainrule.polygamma(2, x)), [0.0, NAN, -INF, -INF, -INF])
    np.testing.assert_array_equal(values(chainrule.digamma(x)), [INF, NAN, NAN, -INF, INF])


def test_normal_distribution_functions_edges(torch: Any) -> None:
    mine, theirs = both(torch, [0.0, 1.0, 0.5, 1e-300, -0.1, 1.1, NAN])
    same(chainrule.special.ndtri(mine), torch.special.ndtri(theirs), rtol=1e-13)
    mine, theirs = both(torch, [-1e5, -40.0, -1.0, 0.0, 5.0, 10.0, 40.0, INF, -INF, NAN])
    same(chainrule.special.log_ndtr(mine), torch.special.log_ndtr(theirs), rtol=1e-13)
    same(chainrule.special.ndtr(mine), torch.special.ndtr(theirs), rtol=1e-13)
    mine, theirs = both(torch, [-30.0, -1.0, 0.0, 3.0, 1e10, 1e300, INF, -INF, NAN])
    same(chainrule.special.erfcx(mine), torch.special.erfcx(theirs), rtol=1e-13)
    mine, theirs = both(torch, [-1.0, 0.0, 0.5, 3.0, INF, NAN])
    same(chainrule.special.entr(mine), torch.special.entr(theirs), rtol=1e-13)


def test_bessel_edges_match_torch(torch: Any) -> None:
    edges = [0.0, -0.0, 1e-300, 20.0, -20.0, 700.0, -700.0, 800.0, INF, -INF, NAN]
    for name in ("i0", "i1", "i0e", "i1e"):
        for dtype in ("float64", "float32"):
            mine, theirs = both(torch, edges, dtype)
            rtol = 1e-13 if dtype == "float64" else 1e-6
            same(getattr(chainrule.special, name)(mine), getattr(torch.special, name)(theirs), rtol)
    same_grads(torch, lambda x: x.i0() + chainrule_or_torch(x).special.i1(x), [0.0, 1.5, -3.0])
    for name in ("i0e", "i1e"):

        def scaled(x: Any, name: str = name) -> Any:
            return getattr(chainrule_or_torch(x).special, name)(x)

        same_grads(torch, scaled, [0.0, 2.5])


def chainrule_or_torch(x: Any) -> Any:
    import sys

    return sys.modules[type(x).__module__.split(".")[0]]


def test_ndtr_is_composed_as_in_torch(torch: Any) -> None:
    def chain(fn: Any) -> list[str]:
        names = []
        while fn is not None:
            names.append(fn.name())
            nxt = [f for f, _ in fn.next_functions if f is not None]
            fn = nxt[0] if nxt else None
        return names

    mine, theirs = both(torch, [0.3, -2.0], requires_grad=True)
    assert (
        chain(chainrule.special.ndtr(mine).grad_fn)[:4]
        == chain(torch.special.ndtr(theirs).grad_fn)[:4]
    )


# --- derivatives where PyTorch has a convention ---------------------------------------------


def grads(lib: Any, fn: Callable[..., Any], *arrays: Any, upstream: Any = None) -> list:
    ts = [lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = fn(*ts)
    g = np.ones(tuple(out.shape)) if upstream is None else np.asarray(upstream, dtype=np.float64)
    out.backward(lib.tensor(g))
    return [out, *(t.grad for t in ts)]


def same_grads(
    torch: Any, fn: Callable[..., Any], *arrays: Any, upstream: Any = None, rtol: float = 1e-12
) -> None:
    for mine, theirs in zip(
        grads(chainrule, fn, *arrays, upstream=upstream),
        grads(torch, fn, *arrays, upstream=upstream),
        strict=True,
    ):
        same(mine, theirs, rtol=rtol)


X_TIES = [0.0, 1.0, 1.5, 2.0, 3.0, NAN]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.clamp(1, 2),
        lambda x: x.clamp(min=1),
        lambda x: x.clamp(max=2),
        lambda x: x.clamp(2, 1),  # crossed bounds: max wins
        lambda x: x.clamp(1.5, 1.5),
        lambda x: x.clamp_min(1.0),
        lambda x: x.clamp_max(2.0),
        lambda x: x.clamp(min=NAN),
    ],
)
def test_clamp_gradient_at_the_bounds_matches_torch(torch: Any, fn: Any) -> None:
    same_grads(torch, fn, X_TIES)


@pytest.mark.parametrize(
    ("lo", "hi"),
    [
        ([1.0] * 6, [2.0] * 6),
        ([3.0] * 6, [2.0] * 6),
        ([1.5] * 6, [1.5] * 6),
        ([NAN, 1, 1, 1, 1, 1], [2, NAN, 2, 2, 2, 2]),
        ([0.0, 1.0, 2.0, 1.0, 3.0, 0.0], [0.0, 2.0, 2.0, 0.5, 3.0, 1.0]),
    ],
)
def test_clamp_tensor_bounds_gradients_match_torch(torch: Any, lo: list, hi: list) -> None:
    same_grads(torch, lambda x, a, b: x.clamp(a, b), X_TIES, lo, hi)
    same_grads(torch, lambda x, a: x.clamp(min=a), X_TIES, lo)
    same_grads(torch, lambda x, b: x.clamp(max=b), X_TIES, hi)
    same_grads(torch, lambda x, a: x.clamp_min(a), X_TIES, lo)
    same_grads(torch, lambda x, b: x.clamp_max(b), X_TIES, hi)


def test_clamp_broadcasts_where_torch_backward_fails() -> None:
    """torch's clamp backward fails for a 0-d input with (2, 1) and (3,) bounds; ours works."""
    x, lo, hi = f64(0.0, True), f64([[-1.0], [0.5]], True), f64([0.2, 1.0, 2.0], True)
    out = chainrule.clamp(x, lo, hi)
    assert tuple(out.shape) == (2, 3)
    assert gradcheck(lambda a, b, c: a.clamp(b, c), (f64(0.1, True), lo, hi))
    out.sum().backward()
    np.testing.assert_array_equal(values(x.grad), 3.0)
    np.testing.assert_array_equal(values(lo.grad), [[0.0], [2.0]])  # max wins where lo > hi


@pytest.mark.parametrize(
    ("fn", "xs"),
    [
        (lambda x: x.logit(), [0.0, 0.1, 0.5, 0.9, 1.0, 2.0, -1.0]),
        (lambda x: x.logit(0.1), [0.0, 0.1, 0.5, 0.9, 1.0, 2.0, -1.0]),
        (lambda x: x.logit(eps=0.6), [0.3, 0.5, 0.7]),  # crossed clamp bounds
        (lambda x: x.nan_to_num(), [NAN, INF, -INF, 1.0]),
        (lambda x: x.nan_to_num(1.0, 2.0, -2.0), [NAN, INF, -INF, 1.0]),
        (lambda x: x.sinc(), [0.0, 0.5, 1.0, -2.0]),
        (lambda x: x.rsqrt(), [0.0, 1.5, -1.0]),
        (lambda x: x.acosh(), [1.0, 1.5, 0.5]),
        (lambda x: x.atanh(), [1.0, 0.5, -1.0, 2.0]),
        (lambda x: x.asin(), [1.0, -1.0, 0.0]),
        (lambda x: x.erfinv(), [1.0, 0.5, -1.0, 0.0]),
        (lambda x: x.lgamma(), [0.0, 1.0, 0.5, -0.5]),
        (lambda x: x.digamma(), [0.0, 1.0, -0.5]),
        (lambda x: x.frac(), [0.0, 1.5, -2.25]),
        (lambda x: x.sign() + x.sgn() * 0 + x.floor() + x.ceil() + x.round() + x.trunc(), X_TIES),
        (lambda x: x.round(decimals=2) + x.fix(), [0.125, 1.0]),
        (lambda x: x.log1p() + x.expm1() + x.exp2() + x.log2() + x.log10(), [0.0, 0.5, 3.0]),
        (lambda x: x.deg2rad() + x.rad2deg() + x.tan() + x.sinh() + x.cosh(), [0.0, 0.5, 3.0]),
        (lambda x: x.asinh() + x.atan() + x.acos(), [0.0, 0.5, -1.0]),
    ],
)
def test_values_and_gradients_at_edges_match_torch(torch: Any, fn: Any, xs: list) -> None:
    same_grads(torch, fn, xs, rtol=1e-9)  # 1e-9: torch's trigamma, digamma's derivative


def test_rounding_gradients_are_zero_even_for_non_finite_upstream(torch: Any) -> None:
    for fn in (lambda x: x.floor(), lambda x: x.round(decimals=1), lambda x: x.ceil()):
        same_grads(torch, fn, [0.5, 1.5, 2.5], upstream=[INF, NAN, 1.0])


def test_sgn_gradient_is_zero_like_torch(torch: Any) -> None:
    x = f64([0.5, -2.0], True)
    y = x.sgn()
    assert y.grad_fn.name() == torch.tensor([0.5], requires_grad=True).sgn().grad_fn.name()
    y.sum().backward()
    np.testing.assert_array_equal(values(x.grad), [0.0, 0.0])


def test_sinc_gradient_is_accurate_near_zero(mpmath: Any) -> None:
    """Deliberate: torch's closed form cancels there (1e-4 relative error at x = 3e-7)."""
    xs = np.concatenate([10 ** RNG.uniform(-12, 0, 60), -(10 ** RNG.uniform(-12, 0, 20))])
    x = f64(xs, True)
    x.sinc().sum().backward()
    exact = mp_values(
        mpmath,
        lambda v: mpmath.diff(lambda z: mpmath.sin(mpmath.pi * z) / (mpmath.pi * z), v),
        xs,
    )
    assert relative_error(values(x.grad), exact) < 1e-14
    assert gradgradcheck(lambda t: t.sinc(), (f64([0.0, 0.05, 0.2, -0.7], True),))


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: (t + 1.6).lgamma(),
        lambda t: (t + 1.6).digamma(),
        lambda t: chainrule.polygamma(2, t + 1.6),
        lambda t: t.erfinv(),
        lambda t: chainrule.special.ndtri(t * 0.4 + 0.5),
        lambda t: chainrule.special.log_ndtr(t * 5),
        lambda t: chainrule.special.erfcx(t),
        lambda t: (t + 2).mvlgamma(2) + chainrule.special.entr(t + 1),
        lambda t: t.sinc() + t.logit(0.1) + t.atanh() + t.erfc(),
        lambda t: t.i0() + chainrule.special.i1(t) + chainrule.special.i0e(t),
        lambda t: chainrule.special.i1e(t * 30),
    ],
)
def test_third_derivatives(fn: Any) -> None:
    """gradgradcheck of the gradient: the rules are differentiable to any order."""
    x = f64([0.3, 0.7, -0.45], True)

    def grad_of(t: Any) -> Any:
        return chainrule.autograd.grad(fn(t).sum(), t, create_graph=True)[0]

    assert gradgradcheck(grad_of, (x,))


# --- dtypes -----------------------------------------------------------------------------------

FLOAT_RESULT = [
    "expm1", "exp2", "log1p", "log2", "log10", "rsqrt", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
    "arctanh", "logit", "erf", "erfc", "erfinv", "lgamma", "digamma", "deg2rad", "rad2deg",
    "sinc", "sgn", "nan_to_num", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "signbit", "isreal", "floor", "ceil", "round", "trunc", "fix", "positive", "sign",
]  # fmt: skip


@pytest.mark.parametrize("name", FLOAT_RESULT)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float16", "float32"])
def test_dtypes_match_torch(torch: Any, name: str, dtype: str) -> None:
    data = np.array([0, 1, 3, 2]).astype(dtype)

    def run(lib: Any) -> Any:
        return getattr(lib, name)(lib.tensor(data))

    try:
        theirs = run(torch)
    except Exception:
        raises_like(torch, run)
        return
    mine = run(chainrule)
    same(mine, theirs, rtol=1e-3 if dtype == "float16" else 1e-6)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_frac_round_decimals_polygamma_dtypes(torch: Any, dtype: str) -> None:
    data = np.array([1, 0, 2]).astype(dtype)
    for fn in (
        lambda lib, t: t.frac(),
        lambda lib, t: t.round(decimals=1),
        lambda lib, t: lib.polygamma(1, t),
        lambda lib, t: lib.mvlgamma(t + 3, 2),
        lambda lib, t: lib.special.ndtr(t),
        lambda lib, t: lib.special.entr(t),
        lambda lib, t: lib.special.round(t),
    ):

        def run(lib: Any, fn: Any = fn) -> Any:
            return fn(lib, lib.tensor(data))

        try:
            theirs = run(torch)
        except Exception:
            raises_like(torch, run)
            continue
        same(run(chainrule), theirs, rtol=1e-6)


@pytest.mark.parametrize(
    ("dtype", "args"),
    [
        ("int64", (0, 2)),
        ("int64", (0.5,)),
        ("int64", (None, 2.5)),
        ("uint8", (-1,)),
        ("int8", (-3, 100)),
        ("bool", (0, 0)),
        ("float16", (0.5, 2.0)),
        ("float32", (1, 2)),
    ],
)
def test_clamp_dtypes_match_torch(torch: Any, dtype: str, args: tuple) -> None:
    data = np.array([1, 0, 5, 3]).astype(dtype)
    same(chainrule.tensor(data).clamp(*args), torch.tensor(data).clamp(*args))


def test_clamp_promotes_with_tensor_bounds(torch: Any) -> None:
    for x, lo in (([1.0, 2.0], [1, 1]), ([1, 5], [2.5, 0.5])):
        mine = chainrule.clamp(chainrule.tensor(x), chainrule.tensor(lo))
        same(mine, torch.clamp(torch.tensor(x), torch.tensor(lo)))
    x64 = np.array([1.0, 2.5])
    mine = chainrule.tensor(x64).clamp(chainrule.tensor(np.float32(2.0)))
    same(mine, torch.tensor(x64).clamp(torch.tensor(np.float32(2.0))))


def test_round_half_to_even_and_decimals_match_torch(torch: Any) -> None:
    xs = [0.5, 1.5, 2.5, -0.5, -2.5, 1.25, 1.35, 0.125, -0.4, 1e20, 123456789.0]
    for dtype in ("float32", "float64", "float16"):
        for kwargs in ({}, {"decimals": 0}, {"decimals": 1}, {"decimals": 2}, {"decimals": -1}):
            mine, theirs = both(torch, xs, dtype)
            same(mine.round(**kwargs), theirs.round(**kwargs), rtol=0)
            assert np.array_equal(
                np.signbit(values(mine.round())), values(theirs.round().signbit())
            )
    for decimals in (30, 39, 400, -400):
        for dtype in ("float32", "float64"):
            mine, theirs = both(torch, [1.23456789], dtype)
            same(mine.round(decimals=decimals), theirs.round(decimals=decimals), rtol=1e-6)


def test_sign_sgn_nan_and_signed_zero_match_torch(torch: Any) -> None:
    mine, theirs = both(torch, [NAN, -0.0, 0.0, -2.0, INF, -INF])
    for name in ("sign", "sgn", "signbit", "isnan", "isinf", "isfinite", "isposinf", "isneginf"):
        same(getattr(mine, name)(), getattr(theirs, name)())
        assert np.array_equal(np.signbit(values(mine.sign())), values(theirs.sign().signbit()))
    same(chainrule.tensor([True, False]).sign(), torch.tensor([True, False]).sign())


def test_nan_to_num_values_match_torch(torch: Any) -> None:
    data = [NAN, INF, -INF, 1.0]
    for dtype in ("float16", "float32", "float64"):
        for kwargs in ({}, {"nan": 1.0, "posinf": 2, "neginf": -3}, {"nan": 1e300}, {"nan": None}):
            mine, theirs = both(torch, data, dtype)
            same(mine.nan_to_num(**kwargs), theirs.nan_to_num(**kwargs))
    same(chainrule.tensor([1, 2]).nan_to_num(nan=2.5), torch.tensor([1, 2]).nan_to_num(nan=2.5))


def test_logit_and_sinc_values_match_torch(torch: Any) -> None:
    for dtype in ("float32", "float64"):
        mine, theirs = both(torch, [0.0, 1.0, 0.5, 2.0, -1.0, 0.05, 1e-20], dtype)
        for kwargs in ({}, {"eps": 0.1}, {"eps": 2}, {"eps": -2.0}, {"eps": True}):
            same(mine.logit(**kwargs), theirs.logit(**kwargs), rtol=1e-6)
        same(mine.sinc(), theirs.sinc(), rtol=1e-6, atol=1e-12)


# --- forms: function, method, alias, in-place -------------------------------------------------

IN_PLACE_FUNCTIONS = [
    "exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_", "abs_", "neg_", "negative_",
    "relu_", "reciprocal_", "square_", "expm1_", "exp2_", "log1p_", "log2_", "log10_", "rsqrt_",
    "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "asinh_", "acosh_", "atanh_",
    "arcsin_", "arccos_", "arctan_", "arcsinh_", "arccosh_", "arctanh_", "logit_", "erf_",
    "erfc_", "i0_", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_", "clamp_", "clip_",
    "clamp_min_", "clamp_max_", "nan_to_num_", "deg2rad_", "rad2deg_", "sinc_",
]  # fmt: skip
IN_PLACE_METHODS_ONLY = [
    "absolute_", "sign_", "sgn_", "erfinv_", "lgamma_", "digamma_", "polygamma_", "mvlgamma_",
]  # fmt: skip


def test_the_forms_torch_has_exist(torch: Any) -> None:
    for name in [*FLOAT_RESULT, "clamp", "clip", "clamp_min", "clamp_max", "frac", "polygamma"]:
        assert hasattr(chainrule, name) == hasattr(torch, name), name
        assert hasattr(chainrule.Tensor, name) == hasattr(torch.Tensor, name), name
    for name in IN_PLACE_FUNCTIONS:
        assert hasattr(torch, name) and hasattr(chainrule, name), name
        assert hasattr(chainrule.Tensor, name), name
    for name in IN_PLACE_METHODS_ONLY:
        assert hasattr(torch.Tensor, name) and hasattr(chainrule.Tensor, name), name
    for name in chainrule.special.__all__:
        assert hasattr(torch.special, name), name


@pytest.mark.parametrize("name", IN_PLACE_FUNCTIONS + IN_PLACE_METHODS_ONLY)
def test_in_place_forms_match_torch(torch: Any, name: str) -> None:
    args = {
        "clamp_": (0.2, 0.6),
        "clip_": (0.2, 0.6),
        "clamp_min_": (0.4,),
        "clamp_max_": (0.4,),
        "logit_": (0.2,),
        "polygamma_": (2,),
        "mvlgamma_": (2,),
    }.get(name, ())
    data = np.array([0.25, 0.5, 0.75]) + (1.5 if name in ("acosh_", "arccosh_", "mvlgamma_") else 0)
    results = []
    for lib in (chainrule, torch):
        x = lib.tensor(data, requires_grad=True)
        y = x * 1
        method = getattr(lib, name) if name in IN_PLACE_FUNCTIONS else None
        out = method(y, *args) if method is not None else getattr(y, name)(*args)
        assert out is y
        assert y._version == 1
        results.append((y, y.grad_fn.name()))
    (mine, mine_name), (theirs, theirs_name) = results
    same(mine, theirs, rtol=1e-12)
    assert mine_name == theirs_name


def test_asinh_acosh_atanh_in_place_differentiate_where_torch_cannot(torch: Any) -> None:
    """torch names these nodes *Backward1 and raises NotImplementedError in backward."""
    for name, data in (("asinh_", [0.3, -1.2]), ("acosh_", [1.3, 2.0]), ("atanh_", [0.3, -0.6])):
        t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        with pytest.raises(NotImplementedError):
            getattr(t * 1, name)().sum().backward()
        x = f64(data, True)
        assert gradcheck(lambda v, name=name: getattr(v * 1, name)(), (x,))
        assert gradgradcheck(lambda v, name=name: getattr(v * 1, name)(), (x,))


def test_in_place_errors_match_torch(torch: Any) -> None:
    raises_like(torch, lambda lib: lib.tensor([0.5], requires_grad=True).exp_())
    raises_like(torch, lambda lib: lib.exp_(lib.tensor([1, 2])))
    raises_like(torch, lambda lib: lib.tensor([1]).frac_())
    raises_like(torch, lambda lib: lib.tensor([True]).neg_())
    for dtype in ("int8", "int32", "int64", "uint8", "int16", "bool"):
        raises_like(torch, lambda lib, d=dtype: lib.tensor(np.array([1, 0], d)).clamp_(0.5))
        raises_like(torch, lambda lib, d=dtype: lib.tensor(np.array([1, 0], d)).clamp_min_(0.5))
    raises_like(torch, lambda lib: lib.rand(3).clamp_(min=lib.rand(2, 3)))
    x = chainrule.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        x.clamp_(min=chainrule.rand(2, 2))
    np.testing.assert_array_equal(values(x), [1.0, 2.0])  # untouched
    assert x._version == 0


def test_in_place_under_no_grad_and_on_integers(torch: Any) -> None:
    for lib in (chainrule, torch):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.no_grad():
            x.erf_().clamp_(0.6)
        assert x.requires_grad and x.grad_fn is None
    mine, theirs = chainrule.tensor([1, -2, 3]), torch.tensor([1, -2, 3])
    same(mine.floor_().sgn_().clamp_(0, 2), theirs.floor_().sgn_().clamp_(0, 2))


def test_special_namespace_names(torch: Any) -> None:
    x = f64([0.3, 0.6], True)
    for name in ("expit", "logit", "gammaln", "psi", "round", "sinc", "exp2", "expm1", "log1p"):
        t = torch.tensor([0.3, 0.6], dtype=torch.float64, requires_grad=True)
        mine, theirs = getattr(chainrule.special, name)(x), getattr(torch.special, name)(t)
        same(mine, theirs, rtol=1e-12)
        assert mine.grad_fn.name() == theirs.grad_fn.name()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("xlogy", ("x",)),
        ("xlog1py", ("x",)),
        ("logsumexp", (0,)),
        ("softmax", (0,)),
        ("log_softmax", (0,)),
    ],
)
def test_special_reexports_match_torch(torch: Any, name: str, args: tuple) -> None:
    """torch.special's names for ops of other families (binary, reductions, nn.functional)."""
    results = []
    for lib in (chainrule, torch):
        x = lib.tensor(np.array([0.5, 2.0]), requires_grad=True)
        out = getattr(lib.special, name)(x, *(x if a == "x" else a for a in args))
        results.append((out, out.grad_fn.name()))
    same(results[0][0], results[1][0], rtol=1e-13)
    assert results[0][1] == results[1][1]


# --- errors -----------------------------------------------------------------------------------

ERRORS = [
    lambda lib: lib.expm1(1.0),
    lambda lib: lib.arcsin([0.5]),
    lambda lib: lib.erf(1.0),
    lambda lib: lib.special.erf(1.0),
    lambda lib: lib.special.ndtr(1.0),
    lambda lib: lib.special.polygamma(1, 1.0),
    lambda lib: lib.special.round(1.0),
    lambda lib: lib.special.round(lib.tensor([1])),
    lambda lib: lib.special.expit(1.0),
    lambda lib: lib.special.multigammaln(lib.tensor([3.0]), 0),
    lambda lib: lib.isnan(1.0),
    lambda lib: lib.polygamma(-1, lib.tensor([1.0])),
    lambda lib: lib.polygamma(1.5, lib.tensor([1.0])),
    lambda lib: lib.polygamma(True, lib.tensor([1.0])),
    lambda lib: lib.polygamma(1, 2.0),
    lambda lib: lib.tensor([1.0]).polygamma(-2),
    lambda lib: lib.mvlgamma(lib.tensor([1.0]), 1.5),
    lambda lib: lib.mvlgamma(lib.tensor([3.0]), 0),
    lambda lib: lib.clamp(lib.tensor([1.0])),
    lambda lib: lib.clamp(lib.tensor([1.0]), None, None),
    lambda lib: lib.tensor([1.0]).clip(),
    lambda lib: lib.clamp(1.0, 0),
    lambda lib: lib.clamp(lib.tensor([1.0]), "a"),
    lambda lib: lib.clamp(lib.tensor([1.0]), None, "a"),
    lambda lib: lib.clamp(lib.tensor([1, 5]), lib.tensor([2, 2]), 3.5),
    lambda lib: lib.clamp(lib.tensor([1.5, 2]), lib.tensor([1.0, 2, 3])),
    lambda lib: lib.clamp(lib.tensor([1.0, 2.0]), 1e300),
    lambda lib: lib.clamp(lib.tensor([1, 2]), 1e300),
    lambda lib: lib.clamp(lib.tensor(np.array([1, 2], np.uint8)), 256),
    lambda lib: lib.clamp(lib.tensor(np.array([1, 2], np.uint8)), -300),
    lambda lib: lib.clamp(lib.tensor(np.array([1, 2], np.int8)), 300),
    lambda lib: lib.clamp(lib.tensor(np.array([1, 2], np.float16)), 1e10),
    lambda lib: lib.clamp_min(lib.tensor([1.0]), None),
    lambda lib: lib.clamp_min(lib.tensor([1.0]), "a"),
    lambda lib: lib.clamp_max(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0, 3.0])),
    lambda lib: lib.round(lib.tensor([1]), decimals=1),
    lambda lib: lib.round(lib.tensor([1.5]), decimals=1.5),
    lambda lib: lib.round(lib.tensor([1.5]), decimals=True),
    lambda lib: lib.round(lib.tensor([True])),
    lambda lib: lib.floor(lib.tensor([True])),
    lambda lib: lib.tensor([True]).ceil(),
    lambda lib: lib.trunc(lib.tensor([True])),
    lambda lib: lib.frac(lib.tensor([1, 2])),
    lambda lib: lib.frac(lib.tensor([True])),
    lambda lib: lib.positive(lib.tensor([True])),
    lambda lib: lib.nan_to_num(lib.tensor([1.0]), nan="a"),
    lambda lib: lib.nan_to_num(lib.tensor([1.0]), posinf="a"),
    lambda lib: lib.logit(lib.tensor([0.5]), eps="a"),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_torch(torch: Any, fn: Any) -> None:
    raises_like(torch, fn)


def test_clamp_mixes_a_0d_tensor_with_a_number_as_torch_does(torch: Any) -> None:
    for args in ((0.1, "T"), ("T", 0.9), (None, "T"), ("T", None), (1, "T")):
        out = []
        for lib in (chainrule, torch):
            x = lib.tensor(np.array([0.0, 0.3, 0.7, 1.0]), requires_grad=True)
            bound = lib.tensor(np.float64(0.5))
            y = x.clamp(*(bound if a == "T" else a for a in args))
            out.append((y, y.grad_fn.name()))
        same(out[0][0], out[1][0])
        assert out[0][1] == out[1][1]


def test_positive_returns_its_input() -> None:
    x = f64([1.0, -2.0], True)
    assert chainrule.positive(x) is x and x.positive() is x
    i = chainrule.tensor([1, 2])
    assert chainrule.positive(i) is i


def test_no_numpy_warnings_out_of_the_domain() -> None:
    with np.errstate(all="raise"):
        x = f64([-1.0, 0.0, 2.0, INF, NAN])
        for fn in (
            chainrule.log1p, chainrule.log2, chainrule.rsqrt, chainrule.acosh, chainrule.atanh,
            chainrule.asin, chainrule.logit, chainrule.lgamma, chainrule.digamma,
            chainrule.erfinv, chainrule.special.ndtri, chainrule.special.log_ndtr,
            chainrule.special.erfcx, chainrule.special.entr, chainrule.sinc, chainrule.frac,
            lambda t: chainrule.polygamma(3, t), lambda t: t.round(decimals=400),
            lambda t: t.clamp(0.0, 1.0), chainrule.nan_to_num, chainrule.exp2, chainrule.cosh,
        ):  # fmt: skip
            fn(x)


def test_empty_and_zero_dim_inputs() -> None:
    for shape in ((0,), (2, 0), ()):
        x = chainrule.tensor(np.full(shape, 0.5))
        for fn in (
            chainrule.erf, chainrule.erfc, chainrule.erfinv, chainrule.lgamma, chainrule.digamma,
            lambda t: chainrule.polygamma(2, t), chainrule.special.ndtri,
            chainrule.special.log_ndtr, chainrule.special.erfcx, lambda t: t.mvlgamma(1),
        ):  # fmt: skip
            assert tuple(fn(x).shape) == shape
