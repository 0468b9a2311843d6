"""The pickler `save` uses: tensors become PyTorch's rebuild calls over shared storages.

A tensor is written as `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())`, the storage as a persistent id `("storage",
torch.FloatStorage, key, "cpu", numel)` whose bytes go to the record `data/<key>`.
Tensors whose arrays view one NumPy array share one storage, as views share one in
PyTorch. chainrule's rebuild functions, dtypes, Size and device are written under
PyTorch's names (see `_names`), so PyTorch can load the file.

Note: the pure-Python pickler is the one whose `save_global` can be overridden for
functions and classes (through `reducer_override` returning a name); the C pickler
writes a global only under the object's own module and name.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from .. import _dtype, nn
from .._size import Size
from .._tensor import Tensor
from . import _rebuild
from ._names import torch_name
from ._storage import StorageType, storage_type_for

__all__ = ["SavedStorage", "TorchPickler"]


class SavedStorage:
    """One storage to write: a flat array of the memory its tensors view, and its record key."""

    __slots__ = ("array", "key", "storage_type")

    def __init__(self, array: np.ndarray, key: str, storage_type: StorageType) -> None:
        self.array = array
        self.key = key
        self.storage_type = storage_type

    def data(self) -> bytes:
        """The elements as raw little-endian bytes."""
        return self.array.astype(self.array.dtype.newbyteorder("<"), copy=False).tobytes()


def _root(array: np.ndarray) -> np.ndarray:
    """The array at the bottom of `array`'s chain of views (the memory's owner, for NumPy)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def _byte_bounds(array: np.ndarray) -> tuple[int, int]:
    """The first byte `array` uses and the one after its last (equal when it is empty)."""
    start = _address(array)
    if array.size == 0:
        return start, start
    reach = [(n - 1) * s for n, s in zip(array.shape, array.strides, strict=True)]
    low = start + sum(r for r in reach if r < 0)
    return low, start + sum(r for r in reach if r > 0) + array.itemsize


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class TorchPickler(pickle._Pickler):
    """Pickles like `torch.save`: tensors by PyTorch's rebuild functions over storages."""

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[int, SavedStorage] = {}  # by id of the root array
        self._roots: list[np.ndarray] = []  # keeps the roots alive, so their ids stay unique

    # --- storages -------------------------------------------------------------------

    def _storage_of(self, array: np.ndarray) -> tuple[SavedStorage, int, tuple[int, ...]]:
        """The storage `array` views, and its offset and strides in elements."""
        itemsize = array.itemsize
        root = _root(array)
        lo, hi = _byte_bounds(root)
        shares = (
            root.dtype == array.dtype
            and all(s >= 0 for s in (*root.strides, *array.strides))
            and (_address(array) - lo) % itemsize == 0
            and all(s % itemsize == 0 for s in array.strides)
            and _address(root) == lo
        )
        if not shares:
            # Memory viewed as another dtype or backwards: saved on its own, contiguous.
            root = np.ascontiguousarray(array)
            array = root
            lo, hi = _byte_bounds(root)
        storage = self.storages.get(id(root))
        if storage is None:
            # Every element between the root's lowest and highest byte, in order.
            flat = np.lib.stride_tricks.as_strided(
                root, ((hi - lo) // itemsize,), (itemsize,), writeable=False
            )
            storage_type = storage_type_for(_dtype.from_numpy_dtype(array.dtype))
            storage = SavedStorage(flat, str(len(self.storages)), storage_type)
            self.storages[id(root)] = storage
            self._roots.append(root)
        offset = (_address(array) - lo) // itemsize
        if array.size == 0:  # NumPy's strides for no elements vary; PyTorch's are contiguous
            return storage, offset, _contiguous_strides(array.shape)
        return storage, offset, tuple(s // itemsize for s in array.strides)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, SavedStorage):
            return ("storage", obj.storage_type, obj.key, "cpu", obj.array.size)
        return None

    # --- PyTorch's names ------------------------------------------------------------

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if type(obj) is Size:
            return (Size, (tuple(obj),))
        if torch_name(obj) is not None:
            return "torch"  # a name: pickle calls save_global, which writes PyTorch's
        return NotImplemented

    def _reduce_tensor(self, tensor: Tensor) -> Any:
        parameter = getattr(nn, "Parameter", None)
        if parameter is not None and isinstance(tensor, parameter):
            data = Tensor._make(tensor._data)
            return (_rebuild.rebuild_parameter, (data, tensor.requires_grad, OrderedDict()))
        storage, offset, strides = self._storage_of(tensor._data)
        args: tuple[Any, ...] = (storage, offset, tuple(tensor.shape), strides)
        args += (tensor.requires_grad, OrderedDict())
        return (_rebuild.rebuild_tensor_v2, args)

    def save_global(self, obj: Any, name: str | None = None) -> None:
        pickler: Any = self  # the pure-Python pickler's own methods, which typeshed omits
        names = torch_name(obj)
        if names is None:
            base: Any = super()
            base.save_global(obj, name)
            return
        module, attribute = names
        if pickler.proto >= 4:
            pickler.save(module)
            pickler.save(attribute)
            pickler.write(pickle.STACK_GLOBAL)
        else:
            encoding = "utf-8" if pickler.proto >= 3 else "ascii"
            pickler.write(pickle.GLOBAL + f"{module}\n{attribute}\n".encode(encoding))
        pickler.memoize(obj)
