"""Scenarios run the same way on chainrule and on PyTorch, for the autograd surface tests.

Each scenario takes the library (`chainrule` or `torch`) and returns plain values
(lists, bools, strings), with any exception turned into (type name, message) by
`outcome`; messages and reprs name the library as "torch", so that both agree.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any


def outcome(fn: Callable[[], Any]) -> Any:
    """`fn()`'s value, or (exception type name, message) when it raises."""
    try:
        return plain(fn())
    except Exception as e:
        return (type(e).__name__, normalize(str(e)))


def normalize(text: str) -> str:
    """The library named as torch, memory addresses dropped."""
    return re.sub(r" at 0x[0-9a-f]+", "", text.replace("chainrule", "torch"))


def plain(value: Any) -> Any:
    """Tensors as lists (rounded), containers recursively, the rest as normalized text."""
    if hasattr(value, "tolist") and hasattr(value, "requires_grad"):
        data = value.detach().tolist()
        return ("tensor", _round(data))
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return round(value, 6)
    return normalize(repr(value))


def _round(data: Any) -> Any:
    if isinstance(data, list):
        return [_round(d) for d in data]
    return round(data, 5) if isinstance(data, float) else data


def warnings_of(fn: Callable[[], Any]) -> list[list[str]]:
    """The warnings `fn()` gives, as [category name, message]."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [[w.category.__name__, normalize(str(w.message))] for w in caught]


def first_line(result: Any) -> Any:
    """An (exception, message) outcome with the message's first line only."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str):
        return (result[0], result[1].split("\n")[0])
    return result
