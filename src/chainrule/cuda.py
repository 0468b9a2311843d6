"""`torch.cuda` as a CPU-only build of PyTorch has it: no device, and the idioms that check for one.

`chainrule.cuda.is_available()` is False and `device_count()` is 0, so the usual
`device = "cuda" if torch.cuda.is_available() else "cpu"` picks the CPU. Seeding is
a no-op (there is no CUDA generator to seed); calls that need a device raise
PyTorch's `AssertionError: Torch not compiled with CUDA enabled`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "get_rng_state",
    "init",
    "initial_seed",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "memory_allocated",
    "seed",
    "seed_all",
    "synchronize",
]

_NO_CUDA = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    """Whether a CUDA device can be used: never, in chainrule."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


# Seeding without CUDA does nothing, as in PyTorch (it would seed lazily, on first use).


def manual_seed(seed: int) -> None:
    return None


def manual_seed_all(seed: int) -> None:
    return None


def seed() -> None:
    return None


def seed_all() -> None:
    return None


def empty_cache() -> None:
    return None


def memory_allocated(device: Any = None) -> int:
    return 0


# What needs a device raises.


def init() -> None:
    raise AssertionError(_NO_CUDA)


def current_device() -> int:
    raise AssertionError(_NO_CUDA)


def synchronize(device: Any = None) -> None:
    raise AssertionError(_NO_CUDA)


def get_device_name(device: Any = None) -> str:
    raise AssertionError(_NO_CUDA)


def initial_seed() -> int:
    raise AssertionError(_NO_CUDA)


def get_rng_state(device: Any = "cuda") -> Any:
    raise AssertionError(_NO_CUDA)
