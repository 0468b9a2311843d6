"""The functions a file's pickle calls to rebuild tensors (PyTorch's `torch._utils._rebuild_*`).

They take the same arguments as PyTorch's, so a file names them by PyTorch's names
and either library can load it. A rebuilt tensor is a view of its storage's array:
tensors saved from one storage share memory again after loading.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import nn
from .._tensor import Tensor
from ._storage import Storage

__all__ = [
    "rebuild_from_type_v2",
    "rebuild_parameter",
    "rebuild_parameter_with_state",
    "rebuild_tensor",
    "rebuild_tensor_v2",
]


def _view(storage: Storage, offset: int, size: Any, stride: Any) -> np.ndarray:
    """The elements of `storage` that a tensor of this offset, size and stride sees."""
    if not isinstance(storage, Storage):
        raise TypeError(
            f"expected a storage to rebuild a tensor from, got {type(storage).__name__}"
        )
    flat = storage.array
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride) or min((*size, *stride, offset), default=0) < 0:
        raise RuntimeError(f"invalid tensor layout: size {list(size)}, stride {list(stride)}")
    if 0 not in size:
        needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
        if needed > flat.size:
            raise RuntimeError(
                f"a tensor of size {list(size)}, stride {list(stride)} and storage offset "
                f"{offset} needs {needed} elements, but its storage has {flat.size}: the file "
                "is corrupt"
            )
    itemsize = flat.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[offset:] if flat.size else flat, size, tuple(s * itemsize for s in stride)
    )


def rebuild_tensor(storage: Storage, storage_offset: int, size: Any, stride: Any) -> Tensor:
    return Tensor._make(_view(storage, int(storage_offset), size, stride))


def rebuild_tensor_v2(
    storage: Storage,
    storage_offset: int,
    size: Any,
    stride: Any,
    requires_grad: bool,
    backward_hooks: Any,
    metadata: Any = None,
) -> Tensor:
    """A tensor over `storage`: a leaf, requiring grad if it did when saved (hooks are dropped)."""
    tensor = rebuild_tensor(storage, storage_offset, size, stride)
    tensor.requires_grad = bool(requires_grad)
    return tensor


def _parameter(data: Tensor, requires_grad: bool) -> Tensor:
    parameter = getattr(nn, "Parameter", None)
    if parameter is None:  # before chainrule.nn has Parameter: a leaf that requires grad
        return Tensor._make(data._data, bool(requires_grad))
    return parameter(data, bool(requires_grad))


def rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Tensor:
    return _parameter(data, requires_grad)


def rebuild_parameter_with_state(
    data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any
) -> Tensor:
    param = _parameter(data, requires_grad)
    _set_state(param, state)
    return param


def rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Any:
    """A tensor of a subclass or with attributes: rebuilt by `func`, retyped, then given `state`."""
    result = func(*args)
    if type(result) is not new_type and isinstance(new_type, type) and issubclass(new_type, Tensor):
        result.__class__ = new_type  # a Tensor subclass adds no slots, so this is a retag
    _set_state(result, state)
    return result


def _set_state(obj: Any, state: Any) -> None:
    """Attributes saved with a tensor: a dict, or (dict, slots dict) as pickle's BUILD takes."""
    if not state:
        return
    slots: Any = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for key, value in (state or {}).items():
        setattr(obj, key, value)
    for key, value in (slots or {}).items():
        setattr(obj, key, value)
