"""Elementwise extremes (maximum, fmax, ...), closeness (isclose, allclose, equal), comparisons.

Where two inputs tie, `maximum` and `minimum` split the gradient equally
between them; `fmax` and `fmin` give it all to the first input, as torch does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..inplace import apply_inplace
from ..operands import Number, as_operands
from ..quiet import quietly
from .binary_common import (
    Binary,
    check_pair,
    pair_method,
    pair_op,
    require_tensors,
)
from .conditional import where
from .forwards import binary_forward

__all__ = [
    "allclose",
    "eq",
    "equal",
    "fmax",
    "fmin",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "isclose",
    "le",
    "less",
    "less_equal",
    "lt",
    "maximum",
    "minimum",
    "ne",
    "not_equal",
]


def _compare(np_fn: Any, name: str) -> Callable[[Tensor, Tensor | Number], Tensor]:
    """A comparison or logical op: a bool tensor, outside the graph."""

    def compare(input: Tensor, other: Tensor | Number) -> Tensor:
        _, (a, b) = as_operands(input, other)
        return Tensor._make(np.asarray(np_fn(a._data, b._data)))

    compare.__name__ = name
    return compare


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _promoted(prim: Binary) -> Any:
    def impl(input: Tensor, other: Tensor) -> Tensor:
        dt, _ = as_operands(input, other)
        return prim(input, other, dt)

    return impl


# --- maximum, minimum: nan wins; a tie splits the gradient -----------------------------------


def _larger_grad(g: Tensor, mine: Tensor, theirs: Tensor) -> Tensor:
    return where(mine < theirs, 0, where(mine == theirs, g / 2, g))


def _smaller_grad(g: Tensor, mine: Tensor, theirs: Tensor) -> Tensor:
    return where(mine > theirs, 0, where(mine == theirs, g / 2, g))


_maximum = Binary(
    binary_forward(np.maximum),
    (
        lambda g, n: _larger_grad(g, n.self, n.other),
        lambda g, n: _larger_grad(g, n.other, n.self),
    ),
    "MaximumBackward0",
    formulas=(
        "1 where self > other, 1/2 where equal, else 0",
        "1 where other > self, 1/2 where equal, else 0",
    ),
)
_minimum = Binary(
    binary_forward(np.minimum),
    (
        lambda g, n: _smaller_grad(g, n.self, n.other),
        lambda g, n: _smaller_grad(g, n.other, n.self),
    ),
    "MinimumBackward0",
    formulas=(
        "1 where self < other, 1/2 where equal, else 0",
        "1 where other < self, 1/2 where equal, else 0",
    ),
)
_maximum_impl = _promoted(_maximum)
_minimum_impl = _promoted(_minimum)
maximum = pair_op(
    "maximum", _maximum_impl, "tensors", doc="The larger of each pair (nan if either is)."
)
minimum = pair_op(
    "minimum", _minimum_impl, "tensors", doc="The smaller of each pair (nan if either is)."
)
maximum_method = pair_method("maximum", _maximum_impl, "tensors", doc=maximum.__doc__)
minimum_method = pair_method("minimum", _minimum_impl, "tensors", doc=minimum.__doc__)


# --- fmax, fmin: a number wins over nan; the first input wins a tie ----------------------------


def _first_wins(g: Tensor, keeps_first: Tensor, first: bool) -> Tensor:
    return where(keeps_first, g, 0) if first else where(keeps_first, 0, g)


def _fmax_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    return np.asarray(np.where((a >= b) | (b != b), a, b))  # a tie keeps input (its -0.0)


def _fmin_kernel(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    return np.asarray(np.where((a <= b) | (b != b), a, b))


_fmax = Binary(
    _fmax_kernel,
    (
        lambda g, n: _first_wins(g, (n.self >= n.other) | (n.other != n.other), True),
        lambda g, n: _first_wins(g, (n.self >= n.other) | (n.other != n.other), False),
    ),
    "FmaxBackward0",
    formulas=(
        "1 where self ≥ other or other is nan, else 0",
        "0 where self ≥ other or other is nan, else 1",
    ),
)
_fmin = Binary(
    _fmin_kernel,
    (
        lambda g, n: _first_wins(g, (n.self <= n.other) | (n.other != n.other), True),
        lambda g, n: _first_wins(g, (n.self <= n.other) | (n.other != n.other), False),
    ),
    "FminBackward0",
    formulas=(
        "1 where self ≤ other or other is nan, else 0",
        "0 where self ≤ other or other is nan, else 1",
    ),
)
_fmax_impl = _promoted(_fmax)
_fmin_impl = _promoted(_fmin)
fmax = pair_op("fmax", _fmax_impl, "tensors", doc="The larger of each pair, ignoring nan.")
fmin = pair_op("fmin", _fmin_impl, "tensors", doc="The smaller of each pair, ignoring nan.")
fmax_method = pair_method("fmax", _fmax_impl, "tensors", doc=fmax.__doc__)
fmin_method = pair_method("fmin", _fmin_impl, "tensors", doc=fmin.__doc__)


# --- isclose, allclose, equal --------------------------------------------------------------


def _tolerance(name: str, value: Any, op: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise TypeError(f"{op}(): argument '{name}' must be float, not {type(value).__name__}")
    if value < 0:
        raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")
    return float(value)


@quietly
def _close(
    op: str, input: Tensor, other: Tensor, rtol: Any, atol: Any, equal_nan: bool
) -> np.ndarray:
    """Where |input - other| <= atol + rtol * |other| (or both are the same inf, or nan)."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{scalar_name(input.dtype)} did not match {scalar_name(other.dtype)}")
    rtol, atol = _tolerance("rtol", rtol, op), _tolerance("atol", atol, op)
    a, b = input._data, other._data
    shape = broadcast_shapes(a.shape, b.shape)
    close = np.broadcast_to(a == b, shape)
    if equal_nan:
        close = close | (np.isnan(a) & np.isnan(b))
    if rtol == 0 and atol == 0:
        return np.asarray(close)
    if a.dtype.kind != "f":  # torch measures integers' distance in the default float
        a, b = (x.astype(_dtype.get_default_dtype().np) for x in (a, b))
    allowed = atol + np.abs(rtol * b)
    actual = np.abs(a - b)
    return np.asarray(close | (np.isfinite(actual) & (actual <= allowed)))


def isclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """Where input and other are close: |input - other| <= atol + rtol * |other|."""
    require_tensors("isclose", input=input, other=other)
    return Tensor._make(_close("isclose", input, other, rtol, atol, equal_nan))


def allclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """Whether every element of input is close to other's (see isclose)."""
    require_tensors("allclose", input=input, other=other)
    return bool(_close("allclose", input, other, rtol, atol, equal_nan).all())


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether the tensors have the same shape and equal elements (compared after promotion)."""
    require_tensors("equal", input=input, other=other)
    if input._data.shape != other._data.shape:
        return False
    dt, _ = as_operands(input, other)
    return bool(np.array_equal(input._data.astype(dt.np), other._data.astype(dt.np)))


# The methods name only `other` in their errors (`x.isclose(1)`: argument 'other').


def isclose_method(
    self: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """Where self and other are close: |self - other| <= atol + rtol * |other|."""
    require_tensors("isclose", other=other)
    return isclose(self, other, rtol, atol, equal_nan)


def allclose_method(
    self: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """Whether every element of self is close to other's (see isclose)."""
    require_tensors("allclose", other=other)
    return allclose(self, other, rtol, atol, equal_nan)


isclose_method.__name__ = isclose_method.__qualname__ = "isclose"
allclose_method.__name__ = allclose_method.__qualname__ = "allclose"


def equal_method(self: Tensor, other: Tensor) -> bool:
    """Whether the tensors have the same shape and equal elements (compared after promotion)."""
    require_tensors("equal", other=other)
    return equal(self, other)


equal_method.__name__ = equal_method.__qualname__ = "equal"


# --- comparisons: in-place forms ----------------------------------------------------------

_COMPARE_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
)


def _inplace_compare(name: str, np_fn: Any) -> Callable[[Tensor, Tensor | Number], Tensor]:
    """`x.lt_(y)`: the comparison written into x as 0s and 1s of x's dtype.

    torch records a node with zero gradients, named for a number (Backward0) or
    a tensor (Backward1) on the right.
    """
    node = name.capitalize()

    def forward(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
        return np.asarray(np_fn(a.astype(dt, copy=False), b.astype(dt, copy=False)), a.dtype)

    def zero(g: Tensor, n: Any) -> Tensor:
        return g * 0

    prim = Binary(
        forward, (zero, zero), f"{node}Backward1", f"{node}Backward0", formulas=("0", "0")
    )

    def compute(old: Tensor, other: Any) -> Tensor:
        dt, (_, b) = as_operands(old, other)
        if isinstance(other, Tensor):
            return prim.both(old, other, dt=dt.np)
        return prim.second(old, other=b, dt=dt.np)

    def method(self: Tensor, other: Tensor | Number) -> Tensor:
        check_pair(f"{name}_", self, other, "number second", _COMPARE_SIGNATURES, method=True)
        return apply_inplace(self, lambda old: compute(old, other), (other,))

    method.__name__ = method.__qualname__ = f"{name}_"
    return method


eq_ = _inplace_compare("eq", np.equal)
ne_ = _inplace_compare("ne", np.not_equal)
lt_ = _inplace_compare("lt", np.less)
le_ = _inplace_compare("le", np.less_equal)
gt_ = _inplace_compare("gt", np.greater)
ge_ = _inplace_compare("ge", np.greater_equal)
