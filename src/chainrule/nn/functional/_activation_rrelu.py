"""`F.rrelu`: the leaky ReLU whose negative slope is drawn at random in training.

In training every element at or below zero gets its own slope, uniform on
[lower, upper] and drawn from the default generator in memory order, one
double-precision draw per such element (as PyTorch's CPU kernel draws them); the
slopes (1 for the positive elements) are the node's `noise`, and the gradient is
`grad * noise`. In evaluation the slope is fixed at (lower + upper) / 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._ops.elementwise.conditional import where
from ..._ops.inplace import apply_inplace
from ..._ops.primitive import Primitive
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ...random import Generator, default_generator
from ._common import NEGATIVE_SLOPE_INPLACE, float_only

__all__ = ["rrelu", "rrelu_"]


def _draw_noise(
    data: np.ndarray, lower: float, upper: float, generator: Generator | None
) -> np.ndarray:
    """The slope of each element: 1 where positive, else uniform on [lower, upper]."""
    # PyTorch computes in float32 for every narrower type, bounds included.
    work = np.float64 if data.dtype == np.float64 else np.float32
    low, high = float(work(lower)), float(work(upper))
    flat = data.reshape(-1)
    at_most_zero = flat <= 0
    unit = (generator or default_generator)._uniform(
        (int(at_most_zero.sum()),), 0.0, 1.0, np.float64
    )
    # A plain multiply-add in double (not fused), then rounded to the working type.
    slopes = (unit * (high - low) + low).astype(work)
    noise = np.ones(flat.shape, dtype=work)
    noise[at_most_zero] = slopes
    return noise.reshape(data.shape)


def _rrelu_forward(
    a: np.ndarray, noise: Tensor, lower: float, upper: float, training: bool
) -> np.ndarray:
    if training:
        product = a.astype(noise._data.dtype, copy=False) * noise._data
        return product.astype(a.dtype, copy=False)
    slope = (lower + upper) / 2
    return np.where(a > 0, a, a * slope).astype(a.dtype, copy=False)


def _rrelu_rule(g: Tensor, n: Any) -> Tensor:
    if n.training:
        return g * n.noise
    return where(n.self > 0, g, g * ((n.lower + n.upper) / 2))


def _rrelu_result_rule(g: Tensor, n: Any) -> Tensor:
    if n.training:
        return g * n.noise
    slope = (n.lower + n.upper) / 2
    if slope < 0:
        raise RuntimeError(
            NEGATIVE_SLOPE_INPLACE.format(name="leakyReLu")
            + " File an issue at https://github.com/pytorch/pytorch if you do require "
            "supporting in-place leakRelu backward calculation with negative slope"
        )
    return where(n.result > 0, g, g * slope)


_FORMULA = "noise (the drawn slopes) in training, else 1 where {name} > 0, else (lower + upper)/2"
_rrelu = Primitive(
    "RreluWithNoiseBackward0",
    _rrelu_forward,
    grads=(_rrelu_rule,),
    formulas=(_FORMULA.format(name="self"),),
    tangent="elementwise",
    layout=contiguous_array,  # PyTorch's rrelu_with_noise writes a new contiguous tensor
)
# In place, PyTorch records another node, which reads the result instead of the input.
_rrelu_result = Primitive(
    "RreluWithNoiseBackward1",
    _rrelu_forward,
    grads=(_rrelu_result_rule,),
    formulas=(_FORMULA.format(name="result"),),
    tangent="elementwise",
)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """input where positive, else a * input: a uniform on [lower, upper] per element in
    training, (lower + upper) / 2 otherwise."""
    return rrelu_with_noise(input, lower, upper, training, inplace, None)


def rrelu_(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    return rrelu_with_noise(input, lower, upper, training, True, generator)


def rrelu_with_noise(
    input: Tensor,
    lower: float,
    upper: float,
    training: bool,
    inplace: bool,
    generator: Generator | None,
) -> Tensor:
    """rrelu, its slopes drawn from `generator` (the default one when None)."""
    float_only(input, "rrelu_with_noise_out_cpu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    data = input._data
    if training:
        drawn = _draw_noise(data, lower, upper, generator)
        noise = Tensor._make(drawn.astype(data.dtype, copy=False))
    else:  # unused outside training (PyTorch leaves it uninitialised)
        noise = Tensor._make(np.zeros(data.shape, dtype=data.dtype))
    params = {"noise": noise, "lower": lower, "upper": upper, "training": training}
    if inplace:
        return apply_inplace(input, lambda old: _rrelu_result(old, **params))
    return _rrelu(input, **params)
