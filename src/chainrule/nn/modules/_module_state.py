"""A Module's `state_dict` and `load_state_dict`, with their hooks.

`state_dict` maps dotted names to parameters and persistent buffers (detached
unless `keep_vars`), in registration order, each module before its children; its
`_metadata` records every module's `_version`. `load_state_dict` checks every key
and shape first and raises PyTorch's error before it copies anything; only when a
load post-hook might still forgive missing or unexpected keys does it copy first
(post-hooks see the loaded values, and may edit the key lists in place).
"""

from __future__ import annotations

import contextvars
import itertools
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..._autograd.grad_mode import no_grad
from ..._autograd.hooks import RemovableHandle
from ..._tensor import Tensor
from ..parameter import Parameter

if TYPE_CHECKING:
    from .module import Module

__all__ = ["_IncompatibleKeys"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# While load_state_dict runs, the copies each module's _load_from_state_dict would make
# wait here until every key has been checked (see the module docstring).
_pending_copies: contextvars.ContextVar[list[Callable[[], None]] | None] = contextvars.ContextVar(
    "pending_copies", default=None
)


class _IncompatibleKeys(NamedTuple):
    """What `load_state_dict` returns: the keys it missed and the keys it did not expect."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
            f"unexpected_keys={self.unexpected_keys!r})"
        )

    def __str__(self) -> str:
        return self.__repr__()


class _WrappedHook:
    """A load pre-hook, given the module as its first argument when registered with one."""

    def __init__(self, hook: Callable[..., Any], module: Module | None = None) -> None:
        self.hook = hook
        self.module = module

    def __call__(self, *args: Any) -> Any:
        if self.module is not None:
            return self.hook(self.module, *args)
        return self.hook(*args)


# --- extra state -------------------------------------------------------------------------


def get_extra_state(self: Module) -> Any:
    """What a subclass wants saved beside its tensors (define it with `set_extra_state`)."""
    raise RuntimeError(
        "Reached a code path in Module.get_extra_state() that should never be called. "
        "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
        "bug-report.yml to report this bug."
    )


def set_extra_state(self: Module, state: Any) -> None:
    """Take back what `get_extra_state` saved."""
    raise RuntimeError(
        "Reached a code path in Module.set_extra_state() that should never be called. "
        "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
        "bug-report.yml to report this bug."
    )


def _has_own(self: Module, name: str, default: Callable[..., Any]) -> bool:
    return getattr(type(self), name, default) is not default


# --- saving ------------------------------------------------------------------------------


def save_to_state_dict(self: Module, destination: Any, prefix: str, keep_vars: bool) -> None:
    """This module's own parameters and persistent buffers (not its children's)."""
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if _has_own(self, "get_extra_state", get_extra_state):
        destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()


def state_dict(
    self: Module, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
) -> Any:
    """An OrderedDict of every parameter and persistent buffer, by dotted name."""
    if args:
        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to "
            "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
            "state_dict for details.",
            FutureWarning,
            stacklevel=2,
        )
        destination = args[0] if destination is None else destination
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": self._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in self._state_dict_pre_hooks.values():
        hook(self, prefix, keep_vars)
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            child_prefix = prefix + name + "."
            module.state_dict(destination=destination, prefix=child_prefix, keep_vars=keep_vars)
    for hook in self._state_dict_hooks.values():
        result = hook(self, destination, prefix, local_metadata)
        if not getattr(hook, "_from_public_api", False):
            if result is not None:
                destination = result
        elif result is not None:
            raise RuntimeError("state_dict post-hook must return None")
    return destination


def _add_hook(hooks: OrderedDict[int, Any], hook: Any) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_state_dict_pre_hook(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
    """`hook(module, prefix, keep_vars)` runs before the module saves its state."""
    return _add_hook(self._state_dict_pre_hooks, hook)


def register_state_dict_post_hook(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
    """`hook(module, state_dict, prefix, local_metadata)` runs after; it edits in place."""
    hook._from_public_api = True  # type: ignore[attr-defined]
    return _add_hook(self._state_dict_hooks, hook)


def register_state_dict_hook_private(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
    """The older post-hook: it may return a new state_dict."""
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError(
            "Cannot register the same function as the state dict post hook that was "
            "previously registered via register_state_dict_post_hook"
        )
    return _add_hook(self._state_dict_hooks, hook)


def register_load_state_dict_pre_hook_private(
    self: Module, hook: Callable[..., Any], with_module: bool = False
) -> RemovableHandle:
    """`hook(state_dict, prefix, local_metadata, strict, missing, unexpected, error_msgs)`."""
    wrapped = _WrappedHook(hook, self if with_module else None)
    return _add_hook(self._load_state_dict_pre_hooks, wrapped)


def register_load_state_dict_pre_hook(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
    """`hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)`."""
    return register_load_state_dict_pre_hook_private(self, hook, with_module=True)


def register_load_state_dict_post_hook(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
    """`hook(module, incompatible_keys)` runs after loading; it may edit the key lists in place."""
    return _add_hook(self._load_state_dict_post_hooks, hook)


# --- loading -----------------------------------------------------------------------------


def load_from_state_dict(
    self: Module,
    state_dict: Mapping[str, Any],
    prefix: str,
    local_metadata: dict[str, Any],
    strict: bool,
    missing_keys: list[str],
    unexpected_keys: list[str],
    error_msgs: list[str],
) -> None:
    """Load this module's own entries of `state_dict` (keys starting with `prefix`).

    Missing and unexpected keys go to the lists (when `strict`), other problems to
    `error_msgs`. Subclasses override it to rename or convert entries first.
    """
    for hook in self._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    persistent_buffers = {
        k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
    }
    local_state = {
        k: v
        for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
        if v is not None
    }
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        input_param = state_dict[key]
        if not isinstance(input_param, Tensor):
            error_msgs.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(input_param)}"
            )
            continue
        # A 0-d parameter takes a 1-element 1-d value (old checkpoints saved them so).
        if param.ndim == 0 and input_param.ndim == 1 and input_param.shape[0] == 1:
            input_param = input_param[0]
        if input_param.shape != param.shape:
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape "
                f"{_size_text(input_param)} from checkpoint, the shape in current model is "
                f"{_size_text(param)}."
            )
            continue
        _copy_later(_loader(self, name, param, input_param, assign))
    extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    if _has_own(self, "set_extra_state", set_extra_state):
        if extra_key in state_dict:
            self.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                first, dot, _ = key[len(prefix) :].partition(".")
                if (dot and first not in self._modules) or (not dot and first not in local_state):
                    unexpected_keys.append(key)


def _size_text(t: Tensor) -> str:
    """A shape as PyTorch's messages print it: `torch.Size([3, 4])`."""
    return f"torch.Size({list(t.shape)})"


def _loader(
    module: Module, name: str, param: Tensor, value: Tensor, assign: bool
) -> Callable[[], None]:
    """The write that loads `value` into `module.name`: in place, or by assignment."""

    def load() -> None:
        with no_grad():
            if not assign:
                param.copy_(value)
                return
            new = value
            if isinstance(param, Parameter):
                if isinstance(new, Parameter):
                    new.requires_grad_(param.requires_grad)
                else:
                    new = Parameter(new, requires_grad=param.requires_grad)
            setattr(module, name, new)

    return load


def _copy_later(load: Callable[[], None]) -> None:
    pending = _pending_copies.get()
    if pending is None:
        load()  # _load_from_state_dict called on its own: load now, as PyTorch does
    else:
        pending.append(load)


def load_state_dict(
    self: Module, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
) -> _IncompatibleKeys:
    """Copy `state_dict`'s tensors into this module's parameters and buffers (all or none).

    `strict` makes missing and unexpected keys errors; `assign` puts the given tensors
    in place of the module's own instead of copying into them.
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state: Any = OrderedDict(state_dict)
    if metadata is not None:
        state._metadata = metadata
    visited: list[Module] = []  # in the order PyTorch runs the load post-hooks

    def load(module: Module, local_state: dict[str, Any], prefix: str = "") -> None:
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(
            local_state, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
        )
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state = {k: v for k, v in local_state.items() if k.startswith(child_prefix)}
                load(child, child_state, child_prefix)
        visited.append(module)

    pending: list[Callable[[], None]] = []
    token = _pending_copies.set(pending)
    try:
        load(self, state)
    finally:
        _pending_copies.reset(token)
    # A post-hook may clear the key lists, but not error_msgs: raise now unless one might.
    if error_msgs or not any(m._load_state_dict_post_hooks for m in visited):
        _raise_if_failed(self, strict, missing_keys, unexpected_keys, error_msgs)
    for copy in pending:
        copy()
    incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
    for module in visited:
        for hook in module._load_state_dict_post_hooks.values():
            if hook(module, incompatible) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace."
                )
    _raise_if_failed(self, strict, missing_keys, unexpected_keys, error_msgs)
    return incompatible


def _raise_if_failed(
    module: Module,
    strict: bool,
    missing_keys: list[str],
    unexpected_keys: list[str],
    error_msgs: list[str],
) -> None:
    """PyTorch's "Error(s) in loading state_dict" with every problem, if there is one."""
    messages = list(error_msgs)
    if strict:
        if unexpected_keys:
            keys = ", ".join(f'"{k}"' for k in unexpected_keys)
            messages.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
        if missing_keys:
            keys = ", ".join(f'"{k}"' for k in missing_keys)
            messages.insert(0, f"Missing key(s) in state_dict: {keys}. ")
    if messages:
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
            + "\n\t".join(messages)
        )
