"""Questions about where and how chainrule computes: the default device, the thread count,
a tensor's device index, which dtypes casts and promotions give (torch.can_cast,
torch.result_type), and the deprecated torch.set_default_tensor_type."""

from __future__ import annotations

import importlib
import os
import warnings
from typing import Any

import numpy as np

from . import _dtype
from ._creation import _LegacyTensorType
from ._device import CPU, device, require_cpu
from ._ops.reduction.common import invalid_arguments
from ._tensor import Tensor

__all__ = [
    "can_cast",
    "get_default_device",
    "get_device",
    "get_num_threads",
    "result_type",
    "set_default_device",
    "set_default_tensor_type",
    "set_num_threads",
]

# NumPy runs each op on one thread here; the count is kept only to be read back, as PyTorch
# starts with one thread per core.
_num_threads = os.cpu_count() or 1


def get_default_device() -> device:
    """The device factories put tensors on: always the CPU."""
    return CPU


def set_default_device(device: Any) -> None:
    """Accepts the CPU (or None, which means it); any other device raises as PyTorch's
    CPU build does when it is asked to put a tensor there."""
    if device is not None:
        require_cpu(device)


def get_num_threads() -> int:
    """The number of threads PyTorch would use for intra-op parallelism."""
    return _num_threads


def set_num_threads(num: Any) -> None:
    """Records `num` (a positive int) as the thread count."""
    global _num_threads
    if isinstance(num, bool) or not isinstance(num, int | np.integer):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _num_threads = int(num)


def get_device(input: Any) -> int:
    """The device index of `input`: -1, for a tensor on the CPU."""
    if not isinstance(input, Tensor):
        raise TypeError(
            "get_device(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return -1


def _as_dtype(value: Any, arg: str, position: int) -> _dtype.dtype:
    if isinstance(value, _dtype.dtype) or value in (float, int, bool):
        return _dtype.to_dtype(value)
    name = "Tensor" if isinstance(value, Tensor) else type(value).__name__
    raise TypeError(
        f"can_cast(): argument '{arg}' (position {position}) must be torch.dtype, not {name}"
    )


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's casting rules allow `from_` to `to` without losing the kind of
    number: never floating point to an integer, nor anything but bool to bool."""
    source, target = _as_dtype(from_, "from_", 1), _as_dtype(to, "to", 2)
    if source.is_floating_point and not target.is_floating_point:
        return False
    return not (target is _dtype.bool_ and source is not _dtype.bool_)


_RESULT_TYPE_SIGNATURES = (
    "Tensor tensor, Tensor other",
    "Number scalar, Tensor tensor",
    "Tensor tensor, Number other",
    "Number scalar1, Number scalar2",
)
_NUMBER = (bool, int, float, np.number, np.bool_)


def result_type(*args: Any, **kwargs: Any) -> _dtype.dtype:
    """The dtype an elementwise op on the two operands gives (tensors or numbers)."""
    names = (("tensor", "other"), ("scalar", "tensor"), ("scalar1", "scalar2"))
    operands = list(args)
    if kwargs:
        for first, second in names:
            rest = [k for k in (first, second)[len(args) :] if k in kwargs]
            if len(args) + len(rest) == 2 and len(kwargs) == len(rest):
                operands += [kwargs[k] for k in rest]
                break
        else:
            raise invalid_arguments("result_type", args, kwargs, _RESULT_TYPE_SIGNATURES)
    if len(operands) != 2 or not all(isinstance(o, (Tensor, *_NUMBER)) for o in operands):
        raise invalid_arguments("result_type", args, kwargs, _RESULT_TYPE_SIGNATURES)
    return _dtype.result_type(*operands)


_DEFAULT_TYPE_DEPRECATED = (
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives."
)
_warned_default_type = False


def _named_type(name: str) -> Any:
    """A dotted name as PyTorch imports it; `torch.` names chainrule's own."""
    top, *rest = name.split(".")
    if top == "torch":
        top = "chainrule"
    if rest[:1] == ["cuda"]:
        raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
    found: Any = importlib.import_module(top)
    for part in rest:
        found = getattr(found, part)
    return found


def set_default_tensor_type(t: Any, /) -> None:
    """Make a legacy floating type's dtype (`torch.DoubleTensor`, or its name) the default
    dtype; deprecated, with a warning the first time (as PyTorch warns once)."""
    global _warned_default_type
    if isinstance(t, str):
        t = _named_type(t)
    if not _warned_default_type:
        _warned_default_type = True
        warnings.warn(_DEFAULT_TYPE_DEPRECATED, UserWarning, stacklevel=2)
    if not isinstance(t, _LegacyTensorType):
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if not t._dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t._dtype)
