"""Turning samples into batches: `default_collate` stacks a list of samples into tensors
(recursively, through dicts, tuples, lists and named tuples), `default_convert` only turns
NumPy arrays into tensors. `collate` is the recursion, with a type -> function table that
says what to do at the leaves (`default_collate_fn_map`)."""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._creation import as_tensor, tensor
from ..._dtype import float64
from ..._ops.shape.views import stack
from ..._tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtypes that hold no numbers: bytes, strings, unicode, objects.
_NON_NUMERIC_DTYPE = re.compile(r"[SaUO]")

_UNSUPPORTED = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)

CollateFnMap = dict[type | tuple[type, ...], Callable[..., Any]]


def _rebuild_mapping(like: Any, values: dict[Any, Any]) -> Any:
    """A mapping of `like`'s type holding `values`, or a plain dict if that type cannot be
    built that way."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(values)
            return clone
        return type(like)(values)
    except TypeError:
        return values


def _rebuild_sequence(like: Any, values: list[Any]) -> Any:
    """A sequence of `like`'s type holding `values`, or a plain list if that type cannot be
    built that way."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(like)(values)
    except TypeError:
        return values


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _is_numpy_value(value: Any) -> bool:
    """A NumPy array or scalar, except NumPy's string scalars."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data: Any) -> Any:
    """`data` with every NumPy array (and NumPy number) inside it made a tensor; tuples
    become lists, other containers keep their type; anything else is returned as is."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _NON_NUMERIC_DTYPE.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as PyTorch returns
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, str | bytes):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Merge the samples of `batch` position by position. A leaf's type is looked up in
    `collate_fn_map` (exactly, then by `isinstance` in the table's order); containers are
    collated field by field; anything else is a TypeError."""
    elem = batch[0]
    if collate_fn_map is not None:
        if type(elem) in collate_fn_map:
            return collate_fn_map[type(elem)](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)

    def merge(samples: Any) -> Any:
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: merge([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(merge(samples) for samples in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        merged = [merge(samples) for samples in zip(*batch, strict=False)]
        if isinstance(elem, tuple):
            return merged  # a list, as PyTorch returns
        return _rebuild_sequence(elem, merged)
    raise TypeError(_UNSUPPORTED.format(type(elem)))


def collate_tensor_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return stack(batch, 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    if _NON_NUMERIC_DTYPE.search(batch[0].dtype.str):
        raise TypeError(_UNSUPPORTED.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return as_tensor(batch)


def collate_float_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return tensor(batch, dtype=float64)


def collate_int_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return tensor(batch)  # int64, or bool for a batch of bools


def collate_str_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return batch


default_collate_fn_map: CollateFnMap = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Any) -> Any:
    """Stack a list of samples into a batch: tensors, NumPy arrays and numbers become one
    tensor with a new first dimension (floats as float64, ints as int64), strings and bytes
    stay a list, and dicts, named tuples, tuples and lists are collated field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
