"""`torch.backends.mps`: Apple's Metal back end, absent here as in a CPU build of PyTorch."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
