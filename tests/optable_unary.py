"""Op-table lines of the unary math family: smooth functions, rounding, clamp, special functions.

References are NumPy, Python's `math`, or mpmath (a dependency of torch's sympy)
for the functions NumPy lacks; a test whose reference needs mpmath is skipped
without it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from op_table import ANY, POSITIVE, UNARY, Domain, Op, lib

# --- references ----------------------------------------------------------------------------


def _vec(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    def ref(a: np.ndarray) -> np.ndarray:
        return np.vectorize(fn, otypes=[np.float64])(a)

    return ref


def _mp(name: str, *args: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The mpmath function `name` (leading arguments `args`) on each element, in float64."""

    def ref(a: np.ndarray) -> np.ndarray:
        mpmath = pytest.importorskip("mpmath")
        fn = getattr(mpmath, name)
        with mpmath.workdps(30):
            return np.vectorize(lambda v: float(fn(*args, v)), otypes=[np.float64])(a)

    return ref


def _sinc(a: np.ndarray) -> np.ndarray:
    return np.sinc(a)


def _logit(eps: float | None) -> Callable[[np.ndarray], np.ndarray]:
    def ref(a: np.ndarray) -> np.ndarray:
        if eps is not None:
            a = np.clip(a, eps, 1 - eps)
        return np.log(a / (1 - a))

    return ref


def _mp_expr(expr: Callable[[Any, Any], Any]) -> Callable[[np.ndarray], np.ndarray]:
    """`expr(mpmath, v)` on each element, in float64."""

    def ref(a: np.ndarray) -> np.ndarray:
        mpmath = pytest.importorskip("mpmath")
        with mpmath.workdps(30):
            return np.vectorize(lambda v: float(expr(mpmath, v)), otypes=[np.float64])(a)

    return ref


_ndtri = _mp_expr(lambda mp, p: mp.sqrt(2) * mp.erfinv(2 * mp.mpf(p) - 1))
_log_ndtr = _mp_expr(lambda mp, v: mp.log(mp.ncdf(v)))
_erfcx = _mp_expr(lambda mp, v: mp.exp(mp.mpf(v) ** 2) * mp.erfc(v))


def _mvlgamma(p: int) -> Callable[[np.ndarray], np.ndarray]:
    def ref(a: np.ndarray) -> np.ndarray:
        terms = [_vec(math.lgamma)(a - j / 2) for j in range(p)]
        return np.sum(terms, axis=0) + p * (p - 1) / 4 * math.log(math.pi)

    return ref


def _round_to(decimals: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: np.round(a, decimals)


def _ndtr(a: np.ndarray) -> np.ndarray:
    return (1 + _vec(math.erf)(a / math.sqrt(2))) / 2


# --- domains -------------------------------------------------------------------------------

UNIT = Domain(-0.9, 0.9)  # asin, acos, atanh, erfinv
PROBABILITY = Domain(0.05, 0.95)  # logit, ndtri
GAMMA = Domain(0.1, 6.0)
# PyTorch's trigamma (polygamma(1, x), digamma's derivative) is accurate to only ~5e-10
# below x = 6, so the lines compared with it at 1e-10 draw x >= 10; test_unary checks the
# whole range against mpmath.
TRIGAMMA = Domain(10.0, 20.0)
GAMMA_NEGATIVE = Domain(-3.9, -0.1, avoid=(-3.0, -2.0, -1.0), gap=0.1)
OFF_INTEGERS = Domain(avoid=(-2.0, -1.0, 0.0, 1.0, 2.0), gap=0.05)  # floor, ceil, trunc, frac
OFF_HALVES = Domain(avoid=(-1.5, -0.5, 0.5, 1.5), gap=0.05)  # round
OFF_TENTHS_HALVES = Domain(avoid=tuple(np.arange(-1.95, 2.0, 0.1)), gap=0.01)  # round to 0.1
OFF_BOUNDS = Domain(avoid=(-0.5, 0.7), gap=0.05)  # clamp to [-0.5, 0.7]
OFF_EPS = Domain(0.02, 0.98, avoid=(0.2, 0.8), gap=0.02)  # logit with eps=0.2
LOW, HIGH = Domain(-1.5, -0.2), Domain(0.2, 1.5)  # tensor bounds of clamp
SMOOTH = UNARY


def _m(name: str, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """`x.name(*args, **kwargs)`: the method form."""
    return lambda x: getattr(x, name)(*args, **kwargs)


def _f(name: str, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """`torch.name(x, *args, **kwargs)`: the function form."""
    return lambda x: getattr(lib(x), name)(x, *args, **kwargs)


def _special(name: str, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """`torch.special.name(x, ...)`."""
    return lambda x: getattr(lib(x).special, name)(x, *args, **kwargs)


def _inplace(name: str, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """`(x * 1).name_(...)`: in place on a non-leaf, which takes the op's place in the graph."""
    return lambda x: getattr(x * 1, name + "_")(*args, **kwargs)


def _const(x: Any, value: float) -> Any:
    """A tensor of `value` shaped and typed like x, outside the graph."""
    return lib(x).full_like(x.detach(), value)


_SPECIAL_NOTE = "values from NumPy-only kernels; accuracy tested over wide ranges in test_unary"

# fmt: off
OPS: tuple[Op, ...] = (
    # exponentials and logarithms
    Op("expm1", _m("expm1"), np.expm1, SMOOTH, hypothesis="unary"),
    Op("exp2", _f("exp2"), np.exp2, SMOOTH, hypothesis="unary"),
    Op("log1p", _m("log1p"), np.log1p, SMOOTH, Domain(-0.6, 2.0), hypothesis="unary"),
    Op("log2", _f("log2"), np.log2, SMOOTH, POSITIVE, hypothesis="unary"),
    Op("log10", _m("log10"), np.log10, SMOOTH, POSITIVE, hypothesis="unary"),
    Op("rsqrt", _m("rsqrt"), lambda a: 1 / np.sqrt(a), SMOOTH, POSITIVE, hypothesis="unary"),
    # trigonometric and hyperbolic, with the arc* aliases
    Op("tan", _m("tan"), np.tan, SMOOTH, Domain(-1.2, 1.2), hypothesis="unary"),
    Op("asin", _m("asin"), np.arcsin, SMOOTH, UNIT, hypothesis="unary"),
    Op("acos", _f("acos"), np.arccos, SMOOTH, UNIT, hypothesis="unary"),
    Op("atan", _m("atan"), np.arctan, SMOOTH, hypothesis="unary"),
    Op("sinh", _m("sinh"), np.sinh, SMOOTH, hypothesis="unary"),
    Op("cosh", _f("cosh"), np.cosh, SMOOTH, hypothesis="unary"),
    Op("asinh", _m("asinh"), np.arcsinh, SMOOTH, hypothesis="unary"),
    Op("acosh", _m("acosh"), np.arccosh, SMOOTH, Domain(1.2, 3.0), hypothesis="unary"),
    Op("atanh", _f("atanh"), np.arctanh, SMOOTH, UNIT, hypothesis="unary"),
    Op("arcsin", _f("arcsin"), np.arcsin, UNARY[:1], UNIT),
    Op("arccos", _m("arccos"), np.arccos, UNARY[:1], UNIT),
    Op("arctan", _f("arctan"), np.arctan, UNARY[:1]),
    Op("arcsinh", _m("arcsinh"), np.arcsinh, UNARY[:1]),
    Op("arccosh", _f("arccosh"), np.arccosh, UNARY[:1], Domain(1.2, 3.0)),
    Op("arctanh", _m("arctanh"), np.arctanh, UNARY[:1], UNIT),
    # angles, sinc, logit, positive
    Op("deg2rad", _m("deg2rad"), np.deg2rad, SMOOTH, hypothesis="unary"),
    Op("rad2deg", _f("rad2deg"), np.rad2deg, SMOOTH, hypothesis="unary"),
    # Near 0 torch's sinc gradient cancels (1e-4 off at x = 3e-7); see test_unary.
    Op("sinc", _m("sinc"), _sinc, SMOOTH, Domain(-3.0, 3.0, avoid=(0.0,), gap=0.05),
       hypothesis="unary"),
    Op("logit", _m("logit"), _logit(None), SMOOTH, PROBABILITY, hypothesis="unary"),
    Op("logit_eps", _f("logit", eps=0.2), _logit(0.2), SMOOTH, OFF_EPS),
    Op("positive", _f("positive"), lambda a: a, UNARY[:2]),
    # rounding (zero derivative away from the jumps)
    # sgn's gradient is a ZeroTensor in torch, which cannot be read: x added makes it dense.
    Op("sgn_plus_x", lambda x: x.sgn() + x, lambda a: np.sign(a) + a, SMOOTH, OFF_INTEGERS),
    Op("floor", _m("floor"), np.floor, SMOOTH, OFF_INTEGERS, hypothesis="unary"),
    Op("ceil", _f("ceil"), np.ceil, SMOOTH, OFF_INTEGERS, hypothesis="unary"),
    Op("trunc", _m("trunc"), np.trunc, SMOOTH, OFF_INTEGERS, hypothesis="unary"),
    Op("fix", _f("fix"), np.trunc, UNARY[:1], OFF_INTEGERS),
    Op("frac", _m("frac"), lambda a: a - np.trunc(a), SMOOTH, OFF_INTEGERS, hypothesis="unary"),
    Op("round", _m("round"), np.round, SMOOTH, OFF_HALVES, hypothesis="unary"),
    Op("round_decimals", _f("round", decimals=1), _round_to(1), SMOOTH, OFF_TENTHS_HALVES),
    Op("round_decimals_0", _m("round", decimals=0), np.round, UNARY[:1], OFF_HALVES),
    Op("round_decimals_neg", _f("round", decimals=-1), _round_to(-1),
       UNARY[:1], Domain(-30.0, 30.0, avoid=(-25.0, -15.0, -5.0, 5.0, 15.0, 25.0), gap=0.5)),
    # clamp: number bounds, tensor bounds (broadcast), one-sided forms
    Op("clamp", _m("clamp", -0.5, 0.7), lambda a: np.clip(a, -0.5, 0.7), SMOOTH, OFF_BOUNDS,
       hypothesis="unary"),
    Op("clamp_min_only", _f("clamp", min=-0.5), lambda a: np.maximum(a, -0.5), SMOOTH,
       OFF_BOUNDS),
    Op("clamp_max_only", _m("clamp", max=0.7), lambda a: np.minimum(a, 0.7), SMOOTH, OFF_BOUNDS),
    Op("clip", _f("clip", -0.5, 0.7), lambda a: np.clip(a, -0.5, 0.7), SMOOTH, OFF_BOUNDS),
    Op("clamp_tensors", lambda x, lo, hi: x.clamp(lo, hi), np.clip,
       (((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()), ((2, 3), (2, 1), (3,))), (ANY, LOW, HIGH)),
    Op("clamp_tensor_min", lambda x, lo: lib(x).clamp(x, min=lo), np.maximum,
       (((2, 3), (2, 3)), ((2, 3), (3,))), (ANY, LOW)),
    Op("clamp_tensor_max", lambda x, hi: x.clip(max=hi), np.minimum,
       (((2, 3), (2, 3)), ((3,), (2, 1))), (ANY, HIGH)),
    Op("clamp_min", _m("clamp_min", -0.5), lambda a: np.maximum(a, -0.5), SMOOTH, OFF_BOUNDS),
    Op("clamp_max", _f("clamp_max", 0.7), lambda a: np.minimum(a, 0.7), SMOOTH, OFF_BOUNDS),
    Op("clamp_min_tensor", lambda x, lo: x.clamp_min(lo), np.maximum, (((2, 3), (3,)),),
       (ANY, LOW)),
    Op("clamp_max_tensor", lambda x, hi: lib(x).clamp_max(x, hi), np.minimum, (((2, 3), (2, 1)),),
       (ANY, HIGH)),
    Op("nan_to_num", _m("nan_to_num"), np.nan_to_num, SMOOTH, hypothesis="unary"),
    Op("nan_to_num_fn", _f("nan_to_num", nan=1.0, posinf=2.0), np.nan_to_num, UNARY[:1]),
    # special functions
    Op("erf", _m("erf"), _vec(math.erf), SMOOTH, Domain(-3.0, 3.0), hypothesis="unary",
       note=_SPECIAL_NOTE),
    Op("erfc", _f("erfc"), _vec(math.erfc), SMOOTH, Domain(-3.0, 3.0), hypothesis="unary"),
    Op("erfinv", _m("erfinv"), _mp("erfinv"), SMOOTH, UNIT, hypothesis="unary"),
    Op("lgamma", _m("lgamma"), _vec(math.lgamma), SMOOTH, GAMMA, hypothesis="unary"),
    Op("lgamma_negative", _f("lgamma"), _vec(math.lgamma), SMOOTH, GAMMA_NEGATIVE),
    Op("digamma", _m("digamma"), _mp("digamma"), SMOOTH, TRIGAMMA, hypothesis="unary"),
    Op("digamma_negative", _f("digamma"), _mp("digamma"), SMOOTH, GAMMA_NEGATIVE),
    Op("polygamma_1", lambda x: lib(x).polygamma(1, x), _mp("polygamma", 1), SMOOTH, TRIGAMMA,
       rtol32=1e-4),
    Op("polygamma_2", _m("polygamma", 2), _mp("polygamma", 2), SMOOTH, GAMMA, rtol32=1e-4),
    Op("polygamma_3_negative", _m("polygamma", 3), _mp("polygamma", 3), UNARY[:1],
       GAMMA_NEGATIVE, rtol32=1e-4),
    Op("mvlgamma", _m("mvlgamma", 3), _mvlgamma(3), SMOOTH, Domain(1.2, 5.0)),
    Op("mvlgamma_fn", _f("mvlgamma", p=1), _mvlgamma(1), UNARY[:1], GAMMA),
    # torch.special
    Op("special_erf", _special("erf"), _vec(math.erf), UNARY[:1]),
    Op("special_erfcx", _special("erfcx"), _erfcx, SMOOTH, Domain(-2.0, 5.0)),
    Op("special_expit", _special("expit"), lambda a: 1 / (1 + np.exp(-a)), UNARY[:1]),
    Op("special_logit", _special("logit", eps=0.2), _logit(0.2), UNARY[:1], OFF_EPS),
    Op("special_gammaln", _special("gammaln"), _vec(math.lgamma), UNARY[:1], GAMMA),
    Op("special_psi", _special("psi"), _mp("digamma"), UNARY[:1], TRIGAMMA),
    Op("special_polygamma", lambda x: lib(x).special.polygamma(2, x), _mp("polygamma", 2),
       UNARY[:1], GAMMA),
    Op("special_multigammaln", _special("multigammaln", 2), _mvlgamma(2), UNARY[:1],
       Domain(1.0, 4.0)),
    Op("special_round", _special("round"), np.round, UNARY[:1], OFF_HALVES),
    Op("special_sinc", _special("sinc"), _sinc, UNARY[:1]),
    Op("special_expm1", _special("expm1"), np.expm1, UNARY[:1]),
    Op("special_exp2", _special("exp2"), np.exp2, UNARY[:1]),
    Op("special_log1p", _special("log1p"), np.log1p, UNARY[:1], POSITIVE),
    Op("special_ndtr", _special("ndtr"), _ndtr, SMOOTH, Domain(-4.0, 4.0), hypothesis="unary"),
    Op("special_ndtri", _special("ndtri"), _ndtri, SMOOTH, PROBABILITY, hypothesis="unary"),
    Op("special_log_ndtr", _special("log_ndtr"), _log_ndtr, SMOOTH, Domain(-6.0, 4.0),
       hypothesis="unary"),
    Op("i0", _m("i0"), _mp("besseli", 0), SMOOTH, Domain(-25.0, 25.0), hypothesis="unary"),
    Op("special_i0", _special("i0"), _mp("besseli", 0), UNARY[:1]),
    Op("special_i1", _special("i1"), _mp("besseli", 1), SMOOTH, Domain(-25.0, 25.0),
       hypothesis="unary"),
    # exp(-|x|) has a kink at 0, where finite differences cannot check i0e and i1e.
    Op("special_i0e", _special("i0e"), _mp_expr(lambda mp, v: mp.besseli(0, v) * mp.exp(-abs(v))),
       SMOOTH, Domain(-25.0, 25.0, avoid=(0.0,), gap=0.05), hypothesis="unary"),
    Op("special_i1e", _special("i1e"), _mp_expr(lambda mp, v: mp.besseli(1, v) * mp.exp(-abs(v))),
       SMOOTH, Domain(-25.0, 25.0, avoid=(0.0,), gap=0.05), hypothesis="unary"),
    Op("special_entr", _special("entr"), lambda a: -a * np.log(a), SMOOTH, POSITIVE),
    # differentiable in the second argument only: the first is a constant here
    Op("special_gammainc", lambda x: lib(x).special.gammainc(_const(x, 2.5), x),
       _mp_expr(lambda mp, v: mp.gammainc(2.5, 0, v, regularized=True)), SMOOTH, GAMMA),
    Op("special_gammaincc", lambda x: lib(x).special.gammaincc(_const(x, 0.7), x),
       _mp_expr(lambda mp, v: mp.gammainc(0.7, v, mp.inf, regularized=True)), SMOOTH, GAMMA),
    Op("special_zeta", lambda x: lib(x).special.zeta(_const(x, 2.5), x),
       _mp_expr(lambda mp, v: mp.zeta(2.5, v)), SMOOTH, GAMMA),
    Op("special_zeta_number", lambda x: lib(x).special.zeta(3, x),
       _mp_expr(lambda mp, v: mp.zeta(3, v)), UNARY[:1], GAMMA),
    # in-place forms, on a non-leaf
    Op("exp_", _inplace("exp"), np.exp, UNARY[:1]),
    Op("log_", _inplace("log"), np.log, UNARY[:1], POSITIVE),
    Op("sqrt_", _inplace("sqrt"), np.sqrt, UNARY[:1], POSITIVE),
    Op("sin_", _inplace("sin"), np.sin, UNARY[:1]),
    Op("cos_", _inplace("cos"), np.cos, UNARY[:1]),
    Op("tanh_", _inplace("tanh"), np.tanh, UNARY[:1]),
    Op("sigmoid_", _inplace("sigmoid"), lambda a: 1 / (1 + np.exp(-a)), UNARY[:1]),
    Op("abs_", _inplace("abs"), np.abs, UNARY[:1], OFF_INTEGERS),
    Op("absolute_", _inplace("absolute"), np.abs, UNARY[:1], OFF_INTEGERS),
    Op("neg_", _inplace("neg"), np.negative, UNARY[:1]),
    Op("negative_method", lambda x: x.negative(), np.negative, UNARY[:1]),
    Op("negative_", _inplace("negative"), np.negative, UNARY[:1]),
    Op("relu_", _inplace("relu"), lambda a: np.maximum(a, 0), UNARY[:1], OFF_INTEGERS),
    Op("reciprocal_", _inplace("reciprocal"), np.reciprocal, UNARY[:1], POSITIVE),
    Op("square_", _inplace("square"), np.square, UNARY[:1]),
    Op("sign_", _inplace("sign"), np.sign, UNARY[:1], OFF_INTEGERS),
    Op("expm1_", _inplace("expm1"), np.expm1, UNARY[:1]),
    Op("exp2_", _inplace("exp2"), np.exp2, UNARY[:1]),
    Op("log1p_", _inplace("log1p"), np.log1p, UNARY[:1], POSITIVE),
    Op("log2_", _inplace("log2"), np.log2, UNARY[:1], POSITIVE),
    Op("log10_", _inplace("log10"), np.log10, UNARY[:1], POSITIVE),
    Op("rsqrt_", _inplace("rsqrt"), lambda a: 1 / np.sqrt(a), UNARY[:1], POSITIVE),
    Op("tan_", _inplace("tan"), np.tan, UNARY[:1], Domain(-1.2, 1.2)),
    Op("asin_", _inplace("asin"), np.arcsin, UNARY[:1], UNIT),
    Op("acos_", _inplace("acos"), np.arccos, UNARY[:1], UNIT),
    Op("atan_", _inplace("atan"), np.arctan, UNARY[:1]),
    Op("sinh_", _inplace("sinh"), np.sinh, UNARY[:1]),
    Op("cosh_", _inplace("cosh"), np.cosh, UNARY[:1]),
    Op("arcsin_", _inplace("arcsin"), np.arcsin, UNARY[:1], UNIT),
    Op("arccos_", _inplace("arccos"), np.arccos, UNARY[:1], UNIT),
    Op("arctan_", _inplace("arctan"), np.arctan, UNARY[:1]),
    Op("deg2rad_", _inplace("deg2rad"), np.deg2rad, UNARY[:1]),
    Op("rad2deg_", _inplace("rad2deg"), np.rad2deg, UNARY[:1]),
    Op("sinc_", _inplace("sinc"), _sinc, UNARY[:1]),
    Op("logit_", _inplace("logit", 0.2), _logit(0.2), UNARY[:1], OFF_EPS),
    Op("sgn_plus_x_", lambda x: (x * 1).sgn_() + x, lambda a: np.sign(a) + a, UNARY[:1],
       OFF_INTEGERS),
    Op("floor_", _inplace("floor"), np.floor, UNARY[:1], OFF_INTEGERS),
    Op("ceil_", _inplace("ceil"), np.ceil, UNARY[:1], OFF_INTEGERS),
    Op("trunc_", _inplace("trunc"), np.trunc, UNARY[:1], OFF_INTEGERS),
    Op("fix_", _inplace("fix"), np.trunc, UNARY[:1], OFF_INTEGERS),
    Op("frac_", _inplace("frac"), lambda a: a - np.trunc(a), UNARY[:1], OFF_INTEGERS),
    Op("round_", _inplace("round"), np.round, UNARY[:1], OFF_HALVES),
    Op("round_decimals_", _inplace("round", decimals=1), _round_to(1), UNARY[:1],
       OFF_TENTHS_HALVES),
    Op("clamp_", _inplace("clamp", -0.5, 0.7), lambda a: np.clip(a, -0.5, 0.7), UNARY[:1],
       OFF_BOUNDS),
    Op("clip_", _inplace("clip", max=0.7), lambda a: np.minimum(a, 0.7), UNARY[:1], OFF_BOUNDS),
    Op("clamp_tensors_", lambda x, lo, hi: (x * 1).clamp_(lo, hi), np.clip,
       (((2, 3), (3,), (2, 1)),), (ANY, LOW, HIGH)),
    Op("clamp_min_", _inplace("clamp_min", -0.5), lambda a: np.maximum(a, -0.5), UNARY[:1],
       OFF_BOUNDS),
    Op("clamp_max_", _inplace("clamp_max", 0.7), lambda a: np.minimum(a, 0.7), UNARY[:1],
       OFF_BOUNDS),
    Op("nan_to_num_", _inplace("nan_to_num"), np.nan_to_num, UNARY[:1]),
    Op("erf_", _inplace("erf"), _vec(math.erf), UNARY[:1]),
    Op("erfc_", _inplace("erfc"), _vec(math.erfc), UNARY[:1]),
    Op("erfinv_", _inplace("erfinv"), _mp("erfinv"), UNARY[:1], UNIT),
    Op("lgamma_", _inplace("lgamma"), _vec(math.lgamma), UNARY[:1], GAMMA),
    Op("digamma_", _inplace("digamma"), _mp("digamma"), UNARY[:1], TRIGAMMA),
    Op("polygamma_", _inplace("polygamma", 1), _mp("polygamma", 1), UNARY[:1], TRIGAMMA,
       rtol32=1e-4),
    Op("i0_", _inplace("i0"), _mp("besseli", 0), UNARY[:1]),
    Op("mvlgamma_", _inplace("mvlgamma", 2), _mvlgamma(2), UNARY[:1], Domain(1.0, 4.0)),
)
# fmt: on
