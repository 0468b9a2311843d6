"""Hook registries: the dicts nodes and tensors keep hooks in, and the handles that remove them."""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["HookDict", "RemovableHandle", "add_hook"]

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every `register_*hook`; `remove()` unregisters the hook."""

    __slots__ = ("_hooks_ref", "id")

    def __init__(self, hooks: dict[int, Any]) -> None:
        self.id = next(_handle_ids)
        self._hooks_ref = weakref.ref(hooks) if hasattr(hooks, "__weakref__") else lambda: hooks

    def remove(self) -> None:
        hooks = self._hooks_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


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
