"""nll_loss and cross_entropy: class-index targets (weights, ignore_index, K-dim inputs)
and class-probability targets, with label smoothing.

nll_loss and its gradient (a scatter into zeros) are one op each, and each is
the other's derivative; cross_entropy is log_softmax followed by nll_loss.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._dtype import scalar_name
from ..._ops.elementwise.arithmetic import div_scalar, mul_scalar
from ..._ops.elementwise.conditional import where
from ..._ops.primitive import Primitive
from ..._ops.quiet import quiet
from ..._tensor import Tensor
from ._activation_softmax import log_softmax
from ._common import (
    check_reduction,
    legacy_reduction,
    not_differentiable,
    reduce_loss,
)

__all__ = ["cross_entropy", "nll_loss"]


def _nll_forward(
    x: np.ndarray, picked: np.ndarray, weights: np.ndarray, total: Any, reduction: str, **_: Any
) -> np.ndarray:
    losses = -(weights * _at_targets(x, picked))
    if reduction == "none":
        return losses
    out = np.add.reduce(losses, axis=None, dtype=x.dtype)  # np.sum's call
    if reduction == "sum":
        return out
    return quiet(lambda: np.asarray(out / total, dtype=x.dtype))  # every target ignored: nan


def _nll_backward_forward(
    g: np.ndarray,
    picked: np.ndarray,
    weights: np.ndarray,
    total: Any,
    reduction: str,
    self_sizes: tuple[int, ...],
) -> np.ndarray:
    # 0 - w * g, not -w * g: an ignored target (weight 0) leaves +0.0, as PyTorch leaves it.
    coef = 0 - weights * g
    if reduction == "mean":
        # Every target ignored: the loss is nan, but no input entry gets a gradient.
        coef = coef / total if total else coef * 0
    out = np.zeros(self_sizes, dtype=g.dtype)
    if out.ndim == 2:
        out[np.arange(out.shape[0]), picked] = coef
    else:
        cdim = 1 if out.ndim > 1 else 0
        np.put_along_axis(out, np.expand_dims(picked, cdim), np.expand_dims(coef, cdim), cdim)
    return out


def _at_targets(x: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """x at each target's class: x[n, picked[n, ...], ...] (x[picked] for one sample)."""
    if x.ndim == 2:  # the common (N, C) case, without the general machinery
        return x[np.arange(x.shape[0]), picked]
    cdim = 1 if x.ndim > 1 else 0
    return np.take_along_axis(x, np.expand_dims(picked, cdim), cdim).squeeze(cdim)


def _nll_params(n: Any) -> dict[str, Any]:
    return {"picked": n.picked, "weights": n.weights, "total": n.total, "reduction": n.reduction}


_nll_backward: Primitive = Primitive(
    "NllLossBackwardBackward0",
    _nll_backward_forward,
    inputs=("grad_output",),
    # The loss again, recording the input sizes its own gradient scatters back into.
    grads=(lambda g, n: _nll_of(n.self_sizes)(g, self_sizes=n.self_sizes, **_nll_params(n)),),
    formulas=("-grad at each row's target class, weighted (/ total weight if mean), summed",),
    tangent="linear",
)
_nll: Primitive = Primitive(
    "NllLossBackward0",
    _nll_forward,
    grads=(lambda g, n: _nll_backward(g, self_sizes=n.self_sizes, **_nll_params(n)),),
    formulas=("-grad at each row's target class (/ total weight if mean), else 0",),
    tangent="linear",
    array_grads=(
        lambda g, n: _nll_backward.on_arrays(g, self_sizes=n.self_sizes, **_nll_params(n)),
    ),
)
# PyTorch names the op on (N, C, d1, ...) inputs after its 2-d spatial kernel.
_nll_2d = Primitive(
    "NllLoss2DBackward0",
    _nll_forward,
    grads=_nll.grads,
    formulas=_nll.formulas,
    tangent="linear",
    array_grads=_nll.array_grads,
)


def _nll_of(self_sizes: tuple[int, ...]) -> Primitive:
    """The loss's node for inputs of these sizes (PyTorch names K-dim ones after 2-d)."""
    return _nll if len(self_sizes) <= 2 else _nll_2d


def _check_target(input: Tensor, target: Tensor) -> None:
    """PyTorch's checks of a class-index target against the input's batch and class dims."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1:
        batch = target._data.shape[0] if target.ndim else 0
        if input._data.shape[0] != batch:
            raise ValueError(
                f"Expected input batch_size ({input._data.shape[0]}) to match target "
                f"batch_size ({batch})."
            )
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 1 and target.ndim == 1 and target._data.shape[0] != 1:
        raise ValueError(
            "For 1D input, 1D target must have size 1, but got target size: "
            f"{target._data.shape[0]}"
        )
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {scalar_name(target)}"
        )
    if input.ndim > 2:
        expected = [input._data.shape[0], *input._data.shape[2:]]
        if list(target._data.shape) != expected:
            raise RuntimeError(f"Expected target size {expected}, got {list(target._data.shape)}")


def _check_weight(weight: Tensor | None, input: Tensor, classes: int) -> None:
    if weight is None:
        return
    if weight.ndim != 1 or weight._data.shape[0] != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight._data.shape)}"
        )
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input)} but found {scalar_name(weight)}"
        )


def _classes(input: Tensor) -> int:
    return input._data.shape[1] if input.ndim > 1 else input._data.shape[0]


def _picked(
    input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each target's class (0 where ignored), its weight (0 where ignored), and the mask."""
    t = target._data.astype(np.int64, copy=False)
    if input.ndim == 1:
        t = t.reshape(())  # one class index (given as 0-d or as one element)
    classes = _classes(input)
    dt = input._data.dtype
    if weight is None and t.size:
        low, high = t.min(), t.max()
        if low >= 0 and high < classes and not low <= ignore_index <= high:
            # The common case: every class valid, none ignored (two passes, not eight);
            # a copy, as the node keeps it and the target may be written in place after.
            return t.copy(), np.ones(t.shape, dt), np.zeros(t.shape, bool)
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= classes))
    if bad.any():
        raise IndexError(f"Target {t[bad].reshape(-1)[0]} is out of bounds.")
    picked = np.where(ignored, 0, t)
    if weight is None:
        weights = (~ignored).astype(dt)
    else:
        weights = np.where(ignored, 0, weight._data[picked]).astype(dt, copy=False)
    return picked, weights, ignored


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-weight[t] * input[t] for each class index t (input holds log-probabilities), reduced.

    'mean' divides by the summed weights of the targets not ignored.
    """
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    _check_target(input, target)
    _check_weight(weight, input, _classes(input))
    not_differentiable("nll_loss_forward", weight=weight)
    spatial = target._data.shape
    if input.ndim > 4:  # as PyTorch: through a view with one 2-d spatial plane
        n, c = input._data.shape[:2]
        input = input.reshape(n, c, 1, -1)
        target = Tensor._make(target._data.reshape(n, 1, -1))
    picked, weights, _ = _picked(input, target, weight, ignore_index)
    total = np.add.reduce(weights, axis=None, dtype=weights.dtype) if reduction == "mean" else None
    out: Tensor = _nll_of(input._data.shape)(
        input,
        picked=picked,
        weights=weights,
        total=total,
        reduction=reduction,
        self_sizes=input._data.shape,
    )
    return out.reshape(spatial) if reduction == "none" and out.shape != spatial else out


def _class_view(t: Tensor, input: Tensor) -> Tensor:
    """A per-class vector shaped to broadcast along input's class dim."""
    if input.ndim <= 1:
        return t
    return t.reshape((t._data.shape[0],) + (1,) * (input.ndim - 2))


def _probability_targets(
    input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, smoothing: float
) -> Tensor:
    if not target.is_floating_point():
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{scalar_name(target)}"
        )
    cdim = 1 if input.ndim > 1 else 0
    classes = input._data.shape[cdim]
    logp = log_softmax(input, cdim)
    if smoothing > 0:
        target = target * (1 - smoothing) + smoothing / classes
    product = logp * target
    if weight is not None:
        product = product * _class_view(weight, input)
    if reduction == "none":
        return -product.sum(cdim)
    total = -product.sum()
    if reduction == "sum":
        return total
    return div_scalar(total, input.numel() / classes if classes else 0)


def _smoothed_indices(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    smoothing: float,
) -> Tensor:
    """(1 - s) nll + s / C * (the loss against the uniform distribution), as PyTorch mixes them."""
    cdim = 1 if input.ndim > 1 else 0
    classes = input._data.shape[cdim]
    logp = log_softmax(input, cdim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    _, weights, ignored = _picked(input, target, weight, ignore_index)
    scaled = logp if weight is None else logp * _class_view(weight, input)
    uniform = where(Tensor._make(ignored), 0, -scaled.sum(cdim))
    if reduction == "mean":
        # Normalised as the nll part: by the weights (or count) of the targets kept.
        uniform = uniform.sum() / float(np.sum(weights, dtype=np.float64))
    else:
        uniform = reduce_loss(uniform, reduction)
    return mul_scalar(nll, 1 - smoothing) + uniform * (smoothing / classes)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """nll_loss(log_softmax(input, class dim), target): class indices or class probabilities.

    The target holds probabilities when it has the input's shape, class indices
    (one fewer dim) otherwise.
    """
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    if input._data.shape == target._data.shape:
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        _check_smoothing(label_smoothing)
        if weight is not None:
            _check_weight(weight, input, input._data.shape[1 if input.ndim > 1 else 0])
        dt = _dtype.result_type(input, target)
        if target.is_floating_point() and target.dtype != dt:
            target = target.to(dt)
        return _probability_targets(input, target, weight, reduction, label_smoothing)
    if label_smoothing > 0:
        _check_smoothing(label_smoothing)
        return _smoothed_indices(input, target, weight, ignore_index, reduction, label_smoothing)
    # The hot path: two ops (nll_loss checks the target).
    logp = log_softmax(input, 1 if input.ndim > 1 else 0)
    return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
