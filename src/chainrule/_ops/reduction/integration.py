"""Integration along one dim: trapezoid, composed of slices, sums and products as in PyTorch.

PyTorch records no node of its own for it. With a spacing `dx` the integral is
`(y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx` (its last node MulBackward1); with sample
points `x` it is `((y[:-1] + y[1:]) * (x[1:] - x[:-1])).sum(dim) / 2` (DivBackward1),
the slices taken along `dim`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..elementwise.arithmetic import div_scalar, mul_scalar
from ..indexing.getitem import select
from ..primitive import wrap_dim
from ..shape.views import view
from ..view_tracking import slice_dim
from . import sum_mean
from .common import bind

__all__ = ["trapezoid"]

_SIGNATURES = (
    "Tensor y, Tensor x, *, int dim = -1",
    "Tensor y, *, Number dx = 1, int dim = -1",
)
_POSITIONAL = (("y", "x"), ("y",))  # what each signature takes by position
_ENTRIES = 4  # PyTorch's parser counts `*` as an entry of each signature
_INT64 = (-(2**63), 2**63)
_NO: Any = object()


# --- arguments, read as PyTorch's parser reads them ---------------------------------------


def _type_name(v: Any) -> str:
    if isinstance(v, Tensor):
        return "Tensor"
    kind = type(v)
    return f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__


def _int_arg(v: Any) -> Any:
    """An `int` argument (an int, a NumPy integer, a 0-d integer tensor), or _NO."""
    if isinstance(v, Tensor) and v.ndim == 0 and v._data.dtype.kind in "iu":
        return int(v._data)
    if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
        return _NO
    if not _INT64[0] <= v < _INT64[1]:
        raise ValueError("Overflow when unpacking long long")
    return int(v)


def _number_arg(v: Any) -> Any:
    """A `Number` argument (a Python or NumPy number, a 0-d tensor needing no grad), or _NO."""
    if isinstance(v, Tensor):
        return v._data.item() if v.ndim == 0 and not v.requires_grad else _NO
    if not isinstance(v, bool | int | float | complex | np.number | np.bool_):
        return _NO
    if isinstance(v, int) and not isinstance(v, bool) and not _INT64[0] <= v < _INT64[1]:
        raise OverflowError("int too big to convert")
    return v


def _invalid(args: Sequence[Any], kwargs: dict[str, Any]) -> TypeError:
    """PyTorch's TypeError for arguments that fit neither signature. Its keywords come out of
    a hash map: for two of them that is the last given first, the order used here."""
    named = list(reversed(kwargs.items()))
    given = [_type_name(a) for a in args]
    shown = given + [f"{k}={_type_name(v)}" for k, v in named]
    got = ", ".join(shown) if given else "".join(f"{s}, " for s in shown)
    lines = [
        f"trapezoid() received an invalid combination of arguments - got ({got}), "
        "but expected one of:"
    ]
    for signature, positional in zip(_SIGNATURES, _POSITIONAL, strict=True):
        lines.append(f" * ({signature})")
        if len(args) + len(kwargs) != _ENTRIES:
            continue
        if kwargs:  # PyTorch matches a keyword only against the last len(kwargs) entries
            late = positional[_ENTRIES - len(kwargs) :]
            wrong = ", ".join(k for k, _ in named if k not in late)
            lines.append(f"      didn't match because some of the keywords were incorrect: {wrong}")
        else:
            marks = [
                n if i < len(positional) and n == "Tensor" else f"!{n}!"
                for i, n in enumerate(given)
            ]
            lines.append(
                "      didn't match because some of the arguments have invalid types: "
                f"({', '.join(marks)})"
            )
    return TypeError("\n".join(lines) + "\n")


def _one_argument_error(args: Sequence[Any], kwargs: dict[str, Any]) -> TypeError:
    """One argument fits only `trapezoid(y)`, so PyTorch says what is wrong with it."""
    if args:
        return TypeError(
            f"trapezoid(): argument 'y' (position 1) must be Tensor, not {_type_name(args[0])}"
        )
    if "y" in kwargs:
        return TypeError(f"trapezoid(): argument 'y' must be Tensor, not {_type_name(kwargs['y'])}")
    return TypeError('trapezoid() missing 1 required positional arguments: "y"')


# --- the rule -----------------------------------------------------------------------------


def _zeros_without(y: Tensor, d: int) -> Tensor:
    """No samples along `d`: zeros of y's dtype, as NumPy and PyTorch give."""
    shape = y._data.shape[:d] + y._data.shape[d + 1 :]
    return Tensor._make(np.zeros(shape, dtype=y._data.dtype))


def _with_spacing(y: Tensor, dx: Any, dim: int) -> Tensor:
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, y.ndim)
    if y._data.shape[d] == 0:
        return _zeros_without(y, d)
    if y._data.dtype == np.bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, bool | complex):
        raise RuntimeError("trapezoid: Currently, we only support dx as a real number.")
    ends = mul_scalar(select(y, d, 0) + select(y, d, -1), 0.5)
    return mul_scalar(sum_mean.sum(y, d) - ends, float(dx))


def _with_points(y: Tensor, x: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, y.ndim)
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    n = y._data.shape[d]
    if n == 0:
        return _zeros_without(y, d)
    if np.bool_ in (y._data.dtype, x._data.dtype):
        raise RuntimeError(
            "trapezoid: received a bool input for `x` or `y`, but bool is not supported"
        )
    # `x` is not broadcast to y's shape: a 1-d `x` lies along `dim`, a shorter one gets
    # leading 1s, and the spacings broadcast with the sums of neighbours (as in NumPy).
    if x.ndim == 1:
        if x._data.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        x = view(x, *(n if i == d else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = view(x, *(1,) * (y.ndim - x.ndim), *x._data.shape)
    spacing = slice_dim(x, d, 1, x._data.shape[d]) - slice_dim(x, d, 0, -1)
    pairs = slice_dim(y, d, 0, -1) + slice_dim(y, d, 1, n)
    return div_scalar(sum_mean.sum(pairs * spacing, d), 2.0)


def trapezoid(*args: Any, **kwargs: Any) -> Tensor:
    """The integral of samples `y` along `dim` by the trapezoidal rule:
    `trapezoid(y, x, *, dim=-1)` at sample points `x`, `trapezoid(y, *, dx=1, dim=-1)`
    at spacing `dx`."""
    points = bind(args, kwargs, _POSITIONAL[0], {"y", "x", "dim"})
    if points is not None and "x" in points:
        y, x = points.get("y"), points["x"]
        dim = _int_arg(points.get("dim", -1))
        if isinstance(y, Tensor) and isinstance(x, Tensor) and dim is not _NO:
            return _with_points(y, x, dim)
    spaced = bind(args, kwargs, _POSITIONAL[1], {"y", "dx", "dim"})
    if spaced is not None:
        y = spaced.get("y")
        dx = _number_arg(spaced.get("dx", 1))
        dim = _int_arg(spaced.get("dim", -1))
        if isinstance(y, Tensor) and dx is not _NO and dim is not _NO:
            return _with_spacing(y, dx, dim)
    if len(args) + len(kwargs) == 1:
        raise _one_argument_error(args, kwargs)
    raise _invalid(args, kwargs)
