"""Grad modes, public home: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`,
and the engine switches `set_multithreading_enabled` and `enforce_grad_layout_policy`.

The grad modes are defined below Tensor, in `chainrule._autograd.grad_mode` (every
op reads them); the switches' state lives there too.
"""

from __future__ import annotations

from typing import Any

from .._autograd.grad_mode import (
    F,
    _GradModeContext,
    _state,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .._tensor import Tensor

__all__ = [
    "enable_grad",
    "enforce_grad_layout_policy",
    "inference_mode",
    "is_grad_enabled",
    "is_inference",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "no_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
]


def is_inference(input: Any) -> bool:
    """Whether `input` is an inference tensor (made under `inference_mode`)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_inference(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return input.is_inference()


def is_multithreading_enabled() -> bool:
    """Whether a backward pass may run on worker threads (chainrule's always runs on the
    calling thread; the switch is kept for code that sets and reads it)."""
    return _state.multithreading


def is_view_replay_enabled() -> bool:
    """Whether views made from now on record how to replay themselves (off, as in PyTorch)."""
    return _state.view_replay


class _Switch(_GradModeContext):
    """A thread-local engine switch: set at once by the constructor (so it also works as a
    plain call), restored on leaving a `with` block; as a decorator, set during each call."""

    _flag: str

    def __init__(self, mode: bool) -> None:
        self._prev = [getattr(_state, self._flag)]
        setattr(_state, self._flag, bool(mode))
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        setattr(_state, self._flag, self._prev[0])

    def clone(self) -> _Switch:
        return type(self)(self.mode)

    def __call__(self, fn: F) -> F:
        if self._undo_when_decorating:  # the constructor's switch was not meant for now
            setattr(_state, self._flag, self._prev[0])
        return super().__call__(fn)

    _undo_when_decorating = True


class set_multithreading_enabled(_Switch):
    """Allow (True) or forbid (False) worker threads in backward; chainrule's backward runs
    on the calling thread either way."""

    _flag = "multithreading"
    # As PyTorch's: decorating leaves the switch as the constructor set it.
    _undo_when_decorating = False


class enforce_grad_layout_policy(_Switch):
    """Whether a leaf's first gradient is stored with the leaf's strides (True, the default)
    or may keep the layout it arrived in (False)."""

    _flag = "grad_layout"

    def __init__(self, enable: bool = True) -> None:
        super().__init__(enable)


# Users meet these classes in chainrule.autograd.grad_mode, and so they report it (as PyTorch's).
for _cls in (set_multithreading_enabled, enforce_grad_layout_policy):
    _cls.__module__ = "chainrule.autograd.grad_mode"
