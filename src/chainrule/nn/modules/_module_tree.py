"""Walking a Module's tree: its parameters, buffers, children and submodules, by dotted name.

Each walk is depth first in registration order, and yields a member reachable by
several paths once (under its first name) unless `remove_duplicate=False`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ..._tensor import Tensor
from ..parameter import Parameter

if TYPE_CHECKING:
    from .module import Module

__all__ = ["named_members", "named_modules", "named_parameters"]

M = TypeVar("M", bound="Module")


def named_members(
    self: Module,
    get_members_fn: Callable[[Module], Any],
    prefix: str = "",
    recurse: bool = True,
    remove_duplicate: bool = True,
) -> Iterator[tuple[str, Any]]:
    """(dotted name, member) over this module (and its submodules), each member once."""
    seen: set[Any] = set()
    modules = (
        self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        if recurse
        else [(prefix, self)]
    )
    for module_prefix, module in modules:
        for key, value in get_members_fn(module):
            if value is None or value in seen:
                continue
            if remove_duplicate:
                seen.add(value)
            yield module_prefix + ("." if module_prefix else "") + key, value


def parameters(self: Module, recurse: bool = True) -> Iterator[Parameter]:
    for _, param in self.named_parameters(recurse=recurse):
        yield param


def named_parameters(
    self: Module, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
) -> Iterator[tuple[str, Parameter]]:
    yield from self._named_members(
        lambda module: module._parameters.items(), prefix, recurse, remove_duplicate
    )


def buffers(self: Module, recurse: bool = True) -> Iterator[Tensor]:
    for _, buf in self.named_buffers(recurse=recurse):
        yield buf


def named_buffers(
    self: Module, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
) -> Iterator[tuple[str, Tensor]]:
    yield from self._named_members(
        lambda module: module._buffers.items(), prefix, recurse, remove_duplicate
    )


def children(self: Module) -> Iterator[Module]:
    for _, module in self.named_children():
        yield module


def named_children(self: Module) -> Iterator[tuple[str, Module]]:
    seen: set[Module] = set()
    for name, module in self._modules.items():
        if module is not None and module not in seen:
            seen.add(module)
            yield name, module


def modules(self: Module, remove_duplicate: bool = True) -> Iterator[Module]:
    for _, module in self.named_modules(remove_duplicate=remove_duplicate):
        yield module


def named_modules(
    self: Module, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
) -> Iterator[tuple[str, Module]]:
    """(dotted name, module) for this module and every submodule, depth first."""
    if memo is None:
        memo = set()
    if self in memo:
        return
    if remove_duplicate:
        memo.add(self)
    yield prefix, self
    for name, module in self._modules.items():
        if module is not None:
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)


def apply(self: M, fn: Callable[[Module], None]) -> M:
    """Call `fn` on every submodule (children first), then on this module."""
    for module in self.children():
        module.apply(fn)
    fn(self)
    return self
