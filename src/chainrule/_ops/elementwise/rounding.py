"""Rounding, sign and nan/inf handling (floor, round, sgn, frac, nan_to_num) and float predicates.

The rounding ops have zero derivative everywhere, as in PyTorch, and keep
integer dtypes (they return a copy). The predicates give bool tensors outside the
graph.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _strides
from ..._creation import zeros_like
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..primitive import Primitive
from ..quiet import quietly
from .unary_common import check_tensor, compute_dtype, inplace_form, unary_function

__all__ = [
    "abs",
    "absolute",
    "ceil",
    "ceil_",
    "fix",
    "fix_",
    "floor",
    "floor_",
    "frac",
    "frac_",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "nan_to_num",
    "nan_to_num_",
    "positive",
    "round",
    "round_",
    "sgn",
    "sign",
    "signbit",
    "trunc",
    "trunc_",
]


def _zero_grad(g: Tensor, n: Any) -> Tensor:
    return zeros_like(g)


def not_for(input: Tensor, kernel: str, kinds: str) -> None:
    """PyTorch's NotImplementedError for dtypes a kernel has no loop for."""
    if input._data.dtype.kind in kinds:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_name(input._data.dtype)}'"
        )


def _rounding(prim: Primitive, name: str, kernel: str) -> Callable[[Tensor], Tensor]:
    """floor, ceil, trunc: zero gradients; integers give a copy, bools are refused."""

    def op(input: Tensor) -> Tensor:
        check_tensor(name, input)
        not_for(input, kernel, "b")
        if input._data.dtype.kind != "f":
            return Tensor._make(input._data.copy())
        return prim(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"`{prim.forward.__name__}` of each element; integer tensors are returned as a copy."
    )
    return op


_floor = Primitive(
    "FloorBackward0",
    np.floor,
    grads=(_zero_grad,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_ceil = Primitive(
    "CeilBackward0",
    np.ceil,
    grads=(_zero_grad,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_trunc = Primitive(
    "TruncBackward0",
    np.trunc,
    grads=(_zero_grad,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
floor = _rounding(_floor, "floor", "floor_vml_cpu")
ceil = _rounding(_ceil, "ceil", "ceil_vml_cpu")
trunc = _rounding(_trunc, "trunc", "trunc_vml_cpu")
fix = _rounding(_trunc, "fix", "trunc_vml_cpu")

# --- round ----------------------------------------------------------------------------------


def _round_decimals(a: np.ndarray, decimals: int) -> np.ndarray:
    # Scaled by a power of ten in the input's dtype, then rounded half to even (as PyTorch).
    x = a.astype(compute_dtype(a.dtype), copy=False)
    ten = (np.float64(10.0) ** builtins.abs(decimals)).astype(x.dtype)  # inf past the dtype's range
    out = np.rint(x * ten) / ten if decimals >= 0 else np.rint(x / ten) * ten
    return out.astype(a.dtype, copy=False)


_round = Primitive(
    "RoundBackward0",
    np.rint,
    grads=(_zero_grad,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_round_to = Primitive(
    "RoundBackward1",
    quietly(_round_decimals),
    grads=(_zero_grad,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)


def round(input: Tensor, *, decimals: int | None = None) -> Tensor:
    """Round half to even; with `decimals`, to that many decimal places (negative: tens...)."""
    check_tensor("round", input)
    if decimals is None:
        not_for(input, "round_vml_cpu", "b")
        if input._data.dtype.kind != "f":
            return Tensor._make(input._data.copy())
        return _round(input)
    if isinstance(decimals, bool) or not isinstance(decimals, int | np.integer):
        raise TypeError(
            "round() received an invalid combination of arguments - got (Tensor, decimals="
            f"{type(decimals).__name__}), but expected one of:\n"
            " * (Tensor input, *, Tensor out = None)\n"
            " * (Tensor input, *, int decimals, Tensor out = None)\n"
        )
    not_for(input, "round_cpu", "biu")
    return _round_to(input, decimals=int(decimals))


# --- frac, sgn ------------------------------------------------------------------------------

_frac = Primitive(
    "FracBackward0",
    quietly(lambda a: a - np.trunc(a)),
    grads=(lambda g, n: g,),
    formulas=("1",),
    tangent="elementwise",
    layout=_strides.elementwise,
)


def frac(input: Tensor) -> Tensor:
    """The fractional part, x - trunc(x) (with the sign of x)."""
    check_tensor("frac", input)
    not_for(input, "frac_cpu", "biu")
    return _frac(input)


def sign_array(a: np.ndarray) -> np.ndarray:
    """-1, 0 or 1 in the input's dtype; 0 for nan and for -0.0 (PyTorch's sign and sgn)."""
    if a.dtype == np.bool_:
        return a.copy()
    return np.sign(np.where(a == a, a, 0))


_sgn = Primitive(
    "SgnBackward0",
    sign_array,
    grads=(_zero_grad,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)


def sgn(input: Tensor) -> Tensor:
    """The sign of each element (for real tensors, the same as `sign`)."""
    check_tensor("sgn", input)
    return _sgn(input)


# --- nan_to_num ------------------------------------------------------------------------------

_nan_to_num = Primitive(
    "NanToNumBackward0",
    quietly(lambda a, **v: np.nan_to_num(a, nan=v["nan"], posinf=v["posinf"], neginf=v["neginf"])),
    grads=(lambda g, n: g * n.self.isfinite(),),
    formulas=("1 where self is finite, else 0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)


def _check_float_arg(name: str, arg: str, value: Any, optional: bool) -> None:
    if value is None and optional:
        return
    if not isinstance(value, int | float | np.number | np.bool_):
        raise TypeError(f"{name}(): argument '{arg}' must be float, not {type(value).__name__}")


def nan_to_num(
    input: Tensor,
    nan: float | None = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Tensor:
    """nan, +inf, -inf replaced by `nan`, `posinf`, `neginf` (default: the dtype's extremes)."""
    check_tensor("nan_to_num", input)
    _check_float_arg("nan_to_num", "nan", nan, optional=True)
    _check_float_arg("nan_to_num", "posinf", posinf, optional=True)
    _check_float_arg("nan_to_num", "neginf", neginf, optional=True)
    if input._data.dtype.kind != "f":
        return Tensor._make(input._data.copy())
    return _nan_to_num(input, nan=0.0 if nan is None else float(nan), posinf=posinf, neginf=neginf)


# --- predicates ------------------------------------------------------------------------------


def _predicate(np_fn: Any, name: str, doc: str) -> Callable[[Tensor], Tensor]:
    def op(input: Tensor) -> Tensor:
        check_tensor(name, input)
        return Tensor._make(np.asarray(np_fn(input._data), dtype=np.bool_))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


isnan = _predicate(np.isnan, "isnan", "Where the elements are nan.")
isinf = _predicate(np.isinf, "isinf", "Where the elements are +inf or -inf.")
isfinite = _predicate(np.isfinite, "isfinite", "Where the elements are neither nan nor inf.")
isposinf = _predicate(np.isposinf, "isposinf", "Where the elements are +inf.")
isneginf = _predicate(np.isneginf, "isneginf", "Where the elements are -inf.")
signbit = _predicate(np.signbit, "signbit", "Where the sign bit is set (-0.0 and -nan too).")
isreal = _predicate(
    lambda a: np.ones(a.shape, np.bool_), "isreal", "All true: chainrule has no complex dtypes."
)

# --- in-place forms --------------------------------------------------------------------------

floor_ = inplace_form(floor, "floor_")
ceil_ = inplace_form(ceil, "ceil_")
trunc_ = inplace_form(trunc, "trunc_")
fix_ = inplace_form(fix, "fix_")
round_ = inplace_form(round, "round_")
frac_ = inplace_form(frac, "frac_")
nan_to_num_ = inplace_form(nan_to_num, "nan_to_num_")
sgn_ = inplace_form(sgn, "sgn_")


_abs = Primitive(
    "AbsBackward0",
    np.abs,
    grads=(lambda g, n: g * n.self.sign(),),
    formulas=("sign(self)",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_sign = Primitive(  # PyTorch: sign(nan) = 0, sign(-0.0) = 0, and bools keep their value
    "SignBackward0",
    lambda a: a.copy() if a.dtype == np.bool_ else np.sign(np.where(a == a, a, 0)),
    grads=(lambda g, n: g * 0,),
    formulas=("0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)


abs = unary_function(_abs, "abs")


absolute = unary_function(_abs, "absolute")


sign = unary_function(_sign, "sign")


def positive(input: Tensor) -> Tensor:
    """The input itself (unary plus); refused for bool tensors, as in PyTorch."""
    check_tensor("positive", input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input
