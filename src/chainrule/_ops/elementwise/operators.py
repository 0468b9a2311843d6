"""The arithmetic, comparison and bitwise operators of Tensor (`a + b`, `a < b`, `~m`, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._autograd import tangents as _tangents
from ..._tensor import Tensor
from .. import lane
from ..operands import Number, number_operand
from ..primitive import Primitive
from .arithmetic import _add, _div, _mul, _pow_scalar, _sub, add, div, mul, pow, rsub, sub
from .binary_common import TensorOperandPair, dunder
from .bitwise import bitwise_and, bitwise_or, bitwise_xor
from .compare import eq, ge, gt, le, lt, ne
from .exp_log import reciprocal

__all__ = [
    "add_operator",
    "and_operator",
    "eq_operator",
    "ge_operator",
    "gt_operator",
    "le_operator",
    "lt_operator",
    "mul_operator",
    "ne_operator",
    "or_operator",
    "pos_operator",
    "pow_operator",
    "radd_operator",
    "rand_operator",
    "rmul_operator",
    "ror_operator",
    "rpow_operator",
    "rsub_operator",
    "rtruediv_operator",
    "rxor_operator",
    "sub_operator",
    "truediv_operator",
    "xor_operator",
]


# --- the operators --------------------------------------------------------------------
# Each returns NotImplemented for an operand that is neither a tensor nor a number (see
# binary_common.dunder), so that Python tries the other operand's reflected operator.


def _float_op(fn: Callable[..., Tensor], prim: Primitive, **fixed: Any) -> TensorOperandPair:
    """An arithmetic operator that goes straight to `prim` in the common case (two float
    tensors of one dtype, or a float tensor and a Python number; the lane, where it
    serves), and through `fn`, with every promotion rule and check, otherwise."""
    general = dunder(fn)
    params_of: dict[np.dtype, dict[str, Any]] = {}  # `{dt, **fixed}` per dtype, never changed

    def op(self: Tensor, other: Any) -> Any:
        dt = self._data.dtype
        if dt.kind != "f":
            return general(self, other)
        # pair_dtype's common cases, spelled out: this runs for every `a * b`.
        if type(other) is Tensor:
            if other._data.dtype != dt:
                return general(self, other)
        elif type(other) is float or type(other) is int:
            other = number_operand(other, dt)
        else:
            return general(self, other)
        params = params_of.get(dt)
        if params is None:
            params = params_of[dt] = {"dt": dt, **fixed}
        if not _tangents._active:
            result = lane.pair(prim, self, other, params)
            if result is not None:
                return result
        return prim.general((self, other), dict(params))  # (a node's own, as a call gives)

    return op


def _pow_op(self: Tensor, other: Tensor | Number) -> Tensor:
    """`**`: straight to the primitive for a float tensor and a Python number."""
    dt = self._data.dtype
    if dt.kind == "f" and (type(other) is float or type(other) is int):
        return _pow_scalar(self, exponent=other, dt=dt)
    return _pow_general(self, other)


_pow_general = dunder(pow)


def _rtruediv(self: Tensor, other: Tensor | Number) -> Tensor:
    return reciprocal(self) * other


def pos_operator(self: Tensor) -> Tensor:
    """`+x`: the tensor itself."""
    return self


add_operator = _float_op(add, _add.both, alpha=1)
radd_operator = _float_op(add, _add.both, alpha=1)
sub_operator = _float_op(sub, _sub.both, alpha=1)
rsub_operator = dunder(rsub)
mul_operator = _float_op(mul, _mul.both)
rmul_operator = _float_op(mul, _mul.both)
truediv_operator = _float_op(div, _div.both)
rtruediv_operator = dunder(_rtruediv)
pow_operator = _pow_op
rpow_operator = dunder(pow, reflected=True)
eq_operator = dunder(eq)
ne_operator = dunder(ne)
lt_operator = dunder(lt)
le_operator = dunder(le)
gt_operator = dunder(gt)
ge_operator = dunder(ge)
and_operator = dunder(bitwise_and)
or_operator = dunder(bitwise_or)
xor_operator = dunder(bitwise_xor)
rand_operator = dunder(bitwise_and)
ror_operator = dunder(bitwise_or)
rxor_operator = dunder(bitwise_xor)
# -x, abs(x) and ~x are the ops themselves: `neg`, `abs` and `bitwise_not`.
# Tensor.__hash__ (by identity, as __eq__ is elementwise) is defined in _tensor.py.
