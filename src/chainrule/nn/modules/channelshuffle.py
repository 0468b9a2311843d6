"""`ChannelShuffle`: interleave the channels of `groups` groups."""

from __future__ import annotations

from typing import ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """`(N, C, *)`: channels in `groups` groups of C/groups reordered to C/groups of `groups`."""

    __constants__: ClassVar[list[str]] = ["groups"]
    groups: int

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
