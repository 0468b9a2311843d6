"""Spelling a layer's size arguments as tuples: `_single`, `_pair`, `_triple`, `_ntuple`.

An int (or any non-iterable) repeats n times; an iterable becomes a tuple as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from typing import Any

__all__: list[str] = []


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple[Any, ...]]:
    def parse(x: Any) -> tuple[Any, ...]:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Sequence[Any], n: int) -> tuple[Any, ...]:
    """`(a, b)` -> `(b, b, a, a)` for n=2: per-dim amounts in the order `F.pad` reads them."""
    return tuple(x for x in reversed(t) for _ in range(n))
