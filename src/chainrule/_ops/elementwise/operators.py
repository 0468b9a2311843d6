"""The arithmetic, comparison and bitwise operators of Tensor (`a + b`, `a < b`, `~m`, ...)."""

from __future__ import annotations

from typing import Any

from ... import _dtype
from ..._tensor import Tensor
from ..primitive import Primitive, scalar_tensor
from .arithmetic import _add, _div, _mul, _pow_scalar, _sub, add, div, mul, neg, pow, rsub, sub
from .binary_common import dunder
from .bitwise import bitwise_and, bitwise_not, bitwise_or, bitwise_xor
from .compare import eq, ge, gt, le, lt, ne
from .exp_log import reciprocal
from .rounding import abs

__all__ = []


# --- the operators --------------------------------------------------------------------


def _float_op(fn: Any, prim: Primitive, **fixed: Any) -> Any:
    """An arithmetic operator that goes straight to `prim` in the common case (two float
    tensors of one dtype, or a float tensor and a Python number), and through `fn`,
    with every promotion rule and check, otherwise."""
    general = dunder(fn)

    def op(self: Tensor, other: Any) -> Any:
        dt = self._data.dtype
        if dt.kind == "f":
            # pair_dtype's common cases, spelled out: this runs for every `a * b`.
            if type(other) is Tensor:
                if other._data.dtype == dt:
                    return prim(self, other, dt=dt, **fixed)
            elif type(other) is float or type(other) is int:
                number = scalar_tensor(other, _dtype.from_numpy_dtype(dt))
                return prim(self, number, dt=dt, **fixed)
        return general(self, other)

    return op


def _pow_op(self: Tensor, other: Any) -> Any:
    """`**`: straight to the primitive for a float tensor and a Python number."""
    dt = self._data.dtype
    if dt.kind == "f" and (type(other) is float or type(other) is int):
        return _pow_scalar(self, exponent=other, dt=dt)
    return _pow_general(self, other)


_pow_general = dunder(pow)

_OPERATORS = {
    "__add__": _float_op(add, _add.both, alpha=1),
    "__radd__": _float_op(add, _add.both, alpha=1),
    "__sub__": _float_op(sub, _sub.both, alpha=1),
    "__rsub__": dunder(rsub),
    "__mul__": _float_op(mul, _mul.both),
    "__rmul__": _float_op(mul, _mul.both),
    "__truediv__": _float_op(div, _div.both),
    "__rtruediv__": dunder(lambda self, other: reciprocal(self) * other),
    "__pow__": _pow_op,
    "__rpow__": dunder(pow, reflected=True),
    "__neg__": neg,
    "__pos__": lambda self: self,
    "__abs__": abs,
    "__eq__": dunder(eq),
    "__ne__": dunder(ne),
    "__lt__": dunder(lt),
    "__le__": dunder(le),
    "__gt__": dunder(gt),
    "__ge__": dunder(ge),
    "__and__": dunder(bitwise_and),
    "__or__": dunder(bitwise_or),
    "__xor__": dunder(bitwise_xor),
    "__rand__": dunder(bitwise_and),
    "__ror__": dunder(bitwise_or),
    "__rxor__": dunder(bitwise_xor),
    "__invert__": bitwise_not,
}
for _name, _op in _OPERATORS.items():
    setattr(Tensor, _name, _op)
# Tensor.__hash__ (by identity, as __eq__ is elementwise) is defined in _tensor.py.
