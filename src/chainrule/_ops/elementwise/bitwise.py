"""Bit shifts for integer tensors (`<<`, `>>`) and the in-place bitwise ops (`&=`, `|=`, `^=`).

A shift by a negative amount or by the width of the type or more gives 0
(or -1 for a negative number shifted right), as in torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._tensor import Tensor
from .arithmetic import bitwise_and, bitwise_or, bitwise_xor
from .binary_common import dunder, inplace_pair_op, not_implemented_for, operands, pair_op

__all__ = ["bitwise_left_shift", "bitwise_right_shift"]

_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Number self, Tensor other",
    "Tensor input, Number other, *, Tensor out = None",
)


def _shift(kernel: str, np_fn: Any, left: bool) -> Callable[[Any, Any], Tensor]:
    def impl(input: Any, other: Any) -> Tensor:
        dt, (a, b) = operands(input, other)
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
