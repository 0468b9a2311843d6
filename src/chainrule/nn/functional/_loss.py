"""Pointwise losses: mse, l1, smooth_l1, huber, binary cross entropy (of probabilities or
logits), soft margin and kl_div; the ones PyTorch records as one node are one op here too.

A loss op reduces inside its forward; its rules scale the pointwise derivative
by the incoming gradient (divided by the element count for 'mean').
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import _dtype
from ..._dtype import scalar_name
from ..._ops.broadcasting import broadcast_shapes
from ..._ops.elementwise.clamping import clamp_min
from ..._ops.elementwise.conditional import where
from ..._ops.primitive import Primitive
from ..._ops.quiet import quiet
from ..._tensor import Tensor
from ._activation_smooth import softplus
from ._common import (
    check_reduction,
    legacy_reduction,
    not_differentiable,
    reduce_loss,
    size_warning,
)
from ._loss_ctc import *  # noqa: F403
from ._loss_ctc import __all__ as _ctc_all
from ._loss_margin import *  # noqa: F403
from ._loss_margin import __all__ as _margin_all
from ._loss_multi_margin import *  # noqa: F403
from ._loss_multi_margin import __all__ as _multi_margin_all
from ._loss_nll import *  # noqa: F403
from ._loss_nll import __all__ as _nll_all

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "mse_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    *_ctc_all,
    *_margin_all,
    *_multi_margin_all,
    *_nll_all,
]


def _reduced(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    total = np.sum(loss, dtype=loss.dtype)
    return total / np.asarray(loss.size, loss.dtype) if reduction == "mean" else total


def _spread(g: Tensor, n: Any) -> Tensor:
    """The incoming gradient per element: divided by the count for 'mean'."""
    return g / n.count if n.reduction == "mean" else g


_PER_ELEMENT = ", / n = {count} if the reduction ({reduction}) is mean"  # what _spread does


def _loss_op(
    name: str,
    pointwise: Any,
    grad_self: Any,
    grad_target: Any = None,
    formulas: tuple[str | None, str | None] = (None, None),
) -> Primitive:
    """A loss op on (input, target) that broadcast: `pointwise(x, t, **params)`, reduced.

    `formulas` say the two rules, as Primitive's `formulas` do."""

    def forward(
        x: np.ndarray, t: np.ndarray, reduction: str, dt: np.dtype, count: int, **params: Any
    ) -> Any:
        loss = quiet(pointwise, x.astype(dt, copy=False), t.astype(dt, copy=False), **params)
        return _reduced(np.asarray(loss, dtype=dt), reduction)

    return Primitive(
        name,
        forward,
        inputs=("self", "target"),
        grads=(grad_self, grad_target),
        formulas=formulas,
    )


def _operands(input: Tensor, target: Tensor, kernel: str) -> tuple[np.dtype, int]:
    """The dtype the loss computes in, and the element count of the broadcast shape."""
    dt = _dtype.result_type(input, target)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input)}'")
    shape = broadcast_shapes(input._data.shape, target._data.shape)
    return dt.np, int(np.prod(shape))


# --- mse, l1, smooth_l1, huber --------------------------------------------------------------

_mse = _loss_op(
    "MseLossBackward0",
    lambda x, t: (x - t) * (x - t),
    lambda g, n: _spread(g, n) * 2 * (n.self - n.target),
    lambda g, n: _spread(g, n) * -2 * (n.self - n.target),
    formulas=("2 * (self - target)" + _PER_ELEMENT, "-2 * (self - target)" + _PER_ELEMENT),
)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """(input - target)^2, reduced."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    size_warning(input, target)
    dt, count = _operands(input, target, "mse_cpu")
    if weight is not None:
        _check_weight(weight, input)
        return _weighted((input - target) ** 2, weight, reduction)
    return _mse(input, target, reduction=reduction, dt=dt, count=count)


def _check_weight(weight: Tensor, input: Tensor) -> None:
    if weight._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")


def _weighted(loss: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """A pointwise loss times weight; 'mean' is then the weighted mean."""
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return reduce_loss(loss, reduction)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """|input - target|, reduced: a composite (AbsBackward0 and a reduction), as in PyTorch."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    size_warning(input, target)
    _operands(input, target, "abs_cpu")
    if weight is not None:
        _check_weight(weight, input)
        return _weighted((input - target).abs(), weight, reduction)
    return reduce_loss((input - target).abs(), reduction)


def _smooth_l1_pointwise(x: np.ndarray, t: np.ndarray, beta: float) -> np.ndarray:
    d = np.abs(x - t)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def _smooth_l1_slope(g: Tensor, n: Any, d: Tensor) -> Tensor:
    return _spread(g, n) * where(d.abs() < n.beta, d / n.beta, d.sign())


# Each rule names `n.self` and `n.target` itself: what a rule names is what the node saves.
_smooth_l1 = _loss_op(
    "SmoothL1LossBackward0",
    _smooth_l1_pointwise,
    lambda g, n: _smooth_l1_slope(g, n, n.self - n.target),
    lambda g, n: -_smooth_l1_slope(g, n, n.self - n.target),
    formulas=(
        "d/beta where |d| < beta, else sign(d), d = self - target, beta = {beta}" + _PER_ELEMENT,
        "-(d/beta where |d| < beta, else sign(d)), d = self - target, beta = {beta}" + _PER_ELEMENT,
    ),
)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target), reduced."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    size_warning(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    dt, count = _operands(input, target, "smooth_l1_cpu")
    return _smooth_l1(input, target, reduction=reduction, dt=dt, count=count, beta=beta)


def _huber_pointwise(x: np.ndarray, t: np.ndarray, delta: float) -> np.ndarray:
    d = np.abs(x - t)
    return np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


def _huber_slope(g: Tensor, n: Any, d: Tensor) -> Tensor:
    return _spread(g, n) * where(d.abs() < n.delta, d, d.sign() * n.delta)


_huber = _loss_op(
    "HuberLossBackward0",
    _huber_pointwise,
    lambda g, n: _huber_slope(g, n, n.self - n.target),
    lambda g, n: -_huber_slope(g, n, n.self - n.target),
    formulas=(
        "d where |d| < delta, else delta * sign(d), d = self - target, delta = {delta}"
        + _PER_ELEMENT,
        "-(d where |d| < delta, else delta * sign(d)), d = self - target, delta = {delta}"
        + _PER_ELEMENT,
    ),
)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (d = input - target), reduced."""
    check_reduction(reduction)
    size_warning(input, target)
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    dt, count = _operands(input, target, "huber_cpu")
    if weight is not None:
        _check_weight(weight, input)
        loss = _huber(input, target, reduction="none", dt=dt, count=count, delta=delta)
        return reduce_loss(loss * weight, reduction)
    return _huber(input, target, reduction=reduction, dt=dt, count=count, delta=delta)


# --- binary cross entropy -------------------------------------------------------------------

# PyTorch divides by max(x (1 - x), EPS), EPS being 1e-12 in single precision.
_BCE_EPS = float(np.float32(1e-12))


def _bce_pointwise(x: np.ndarray, t: np.ndarray, weight: Tensor | None) -> np.ndarray:
    log_x = np.maximum(np.log(x), -100)
    log_1mx = np.maximum(np.log1p(-x), -100)
    loss = (t - 1) * log_1mx - t * log_x
    return loss if weight is None else loss * weight._data


def _bce_weighted(g: Tensor, n: Any) -> Tensor:
    g = _spread(g, n)
    return g if n.weight is None else g * n.weight


_bce = _loss_op(
    "BinaryCrossEntropyBackward0",
    _bce_pointwise,
    lambda g, n: (
        _bce_weighted(g, n) * (n.self - n.target) / clamp_min(n.self * (1 - n.self), _BCE_EPS)
    ),
    lambda g, n: (
        _bce_weighted(g, n) * (clamp_min((1 - n.self).log(), -100) - clamp_min(n.self.log(), -100))
    ),
    formulas=(
        "(self - target) / max(self * (1 - self), 1e-12), times weight if given" + _PER_ELEMENT,
        "log(1 - self) - log(self), each log at least -100, times weight if given" + _PER_ELEMENT,
    ),
)


def _expand_weight(weight: Tensor, shape: tuple[int, ...], dtype: np.dtype) -> Tensor:
    try:
        np.broadcast_to(weight._data, shape)
    except ValueError:
        raise RuntimeError(
            f"Attempting to broadcast a dimension of length {weight._data.shape[-1]} at -1! "
            f"Mismatching argument at index 1 had {weight.size()}; but expected shape should be "
            f"broadcastable to {list(shape)}"
        ) from None
    return Tensor._make(weight._data.astype(dtype, copy=False))


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100, times weight; reduced."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    dt, count = _operands(input, target, "binary_cross_entropy")
    w = None if weight is None else _expand_weight(weight, input._data.shape, dt)
    not_differentiable("binary_cross_entropy", weight=weight)
    x = input._data
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    t = target._data
    if np.any((t < 0) | (t > 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    return _bce(input, target, reduction=reduction, dt=dt, count=count, weight=w)


def _bce_logits_pointwise(
    x: np.ndarray, t: np.ndarray, weight: Tensor | None, pos_weight: Tensor | None
) -> np.ndarray:
    softplus_neg = np.logaddexp(0, -x)  # log(1 + exp(-x)), stably
    if pos_weight is None:
        loss = (1 - t) * x + softplus_neg
    else:
        loss = (1 - t) * x + (1 + (pos_weight._data - 1) * t) * softplus_neg
    return loss if weight is None else loss * weight._data


def _bce_logits_self(g: Tensor, n: Any) -> Tensor:
    x, t, pw = n.self, n.target, n.pos_weight
    slope = x.sigmoid() - t if pw is None else (1 + (pw - 1) * t) * x.sigmoid() - pw * t
    return _bce_weighted(g, n) * slope


def _bce_logits_target(g: Tensor, n: Any) -> Tensor:
    x, pw = n.self, n.pos_weight
    slope = -x if pw is None else (pw - 1) * softplus(-x) - x
    return _bce_weighted(g, n) * slope


_bce_logits = _loss_op(
    "BinaryCrossEntropyWithLogitsBackward0",
    _bce_logits_pointwise,
    _bce_logits_self,
    _bce_logits_target,
    formulas=(
        "sigmoid(self) - target (with pos_weight p: (1 + (p - 1) * target) * sigmoid(self) "
        "- p * target), times weight if given" + _PER_ELEMENT,
        "-self (with pos_weight p: (p - 1) * softplus(-self) - self), times weight if given"
        + _PER_ELEMENT,
    ),
)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    dt, count = _operands(input, target, "binary_cross_entropy_with_logits")
    not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    shape = input._data.shape
    for extra in (pos_weight, weight):
        if extra is not None:
            broadcast_shapes(extra._data.shape, shape)
    w = None if weight is None else Tensor._make(weight._data.astype(dt, copy=False))
    pw = None if pos_weight is None else Tensor._make(pos_weight._data.astype(dt, copy=False))
    return _bce_logits(
        input, target, reduction=reduction, dt=dt, count=count, weight=w, pos_weight=pw
    )


# --- soft margin, kl_div ----------------------------------------------------------------------


def _soft_margin_forward(
    x: np.ndarray, target: Tensor, reduction: str, dt: np.dtype, **_: Any
) -> np.ndarray:
    t = target._data.astype(dt, copy=False)
    return _reduced(np.asarray(np.logaddexp(0, -t * x), dtype=dt), reduction)


_soft_margin = Primitive(
    "SoftMarginLossBackward0",
    _soft_margin_forward,
    grads=(lambda g, n: _spread(g, n) * -n.target * (-n.target * n.self).sigmoid(),),
    formulas=("-target * sigmoid(-target * self)" + _PER_ELEMENT,),
)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + exp(-target * input)), reduced (target is +1 or -1)."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    dt, count = _operands(input, target, "soft_margin_loss")
    not_differentiable("soft_margin_loss", target=target)
    t = Tensor._make(
        np.broadcast_to(
            target._data, np.broadcast_shapes(input._data.shape, target._data.shape)
        ).astype(dt)
    )
    return _soft_margin(input, target=t, reduction=reduction, dt=dt, count=count)


_KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release."
)


def _xlogx(t: Tensor) -> Tensor:
    """t log t, 0 where t is 0."""
    zero = t == 0
    return where(zero, 0, t * where(zero, 1, t).log())


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """target * (log(target) - input), input being log-probabilities (target too if log_target)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, ("none", "batchmean", "sum", "mean"))
    if reduction == "mean":
        warnings.warn(_KL_MEAN_WARNING, UserWarning, stacklevel=2)
    log_ratio = target - input if log_target else None
    loss = target.exp() * log_ratio if log_ratio is not None else _xlogx(target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input._data.shape[0] if input.ndim else total
    return reduce_loss(loss, reduction)
