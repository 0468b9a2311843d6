"""Piecewise activations (`F.relu`, `F.hardtanh`, `F.prelu`, ...), each its own op as in
PyTorch; this module also gathers the family's public names for `nn.functional`.

At a kink the derivative follows PyTorch: relu, hardtanh, hardshrink and
softshrink pass no gradient at their corners; leaky_relu takes the negative
side at 0. `inplace=True` variants write into their input; those PyTorch
records differently (`...Backward1`) get nodes of their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.elementwise.binary_common import is_number, require_tensors
from ..._ops.elementwise.clamping import relu as _relu_op
from ..._ops.elementwise.conditional import where
from ..._ops.elementwise.exp_log import sigmoid, stable_sigmoid
from ..._ops.elementwise.trig import tanh
from ..._ops.inplace import apply_inplace
from ..._ops.primitive import Primitive, wrap_dim
from ..._ops.shape.views import cat
from ..._tensor import Tensor
from ._activation_rrelu import *  # noqa: F403
from ._activation_rrelu import __all__ as _rrelu_all
from ._activation_smooth import *  # noqa: F403
from ._activation_smooth import __all__ as _smooth_all
from ._activation_softmax import *  # noqa: F403
from ._activation_softmax import __all__ as _softmax_all
from ._common import NEGATIVE_SLOPE_INPLACE, float_only

__all__ = [
    *_rrelu_all,
    *_smooth_all,
    *_softmax_all,
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "sigmoid",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]


# --- relu, relu6, hardtanh, threshold, leaky_relu ---------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0)."""
    return apply_inplace(input, _relu_op) if inplace else _relu_op(input)


def relu_(input: Tensor) -> Tensor:
    return apply_inplace(input, _relu_op)


_hardtanh = Primitive(
    "HardtanhBackward0",
    lambda a, min_val, max_val: np.minimum(np.maximum(a, min_val), max_val).astype(a.dtype),
    grads=(lambda g, n: where((n.self > n.min_val) & (n.self < n.max_val), g, 0),),
    formulas=("1 where {min_val} < self < {max_val}, else 0",),
    tangent="elementwise",
)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """input clipped to [min_val, max_val]; no gradient at or beyond the ends."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return apply_inplace(input, lambda old: _hardtanh(old, min_val=min_val, max_val=max_val))
    return _hardtanh(input, min_val=min_val, max_val=max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(input, 0), 6): a hardtanh, as PyTorch records it."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _threshold_forward(a: np.ndarray, threshold: float, value: float) -> np.ndarray:
    return np.where(a > threshold, a, np.asarray(value).astype(a.dtype))


_threshold = Primitive(
    "ThresholdBackward0",
    _threshold_forward,
    grads=(lambda g, n: where(n.self > n.threshold, g, 0),),
    formulas=("1 where self > {threshold}, else 0",),
    tangent="elementwise",
)
# In place, PyTorch records another node, still differentiated from the input it overwrote.
_threshold_result = Primitive(
    "ThresholdBackward1",
    _threshold_forward,
    grads=(lambda g, n: where(n.self > n.threshold, g, 0),),
    formulas=("1 where self > {threshold}, else 0",),
    tangent="elementwise",
)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """input where input > threshold, else value."""
    if inplace:
        return apply_inplace(
            input, lambda old: _threshold_result(old, threshold=threshold, value=value)
        )
    return _threshold(input, threshold=threshold, value=value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return apply_inplace(
        input, lambda old: _threshold_result(old, threshold=threshold, value=value)
    )


def _leaky_relu_forward(a: np.ndarray, negative_slope: float) -> np.ndarray:
    return np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False)


def _leaky_relu_result_rule(g: Tensor, n: Any) -> Tensor:
    if n.negative_slope < 0:
        raise RuntimeError(
            NEGATIVE_SLOPE_INPLACE.format(name="leakyReLu")
            + " File an issue at https://github.com/pytorch/pytorch if you do require "
            "supporting in-place leakRelu backward calculation with negative slope"
        )
    return where(n.result > 0, g, g * n.negative_slope)


_leaky_relu = Primitive(
    "LeakyReluBackward0",
    _leaky_relu_forward,
    grads=(lambda g, n: where(n.self > 0, g, g * n.negative_slope),),
    formulas=("1 where self > 0, else negative_slope = {negative_slope}",),
    tangent="elementwise",
)
_leaky_relu_result = Primitive(
    "LeakyReluBackward1",
    _leaky_relu_forward,
    grads=(_leaky_relu_result_rule,),
    formulas=("1 where result > 0, else negative_slope = {negative_slope}",),
    tangent="elementwise",
)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """input where positive, else negative_slope * input."""
    float_only(input, "leaky_relu_cpu")
    if inplace:
        return apply_inplace(
            input, lambda old: _leaky_relu_result(old, negative_slope=negative_slope)
        )
    return _leaky_relu(input, negative_slope=negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


# --- hardsigmoid, hardswish, softsign, tanhshrink, shrinks ------------------------------


def _hardsigmoid_forward(a: np.ndarray) -> np.ndarray:
    return (np.minimum(np.maximum(a + 3, 0), 6) / 6).astype(a.dtype, copy=False)


_ONE_SIXTH = float(np.float32(1 / 6))  # PyTorch's slope, a single-precision constant
_hardsigmoid = Primitive(
    "HardsigmoidBackward0",
    _hardsigmoid_forward,
    grads=(lambda g, n: where((n.self > -3) & (n.self < 3), g * _ONE_SIXTH, 0),),
    formulas=("1/6 where -3 < self < 3, else 0",),
    tangent="elementwise",
)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(input + 3) / 6."""
    float_only(input, "hardsigmoid_cpu")
    return apply_inplace(input, _hardsigmoid) if inplace else _hardsigmoid(input)


def _hardswish_forward(a: np.ndarray) -> np.ndarray:
    return (a * np.minimum(np.maximum(a + 3, 0), 6) / 6).astype(a.dtype, copy=False)


def _hardswish_rule(g: Tensor, n: Any) -> Tensor:
    x = n.self
    return g * where(x < 3, where(x <= -3, 0, x / 3 + 0.5), 1)


_hardswish = Primitive(
    "HardswishBackward0",
    _hardswish_forward,
    grads=(_hardswish_rule,),
    formulas=("self/3 + 1/2 where -3 < self < 3, 1 where self ≥ 3, else 0",),
    tangent="elementwise",
)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """input * relu6(input + 3) / 6."""
    float_only(input, "hardswish_cpu")
    return apply_inplace(input, _hardswish) if inplace else _hardswish(input)


def softsign(input: Tensor) -> Tensor:
    """input / (1 + |input|), a composite (DivBackward0) as in PyTorch."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """input - tanh(input), a composite (SubBackward0) as in PyTorch."""
    return input - input.tanh()


def _check_lambda(input: Tensor, lambd: float, kernel: str) -> None:
    float_only(input, kernel)
    if not lambd >= 0:
        top = float(np.finfo(input._data.dtype).max)
        raise RuntimeError(
            f"lambda must be in range [0, {top:g}] for input dtype {scalar_name(input)}, "
            f"but found {lambd:g}"
        )


def _softshrink_forward(a: np.ndarray, lambd: float) -> np.ndarray:
    shrunk = np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, 0))
    return shrunk.astype(a.dtype, copy=False)


_softshrink = Primitive(
    "SoftshrinkBackward0",
    _softshrink_forward,
    grads=(lambda g, n: where(n.self.abs() > n.lambd, g, 0),),
    formulas=("1 where |self| > {lambd}, else 0",),
    tangent="elementwise",
)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input moved lambd towards 0, and 0 within [-lambd, lambd]."""
    _check_lambda(input, lambd, "softshrink_check")
    return _softshrink(input, lambd=lambd)


_hardshrink = Primitive(
    "HardshrinkBackward0",
    lambda a, lambd: np.where(np.abs(a) > lambd, a, 0).astype(a.dtype, copy=False),
    grads=(lambda g, n: where(n.self.abs() > n.lambd, g, 0),),
    formulas=("1 where |self| > {lambd}, else 0",),
    tangent="elementwise",
)


def _check_lambd(value: Any, position: int) -> None:
    if not is_number(value):
        raise TypeError(
            f"hardshrink(): argument 'lambd' (position {position}) must be Number, not "
            f"{type(value).__name__}"
        )


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input, and 0 within [-lambd, lambd]."""
    require_tensors("hardshrink", input=input)
    _check_lambd(lambd, 2)
    float_only(input, "hardshrink_cpu")
    return _hardshrink(input, lambd=lambd)


def hardshrink_method(self: Tensor, lambd: float = 0.5) -> Tensor:
    """`x.hardshrink(lambd)`: as `hardshrink`, its errors counting from `lambd`."""
    _check_lambd(lambd, 1)
    float_only(self, "hardshrink_cpu")
    return _hardshrink(self, lambd=lambd)


# --- prelu, glu ---------------------------------------------------------------------------


def _prelu_forward(a: np.ndarray, w: np.ndarray, shape: tuple[int, ...], **_: Any) -> np.ndarray:
    return np.where(a > 0, a, a * w.reshape(shape)).astype(a.dtype, copy=False)


def _prelu_weight_rule(g: Tensor, n: Any) -> Tensor:
    per_element = where(n.self > 0, 0, g * n.self)
    return per_element.sum(n.summed).reshape(n.weight_sizes)


_prelu = Primitive(
    "PreluKernelBackward0",
    _prelu_forward,
    inputs=("self", "weight"),
    grads=(
        lambda g, n: where(n.self > 0, g, g * n.weight.reshape(n.shape)),
        _prelu_weight_rule,
    ),
    formulas=(
        "1 where self > 0, else weight",
        "Σ grad * self where self ≤ 0, over all but the channel dim",
    ),
)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """input where positive, else weight * input (one weight, or one per channel, dim 1)."""
    require_tensors("prelu", input=input, weight=weight)
    return _prelu_checked(input, weight)


def prelu_method(self: Tensor, weight: Tensor) -> Tensor:
    """`x.prelu(weight)`: as `prelu`, its errors naming `weight` alone."""
    require_tensors("prelu", weight=weight)
    return _prelu_checked(self, weight)


hardshrink_method.__name__ = hardshrink_method.__qualname__ = "hardshrink"
prelu_method.__name__ = prelu_method.__qualname__ = "prelu"


def _prelu_checked(input: Tensor, weight: Tensor) -> Tensor:
    float_only(input, "prelu_cpu")
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{scalar_name(input)} and {scalar_name(weight)}"
        )
    channels = input._data.shape[1] if input.ndim >= 2 else 1
    count = weight.numel()
    if count != 1 and count != channels:
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{count} and channel size = {channels}."
        )
    if count == 1:
        shape: tuple[int, ...] = ()
        summed = tuple(range(input.ndim))
    else:
        shape = (channels,) + (1,) * (input.ndim - 2)
        summed = (0, *range(2, input.ndim))
    return _prelu(input, weight, shape=shape, summed=summed, weight_sizes=weight.shape)


def _glu_forward(a: np.ndarray, dim: int, half: int) -> np.ndarray:
    first, second = np.split(a, 2, axis=dim)
    return (first * stable_sigmoid(second)).astype(a.dtype, copy=False)


def _glu_rule(g: Tensor, n: Any) -> Tensor:
    first = n.self.narrow(n.dim, 0, n.half)
    gate = n.self.narrow(n.dim, n.half, n.half).sigmoid()
    return cat([g * gate, g * first * gate * (1 - gate)], n.dim)


_glu = Primitive(
    "GluBackward0",
    _glu_forward,
    grads=(_glu_rule,),
    formulas=(
        "grad * sigmoid(b) and grad * a * sigmoid(b) * (1 - sigmoid(b)), joined along dim {dim} "
        "(a, b: the halves of self)",
    ),
)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the two halves of input along dim."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    float_only(input, "glu_cpu")
    return _glu(input, dim=d, half=size // 2)
