"""Storages as files hold them: a flat array of one dtype that tensors view, and the legacy
storage classes (`torch.FloatStorage`, ...) by which a file names a storage's dtype."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._dtype import dtype as DType

__all__ = ["Storage", "StorageType", "dtype_named", "storage_type_for"]

# PyTorch's legacy storage classes and the dtype each holds (NumPy's name for it).
_STORAGE_DTYPES = {
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
    "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BoolStorage": "bool",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
}


def dtype_named(name: str) -> DType | None:
    """chainrule's dtype called `name` in NumPy ("float32", "bool"), or None if it has none."""
    try:
        return _dtype.from_numpy_dtype(np.dtype(name))
    except TypeError:
        return None


class StorageType:
    """A legacy storage class as a file names it (`torch.FloatStorage`): it stands for a dtype.

    `dtype` is None for a storage class whose dtype chainrule lacks (`BFloat16Storage`);
    loading a tensor of it then fails with a message that says so.
    """

    __slots__ = ("dtype", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype = dtype_named(_STORAGE_DTYPES[name])

    def __repr__(self) -> str:
        return f"StorageType(name={self.name})"


STORAGE_TYPES = {name: StorageType(name) for name in _STORAGE_DTYPES}
_BY_DTYPE = {st.dtype.name: st for st in STORAGE_TYPES.values() if st.dtype is not None}


def storage_type_for(d: DType) -> StorageType:
    """The storage class a file names for tensors of dtype `d`."""
    return _BY_DTYPE[d.name]


class Storage:
    """A loaded storage: a flat, writable array; the tensors rebuilt from it are views of it."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    @property
    def dtype(self) -> DType:
        return _dtype.from_numpy_dtype(self.array.dtype)

    def __len__(self) -> int:
        return int(self.array.size)
