"""NumPy calls with floating-point warnings off: PyTorch computes 1/0, log(0) and
inf - inf silently, so chainrule's ops do too. The one place that switches them off:

    quiet(fn, *args)      one call
    quietly(fn)           `fn`, made to run quietly on every call (a forward, a kernel)
    token = mute()        the hot path's form, with no call in between:
    try:
        ...
    finally:
        unmute(token)

`np.errstate` costs about a microsecond each time, more than a ufunc on a small
array. On NumPy 2 the setting it makes is one context variable (so per thread, as
errstate's), which `mute` sets directly; with older NumPy it enters an errstate.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["mute", "quiet", "quietly", "unmute"]

R = TypeVar("R")

try:
    from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
        _extobj_contextvar,
        _make_extobj,
    )

    # Bound C callables, not Python functions: they run for nearly every op.
    mute: Callable[[], Any] = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))
    unmute: Callable[[Any], None] = _extobj_contextvar.reset

except (ImportError, TypeError):  # NumPy 1.x

    def mute() -> Any:
        """Turn NumPy's floating-point warnings off; returns what `unmute` needs."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def unmute(token: Any) -> None:
        """Put back the setting `mute` replaced."""
        token.__exit__(None, None, None)


def quiet(fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
    """`fn(*args, **kwargs)` with NumPy's floating-point warnings off."""
    token = mute()
    try:
        return fn(*args, **kwargs)
    finally:
        unmute(token)


def quietly(fn: Callable[..., R]) -> Callable[..., R]:
    """`fn`, running with NumPy's floating-point warnings off on every call."""

    return functools.update_wrapper(functools.partial(quiet, fn), fn)
