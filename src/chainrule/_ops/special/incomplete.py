"""The regularized incomplete gamma functions (gammainc, gammaincc) and Hurwitz's zeta,
with their kernels in float64.

PyTorch differentiates them in their second argument only; a gradient for the
first raises its NotImplementedError when the backward reaches it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _dtype, _strides
from ..._tensor import Tensor
from ..elementwise.binary_common import (
    Binary,
    check_pair,
    float_result,
    inplace_pair_op,
    not_implemented_for,
    pair_method,
    pair_op,
)
from ..elementwise.exp_log import exp
from ..quiet import quietly
from . import kernels as sm

__all__ = ["igamma", "igammac"]  # torch's names; torch.special's are in chainrule.special

# --- kernels --------------------------------------------------------------------------------


def _log_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log(x^a e^-x / Gamma(a))."""
    return a * np.log(x) - x - sm.lgamma(a)


def _lower_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1) ... (a+n)), for x < a + 1."""
    term = np.ones_like(x)
    total = np.ones_like(x)
    for n in range(1, 5000):
        term = term * x / (a + n)
        total = total + term
        if (term <= total * 1e-17).all():
            break
    return np.exp(_log_prefactor(a, x) - np.log(a)) * total


def _upper_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) for x >= a + 1, by Legendre's continued fraction (modified Lentz):
    Q = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...))."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for n in range(1, 5000):
        an = -n * (n - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if (np.abs(delta - 1) < 1e-16).all():
            break
    return np.exp(_log_prefactor(a, x)) * h


def _incomplete_gamma(a: np.ndarray, x: np.ndarray, upper: bool) -> np.ndarray:
    """P(a, x) (or Q = 1 - P if `upper`), with PyTorch's values at the domain's edges."""
    out = np.full(x.shape, np.nan)
    inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    low = inside & (x < a + 1)
    lower = _lower_series(a[low], x[low])
    out[low] = 1 - lower if upper else lower
    high = inside & (x >= a + 1)
    tail = _upper_fraction(a[high], x[high])
    out[high] = tail if upper else 1 - tail
    full, empty = (0.0, 1.0) if upper else (1.0, 0.0)
    out[(a == 0) & (x > 0)] = full
    out[(x == 0) & (a > 0)] = empty
    out[(a == np.inf) & (x >= 0) & (x < np.inf)] = empty
    out[(x == np.inf) & (a > 0) & (a < np.inf)] = full
    return out


_BERNOULLI_TERMS = [b / math.factorial(2 * k) for k, b in enumerate(sm._BERNOULLI, start=1)]


def _hurwitz_zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) = sum_k (q + k)^-s for s > 1: the terms up to q + k >= 12 + s (or until
    they stop counting), then the Euler-Maclaurin formula for the rest, whose terms then
    shrink fast. q <= 0 works for an integer s (PyTorch's rule)."""
    out = np.full(s.shape, np.nan)
    out[s == 1] = np.inf
    pole = (s > 1) & (q <= 0) & (q == np.floor(q))
    out[pole] = np.inf
    live = (s > 1) & ~pole & ((q > 0) | (s == np.floor(s)))
    s, a = s[live], q[live].copy()
    total = np.zeros_like(a)
    summing = np.ones(a.shape, dtype=bool)
    while True:
        near = summing & (a < 12 + s)
        if not near.any():
            break
        term = a[near] ** -s[near]
        total[near] += term
        a[near] += 1
        summing[near] = np.abs(term) > 1e-17 * np.abs(total[near])  # the rest: below rounding
    tail, t = a[summing], s[summing]
    rest = tail ** (1 - t) / (t - 1) + tail**-t / 2
    rising = t * tail ** (-t - 1)  # s (s+1) ... (s+2k-2) a^(-s-2k+1), times B_2k / (2k)!
    for k, b in enumerate(_BERNOULLI_TERMS, start=1):
        rest += b * rising
        rising = rising * (t + 2 * k - 1) * (t + 2 * k) / (tail * tail)
    total[summing] += rest
    out[live] = total
    return out


def _kernel(fn: Any) -> Any:
    @quietly
    def kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
        wide_a, wide_b = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
        out = np.asarray(fn(wide_a.ravel(), wide_b.ravel()).reshape(wide_a.shape), dtype=dt)
        return _strides.elementwise(out, a, b)  # laid out as PyTorch's TensorIterator does

    return kernel


# --- ops ----------------------------------------------------------------------------------


def _no_derivative(name: str) -> Any:
    def rule(g: Tensor, n: Any) -> Tensor:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return rule


# d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x).
def _gamma_density(g: Tensor, a: Tensor, x: Tensor) -> Tensor:
    return g * exp((a - 1) * x.log() - x - a.lgamma())


_igamma = Binary(
    _kernel(lambda a, x: _incomplete_gamma(a, x, upper=False)),
    (_no_derivative("igamma: input"), lambda g, n: _gamma_density(g, n.self, n.other)),
    "IgammaBackward0",
    formulas=("not implemented", "other^(self-1) e^-other / Γ(self)"),
)
_igammac = Binary(
    _kernel(lambda a, x: _incomplete_gamma(a, x, upper=True)),
    (_no_derivative("igammac: input"), lambda g, n: _gamma_density(-g, n.self, n.other)),
    "IgammacBackward0",
    formulas=("not implemented", "-other^(self-1) e^-other / Γ(self)"),
)
_zeta = Binary(
    _kernel(_hurwitz_zeta),
    (_no_derivative("zeta"), lambda g, n: g * -n.self * _zeta_of(n.self + 1.0, n.other)),
    "SpecialZetaBackward0",
    "SpecialZetaBackward2",
    "SpecialZetaBackward1",
    first_rule=lambda g, n: g * -n.input * _zeta_of(n.input + 1.0, n.other),
    formulas=("not implemented", "-self * zeta(self + 1, other)"),
    first_formula="-self * zeta(self + 1, other)",
)


def _zeta_of(x: Tensor, q: Tensor) -> Tensor:
    return _zeta(x, q, float_result(_dtype.result_type(x, q)))


def _gamma_impl(aten: str, prim: Binary) -> Any:
    def impl(input: Tensor, other: Tensor) -> Tensor:
        dt = _dtype.result_type(input, other)
        if not dt.is_floating_point:
            raise not_implemented_for(f"{aten}_cpu", dt)
        return prim(input, other, dt)

    return impl


def _gamma_op(name: str, aten: str, prim: Binary, doc: str) -> Any:
    impl = _gamma_impl(aten, prim)

    def op(input: Tensor, other: Tensor) -> Tensor:
        check_pair(f"special_{name}", input, other, "tensors")
        return impl(input, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


gammainc = _gamma_op(
    "gammainc",
    "igamma",
    _igamma,
    "The regularized lower incomplete gamma function P(input, other).",
)
gammaincc = _gamma_op(
    "gammaincc",
    "igammac",
    _igammac,
    "The regularized upper incomplete gamma function Q(input, other) = 1 - P.",
)

# torch.igamma and torch.igammac: the same functions under their own names (and methods).
_igamma_impl = _gamma_impl("igamma", _igamma)
_igammac_impl = _gamma_impl("igammac", _igammac)
igamma = pair_op("igamma", _igamma_impl, "tensors", doc=gammainc.__doc__)
igamma_method = pair_method("igamma", _igamma_impl, "tensors", doc=gammainc.__doc__)
igamma_ = inplace_pair_op("igamma", _igamma_impl, "tensors")
igammac = pair_op("igammac", _igammac_impl, "tensors", doc=gammaincc.__doc__)
igammac_method = pair_method("igammac", _igammac_impl, "tensors", doc=gammaincc.__doc__)
igammac_ = inplace_pair_op("igammac", _igammac_impl, "tensors")

_ZETA_SIGNATURES = [
    "Tensor input, Tensor other, *, Tensor out = None",
    "Number self, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
]


def zeta(input: Tensor | float, other: Tensor | float) -> Tensor:
    """Hurwitz's zeta function, sum over k >= 0 of (other + k)^-input."""
    check_pair("special_zeta", input, other, "numbers", _ZETA_SIGNATURES)
    dt = float_result(_dtype.result_type(input, other))
    if dt == _dtype.float16:
        raise not_implemented_for("zeta_cpu", dt)
    return _zeta(input, other, dt)
