"""The `torch.*` forms of the losses, with the native ops' argument conventions.

Where F takes `reduction="mean"`, these take the native op's int: 1 for the mean, 2 for
the sum, and any other value for no reduction (as the native ops read it). Left out, it is
0: PyTorch's stubs say 1, but its bindings read the native default as 0, so
`torch.kl_div(x, t)` is not reduced; these do the same. They have no
`size_average`/`reduce` and their arguments keep the native order (`poisson_nll_loss`
takes all of them, `eps` before `reduction`). Not part of `F`'s names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._ops.elementwise.clamping import clamp_min
from ..._tensor import Tensor
from . import _loss, _loss_ctc, _loss_margin
from ._common import reduce_loss

__all__ = [
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "ctc_loss",
    "hinge_embedding_loss",
    "kl_div",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
]


def _reduction(reduction: Any, op: str, position: int) -> str:
    """The native op's reduction int as F's word."""
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise TypeError(
            f"{op}(): argument 'reduction' (position {position}) must be int, "
            f"not {type(reduction).__name__}"
        )
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = 0,
) -> Tensor:
    how = _reduction(reduction, "binary_cross_entropy_with_logits", 5)
    shape = tuple(target._data.shape)
    wide = np.broadcast_shapes(tuple(input._data.shape), shape)
    if wide != shape:  # the native op writes into a tensor of the target's shape
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {list(wide)}"
        )
    return _loss.binary_cross_entropy_with_logits(
        input, target, weight, reduction=how, pos_weight=pos_weight
    )


def kl_div(
    input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False
) -> Tensor:
    """The mean over every element for 1 (F's "mean", without its warning: the native op
    has no "batchmean")."""
    how = _reduction(reduction, "kl_div", 3)
    loss = _loss.kl_div(input, target, reduction="none", log_target=log_target)
    return loss.mean() if how == "mean" else loss.sum() if how == "sum" else loss


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    how = _reduction(reduction, "cosine_embedding_loss", 5)
    return _loss_margin.cosine_embedding_loss(input1, input2, target, margin, reduction=how)


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0
) -> Tensor:
    how = _reduction(reduction, "hinge_embedding_loss", 4)
    return _loss_margin.hinge_embedding_loss(input, target, margin, reduction=how)


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """F's loss, with the inputs broadcast whatever their numbers of dims (F checks those)."""
    how = _reduction(reduction, "margin_ranking_loss", 5)
    return reduce_loss(clamp_min(-target * (input1 - input2) + margin, 0), how)


def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    how = _reduction(reduction, "poisson_nll_loss", 6)
    return _loss_margin.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=how)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = 0,
) -> Tensor:
    how = _reduction(reduction, "triplet_margin_loss", 8)
    return _loss_margin.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=how
    )


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = 0,
    zero_infinity: bool = False,
) -> Tensor:
    """The lengths as lists of ints or as tensors, as F takes them."""
    how = _reduction(reduction, "ctc_loss", 6)
    return _loss_ctc.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, how, zero_infinity
    )
