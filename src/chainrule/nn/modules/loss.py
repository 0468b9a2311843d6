"""Loss layers: the `_Loss` and `_WeightedLoss` bases and the regression, likelihood and
classification losses (`MSELoss`, `CrossEntropyLoss`, `CTCLoss`, ...); the margin losses
are in `loss_margin.py`. Each forward is one call to `nn.functional`."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

from ..._tensor import Tensor
from .. import functional as F
from ..functional._common import legacy_reduction
from .module import Module

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "NLLLoss",
    "NLLLoss2d",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "_Loss",
    "_WeightedLoss",
]


class _Loss(Module):
    """A loss with a `reduction`: 'none', 'mean' or 'sum'.

    The deprecated `size_average` and `reduce`, when either is given, decide it instead
    (with PyTorch's warning)."""

    reduction: str

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with an optional per-class `weight`, registered as a buffer (None if absent)."""

    weight: Tensor | None

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """|input - target|, reduced."""

    __constants__: ClassVar[list[str]] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """-input[target] (log-probabilities in, class indices as target), weighted, reduced."""

    __constants__: ClassVar[list[str]] = ["ignore_index", "reduction"]
    ignore_index: int

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class NLLLoss2d(NLLLoss):
    """The old name of `NLLLoss` for images; creating one warns that it is deprecated."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class PoissonNLLLoss(_Loss):
    """The negative log likelihood of `target` under a Poisson distribution of rate
    exp(input) (or input itself when `log_input` is False)."""

    __constants__: ClassVar[list[str]] = ["log_input", "full", "eps", "reduction"]
    log_input: bool
    full: bool
    eps: float

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: Any = None,
        eps: float = 1e-8,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """The negative log likelihood of `target` under a normal distribution of mean `input`
    and variance `var` (a tensor or a number, given to forward)."""

    __constants__: ClassVar[list[str]] = ["full", "eps", "reduction"]
    full: bool
    eps: float

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence of `target` from `input` (log-probabilities)."""

    __constants__: ClassVar[list[str]] = ["reduction"]

    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MSELoss(_Loss):
    """(input - target)², reduced."""

    __constants__: ClassVar[list[str]] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """The binary cross entropy of probabilities `input` against `target`."""

    __constants__: ClassVar[list[str]] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """The binary cross entropy of sigmoid(input) against `target`, computed stably; the
    `weight` and `pos_weight` buffers scale each element and the positive class."""

    weight: Tensor | None
    pos_weight: Tensor | None

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class SmoothL1Loss(_Loss):
    """0.5 (input - target)² / beta where |input - target| < beta, else |input - target| -
    beta / 2; reduced."""

    __constants__: ClassVar[list[str]] = ["reduction"]

    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 (input - target)² where |input - target| < delta, else delta (|input - target| -
    delta / 2); reduced."""

    __constants__: ClassVar[list[str]] = ["reduction", "delta"]

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if not isinstance(delta, float | int):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-target * input)), reduced (targets are 1 or -1)."""

    __constants__: ClassVar[list[str]] = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax of `input` (logits) scored against class indices or class probabilities,
    with per-class weights, an ignored index and label smoothing."""

    __constants__: ClassVar[list[str]] = ["ignore_index", "reduction", "label_smoothing"]
    ignore_index: int
    label_smoothing: float

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class CTCLoss(_Loss):
    """The connectionist temporal classification loss: -log of the total probability of
    every alignment of a target sequence to the input's time steps."""

    __constants__: ClassVar[list[str]] = ["blank", "reduction"]
    blank: int
    zero_infinity: bool

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor
    ) -> Tensor:
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
