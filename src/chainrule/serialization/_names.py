"""PyTorch's global names for what a file refers to, and chainrule's object for each.

A file written by either library names PyTorch's globals (`torch._utils._rebuild_tensor_v2`,
`torch.FloatStorage`, `torch.float32`, ...). `allowed_globals()` maps each name that a
weights-only load accepts to chainrule's object; `torch_name()` is the way back, used
when saving so that PyTorch can read chainrule's files.
"""

from __future__ import annotations

import codecs
import functools
from collections import Counter, OrderedDict
from typing import Any

from .. import _creation, _dtype, nn
from .._device import device
from .._size import Size
from .._tensor import Tensor
from . import _rebuild
from ._storage import STORAGE_TYPES

__all__ = ["TORCH_ONLY", "allowed_globals", "torch_name"]

_REBUILD = {
    "torch._utils._rebuild_tensor": _rebuild.rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": _rebuild.rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": _rebuild.rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild.rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": _rebuild.rebuild_from_type_v2,
}

# Names a weights-only load in PyTorch accepts but chainrule cannot build: its dtypes
# and tensor kinds that chainrule does not have. Loading one fails with a message
# saying so, not as an unsafe global.
TORCH_ONLY = frozenset(
    {
        "torch.bfloat16",
        "torch.complex32",
        "torch.complex64",
        "torch.complex128",
        "torch.uint16",
        "torch.uint32",
        "torch.uint64",
        "torch.float8_e4m3fn",
        "torch.float8_e5m2",
        "torch.qint8",
        "torch.quint8",
        "torch.qint32",
        "torch.serialization._get_layout",
        "torch._utils._rebuild_tensor_v3",
        "torch._utils._rebuild_qtensor",
        "torch._utils._rebuild_sparse_tensor",
        "torch._utils._rebuild_nested_tensor",
        "torch._utils._rebuild_meta_tensor_no_storage",
        "torch._utils._rebuild_wrapper_subclass",
        "torch._utils._rebuild_device_tensor_from_numpy",
        "torch._utils._rebuild_device_tensor_from_cpu_tensor",
    }
)

_TENSOR_CLASSES = (
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
)


@functools.cache
def _chainrule_dtypes() -> dict[str, Any]:
    names = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")
    table: dict[str, Any] = {f"torch.{n}": getattr(_dtype, n) for n in names}
    table["torch.bool"] = _dtype.bool_
    return table


def allowed_globals() -> dict[str, Any]:
    """Every global a weights-only load accepts, by PyTorch's full name."""
    table: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": codecs.encode,  # how protocol 2 pickles bytes
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        **_REBUILD,
        **_chainrule_dtypes(),
    }
    for name, storage_type in STORAGE_TYPES.items():
        table[f"torch.{name}"] = storage_type
    for name in _TENSOR_CLASSES:
        table[f"torch.{name}"] = getattr(_creation, name)
    parameter = getattr(nn, "Parameter", None)  # read late: chainrule.nn may gain it
    if parameter is not None:
        table["torch.nn.parameter.Parameter"] = parameter
    return table


@functools.cache
def _reverse() -> dict[int, tuple[str, str]]:
    names: dict[int, tuple[str, str]] = {}
    for full, obj in allowed_globals().items():
        if full.startswith("torch."):
            module, _, name = full.rpartition(".")
            names[id(obj)] = (module, name)
    return names


def torch_name(obj: Any) -> tuple[str, str] | None:
    """(module, name) of the PyTorch global that stands for chainrule's `obj`, if there is one.

    The objects looked up are module-level ones that live as long as chainrule does,
    so their ids are stable keys.
    """
    return _reverse().get(id(obj))
