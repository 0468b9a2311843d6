"""Composite losses: margin ranking, hinge and cosine embedding, triplet margin (with the
pairwise distance or any other), Poisson and Gaussian negative log likelihood, multi-label
soft margin (PyTorch composes them too)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._ops.broadcasting import broadcast_shapes
from ..._ops.elementwise.clamping import clamp_, clamp_min
from ..._ops.elementwise.compare import minimum
from ..._ops.elementwise.conditional import where
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ._activation_smooth import logsigmoid
from ._common import check_reduction, legacy_reduction, reduce_loss
from ._distance import pairwise_distance

__all__ = [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _broadcastable(*tensors: Tensor) -> None:
    """PyTorch's message for tensors whose shapes do not broadcast together."""
    broadcast_shapes((), *(t._data.shape for t in tensors))


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -target * (input1 - input2) + margin), reduced."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    _broadcastable(input1, input2, target)
    return reduce_loss(clamp_min(-target * (input1 - input2) + margin, 0), reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1; reduced."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    _broadcastable(input, target)
    beyond_margin = where(target != 1, clamp_min(margin - input, 0), 0)
    itself = where(target != -1, input, 0)
    return reduce_loss(beyond_margin + itself, reduction)


_EPSILON = 1e-12  # keeps the cosine's denominator off zero, as in PyTorch


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    dims = target.ndim
    sizes = f"{list(input1.shape)} and {list(input2.shape)}"
    if dims == 1 and not input1.ndim == input2.ndim == 2:
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {sizes}."
        )
    if dims == 0 and not input1.ndim == input2.ndim == 1:
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {sizes}."
        )
    if dims > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    products = (input1 * input2).sum(dims)
    squares1 = (input1 * input1).sum(dims) + _EPSILON
    squares2 = (input2 * input2).sum(dims) + _EPSILON
    cos = products / (squares1 * squares2).sqrt()
    _broadcastable(target, cos)
    similar = where(target == 1, 1 - cos, 0)
    dissimilar = where(target == -1, clamp_min(cos - margin, 0), 0)
    return reduce_loss(similar + dissimilar, reduction)


def _same_ndim(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a, po, ne = anchor.ndim, positive.ndim, negative.ndim
    if not a == po == ne:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {po}D, and negative {ne}D inputs"
        )


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise distance."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    _same_ndim(anchor, positive, negative)
    to_positive = pairwise_distance(anchor, positive, p, eps)
    to_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:  # the harder of the two negatives: the closer one
        between = pairwise_distance(positive, negative, p, eps)
        to_negative = where(between < to_negative, between, to_negative)
    return reduce_loss(clamp_min(margin + to_positive - to_negative, 0), reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for any distance d
    (the pairwise distance by default); `swap` uses d(positive, negative) when smaller."""
    check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_ndim(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    to_positive = distance(anchor, positive)
    to_negative = distance(anchor, negative)
    if swap:
        to_negative = minimum(to_negative, distance(positive, negative))
    return reduce_loss(clamp_min(margin + to_positive - to_negative, 0), reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: Any = None,
    eps: float = 1e-8,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """exp(input) - target * input (or input - target * log(input + eps)), reduced.

    `full` adds Stirling's approximation of log(target!) where target > 1.
    """
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    rate = input.exp() if log_input else input
    log_rate = input if log_input else (input + eps).log()
    loss = rate - target * log_rate
    if full:
        safe = where(target > 1, target, 1)
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + where(target > 1, stirling, 0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """0.5 * (log(var) + (input - target)^2 / var), var clamped below at eps; reduced."""
    if isinstance(var, Tensor):
        variance = var
    else:
        if var < 0:
            raise ValueError("var has negative entry/entries")
        variance = Tensor._make(np.full(input._data.shape, var, dtype=input._data.dtype))
    if variance._data.shape != input._data.shape:
        if input._data.shape[:-1] == variance._data.shape:
            variance = variance.unsqueeze(-1)  # one variance per sample
        elif not (
            input._data.shape[:-1] == variance._data.shape[:-1]
            and variance._data.shape[-1:] == (1,)
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    if np.any(variance._data < 0):
        raise ValueError("var has negative entry/entries")
    # As PyTorch: a clone, clamped in place outside the graph (so the gradient passes as is).
    variance = variance.clone()
    with no_grad():
        clamp_(variance, min=eps)
    loss = 0.5 * (variance.log() + (input - target) ** 2 / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The mean over classes of binary cross entropies of sigmoid(input); reduced over samples."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input._data.shape[class_dim]
    return reduce_loss(loss, reduction)
