"""`torch.backends.cuda`: whether PyTorch was built with CUDA (chainrule: no)."""

from __future__ import annotations

__all__ = ["is_built"]


def is_built() -> bool:
    return False
