"""`torch.backends.cudnn`: cuDNN is never available, and its flags keep PyTorch's defaults.

Scripts set `cudnn.benchmark` and `cudnn.deterministic` for reproducibility; here the
flags are plain module attributes that nothing reads, as on a CPU build.
"""

from __future__ import annotations

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
