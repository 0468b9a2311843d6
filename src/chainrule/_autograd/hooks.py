"""Hook registries: the dicts nodes and tensors keep hooks in, and the handles that remove them."""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["HookDict", "RemovableHandle", "add_hook"]

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every `register_*hook`; `remove()` unregisters the hook.

    `extra_dict` names more dicts keyed by the same id (a module keeps a hook's
    flags, such as `with_kwargs`, beside it); `remove()` clears the id there too.
    """

    __slots__ = ("_extra_refs", "_hooks_ref", "id")

    def __init__(
        self, hooks: dict[int, Any], *, extra_dict: dict[int, Any] | list[Any] | None = None
    ) -> None:
        self.id = next(_handle_ids)
        self._hooks_ref = _ref(hooks)
        extras = [] if extra_dict is None else extra_dict
        extras = extras if isinstance(extras, list) else [extras]
        self._extra_refs = tuple(_ref(d) for d in extras)

    def remove(self) -> None:
        for ref in (self._hooks_ref, *self._extra_refs):
            hooks = ref()
            if hooks is not None:
                hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _ref(hooks: dict[int, Any]) -> Callable[[], dict[int, Any] | None]:
    """A weak reference to `hooks` where it allows one, else a strong one."""
    return weakref.ref(hooks) if hasattr(hooks, "__weakref__") else lambda: hooks


class HookDict(dict[int, Any]):
    """A dict that handles can refer to weakly (plain dicts cannot be weakly referenced)."""

    __slots__ = ("__weakref__",)


def add_hook(hooks: HookDict, fn: Callable[..., Any]) -> RemovableHandle:
    if not callable(fn):
        raise TypeError(f"hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


# Users meet RemovableHandle in chainrule.autograd.graph, and so it reports that module.
RemovableHandle.__module__ = "chainrule.autograd.graph"
