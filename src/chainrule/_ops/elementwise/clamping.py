"""clamp (clip), clamp_min and clamp_max, with Python-number or tensor bounds.

Gradients follow PyTorch at the bounds: the input's gradient passes where
min <= x <= max (both ends included); a tensor bound gets the gradient where it
is the value taken (strictly beyond the input, and for `min` only while
min < max, since max wins when the bounds cross).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

import numpy as np

from ... import _dtype, _strides
from ..._tensor import Tensor
from ..broadcasting import broadcast_error
from ..operands import scalar_tensor
from ..primitive import Primitive
from ..quiet import quietly
from .conditional import where
from .unary_common import check_tensor, inplace_form, unary_function

__all__ = [
    "clamp",
    "clamp_",
    "clamp_max",
    "clamp_max_",
    "clamp_min",
    "clamp_min_",
    "clip",
    "clip_",
    "relu",
]

P = ParamSpec("P")
_NUMBER = (int, float, np.number, np.bool_)


def _bound_value(value: Any, dt: np.dtype) -> Any:
    """A number bound in dtype `dt`, with PyTorch's error when it overflows the dtype.

    Note: as in PyTorch, a negative bound for uint8 down to -255 wraps around instead.
    """
    if isinstance(value, Tensor):
        value = value.item()
    if dt.kind == "b":
        return bool(value)
    if dt.kind == "f":
        fits = not np.isfinite(value) or abs(value) <= float(np.finfo(dt).max)
    else:
        info = np.iinfo(dt)
        low = -int(info.max) if dt.kind == "u" else int(info.min)
        fits = low <= value <= info.max
    if not fits:
        raise RuntimeError(
            f"value cannot be converted to type {_dtype.overflow_type_name(dt)} without overflow"
        )
    return np.asarray(value).astype(dt).item()


def _within(x: Tensor, lo: Any, hi: Any) -> Tensor:
    """Where lo <= x <= hi (a None bound is no bound); false at nan."""
    if lo is None:
        return x <= hi
    if hi is None:
        return x >= lo
    return (x >= lo) & (x <= hi)


def _clamp_numbers(a: np.ndarray, lo: Any, hi: Any, dt: np.dtype) -> np.ndarray:
    a = a.astype(dt, copy=False)
    if lo is not None:
        a = np.maximum(a, np.asarray(lo, dt))
    if hi is not None:
        a = np.minimum(a, np.asarray(hi, dt))
    return a


def _clamp_arrays(a: np.ndarray, lo: np.ndarray, hi: np.ndarray, dt: np.dtype) -> np.ndarray:
    return np.minimum(np.maximum(a.astype(dt), lo.astype(dt)), hi.astype(dt))


_clamp_scalar = Primitive(
    "ClampBackward1",
    quietly(_clamp_numbers),
    grads=(lambda g, n: where(_within(n.self, n.lo, n.hi), g, 0.0),),
    formulas=("1 where {lo:-∞} ≤ self ≤ {hi:∞}, else 0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_clamp_tensor = Primitive(
    "ClampBackward0",
    quietly(_clamp_arrays),
    inputs=("self", "min", "max"),
    grads=(
        lambda g, n: where((n.self >= n.min) & (n.self <= n.max), g, 0.0),
        lambda g, n: where((n.self < n.min) & (n.min < n.max), g, 0.0),
        lambda g, n: where((n.self > n.max) | (n.max < n.min), g, 0.0),
    ),
    formulas=(
        "1 where min ≤ self ≤ max, else 0",
        "1 where self < min < max, else 0",
        "1 where self > max or max < min, else 0",
    ),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_clamp_min_scalar = Primitive(
    "ClampMinBackward0",
    quietly(lambda a, lo, dt: _clamp_numbers(a, lo, None, dt)),
    grads=(lambda g, n: where(n.self >= n.lo, g, 0.0),),
    formulas=("1 where self ≥ {lo}, else 0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_clamp_min_tensor = Primitive(
    "ClampMinBackward1",
    quietly(lambda a, lo, dt: np.maximum(a.astype(dt), lo.astype(dt))),
    inputs=("self", "min"),
    grads=(
        lambda g, n: where(n.self >= n.min, g, 0.0),
        lambda g, n: where(n.self < n.min, g, 0.0),
    ),
    formulas=("1 where self ≥ min, else 0", "1 where self < min, else 0"),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_clamp_max_scalar = Primitive(
    "ClampMaxBackward0",
    quietly(lambda a, hi, dt: _clamp_numbers(a, None, hi, dt)),
    grads=(lambda g, n: where(n.self <= n.hi, g, 0.0),),
    formulas=("1 where self ≤ {hi}, else 0",),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_clamp_max_tensor = Primitive(
    "ClampMaxBackward1",
    quietly(lambda a, hi, dt: np.minimum(a.astype(dt), hi.astype(dt))),
    inputs=("self", "max"),
    grads=(
        lambda g, n: where(n.self <= n.max, g, 0.0),
        lambda g, n: where(n.self > n.max, g, 0.0),
    ),
    formulas=("1 where self ≤ max, else 0", "1 where self > max, else 0"),
    tangent="elementwise",
    layout=_strides.elementwise,
)


def _invalid(name: str, given: tuple[Any, ...], params: str) -> TypeError:
    got = ", ".join(type(v).__name__ for v in given)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (Tensor input, {params.format('Tensor')}, *, Tensor out = None)\n"
        f" * (Tensor input, {params.format('Number')}, *, Tensor out = None)\n"
    )


def _check_broadcast(*tensors: Tensor) -> None:
    shapes = [t._data.shape for t in tensors]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        for i, a in enumerate(shapes):
            for b in shapes[i + 1 :]:
                try:
                    np.broadcast_shapes(a, b)
                except ValueError:
                    raise RuntimeError(broadcast_error(a, b)) from None


def _unbounded(dt: _dtype.dtype, sign: int) -> Tensor:
    """A bound that clamps nothing: +-inf, or the integer dtype's extreme."""
    if dt.is_floating_point:
        return scalar_tensor(sign * np.inf, dt)
    info = np.iinfo(dt.np)
    return scalar_tensor(info.max if sign > 0 else info.min, dt)


def _clamp(name: str, input: Tensor, min: Any, max: Any) -> Tensor:
    given = (input, min) if max is None else (input, min, max)
    if not isinstance(input, Tensor) or any(
        b is not None and not isinstance(b, (Tensor, *_NUMBER)) for b in (min, max)
    ):
        raise _invalid(name, given, "{0} min = None, {0} max = None")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = [b for b in (min, max) if isinstance(b, Tensor)]
    numbers = [b for b in (min, max) if b is not None and not isinstance(b, Tensor)]
    if tensors and numbers:
        # PyTorch reads a 0-d tensor beside a number as a number; other tensors do not mix.
        if any(t.ndim for t in tensors):
            raise _invalid(name, given, "{0} min = None, {0} max = None")
        min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
        tensors = []
    if tensors:
        dt = _dtype.result_type(input, *tensors)
        low = min if isinstance(min, Tensor) else _unbounded(dt, -1)
        high = max if isinstance(max, Tensor) else _unbounded(dt, 1)
        _check_broadcast(input, low, high)
        return _clamp_tensor(input, low, high, dt=dt.np)
    dt = _dtype.result_type(input, *[b for b in (min, max) if b is not None])
    lo = None if min is None else _bound_value(min, dt.np)
    hi = None if max is None else _bound_value(max, dt.np)
    return _clamp_scalar(input, lo=lo, hi=hi, dt=dt.np)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Each element limited to [min, max] (numbers or tensors; max wins where min > max)."""
    return _clamp("clamp", input, min, max)


def clip(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Alias of `clamp`."""
    return _clamp("clip", input, min, max)


def _one_sided(name: str, input: Any, bound: Any, arg: str) -> tuple[_dtype.dtype, Any]:
    check_tensor(name, input)
    if not isinstance(bound, (Tensor, *_NUMBER)):
        raise _invalid(name, (input, bound), "{0} " + arg)
    dt = _dtype.result_type(input, bound)
    if isinstance(bound, Tensor):
        _check_broadcast(input, bound)
        return dt, bound
    return dt, _bound_value(bound, dt.np)


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """max(input, min), elementwise."""
    dt, lo = _one_sided("clamp_min", input, min, "min")
    if isinstance(lo, Tensor):
        return _clamp_min_tensor(input, lo, dt=dt.np)
    return _clamp_min_scalar(input, lo=lo, dt=dt.np)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """min(input, max), elementwise."""
    dt, hi = _one_sided("clamp_max", input, max, "max")
    if isinstance(hi, Tensor):
        return _clamp_max_tensor(input, hi, dt=dt.np)
    return _clamp_max_scalar(input, hi=hi, dt=dt.np)


# --- in-place forms: PyTorch names the C type it cannot cast to -------------------------------


def _inplace_clamp(
    fn: Callable[Concatenate[Tensor, P], Tensor], name: str
) -> Callable[Concatenate[Tensor, P], Tensor]:
    write = inplace_form(fn, name)

    def op(input: Tensor, *bounds: P.args, **kwargs: P.kwargs) -> Tensor:
        check_tensor(name, input)
        values = [*bounds, *kwargs.values()]
        if input._data.dtype.kind in "biu" and any(
            isinstance(b, float) or (isinstance(b, Tensor) and b.is_floating_point())
            for b in values
        ):
            raise RuntimeError(
                "result type Float can't be cast to the desired output type "
                f"{_dtype.c_type_name(input)}"
            )
        return write(input, *bounds, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = write.__doc__
    return op


clamp_ = _inplace_clamp(clamp, "clamp_")
clip_ = _inplace_clamp(clip, "clip_")
clamp_min_ = _inplace_clamp(clamp_min, "clamp_min_")
clamp_max_ = _inplace_clamp(clamp_max, "clamp_max_")


def _keep_where_positive(g: np.ndarray, result: np.ndarray) -> np.ndarray:
    """0 where `result <= 0`, else `g` (a NaN result keeps it, as in PyTorch).

    `g`'s bits times 1 or 0, as integers: exact for every value of `g` (inf and NaN
    too, which a float product would spoil), in three passes, 10x faster than np.where.
    """
    ints = np.dtype(f"i{g.dtype.itemsize}")
    keep = ~(result <= 0)
    return np.multiply(g.view(ints), keep, dtype=ints).view(g.dtype)


_threshold_backward: Primitive = Primitive(  # relu's gradient; its own gradient is itself
    "ThresholdBackwardBackward0",
    lambda g, result: _keep_where_positive(g, result),
    inputs=("grad_output", "self"),
    grads=(lambda g, n: _threshold_backward(g, n.self), None),
    formulas=("1 where self > 0, else 0", None),
    tangent="elementwise",
    layout=_strides.elementwise,
)
_relu = Primitive(
    "ReluBackward0",
    lambda a: np.maximum(a, 0, dtype=a.dtype),
    grads=(lambda g, n: _threshold_backward(g, n.result),),
    formulas=("1 where result > 0, else 0",),
    tangent="elementwise",
    layout=_strides.elementwise,
    array_grads=(lambda g, n: _threshold_backward.on_arrays(g, n._array("result")),),
)


relu = unary_function(_relu, "relu")
