"""Division that rounds (`div(..., rounding_mode=)`, `floor_divide`, `//`) and remainders (`%`).

Integers stay integers and refuse a zero divisor as torch does; floats follow
torch's sign conventions: `remainder` takes the divisor's sign (a zero result
keeps the dividend's), `fmod` the dividend's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._creation import zeros_like
from ..._tensor import Tensor
from ..operands import as_operands
from ..quiet import quietly
from .binary_common import (
    NUMBER,
    Binary,
    dunder,
    inplace_pair_op,
    invalid_arguments,
    not_implemented_for,
    pair_method,
    pair_op,
)

__all__ = ["div_rounded", "floor_divide", "fmod", "remainder"]


def _ints(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Both operands in `dt`; for integers, torch's error for a zero divisor."""
    a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    if dt.kind in "iu" and not b.all():
        raise RuntimeError("ZeroDivisionError")
    return a, b


@quietly
def _floor_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    # NumPy's floor division rounds as torch's (and Python's): exact for integers,
    # fmod-based for floats; the smallest int divided by -1 wraps, as in torch.
    a, b = _ints(a, b, dt)
    return np.floor_divide(a, b)


@quietly
def _trunc_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    a, b = _ints(a, b, dt)
    if dt.kind == "f":
        return np.trunc(np.true_divide(a, b))
    # The floor, one up where the exact quotient is negative and not whole.
    q = np.floor_divide(a, b)
    inexact_negative = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + inexact_negative.astype(dt)


@quietly
def _remainder_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    a, b = _ints(a, b, dt)
    if dt.kind != "f":
        return np.remainder(a, b)
    # Not np.remainder: a zero result keeps the dividend's sign here, as in torch.
    m = np.fmod(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


@quietly
def _fmod_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    a, b = _ints(a, b, dt)
    return np.fmod(a, b)


def _zero(g: Tensor, n: Any) -> Tensor:
    return zeros_like(g)


_ROUNDED = {"floor": _floor_kernel, "trunc": _trunc_kernel}

# Rounded division is flat almost everywhere: torch's gradient is zero for both inputs.
_div_rounded = Binary(
    lambda a, b, dt, rounding_mode: _ROUNDED[rounding_mode](a, b, dt),
    (_zero, _zero),
    "DivBackward2",
    formulas=("0", "0"),
)
_floor_divide = Binary(
    _floor_kernel,
    (None, None),
    "NotImplemented",
    "NotImplemented",
    "NotImplemented",
    aten="floor_divide",
)
_remainder = Binary(
    _remainder_kernel,
    (lambda g, n: g, lambda g, n: -g * div_rounded(n.self, n.other, "floor")),
    "RemainderBackward1",
    "RemainderBackward0",
    "NotImplemented",
    aten="remainder",
    formulas=("1", "-floor(self/other)"),
)
_fmod = Binary(
    _fmod_kernel,
    (lambda g, n: g, lambda g, n: -g * div_rounded(n.self, n.other, "trunc")),
    "FmodBackward1",
    "FmodBackward0",
    formulas=("1", "-trunc(self/other)"),
)

_DIV_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Tensor other, *, str rounding_mode, Tensor out = None",
    "Tensor input, Number other, *, str rounding_mode",
)


def div_rounded(input: Any, other: Any, rounding_mode: Any) -> Tensor:
    """`div(input, other, rounding_mode=...)`: the quotient rounded toward zero or down.

    Integers stay integers (a zero divisor raises); floats round in their dtype.
    """
    fits = all(isinstance(v, (Tensor, *NUMBER)) for v in (input, other))
    if not (fits and isinstance(rounding_mode, str)):
        raise invalid_arguments(
            "div", (input, other), {"rounding_mode": rounding_mode}, _DIV_SIGNATURES
        )
    if rounding_mode not in _ROUNDED:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    dt, (a, b) = as_operands(input, other)
    if dt is _dtype.bool_:
        raise not_implemented_for(f"div_{rounding_mode}_cpu", dt)
    return _div_rounded(a, b, dt, rounding_mode=rounding_mode)


def _checked(op: str, kernel_name: str, prim: Binary) -> Any:
    """The op on operands already checked: torch's dtype refusals, then the node."""

    def impl(input: Any, other: Any) -> Tensor:
        dt, (a, _) = as_operands(input, other)
        if dt is _dtype.bool_:
            raise not_implemented_for(kernel_name, dt)
        if not isinstance(other, Tensor) and not isinstance(input, Tensor):
            input = a  # floor_divide(7, 2): the first number as a tensor
        return prim(input, other, dt)

    impl.__name__ = f"_{op}"
    return impl


_BOTH = "Tensor input, Tensor other, *, Tensor out = None"
_SECOND = "Tensor input, Number other, *, Tensor out = None"

_floor_divide_impl = _checked("floor_divide", "div_floor_cpu", _floor_divide)
_remainder_impl = _checked("remainder", "remainder_cpu", _remainder)
_fmod_impl = _checked("fmod", "fmod_cpu", _fmod)

_FLOOR_DIVIDE_SIGNATURES = (_BOTH, "Tensor input, Number other")
_REMAINDER_SIGNATURES = (_BOTH, "Number self, Tensor other", _SECOND)

floor_divide = pair_op(
    "floor_divide",
    _floor_divide_impl,
    "any",
    _FLOOR_DIVIDE_SIGNATURES,
    doc="input // other, rounded down (torch records no derivative for it).",
)
remainder = pair_op(
    "remainder",
    _remainder_impl,
    "numbers",
    _REMAINDER_SIGNATURES,
    doc="Python's modulus: the result has the divisor's sign.",
)
fmod = pair_op(
    "fmod",
    _fmod_impl,
    "number second",
    (_BOTH, _SECOND),
    doc="C's fmod: the remainder of truncated division, with the dividend's sign.",
)


# --- the methods, their in-place forms and the operators ------------------------------------

floor_divide_method = pair_method(
    "floor_divide", _floor_divide_impl, "any", _FLOOR_DIVIDE_SIGNATURES, floor_divide.__doc__
)
remainder_method = pair_method(
    "remainder", _remainder_impl, "numbers", _REMAINDER_SIGNATURES, remainder.__doc__
)
fmod_method = pair_method("fmod", _fmod_impl, "number second", (_BOTH, _SECOND), fmod.__doc__)
floor_divide_ = inplace_pair_op(
    "floor_divide", _floor_divide_impl, "number second", _FLOOR_DIVIDE_SIGNATURES
)
remainder_ = inplace_pair_op("remainder", _remainder_impl, "number second", (_BOTH, _SECOND))
fmod_ = inplace_pair_op("fmod", _fmod_impl, "number second", (_BOTH, _SECOND))

floordiv_operator = dunder(floor_divide)
rfloordiv_operator = dunder(floor_divide, reflected=True)
mod_operator = dunder(remainder)
rmod_operator = dunder(remainder, reflected=True)
ifloordiv_operator = dunder(floor_divide_)
imod_operator = dunder(remainder_)
