"""Converting a Module's tensors: `to`, `float`, `double`, `half`, `cpu`, `cuda`, `type`, ...

All go through `_apply(fn)`, which converts every submodule's parameters (keeping
each Parameter object, as PyTorch does on the CPU: only its data changes), their
gradients, and buffers (replaced by the converted tensors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ... import _dtype
from ..._autograd.grad_mode import no_grad
from ..._creation import empty_like
from ..._device import device as Device
from ..._tensor import Tensor

if TYPE_CHECKING:
    from .module import Module

__all__ = ["apply_to_tensors", "to"]

M = TypeVar("M", bound="Module")

_NO_CUDA = "Torch not compiled with CUDA enabled"


def apply_to_tensors(self: M, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> M:
    """`fn` applied to every parameter, gradient and buffer (of every submodule)."""
    if recurse:
        for module in self.children():
            module._apply(fn)
    for param in self._parameters.values():
        if param is None:
            continue
        with no_grad():
            param.data = fn(param)
        grad = param.grad
        if grad is not None:
            with no_grad():
                grad.data = fn(grad)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def _check_device(where: Any) -> None:
    """Accept the CPU; fail for any other device with PyTorch's (CPU-only build) error."""
    if where is None:
        return
    if isinstance(where, int) and not isinstance(where, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if str(where).split(":")[0] == "cuda":
        raise AssertionError(_NO_CUDA)
    Device(where)


def _parse_to(args: tuple[Any, ...], kwargs: dict[str, Any]) -> _dtype.dtype | None:
    """The dtype `Module.to(...)` asks for (None: keep dtypes), after checking the device."""
    unknown = set(kwargs) - {"device", "dtype", "non_blocking", "memory_format", "copy"}
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    dtype = kwargs.get("dtype")
    _check_device(kwargs.get("device"))
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, _dtype.dtype):
            dtype = arg
        elif not isinstance(arg, bool):
            _check_device(arg)
    if dtype is None:
        return None
    dt = _dtype.to_dtype(dtype)
    if not dt.is_floating_point:
        raise TypeError(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired "
            f"dtype={dt}"
        )
    return dt


def to(self: M, *args: Any, **kwargs: Any) -> M:
    """Cast floating-point parameters and buffers to a dtype (`to(dtype)`, `to(tensor)`)."""
    dt = _parse_to(args, kwargs)
    if dt is None:
        return self
    target = dt
    return apply_to_tensors(self, lambda t: t.to(target) if t.is_floating_point() else t)


def _floats_to(dt: _dtype.dtype) -> Callable[[Tensor], Tensor]:
    return lambda t: t.to(dt) if t.is_floating_point() else t


def float_(self: M) -> M:
    """Floating-point parameters and buffers to float32."""
    return apply_to_tensors(self, _floats_to(_dtype.float32))


def double(self: M) -> M:
    """Floating-point parameters and buffers to float64."""
    return apply_to_tensors(self, _floats_to(_dtype.float64))


def half(self: M) -> M:
    """Floating-point parameters and buffers to float16."""
    return apply_to_tensors(self, _floats_to(_dtype.float16))


def bfloat16(self: M) -> M:
    """bfloat16 is not a NumPy type: chainrule has no such dtype."""
    raise TypeError("chainrule has no bfloat16 dtype (NumPy has none)")


def type_(self: M, dst_type: Any) -> M:
    """Every parameter and buffer (integer ones too) to `dst_type`."""
    return apply_to_tensors(self, lambda t: t.type(dst_type))


def cpu(self: M) -> M:
    return self  # everything already lives on the CPU


def cuda(self: M, device: Any = None) -> M:
    raise AssertionError(_NO_CUDA)


def _no_device(name: str) -> Callable[..., Any]:
    def move(self: Module, device: Any = None) -> Module:
        raise RuntimeError(f"chainrule runs on the CPU only; device '{name}' is not available")

    move.__name__ = name
    return move


ipu = _no_device("ipu")
xpu = _no_device("xpu")
mtia = _no_device("mtia")


def to_empty(self: M, *, device: Any, recurse: bool = True) -> M:
    """Every parameter and buffer replaced by uninitialized memory of its shape and dtype."""
    _check_device(device)
    return apply_to_tensors(self, empty_like, recurse=recurse)


def share_memory(self: M) -> M:
    return self  # one process: nothing to share
