"""Grad modes: whether ops record the graph.

Thread-local; each is both a context manager and a decorator. Public as
`chainrule.autograd.grad_mode`.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "no_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    grad_enabled: bool = True
    inference: bool = False
    multithreading: bool = True


_state = _State()


def is_grad_enabled() -> bool:
    """True when ops on tensors that require grad record the graph."""
    return _state.grad_enabled


def _set(enabled: bool) -> None:
    _state.grad_enabled = enabled


class _GradModeContext:
    """Base for grad-mode switches: `with mode():` and `@mode()` (or `@mode`)."""

    _enabled: bool

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(is_grad_enabled())
        _set(self._enabled)

    def __exit__(self, *exc: object) -> None:
        _set(self._prev.pop())

    def clone(self) -> _GradModeContext:
        return type(self)()

    def __call__(self, fn: F) -> F:
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _wrap_generator(self, fn: F) -> F:
        # The mode must hold while the generator runs, not while it is created,
        # and must not leak to the caller between steps.
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    item = next(gen)
                while True:
                    try:
                        sent = yield item
                    except GeneratorExit:
                        gen.close()
                        raise
                    with self.clone():
                        item = gen.send(sent)
            except StopIteration as stop:
                return stop.value

        return wrapper  # type: ignore[return-value]


class _NoArgDecorator(type):
    """Lets `@no_grad` be used without parentheses, as PyTorch allows."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]) and cls is not set_grad_enabled:
            return super().__call__()(args[0])
        return super().__call__(*args, **kwargs)


class no_grad(_GradModeContext, metaclass=_NoArgDecorator):
    """Ops run inside `no_grad` record no graph; their results do not require grad."""

    _enabled = False


class enable_grad(_GradModeContext, metaclass=_NoArgDecorator):
    """Turns recording back on inside a `no_grad` block."""

    _enabled = True


class set_grad_enabled(_GradModeContext, metaclass=_NoArgDecorator):
    """Sets grad mode at once (like a function call) and restores it on leaving a `with` block."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._enabled = bool(mode)
        self._prev.append(is_grad_enabled())
        _set(self._enabled)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(self._prev.pop())

    def __call__(self, fn: F) -> F:
        # Used as a decorator: undo the switch the constructor made.
        _set(self._prev.pop())
        return super().__call__(fn)

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self._enabled)


def is_inference_mode_enabled() -> bool:
    """True inside `inference_mode()`."""
    return _state.inference


_INFERENCE_WRITE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
_INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


class inference_mode(_GradModeContext, metaclass=_NoArgDecorator):
    """Like `no_grad`, and tensors made inside are *inference tensors*.

    An inference tensor can never enter autograd later: saving one for backward,
    writing into one, or making one require grad outside the mode raises.
    """

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self.mode = bool(mode)
        self._prev_inference: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(_state.grad_enabled)
        self._prev_inference.append(_state.inference)
        if self.mode:
            _state.grad_enabled = False
        _state.inference = self.mode

    def __exit__(self, *exc: object) -> None:
        _state.grad_enabled = self._prev.pop()
        _state.inference = self._prev_inference.pop()

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)


def is_multithreading_enabled() -> bool:
    """The `set_multithreading_enabled` switch (True unless turned off)."""
    return _state.multithreading


class set_multithreading_enabled(_GradModeContext):
    """Switches multithreaded backward on or off at once, and back on leaving a `with` block.

    PyTorch runs backward on per-device worker threads unless it is off; here every
    backward runs on the calling thread, so the switch is kept for code that sets it
    and changes nothing else.
    """

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self.mode = bool(mode)
        self._prev_mode = _state.multithreading
        _state.multithreading = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _state.multithreading = self._prev_mode

    def __call__(self, fn: F) -> F:
        # Used as a decorator: undo the switch the constructor made.
        _state.multithreading = self._prev_mode
        return super().__call__(fn)

    def clone(self) -> set_multithreading_enabled:
        return set_multithreading_enabled(self.mode)


# Users meet these classes in chainrule.autograd.grad_mode, and so they report it (as PyTorch's).
for _cls in (no_grad, enable_grad, set_grad_enabled, inference_mode, set_multithreading_enabled):
    _cls.__module__ = "chainrule.autograd.grad_mode"
