"""`DataParallel`: split a batch across devices and run a replica of the module on each.

PyTorch does that only where accelerators are available; without them (always, here)
it keeps the module and calls it on the whole input, in the calling thread. That is
what this class does, so code written for several GPUs runs unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps `module`; `forward` calls it (no devices to spread the batch over).

    `device_ids` stays empty, as in PyTorch without accelerators; `output_device` and
    `dim` are accepted and, as there, not kept.
    """

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[Any] | None = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[int] = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
