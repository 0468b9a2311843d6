"""Binary math: atan2, hypot, copysign, xlogy, xlog1py, logaddexp(2), float_power, ldexp, ...

Each derivative follows torch's convention at the points where the function
is not differentiable (atan2 at the origin, xlogy where x = 0, copysign at 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype
from ..._creation import zeros_like
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..operands import Number, as_operands
from ..quiet import quietly
from .arithmetic import pow
from .binary_common import (
    Binary,
    Undifferentiable,
    check_pair,
    float_result,
    inplace_pair_op,
    not_implemented_for,
    pair_method,
    pair_op,
)
from .conditional import where
from .exp_log import log1p
from .forwards import binary_forward

__all__ = [
    "arctan2",
    "atan2",
    "copysign",
    "float_power",
    "heaviside",
    "hypot",
    "ldexp",
    "ldexp_",
    "logaddexp",
    "logaddexp2",
    "nextafter",
    "xlogy",
    "xlogy_",
]

_LN2 = math.log(2.0)
_BOTH = "Tensor input, Tensor other, *, Tensor out = None"
_SECOND = "Tensor input, Number other, *, Tensor out = None"
_FIRST = "Number self, Tensor other, *, Tensor out = None"


def _zero(g: Tensor, n: Any) -> Tensor:
    return zeros_like(g)


def _safe(x: Tensor) -> Tensor:
    """`x` with its zeros replaced by ones: a divisor for entries masked out anyway."""
    return where(x == 0, 1, x)


def _floats_only(kernel: str, prim: Binary) -> Callable[[Any, Any], Tensor]:
    """An op torch computes for floating-point dtypes only."""

    def impl(input: Tensor, other: Tensor) -> Tensor:
        dt, _ = as_operands(input, other)
        if not dt.is_floating_point:
            raise not_implemented_for(kernel, dt)
        return prim(input, other, dt)

    return impl


def _to_float(prim: Binary) -> Callable[[Any, Any], Tensor]:
    """An op whose integer operands give the default float."""

    def impl(input: Any, other: Any) -> Tensor:
        dt, _ = as_operands(input, other)
        return prim(input, other, float_result(dt))

    return impl


# --- atan2, hypot --------------------------------------------------------------------------


def _atan2_grad(g: Tensor, numerator: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # torch's convention: 0 where x² + y² is 0 (at the origin, or where it underflows).
    d = x * x + y * y
    return g * numerator * where(d == 0, 0, 1 / _safe(d))


def _atan2_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    # float32 through float64: NumPy's float32 arctan2 is off by an ulp where torch's is not.
    wide = np.promote_types(dt, np.float64)
    return binary_forward(np.arctan2)(a, b, wide).astype(dt, copy=False)


_atan2 = Binary(
    _atan2_kernel,
    (
        lambda g, n: _atan2_grad(g, n.other, n.self, n.other),
        lambda g, n: _atan2_grad(g, -n.self, n.self, n.other),
    ),
    "Atan2Backward0",
    formulas=("other/(self² + other²)", "-self/(self² + other²)"),
)
_atan2_impl = _to_float(_atan2)
atan2 = pair_op(
    "atan2",
    _atan2_impl,
    "tensors",
    doc="The angle of the point (other, input), in (-pi, pi].",
)
atan2_method = pair_method("atan2", _atan2_impl, "tensors", doc=atan2.__doc__)
atan2_ = inplace_pair_op("atan2", _atan2_impl, "tensors")
arctan2 = pair_op("arctan2", _atan2_impl, "tensors", doc="Alias of atan2.")
arctan2_method = pair_method("arctan2", _atan2_impl, "tensors", doc=arctan2.__doc__)
arctan2_ = inplace_pair_op("arctan2", _atan2_impl, "tensors")

_hypot = Binary(
    binary_forward(np.hypot),  # without overflow for large inputs
    (lambda g, n: g * n.self / n.result, lambda g, n: g * n.other / n.result),
    "HypotBackward0",
    formulas=("self/result", "other/result"),
)
_hypot_impl = _floats_only("hypot_cpu", _hypot)
hypot = pair_op("hypot", _hypot_impl, "tensors", doc="sqrt(input² + other²), safely.")
hypot_method = pair_method("hypot", _hypot_impl, "tensors", doc=hypot.__doc__)
hypot_ = inplace_pair_op("hypot", _hypot_impl, "tensors")


# --- copysign ------------------------------------------------------------------------------


def _copysign_grad(g: Tensor, x: Tensor, result: Tensor) -> Tensor:
    # result / x is ±1; torch sets it to 0 where x is 0.
    return g * where(x == 0, 0, result / _safe(x))


_copysign = Binary(
    binary_forward(np.copysign),
    (lambda g, n: _copysign_grad(g, n.self, n.result), _zero),
    "CopysignBackward0",
    "CopysignBackward1",
    formulas=("result/self, 0 where self = 0", "0"),
)
_copysign_impl = _to_float(_copysign)
copysign = pair_op(
    "copysign",
    _copysign_impl,
    "number second",
    (_BOTH, _SECOND),
    doc="|input| with the sign of other (the sign bit: -0.0 and -nan count as negative).",
)
copysign_method = pair_method(
    "copysign", _copysign_impl, "number second", (_BOTH, _SECOND), doc=copysign.__doc__
)
copysign_ = inplace_pair_op("copysign", _copysign_impl, "number second", (_BOTH, _SECOND))


# --- xlogy, xlog1py ------------------------------------------------------------------------


def _xlogy_kernel(log: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    @quietly
    def kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
        # 0 where x is 0, unless y is nan; x * log(y) elsewhere.
        return np.asarray(np.where((a == 0) & (b == b), np.zeros((), dt), a * log(b)))

    return kernel


def _xlogy_self_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    # torch's convention: log(y), but 0 where x is 0 and log(y) would be -inf or nan.
    outside = (x == 0) & (y <= 0)
    return where(outside, 0, g * where(outside, 1, y).log())


_xlogy = Binary(
    _xlogy_kernel(np.log),
    (lambda g, n: _xlogy_self_grad(g, n.self, n.other), lambda g, n: g * n.self / n.other),
    "XlogyBackward0",
    "XlogyBackward2",
    "XlogyBackward1",
    first_rule=lambda g, n: g * n.input / n.other,
    formulas=("log(other), 0 where self = 0 and other ≤ 0", "self/other"),
    first_formula="input/other",
)
_xlogy_impl = _to_float(_xlogy)
xlogy = pair_op(
    "xlogy",
    _xlogy_impl,
    "numbers",
    (_BOTH, _FIRST, _SECOND),
    doc="input * log(other), and 0 where input is 0 (unless other is nan).",
)
xlogy_method = pair_method(
    "xlogy", _xlogy_impl, "numbers", (_BOTH, _FIRST, _SECOND), doc=xlogy.__doc__
)
xlogy_ = inplace_pair_op("xlogy", _xlogy_impl, "number second", (_BOTH, _SECOND))


def _xlog1py_self_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    outside = (x == 0) & (y <= -1)
    return where(outside, 0, g * log1p(where(outside, 0, y)))


_xlog1py = Binary(
    _xlogy_kernel(np.log1p),
    (
        lambda g, n: _xlog1py_self_grad(g, n.self, n.other),
        lambda g, n: g * n.self / (n.other + 1),
    ),
    "SpecialXlog1PyBackward0",
    "SpecialXlog1PyBackward2",
    "SpecialXlog1PyBackward1",
    first_rule=lambda g, n: g * n.input / (n.other + 1),
    formulas=("log(1 + other), 0 where self = 0 and other ≤ -1", "self/(1 + other)"),
    first_formula="input/(1 + other)",
)
# torch.special.xlog1py: re-exported by chainrule.special, so not in __all__ (no torch.xlog1py).
xlog1py = pair_op(
    "special_xlog1py",
    _to_float(_xlog1py),
    "numbers",
    (_BOTH, _FIRST, _SECOND),
    doc="input * log1p(other), and 0 where input is 0 (unless other is nan).",
)
xlog1py.__name__ = xlog1py.__qualname__ = "xlog1py"


# --- logaddexp, logaddexp2 -----------------------------------------------------------------

_logaddexp = Binary(
    binary_forward(np.logaddexp),
    # 1 / (1 + exp(other - input)), as a sigmoid: no overflow for large differences.
    (
        lambda g, n: g * (n.self - n.other).sigmoid(),
        lambda g, n: g * (n.other - n.self).sigmoid(),
    ),
    "LogaddexpBackward0",
    formulas=("sigmoid(self - other)", "sigmoid(other - self)"),
)
_logaddexp_impl = _floats_only("logaddexp_cpu", _logaddexp)
logaddexp = pair_op(
    "logaddexp", _logaddexp_impl, "tensors", doc="log(exp(input) + exp(other)), without overflow."
)
logaddexp_method = pair_method("logaddexp", _logaddexp_impl, "tensors", doc=logaddexp.__doc__)
_logaddexp2 = Binary(
    binary_forward(np.logaddexp2),
    (
        lambda g, n: g * ((n.self - n.other) * _LN2).sigmoid(),
        lambda g, n: g * ((n.other - n.self) * _LN2).sigmoid(),
    ),
    "Logaddexp2Backward0",
    formulas=("sigmoid((self - other) * ln 2)", "sigmoid((other - self) * ln 2)"),
)
_logaddexp2_impl = _floats_only("logaddexp2_cpu", _logaddexp2)
logaddexp2 = pair_op(
    "logaddexp2", _logaddexp2_impl, "tensors", doc="log2(2**input + 2**other), without overflow."
)
logaddexp2_method = pair_method("logaddexp2", _logaddexp2_impl, "tensors", doc=logaddexp2.__doc__)


# --- nextafter, heaviside ------------------------------------------------------------------

# torch passes the gradient through to input (none where input equals other, and none
# to other), as if the step were 0.
_nextafter = Binary(
    binary_forward(np.nextafter),
    (lambda g, n: where(n.self == n.other, 0, g), _zero),
    "NextafterBackward0",
    formulas=("1, 0 where self = other", "0"),
)
_nextafter_impl = _floats_only("nextafter_cpu", _nextafter)
nextafter = pair_op(
    "nextafter",
    _nextafter_impl,
    "tensors",
    doc="The next float after input in the direction of other.",
)
nextafter_method = pair_method("nextafter", _nextafter_impl, "tensors", doc=nextafter.__doc__)
nextafter_ = inplace_pair_op("nextafter", _nextafter_impl, "tensors")

_heaviside = Undifferentiable(
    "heaviside",
    lambda a, b: np.where(a == 0, b, a > 0).astype(a.dtype),
    ("self", "values"),
)


def _heaviside_impl(input: Tensor, values: Tensor) -> Tensor:
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _heaviside(input, values)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 below 0, 1 above, `values` at 0 (and 0 at nan)."""
    check_pair("heaviside", input, values, "tensors", names=("input", "values"))
    return _heaviside_impl(input, values)


def heaviside_method(self: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 below 0, 1 above, `values` at 0 (and 0 at nan)."""
    check_pair("heaviside", self, values, "tensors", method=True, names=("input", "values"))
    return _heaviside_impl(self, values)


heaviside_method.__name__ = heaviside_method.__qualname__ = "heaviside"
heaviside_ = inplace_pair_op(
    "heaviside", _heaviside_impl, "tensors", names=("input", "values"), check_promotion=False
)


# --- ldexp ---------------------------------------------------------------------------------


@quietly
def _ldexp_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    if b.dtype.kind == "f":  # torch: input * 2**other, the power in other's dtype
        return np.multiply(a.astype(dt, copy=False), np.exp2(b).astype(dt, copy=False))
    return np.ldexp(a.astype(dt, copy=False), b.astype(np.int64, copy=False))  # exact


_ldexp = Binary(
    _ldexp_kernel,
    (lambda g, n: _ldexp_impl(g, n.other), lambda g, n: g * n.result * _LN2),
    "LdexpBackward0",
    formulas=("2^other", "result * ln 2"),
)


def _ldexp_impl(input: Tensor, other: Tensor) -> Tensor:
    if input.dtype.is_floating_point and other.dtype is _dtype.bool_:
        raise not_implemented_for("ldexp_cpu_exp", other.dtype)
    dt, _ = as_operands(input, other)
    return _ldexp(input, other, float_result(dt))


ldexp = pair_op("ldexp", _ldexp_impl, "tensors", doc="input * 2**other (exact for integer other).")
ldexp_method = pair_method("ldexp", _ldexp_impl, "tensors", doc=ldexp.__doc__)


def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    """torch.ldexp_: input * 2**other, written into input (a floating-point tensor)."""
    check_pair("ldexp_", input, other, "tensors")
    return _ldexp_inplace(input, other)


def ldexp_inplace_method(self: Tensor, other: Tensor) -> Tensor:
    """`x.ldexp_(other)`: as torch.ldexp_, its errors naming `other` alone."""
    check_pair("ldexp_", self, other, "tensors", method=True)
    return _ldexp_inplace(self, other)


ldexp_inplace_method.__name__ = ldexp_inplace_method.__qualname__ = "ldexp_"


def _ldexp_inplace(self: Tensor, other: Tensor) -> Tensor:
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"ldexp can't be cast to the desired output type {scalar_name(self.dtype)}"
        )
    return apply_inplace(self, lambda old: _ldexp_impl(old, other), (other,))


# --- float_power ---------------------------------------------------------------------------

_POWER_SIGNATURES = (
    "Tensor input, Tensor exponent, *, Tensor out = None",
    "Number self, Tensor exponent, *, Tensor out = None",
    "Tensor input, Number exponent, *, Tensor out = None",
)


def _float_power_impl(input: Any, exponent: Any) -> Tensor:
    base = input.double() if isinstance(input, Tensor) else float(input)
    return pow(base, exponent.double() if isinstance(exponent, Tensor) else float(exponent))


def float_power(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in float64, whatever the dtypes (a float64 result)."""
    check_pair(
        "float_power", input, exponent, "numbers", _POWER_SIGNATURES, names=("input", "exponent")
    )
    return _float_power_impl(input, exponent)


def float_power_method(self: Tensor, exponent: Tensor | Number) -> Tensor:
    """self ** exponent computed in float64, whatever the dtypes (a float64 result)."""
    check_pair("float_power", self, exponent, "numbers", _POWER_SIGNATURES, method=True)
    return _float_power_impl(self, exponent)


float_power_method.__name__ = float_power_method.__qualname__ = "float_power"


def float_power_(self: Tensor, exponent: Tensor | Number) -> Tensor:
    """In-place `float_power`: self must already be float64."""
    check_pair("float_power_", self, exponent, "number second", _POWER_SIGNATURES, method=True)
    if self.dtype is not _dtype.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {scalar_name(self.dtype)} but the "
            "operation's result requires dtype Double"
        )
    return apply_inplace(self, lambda old: _float_power_impl(old, exponent), (exponent,))
