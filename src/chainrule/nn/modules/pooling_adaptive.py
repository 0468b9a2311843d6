"""Adaptive pooling layers: max and average pooling to a fixed output size, in 1-D to 3-D."""

from __future__ import annotations

from typing import Any, ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
]


class _AdaptiveMaxPoolNd(Module):
    """Max pooling to `output_size` (an int, or one per dim; None keeps that dim)."""

    __constants__: ClassVar[list[str]] = ["output_size", "return_indices"]
    return_indices: bool

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of `(N, C, L)` or `(C, L)`."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of `(N, C, H, W)` or `(C, H, W)`."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of `(N, C, D, H, W)` or `(C, D, H, W)`."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to `output_size` (an int, or one per dim; None keeps that dim)."""

    __constants__: ClassVar[list[str]] = ["output_size"]

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of `(N, C, L)` or `(C, L)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of `(N, C, H, W)` or `(C, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of `(N, C, D, H, W)` or `(C, D, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)
