"""Bit shifts for integer tensors (`<<`, `>>`) and the in-place bitwise ops (`&=`, `|=`, `^=`).

A shift by a negative amount or by the width of the type or more gives 0
(or -1 for a negative number shifted right), as in torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..primitive import as_operands, tensor_method
from .binary_common import dunder, inplace_pair_op, not_implemented_for, pair_op
from .compare import _compare

__all__ = [
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
]


logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")
logical_xor = _compare(np.logical_xor, "logical_xor")


def _bitwise(np_fn: Any, name: str) -> Any:
    def bitwise(input: Tensor, other: Any) -> Tensor:
        dt, (a, b) = as_operands(input, other)
        if dt._category == 2:
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{_dtype.scalar_name(dt)}'"
            )
        return Tensor._make(np.asarray(np_fn(a._data.astype(dt.np), b._data.astype(dt.np))))

    bitwise.__name__ = name
    return bitwise


bitwise_and = tensor_method(_bitwise(np.bitwise_and, "bitwise_and"))
bitwise_or = tensor_method(_bitwise(np.bitwise_or, "bitwise_or"))
bitwise_xor = tensor_method(_bitwise(np.bitwise_xor, "bitwise_xor"))


@tensor_method
def logical_not(input: Tensor) -> Tensor:
    return Tensor._make(np.logical_not(input._data))


@tensor_method
def bitwise_not(input: Tensor) -> Tensor:
    if input._data.dtype.kind == "f":
        raise NotImplementedError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return Tensor._make(np.invert(input._data))


_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Number self, Tensor other",
    "Tensor input, Number other, *, Tensor out = None",
)


def _shift(kernel: str, np_fn: Any, left: bool) -> Callable[[Any, Any], Tensor]:
    def impl(input: Any, other: Any) -> Tensor:
        dt, (a, b) = as_operands(input, other)
        if dt.np.kind not in "iu":
            raise not_implemented_for(kernel, dt)
        x, n = a._data.astype(dt.np, copy=False), b._data.astype(dt.np, copy=False)
        in_range = (n >= 0) & (n < 8 * dt.itemsize)
        shifted = np_fn(x, np.where(in_range, n, 0))
        if left:
            beyond: Any = np.zeros((), dt.np)
        else:
            beyond = np.where(x < 0, -1, 0).astype(dt.np)
        return Tensor._make(np.asarray(np.where(in_range, shifted, beyond), dt.np))

    return impl


_left = _shift("lshift_cpu", np.left_shift, left=True)
_right = _shift("rshift_cpu", np.right_shift, left=False)

bitwise_left_shift = pair_op(
    "bitwise_left_shift", _left, "numbers", _SIGNATURES, doc="input << other, for integers."
)
bitwise_right_shift = pair_op(
    "bitwise_right_shift",
    _right,
    "numbers",
    _SIGNATURES,
    doc="input >> other, for integers (arithmetic: the sign is kept).",
)
inplace_pair_op("bitwise_left_shift", _left, "number second", _SIGNATURES)
inplace_pair_op("bitwise_right_shift", _right, "number second", _SIGNATURES)
for _name, _fn in (
    ("bitwise_and", bitwise_and),
    ("bitwise_or", bitwise_or),
    ("bitwise_xor", bitwise_xor),
):
    inplace_pair_op(_name, _fn, "number second", _SIGNATURES)


_OPERATORS = {
    "__lshift__": dunder(_left),
    "__rlshift__": dunder(_left, reflected=True),
    "__rshift__": dunder(_right),
    "__rrshift__": dunder(_right, reflected=True),
    "__ilshift__": dunder(Tensor.bitwise_left_shift_),  # type: ignore[attr-defined]
    "__irshift__": dunder(Tensor.bitwise_right_shift_),  # type: ignore[attr-defined]
    "__iand__": dunder(Tensor.bitwise_and_),  # type: ignore[attr-defined]
    "__ior__": dunder(Tensor.bitwise_or_),  # type: ignore[attr-defined]
    "__ixor__": dunder(Tensor.bitwise_xor_),  # type: ignore[attr-defined]
}
for _name, _op in _OPERATORS.items():
    setattr(Tensor, _name, _op)
