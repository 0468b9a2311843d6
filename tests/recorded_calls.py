"""Outcomes of calls as plain data, to compare chainrule with torch and with a recording.

`outcome(fn, lib)` runs `fn(lib)` and describes what happened: the exception's type and
message, or the result with tensors as (dtype name, shape, values, grad_fn name). The
same description comes from chainrule and from torch, so one recording (made from torch
and pasted into the test) checks chainrule where torch is not installed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any


def _values(values: Any) -> Any:
    """Nested lists of numbers, NaN as the string "nan" (so recordings compare with ==)."""
    if isinstance(values, list):
        return [_values(v) for v in values]
    if isinstance(values, float) and math.isnan(values):
        return "nan"
    return values


def describe(result: Any) -> Any:
    """`result` as plain data: tensors as (dtype, shape, values, grad_fn), dtypes and devices
    as their names, sequences element by element."""
    kind = type(result).__name__
    if kind == "Tensor":
        node = result.grad_fn.name() if result.grad_fn is not None else None
        return (
            "tensor",
            str(result.dtype).split(".")[-1],
            tuple(result.shape),
            _values(result.tolist()),
            node,
        )
    if kind == "dtype":
        return ("dtype", str(result).split(".")[-1])
    if kind == "device":
        return ("device", str(result))
    if isinstance(result, tuple | list):
        return tuple(describe(r) for r in result)
    return result


def outcome(fn: Callable[[Any], Any], lib: Any) -> Any:
    """What `fn(lib)` gives: its result described, or ("error", type name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(lib)
    except Exception as exc:  # the outcome under test may be any error
        return ("error", type(exc).__name__, str(exc).replace("chainrule.", "torch."))
    return describe(result)


def matches(mine: Any, expected: Any, tol: float = 0.0) -> bool:
    """Whether two outcomes agree: exactly, or floats within relative (and absolute)
    tolerance `tol`. Tuples and lists count alike (a recording is written as tuples)."""
    if isinstance(mine, tuple | list) and isinstance(expected, tuple | list):
        return len(mine) == len(expected) and all(
            matches(a, b, tol) for a, b in zip(mine, expected, strict=True)
        )
    if isinstance(mine, float) and isinstance(expected, float):
        return mine == expected or abs(mine - expected) <= tol * max(1.0, abs(expected))
    return type(mine) is type(expected) and mine == expected
