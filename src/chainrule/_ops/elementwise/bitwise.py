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
from ..operands import Number, as_operands
from .binary_common import dunder, inplace_pair_op, not_implemented_for, pair_method, pair_op
from .compare import _compare
from .unary_common import inplace_form

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


def _bitwise(np_fn: Any, name: str) -> Callable[[Tensor, Tensor | Number], Tensor]:
    def bitwise(input: Tensor, other: Tensor | Number) -> Tensor:
        dt, (a, b) = as_operands(input, other)
        if dt._category == 2:
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{_dtype.scalar_name(dt)}'"
            )
        return Tensor._make(np.asarray(np_fn(a._data.astype(dt.np), b._data.astype(dt.np))))

    bitwise.__name__ = name
    return bitwise


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def logical_not(input: Tensor) -> Tensor:
    return Tensor._make(np.logical_not(input._data))


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


# --- the methods, their in-place forms and the operators ------------------------------------

bitwise_left_shift_method = pair_method(
    "bitwise_left_shift", _left, "numbers", _SIGNATURES, bitwise_left_shift.__doc__
)
bitwise_right_shift_method = pair_method(
    "bitwise_right_shift", _right, "numbers", _SIGNATURES, bitwise_right_shift.__doc__
)
bitwise_left_shift_ = inplace_pair_op("bitwise_left_shift", _left, "number second", _SIGNATURES)
bitwise_right_shift_ = inplace_pair_op("bitwise_right_shift", _right, "number second", _SIGNATURES)
bitwise_and_ = inplace_pair_op("bitwise_and", bitwise_and, "number second", _SIGNATURES)
bitwise_or_ = inplace_pair_op("bitwise_or", bitwise_or, "number second", _SIGNATURES)
bitwise_xor_ = inplace_pair_op("bitwise_xor", bitwise_xor, "number second", _SIGNATURES)

lshift_operator = dunder(_left)
rlshift_operator = dunder(_left, reflected=True)
rshift_operator = dunder(_right)
rrshift_operator = dunder(_right, reflected=True)
ilshift_operator = dunder(bitwise_left_shift_)
irshift_operator = dunder(bitwise_right_shift_)
logical_not_ = inplace_form(logical_not, "logical_not_")
logical_and_ = inplace_form(logical_and, "logical_and_")
logical_or_ = inplace_form(logical_or, "logical_or_")
logical_xor_ = inplace_form(logical_xor, "logical_xor_")
bitwise_not_ = inplace_form(bitwise_not, "bitwise_not_")

iand_operator = dunder(bitwise_and_)
ior_operator = dunder(bitwise_or_)
ixor_operator = dunder(bitwise_xor_)
