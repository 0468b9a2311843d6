"""Version counters: how autograd notices that a saved tensor was written in place."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["VersionCounter"]


class VersionCounter:
    """Counts in-place writes; shared by a tensor and its views.

    `views` (weak references) lists the views made with grad mode on: after an
    in-place write their grad_fn must be remade (see `_ops.inplace.bump_version`).
    """

    __slots__ = ("value", "views")

    def __init__(self) -> None:
        self.value = 0
        self.views: list[weakref.ref[Tensor]] | None = None
