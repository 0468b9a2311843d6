"""Smooth activations: elu, selu, celu, gelu, silu, mish, softplus, logsigmoid.

Exponentials are taken of non-positive arguments only, so large inputs neither
overflow nor warn; elu takes its negative side at 0, as PyTorch does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._ops.elementwise.conditional import where
from ..._ops.elementwise.exp_log import stable_sigmoid
from ..._ops.inplace import apply_inplace
from ..._ops.primitive import Primitive
from ..._ops.special.functions import erf
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ._common import NEGATIVE_SLOPE_INPLACE, float_only

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "logsigmoid",
    "mish",
    "selu",
    "selu_",
    "silu",
    "softplus",
]


# --- elu, selu, celu: scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)) ------------


def _elu_forward(a: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    # exp of the non-positive part only: no overflow for large inputs.
    negative = np.expm1(np.minimum(a, 0) * input_scale) * (alpha * scale)
    return np.where(a > 0, a * scale, negative).astype(a.dtype, copy=False)


def _elu_forward_op(
    a: np.ndarray, alpha: float, scale: float, input_scale: float, grad_input_scale: float
) -> np.ndarray:
    return _elu_forward(a, alpha, scale, input_scale)


# Note: PyTorch's celu derivative takes input_scale as 1 / alpha with alpha rounded to
# single precision (`grad_input_scale`); the forward uses 1 / alpha exactly.


def _elu_rule(g: Tensor, n: Any) -> Tensor:
    s = n.grad_input_scale
    positive = n.self > 0
    slope = (where(positive, 0, n.self) * s).exp() * (n.alpha * n.scale * s)  # exp never overflows
    return g * where(positive, n.scale, slope)


_ELU_FORMULAS = (
    "scale where self > 0, else alpha * scale * s * exp(s * self); "
    "alpha = {alpha}, scale = {scale}, s = {grad_input_scale}",
)


def _elu_result_rule(g: Tensor, n: Any) -> Tensor:
    if n.alpha < 0:
        raise RuntimeError(NEGATIVE_SLOPE_INPLACE.format(name="elu"))
    slope = (n.result + n.alpha * n.scale) * n.grad_input_scale
    return g * where(n.result > 0, n.scale, slope)


_ELU_RESULT_FORMULAS = (
    "scale where result > 0, else (result + alpha * scale) * s; "
    "alpha = {alpha}, scale = {scale}, s = {grad_input_scale}",
)


_elu = Primitive(
    "EluBackward0",
    _elu_forward_op,
    grads=(_elu_rule,),
    formulas=_ELU_FORMULAS,
    tangent="elementwise",
)
_elu_result = Primitive(
    "EluBackward1",
    _elu_forward_op,
    grads=(_elu_result_rule,),
    formulas=_ELU_RESULT_FORMULAS,
    tangent="elementwise",
)
_celu = Primitive(
    "CeluBackward0",
    _elu_forward_op,
    grads=(_elu_rule,),
    formulas=_ELU_FORMULAS,
    tangent="elementwise",
)
_celu_result = Primitive(
    "CeluBackward1",
    _elu_forward_op,
    grads=(_elu_result_rule,),
    formulas=_ELU_RESULT_FORMULAS,
    tangent="elementwise",
)

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _elu_family(
    input: Tensor, kernel: str, ops: tuple[Primitive, Primitive], inplace: bool, **params: float
) -> Tensor:
    float_only(input, kernel)
    if inplace:
        return apply_inplace(input, lambda old: ops[1](old, **params))
    return ops[0](input, **params)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """input where positive, else alpha * (exp(input) - 1)."""
    ops = (_elu, _elu_result)
    params = {"alpha": alpha, "scale": 1.0, "input_scale": 1.0, "grad_input_scale": 1.0}
    return _elu_family(input, "elu_cpu", ops, inplace, **params)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """The self-normalising elu: scale * elu(input, alpha) with fixed alpha and scale."""
    ops = (_elu, _elu_result)
    params = {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1.0}
    params["grad_input_scale"] = 1.0
    return _elu_family(input, "elu_cpu", ops, inplace, **params)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, input) + min(0, alpha * (exp(input / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    ops = (_celu, _celu_result)
    params = {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha}
    params["grad_input_scale"] = 1.0 / float(np.float32(alpha))
    return _elu_family(input, "elu_cpu", ops, inplace, **params)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


# --- gelu, silu, mish, softplus, logsigmoid ---------------------------------------------

_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_TANH_K = math.sqrt(2 / math.pi)
_TANH_C = 0.044715


def _gelu_forward(a: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        inner = _TANH_K * (a + _TANH_C * a * a * a)
        return (0.5 * a * (1 + np.tanh(inner))).astype(a.dtype, copy=False)
    cdf = 0.5 * (1 + erf(Tensor._make(a * _SQRT1_2))._data)  # erf's forward, on arrays
    return (a * cdf).astype(a.dtype, copy=False)


def _gelu_rule(g: Tensor, n: Any) -> Tensor:
    x = n.self
    if n.approximate == "tanh":
        t = (_TANH_K * (x + _TANH_C * x * x * x)).tanh()
        slope = _TANH_K * (1 + 3 * _TANH_C * x * x)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * slope)
    cdf = 0.5 * (1 + erf(x * _SQRT1_2))
    pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
    return g * (cdf + x * pdf)


_gelu = Primitive(
    "GeluBackward0",
    _gelu_forward,
    grads=(_gelu_rule,),
    formulas=(
        "cdf(self) + self * pdf(self), the normal cdf and pdf "
        "(or their tanh approximation: approximate = {approximate})",
    ),
    tangent="elementwise",
)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """input * Phi(input), Phi the normal CDF (or its tanh approximation)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    float_only(input, "GeluKernelImpl")
    return _gelu(input, approximate=approximate)


def _silu_rule(g: Tensor, n: Any) -> Tensor:
    s = n.self.sigmoid()
    return g * s * (1 + n.self * (1 - s))


_silu = Primitive(
    "SiluBackward0",
    lambda a: a * stable_sigmoid(a),
    grads=(_silu_rule,),
    formulas=("sigmoid(self) * (1 + self * (1 - sigmoid(self)))",),
    tangent="elementwise",
)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """input * sigmoid(input)."""
    float_only(input, "silu_cpu")
    return apply_inplace(input, _silu) if inplace else _silu(input)


def _mish_forward(a: np.ndarray) -> np.ndarray:
    return (a * np.tanh(np.logaddexp(0, a))).astype(a.dtype, copy=False)


def _mish_rule(g: Tensor, n: Any) -> Tensor:
    x = n.self
    t = softplus(x).tanh()
    return g * (t + x * x.sigmoid() * (1 - t * t))


_mish = Primitive(
    "MishBackward0",
    _mish_forward,
    grads=(_mish_rule,),
    formulas=("t + self * sigmoid(self) * (1 - t²), t = tanh(softplus(self))",),
    tangent="elementwise",
)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """input * tanh(softplus(input))."""
    float_only(input, "mish_cpu")
    return apply_inplace(input, _mish) if inplace else _mish(input)


def _softplus_forward(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    z = a * beta
    # logaddexp(0, z) = log(1 + exp(z)) without overflow; linear above the threshold.
    return np.where(z > threshold, a, np.logaddexp(0, z) / beta).astype(a.dtype, copy=False)


def _softplus_rule(g: Tensor, n: Any) -> Tensor:
    z = n.self * n.beta
    return g * where(z > n.threshold, 1, z.sigmoid())


_softplus = Primitive(
    "SoftplusBackward0",
    _softplus_forward,
    grads=(_softplus_rule,),
    formulas=(
        "sigmoid(beta * self), 1 where beta * self > threshold; "
        "beta = {beta}, threshold = {threshold}",
    ),
    tangent="elementwise",
)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * input)) / beta, and input itself where beta * input > threshold."""
    float_only(input, "softplus_cpu")
    return _softplus(input, beta=beta, threshold=threshold)


def _logsigmoid_forward(a: np.ndarray) -> np.ndarray:
    # log(sigmoid(a)) = min(a, 0) - log(1 + exp(-|a|)): no overflow, no log(0).
    return (np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))).astype(a.dtype, copy=False)


_logsigmoid = Primitive(
    "LogSigmoidBackward0",
    _logsigmoid_forward,
    grads=(lambda g, n: g * (-n.self).sigmoid(),),
    formulas=("sigmoid(-self)",),
    tangent="elementwise",
    layout=contiguous_array,  # PyTorch's log_sigmoid kernel writes a new contiguous tensor
)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(input)), computed stably."""
    float_only(input, "log_sigmoid_cpu")
    return _logsigmoid(input)
