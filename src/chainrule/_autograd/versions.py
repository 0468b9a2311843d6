"""Version counters: how autograd notices that a saved tensor was written in place."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["VersionCounter", "write_watchers"]

# Called with a tensor just before an in-place op writes into its memory (for
# `autograd.graph.allow_mutation_on_saved_tensors`). Mutated in place, so importers see
# changes; empty, it costs one truth test per in-place op.
write_watchers: list[Callable[[Tensor], None]] = []


class VersionCounter:
    """Counts in-place writes; shared by a tensor and its views.

    `views` (weak references) lists the views made with grad mode on: after an
    in-place write their grad_fn must be remade (see `_ops.inplace.bump_version`).
    """

    __slots__ = ("value", "views")

    def __init__(self) -> None:
        self.value = 0
        self.views: list[weakref.ref[Tensor]] | None = None
