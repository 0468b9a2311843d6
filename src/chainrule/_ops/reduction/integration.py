"""Integration along one dim: trapezoid (and its older name trapz) and cumulative_trapezoid,
composed of slices, sums (cumulative sums) and products as in PyTorch.

PyTorch records no node of its own for it. With a spacing `dx` the integral is
`(y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx` (its last node MulBackward1); with sample
points `x` it is `((y[:-1] + y[1:]) * (x[1:] - x[:-1])).sum(dim) / 2` (DivBackward1),
the slices taken along `dim`. cumulative_trapezoid takes cumulative sums of the same
terms: `(dx / 2 * (y[:-1] + y[1:])).cumsum(dim)`, or with `x`
`((y[:-1] + y[1:]) * (x[1:] - x[:-1])).cumsum(dim) / 2`.
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
from .scans import cumsum

__all__ = ["cumulative_trapezoid", "trapezoid", "trapz"]

# Each op's signatures, in the order PyTorch lists them, with what each takes by position.
_POINTS = ("Tensor y, Tensor x, *, int dim = -1", ("y", "x"))
_SPACED = ("Tensor y, *, Number dx = 1, int dim = -1", ("y",))
_OVERLOADS = {
    "trapezoid": (_POINTS, _SPACED),
    "cumulative_trapezoid": (_POINTS, _SPACED),
    "trapz": (("Tensor y, *, float dx = 1, int dim = -1", ("y",)), _POINTS),
}
_POSITIONAL = (_POINTS[1], _SPACED[1])
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


def _invalid(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> TypeError:
    """PyTorch's TypeError for arguments that fit neither signature. Its keywords come out of
    a hash map: for two of them that is the last given first, the order used here."""
    named = list(reversed(kwargs.items()))
    given = [_type_name(a) for a in args]
    shown = given + [f"{k}={_type_name(v)}" for k, v in named]
    got = ", ".join(shown) if given else "".join(f"{s}, " for s in shown)
    lines = [
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:"
    ]
    for signature, positional in _OVERLOADS[name]:
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


def _one_argument_error(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> TypeError:
    """One argument fits only `name(y)`, so PyTorch says what is wrong with it."""
    if args:
        return TypeError(
            f"{name}(): argument 'y' (position 1) must be Tensor, not {_type_name(args[0])}"
        )
    if "y" in kwargs:
        return TypeError(f"{name}(): argument 'y' must be Tensor, not {_type_name(kwargs['y'])}")
    return TypeError(f'{name}() missing 1 required positional arguments: "y"')


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


def _spacings(name: str, y: Tensor, x: Tensor, d: int) -> Tensor:
    """`x[1:] - x[:-1]` along `d`, with `x` laid along y's dims as PyTorch lays it."""
    n = y._data.shape[d]
    # `x` is not broadcast to y's shape: a 1-d `x` lies along `dim`, a shorter one gets
    # leading 1s, and the spacings broadcast with the sums of neighbours (as in NumPy).
    if x.ndim == 1:
        if x._data.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = view(x, *(n if i == d else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = view(x, *(1,) * (y.ndim - x.ndim), *x._data.shape)
    return slice_dim(x, d, 1, x._data.shape[d]) - slice_dim(x, d, 0, -1)


def _neighbour_sums(y: Tensor, d: int) -> Tensor:
    """`y[:-1] + y[1:]` along `d`."""
    return slice_dim(y, d, 0, -1) + slice_dim(y, d, 1, y._data.shape[d])


def _check_bools(name: str, y: Tensor, x: Tensor) -> None:
    if np.bool_ in (y._data.dtype, x._data.dtype):
        raise RuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported"
        )


def _with_points(y: Tensor, x: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, y.ndim)
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if y._data.shape[d] == 0:
        return _zeros_without(y, d)
    _check_bools("trapezoid", y, x)
    spacing = _spacings("trapezoid", y, x, d)
    return div_scalar(sum_mean.sum(_neighbour_sums(y, d) * spacing, d), 2.0)


def _cumulative_with_points(y: Tensor, x: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, y.ndim)
    _check_bools("cumulative_trapezoid", y, x)
    if y.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    spacing = _spacings("cumulative_trapezoid", y, x, d)
    return div_scalar(cumsum(_neighbour_sums(y, d) * spacing, d), 2.0)


def _cumulative_with_spacing(y: Tensor, dx: Any, dim: int) -> Tensor:
    if y._data.dtype == np.bool_:
        raise RuntimeError(
            "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"
        )
    if isinstance(dx, bool | complex):
        raise RuntimeError("cumulative_trapezoid: Currently, we only support dx as a real number.")
    if y.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, y.ndim)
    return cumsum(mul_scalar(_neighbour_sums(y, d), float(dx) / 2.0), d)


def _integrate(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], points: Any, spaced: Any
) -> Tensor:
    """Parse `name(y, x, *, dim)` or `name(y, *, dx, dim)` and run `points` or `spaced`."""
    bound = bind(args, kwargs, _POSITIONAL[0], {"y", "x", "dim"})
    if bound is not None and "x" in bound:
        y, x = bound.get("y"), bound["x"]
        dim = _int_arg(bound.get("dim", -1))
        if isinstance(y, Tensor) and isinstance(x, Tensor) and dim is not _NO:
            return points(y, x, dim)
    bound = bind(args, kwargs, _POSITIONAL[1], {"y", "dx", "dim"})
    if bound is not None:
        y = bound.get("y")
        dx = bound.get("dx", 1)
        # trapz's dx is a float: a real number (a bool counts as one), never a tensor
        real = isinstance(dx, int | float | np.integer | np.floating | np.bool_)
        dx = (float(dx) if real else _NO) if name == "trapz" else _number_arg(dx)
        dim = _int_arg(bound.get("dim", -1))
        if isinstance(y, Tensor) and dx is not _NO and dim is not _NO:
            return spaced(y, dx, dim)
    if len(args) + len(kwargs) == 1:
        raise _one_argument_error(name, args, kwargs)
    raise _invalid(name, args, kwargs)


def trapezoid(*args: Any, **kwargs: Any) -> Tensor:
    """The integral of samples `y` along `dim` by the trapezoidal rule:
    `trapezoid(y, x, *, dim=-1)` at sample points `x`, `trapezoid(y, *, dx=1, dim=-1)`
    at spacing `dx`."""
    return _integrate("trapezoid", args, kwargs, _with_points, _with_spacing)


def trapz(*args: Any, **kwargs: Any) -> Tensor:
    """`trapezoid` under its older name: `trapz(y, x, *, dim=-1)` or
    `trapz(y, *, dx=1.0, dim=-1)` (dx a real number)."""
    return _integrate("trapz", args, kwargs, _with_points, _with_spacing)


def cumulative_trapezoid(*args: Any, **kwargs: Any) -> Tensor:
    """The running integral of `y` along `dim` by the trapezoidal rule (one entry fewer than
    `y` along `dim`): `cumulative_trapezoid(y, x, *, dim=-1)` or
    `cumulative_trapezoid(y, *, dx=1, dim=-1)`."""
    return _integrate(
        "cumulative_trapezoid", args, kwargs, _cumulative_with_points, _cumulative_with_spacing
    )
