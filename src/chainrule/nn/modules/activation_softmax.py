"""The softmax layers: `Softmax`, `Softmin` and `LogSoftmax` along a dim, and `Softmax2d`
over the channels of each pixel."""

from __future__ import annotations

from typing import Any, ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["LogSoftmax", "Softmax", "Softmax2d", "Softmin"]

# Points PyTorch's warning about an implicit dim at the code that called the layer.
_STACKLEVEL = 5


class _AlongDim(Module):
    """A normalisation along `dim`; None picks PyTorch's legacy dim, with a warning."""

    __constants__: ClassVar[list[str]] = ["dim"]
    dim: int | None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):  # pickled before the layer had a dim
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_AlongDim):
    """softmax(-input): weights that sum to 1 along `dim`, largest where input is smallest."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=_STACKLEVEL)


class Softmax(_AlongDim):
    """exp(input) / Σ exp(input) along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=_STACKLEVEL)


class LogSoftmax(_AlongDim):
    """log(softmax(input)) along `dim`, computed stably."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=_STACKLEVEL)


class Softmax2d(Module):
    """Softmax over the channel dim of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=_STACKLEVEL)
