"""Pixel shuffle layers: channels to spatial blocks (`PixelShuffle`) and back (`PixelUnshuffle`)."""

from __future__ import annotations

from typing import ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """`(*, C * r^2, H, W)` -> `(*, C, H * r, W * r)`, with r the `upscale_factor`."""

    __constants__: ClassVar[list[str]] = ["upscale_factor"]
    upscale_factor: int

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """`(*, C, H * r, W * r)` -> `(*, C * r^2, H, W)`, with r the `downscale_factor`."""

    __constants__: ClassVar[list[str]] = ["downscale_factor"]
    downscale_factor: int

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
