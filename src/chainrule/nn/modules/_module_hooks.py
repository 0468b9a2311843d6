"""Module hooks: registering them on one module or on all modules (the global registries).

Forward pre-hooks run before `forward` and may replace its arguments; forward hooks
run after it and may replace its result. Full backward pre-hooks see a module's
grad_output and may replace it; full backward hooks see grad_input and grad_output
(the gradients with respect to the module's tensor inputs and outputs) and may
replace grad_input. `_module_call` runs them all; this file only keeps them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._autograd.hooks import RemovableHandle

if TYPE_CHECKING:
    from .module import Module

__all__ = [
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

Hook = Callable[..., Any]

# Hooks every module runs, registered with the register_module_* functions below.
_global_backward_pre_hooks: OrderedDict[int, Hook] = OrderedDict()
_global_backward_hooks: OrderedDict[int, Hook] = OrderedDict()
_global_forward_pre_hooks: OrderedDict[int, Hook] = OrderedDict()
_global_forward_hooks: OrderedDict[int, Hook] = OrderedDict()
_global_forward_hooks_always_called: OrderedDict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict[int, bool] = OrderedDict()
# Whether the global backward hooks are full ones (None until one is registered).
_global_is_full_backward_hook: bool | None = None

# Hooks run when any module registers a buffer, a parameter or a submodule.
_registration_hooks: dict[str, OrderedDict[int, Hook]] = {
    "buffer": OrderedDict(),
    "module": OrderedDict(),
    "parameter": OrderedDict(),
}

_MIXED_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. "
    "Please use only one of them."
)


def _add(
    hooks: OrderedDict[int, Hook],
    hook: Hook,
    prepend: bool = False,
    extra_dict: Any = None,
) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def any_global_forward_or_backward_hook() -> bool:
    return bool(
        _global_backward_pre_hooks
        or _global_backward_hooks
        or _global_forward_pre_hooks
        or _global_forward_hooks
    )


# --- hooks on every module ------------------------------------------------------------


def register_module_buffer_registration_hook(hook: Hook) -> RemovableHandle:
    """`hook(module, name, buffer)` runs on every buffer registration; it may return a new one."""
    return _add(_registration_hooks["buffer"], hook)


def register_module_module_registration_hook(hook: Hook) -> RemovableHandle:
    """`hook(module, name, submodule)` runs on every submodule registration."""
    return _add(_registration_hooks["module"], hook)


def register_module_parameter_registration_hook(hook: Hook) -> RemovableHandle:
    """`hook(module, name, param)` runs on every parameter registration."""
    return _add(_registration_hooks["parameter"], hook)


def run_registration_hooks(kind: str, module: Module, name: str, value: Any) -> Any:
    """`value` after every global registration hook of `kind` has had its say."""
    for hook in _registration_hooks[kind].values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def register_module_forward_pre_hook(hook: Hook) -> RemovableHandle:
    """A forward pre-hook for every module, run before the module's own."""
    return _add(_global_forward_pre_hooks, hook)


def register_module_forward_hook(
    hook: Hook, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """A forward hook for every module, run before the module's own."""
    handle = _add(_global_forward_hooks, hook, extra_dict=_global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook: Hook) -> RemovableHandle:
    """A (deprecated, non-full) backward hook for every module."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global "
            "Module hook. Please use only one of them."
        )
    _global_is_full_backward_hook = False
    return _add(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook: Hook) -> RemovableHandle:
    """A full backward pre-hook for every module, run before the module's own."""
    return _add(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Hook) -> RemovableHandle:
    """A full backward hook for every module, run before the module's own."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global "
            "Module hook. Please use only one of them."
        )
    _global_is_full_backward_hook = True
    return _add(_global_backward_hooks, hook)


# --- hooks on one module (Module's methods) ---------------------------------------------


def register_forward_pre_hook(
    self: Module, hook: Hook, *, prepend: bool = False, with_kwargs: bool = False
) -> RemovableHandle:
    """`hook(module, args)` (or `hook(module, args, kwargs)`) runs before `forward`.

    It may return new args (a tuple, or one value that becomes a 1-tuple), or with
    `with_kwargs` a pair (args, kwargs); `prepend` runs it before the others.
    """
    handle = _add(
        self._forward_pre_hooks,
        hook,
        prepend,
        extra_dict=self._forward_pre_hooks_with_kwargs,
    )
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    return handle


def register_forward_hook(
    self: Module,
    hook: Hook,
    *,
    prepend: bool = False,
    with_kwargs: bool = False,
    always_call: bool = False,
) -> RemovableHandle:
    """`hook(module, args, output)` (or `hook(module, args, kwargs, output)`) runs after `forward`.

    It may return a new output. `always_call` runs it even when `forward` raises.
    """
    extras = [self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
    handle = _add(self._forward_hooks, hook, prepend, extra_dict=extras)
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def register_full_backward_pre_hook(
    self: Module, hook: Hook, prepend: bool = False
) -> RemovableHandle:
    """`hook(module, grad_output)` runs when the gradients of the outputs are known.

    It may return a new grad_output (a tuple of the same length).
    """
    return _add(self._backward_pre_hooks, hook, prepend)


def register_full_backward_hook(self: Module, hook: Hook, prepend: bool = False) -> RemovableHandle:
    """`hook(module, grad_input, grad_output)` runs when the inputs' gradients are known.

    It may return a new grad_input (a tuple of the same length).
    """
    if self._is_full_backward_hook is False:
        raise RuntimeError(_MIXED_BACKWARD_HOOKS)
    self._is_full_backward_hook = True
    return _add(self._backward_hooks, hook, prepend)


def register_backward_hook(self: Module, hook: Hook) -> RemovableHandle:
    """The deprecated backward hook: a hook on the grad_fn of the module's output."""
    if self._is_full_backward_hook is True:
        raise RuntimeError(_MIXED_BACKWARD_HOOKS)
    self._is_full_backward_hook = False
    return _add(self._backward_hooks, hook)


def get_backward_hooks(self: Module) -> tuple[list[Hook], list[Hook]]:
    """(full backward hooks, non-full ones) that apply to this module, global ones first."""
    full: list[Hook] = []
    non_full: list[Hook] = []
    for is_full, hooks in (
        (_global_is_full_backward_hook, _global_backward_hooks),
        (self._is_full_backward_hook, self._backward_hooks),
    ):
        if is_full is True:
            full += hooks.values()
        elif is_full is False:
            non_full += hooks.values()
    return full, non_full


def get_backward_pre_hooks(self: Module) -> list[Hook]:
    return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
