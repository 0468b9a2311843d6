"""Operands of the elementwise ops: Python numbers beside tensors, and the dtype a pair
promotes to (the one way an op promotes its operands)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._autograd import tangents as _tangents
from .._backward.saved import _saved_hooks
from .._tensor import Tensor
from .op_node import NumberOperand
from .quiet import quiet

__all__ = ["Number", "as_operands", "number_operand", "pair_dtype", "scalar_tensor"]

# A Python or NumPy number, as ops accept one in place of a tensor.
Number = bool | int | float | np.number | np.bool_


def number_operand(value: Any, dt: np.dtype) -> Tensor:
    """`value` as the second operand of a binary op in float dtype `dt`: a NumberOperand
    where one serves (a small number, nothing that would see the tensor), else the 0-d
    tensor.

    NumberOperands are shared, one per number and dtype (a program multiplies by the same
    few constants again and again): their arrays are read-only, and a node gives out a
    copy when a tensor of one is asked for (see OpNode). Zero is left out of the cache,
    as -0.0 == 0.0."""
    if _saved_hooks.top is None and not _tangents._active:
        key = (type(value), value, dt)
        operand = _number_operands.get(key)
        if operand is not None:
            return operand  # type: ignore[return-value]
        if -65504.0 <= value <= 65504.0:
            array = np.asarray(value, dt)
            operand = NumberOperand(array)
            if value:
                array.flags.writeable = False
                if len(_number_operands) >= 256:
                    _number_operands.clear()
                _number_operands[key] = operand
            return operand  # type: ignore[return-value]
    return scalar_tensor(value, _dtype.from_numpy_dtype(dt))


_number_operands: dict[tuple[type, Any, np.dtype], NumberOperand] = {}


def scalar_tensor(value: Any, dtype: _dtype.dtype) -> Tensor:
    """A Python number as a 0-d tensor of `dtype` (it never requires grad).

    PyTorch calls such a tensor a wrapped number and gives it to no pack hook when a
    node saves it: under `saved_tensors_hooks` it is marked so (see SavedTensor)."""
    t = Tensor._make(_scalar_array(value, dtype.np))
    if _saved_hooks.top is not None:
        t.__dict__["_wrapped_number"] = True
    return t


def _scalar_array(value: Any, np_dtype: np.dtype) -> np.ndarray:
    """A Python number as a 0-d array; an int out of the dtype's range wraps, as in PyTorch."""
    try:
        return np.asarray(value, dtype=np_dtype)
    except OverflowError:
        return np.asarray(value).astype(np_dtype)


def as_operands(*values: Any) -> tuple[_dtype.dtype, list[Tensor]]:
    """Tensors and Python numbers as tensors of one promoted dtype, and that dtype: the
    one way an op promotes its operands.

    Python numbers become 0-d tensors of the result dtype (see `_number`); tensors
    keep their own dtype (the op casts its arrays, so the graph shows no conversion node).
    """
    if len(values) == 2:
        fast = _same_kind_pair(*values)
        if fast is not None:
            return fast
    for v in values:
        if not isinstance(v, Tensor | bool | int | float | np.number | np.bool_):
            raise TypeError(f"expected Tensor or Number as argument, but got {type(v).__name__}")
    for v in values:
        _check_int(v)
    dt = _dtype.result_type(*values)
    return dt, [v if isinstance(v, Tensor) else _number(v, dt) for v in values]


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _check_int(value: Any) -> None:
    """PyTorch's OverflowError for a Python int no int64 holds."""
    if type(value) is int and not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError("int too big to convert")


def _number(value: Any, dt: _dtype.dtype) -> Tensor:
    """A Python number operand as a 0-d tensor of `dt`; a float too large for it is inf,
    quietly, as in PyTorch (1e300 beside a float32 tensor)."""
    if type(value) is float and not -65504.0 <= value <= 65504.0:  # past float16's range
        return quiet(scalar_tensor, value, dt)
    return scalar_tensor(value, dt)


# The tensor kinds that keep their dtype when combined with a Python number of a type.
_SCALAR_KINDS = {bool: "biuf", int: "iuf", float: "f"}


def pair_dtype(a: Any, b: Any) -> _dtype.dtype | None:
    """The result dtype of `a op b` in the common cases, or None for the full rules.

    Two tensors of one dtype, or a tensor and a Python number its dtype already
    holds (a float tensor and an int or float, an int tensor and an int).
    """
    if type(a) is not Tensor:
        return None
    ad = a._data.dtype
    if type(b) is Tensor:
        bd = b._data.dtype
        return _dtype.from_numpy_dtype(ad) if bd is ad or bd == ad else None
    kinds = _SCALAR_KINDS.get(type(b))
    if kinds is None or ad.kind not in kinds:
        return None
    return _dtype.from_numpy_dtype(ad)


def _same_kind_pair(a: Any, b: Any) -> tuple[_dtype.dtype, list[Tensor]] | None:
    """`as_operands` for the cases `pair_dtype` knows."""
    dt = pair_dtype(a, b)
    if dt is None:
        return None
    kind = type(b)
    if kind is Tensor:
        return dt, [a, b]
    # _check_int and _number, spelled out for the common case: a small int or float.
    if kind is int and not _INT64_MIN <= b <= _INT64_MAX:
        raise OverflowError("int too big to convert")
    if kind is float and not -65504.0 <= b <= 65504.0:
        return dt, [a, quiet(scalar_tensor, b, dt)]
    return dt, [a, scalar_tensor(b, dt)]
