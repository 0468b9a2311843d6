"""Forward-mode AD state: the open dual level and the tangent each tensor carries in it.

Ops read `_active` (True while a level is open and tangents are being pushed);
`chainrule.autograd.forward_ad` is the public API on top, and
`chainrule._ops.forward_mode` computes the tangents of ops.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "enter_dual_level",
    "exit_dual_level",
    "restore_tangent",
    "set_tangent",
    "tangent_of",
]

# Process-wide, as PyTorch's levels. `_active` is what every op reads: True while a
# level is open and no tangent is being computed (tangent rules themselves are not
# pushed forward: there is no second level to push them into).
_active = False
_level: int | None = None
_generation = 0  # counts levels opened, so a tangent kept from a closed level is ignored
_duals: list[weakref.ref[Tensor]] = []

_KEY = "_fw_grad"


def enter_dual_level() -> int:
    """Open the level that dual tensors live in; returns its index (always 0)."""
    global _active, _level, _generation
    if _level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level, _active = 0, True
    _generation += 1
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every tangent made in it is dropped."""
    global _active, _level
    if level is None:
        level = -1 if _level is None else _level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    for ref in _duals:
        t = ref()
        if t is not None:
            t.__dict__.pop(_KEY, None)
    _duals.clear()
    _level, _active = None, False


def check_level(level: int | None, what: str) -> None:
    """A `level=` argument must name the open level."""
    if level is not None and level != _level:
        raise RuntimeError(f"Invalid level given to {what}")


def tangent_of(t: Tensor) -> Tensor | None:
    """The tangent `t` carries at the open level, or None."""
    if _level is None:
        return None
    d = t.__dict__
    return d.get(_KEY) if d else None


def set_tangent(t: Tensor, tangent: Tensor) -> None:
    if _KEY not in t.__dict__:
        _duals.append(weakref.ref(t))
    t.__dict__[_KEY] = tangent


def restore_tangent(t: Tensor, generation: int, tangent: Tensor) -> None:
    """Give a re-wrapped saved output back its tangent, if its level is still open."""
    if generation == _generation and _level is not None:
        set_tangent(t, tangent)


@contextlib.contextmanager
def _no_push() -> Iterator[None]:
    """No tangent is pushed forward inside (a custom Function's forward, tangent rules)."""
    global _active
    was, _active = _active, False
    try:
        yield
    finally:
        _active = was


def _without_push(fn: Callable[[], Any]) -> Any:
    """Run `fn` with no tangent pushed forward (tangent rules, primal views)."""
    global _active
    was, _active = _active, False
    try:
        return fn()
    finally:
        _active = was
