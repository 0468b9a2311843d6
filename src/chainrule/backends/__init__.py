"""`torch.backends`: which accelerator back ends exist (none in chainrule) and their flags."""

from __future__ import annotations

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
