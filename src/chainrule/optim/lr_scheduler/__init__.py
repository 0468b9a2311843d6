"""torch.optim.lr_scheduler: schedules that set the optimizer's learning rate epoch by epoch.

One file per kind: the base class, multiplicative schedules, cosine ones, cyclical
ones, schedules made of others, and the plateau schedule.
"""

from __future__ import annotations

from ._base import LRScheduler, _LRScheduler  # noqa: F401  (the old name, still importable)
from ._combined import ChainedScheduler, SequentialLR
from ._cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from ._cyclic import CyclicLR, OneCycleLR
from ._multiplicative import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from ._plateau import ReduceLROnPlateau

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]
