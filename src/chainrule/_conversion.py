"""A tensor as Python numbers, lists and NumPy arrays: `x.item()`, `x.tolist()`,
`x.numpy()`, `float(x)`, `bool(x)`, `len(x)`, `iter(x)`, ... (bound by the method table)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ._autograd import grad_mode
from ._device import device as Device
from ._tensor import Tensor

__all__ = [
    "as_array",
    "as_bool",
    "as_complex",
    "as_float",
    "as_index",
    "as_int",
    "cpu",
    "cuda",
    "item",
    "iterate",
    "length",
    "numpy",
    "tolist",
]


def item(self: Tensor) -> Any:
    if self._data.size != 1:
        raise RuntimeError(
            f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
        )
    return self._data.reshape(()).item()


def tolist(self: Tensor) -> Any:
    return self._data.tolist()


def numpy(self: Tensor, *, force: bool = False) -> np.ndarray:
    if not force:
        _check_no_grad(self)
    return self._data


def as_array(self: Tensor, dtype: Any = None, copy: Any = None) -> np.ndarray:
    _check_no_grad(self)
    return self._data if dtype is None else self._data.astype(dtype)


def _check_no_grad(self: Tensor) -> None:
    """The array of a tensor that requires grad is out of reach while grad mode is on
    (its writes would escape autograd); under no_grad, as in a Function's forward, it is not."""
    if self._requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )


def cpu(self: Tensor, memory_format: Any = None) -> Tensor:
    return self


def cuda(
    self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = None
) -> Tensor:
    """Fails as on a CPU build of PyTorch: there is no CUDA device to copy to."""
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if device is not None and Device(device).type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    raise AssertionError("Torch not compiled with CUDA enabled")


def length(self: Tensor) -> int:
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self._data.shape[0]


def iterate(self: Tensor) -> Iterator[Tensor]:
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def _scalar_value(self: Tensor) -> Any:
    if self._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return self._data.reshape(()).item()


def as_bool(self: Tensor) -> bool:
    if self._data.size != 1:
        raise RuntimeError(
            "Boolean value of Tensor with more than one value is ambiguous"
            if self._data.size > 1
            else "Boolean value of Tensor with no values is ambiguous"
        )
    return bool(self._data.reshape(()).item())


def as_float(self: Tensor) -> float:
    return float(_scalar_value(self))


def as_int(self: Tensor) -> int:
    return int(_scalar_value(self))


def as_index(self: Tensor) -> int:
    if self._data.dtype.kind not in "iub" or self._data.size != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(self._data.reshape(()).item())


def as_complex(self: Tensor) -> complex:
    return complex(_scalar_value(self))
