"""device: where a tensor lives, as `torch.device`, and PyTorch's errors for absent devices.

A `device` names any of PyTorch's device types (`device("cuda:1")` is a valid value,
as in a CPU-only PyTorch build); only the CPU can hold tensors. Asking for another
one raises what a CPU build of PyTorch raises (`require_cpu`).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CPU", "device", "require_cpu"]

# PyTorch's device types, in the order its parse error lists them.
_DEVICE_TYPES = (
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
)
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")
_NO_CUDA = "Torch not compiled with CUDA enabled"


def _parse(text: str) -> tuple[str, int | None]:
    """`"cuda:1"` -> ("cuda", 1), with PyTorch's errors for a malformed string."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    kind, index = match.group(1), match.group(2)
    if kind not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
            f"string: {text}"
        )
    return kind, None if index is None else int(index)


class device:
    """A device type and an optional index: `device("cuda", 0)`, `device("cuda:1")`."""

    __slots__ = ("index", "type")

    type: str
    index: int | None

    def __init__(self, type: Any = "cpu", index: int | None = None) -> None:
        if isinstance(type, device):
            if index is not None:
                raise TypeError(
                    "device(): argument 'type' (position 1) must be str, not torch.device"
                )
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # A bare index means "the current accelerator", and there is none.
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of:\n"
                " * (torch.device device)\n"
                "      didn't match because some of the arguments have invalid types: "
                f"(!{_type_name(type)}!)\n"
                " * (str type, int index = -1)\n"
            )
        kind, parsed = _parse(type)
        if index is not None:
            if parsed is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            parsed = index
        self.type, self.index = kind, parsed

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        # As PyTorch: a device never equals a string, and the index counts.
        if not isinstance(other, device):
            return False
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        # A new string each time, as PyTorch's device makes: a pickle then writes it out
        # rather than pointing back at an equal string it memoized earlier.
        return (device, ("".join(["", str(self)]),))


def _type_name(obj: object) -> str:
    return type(obj).__name__


def require_cpu(dev: Any) -> device:
    """`dev` as a device if it is the CPU; a CPU build of PyTorch's error for any other."""
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cpu":
        return d
    if d.type == "cuda":
        raise AssertionError(_NO_CUDA)
    raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


CPU = device("cpu")
