"""`allow_mutation_on_saved_tensors`: a tensor saved for backward may be written in place;
the backward then uses a copy of the value it had when saved.

Built as PyTorch builds it, on saved-tensor hooks: packing keeps the tensor and hands the
node a token; just before an in-place op writes into memory a token's tensor shares, the
tensor's value is copied; unpacking gives the copy if there is one, else the tensor.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator

from .._autograd.grad_mode import no_grad
from .._autograd.versions import write_watchers
from .._backward.saved import saved_tensors_hooks
from .._tensor import Tensor

__all__ = ["allow_mutation_on_saved_tensors"]


class _Token:
    """What a node keeps in place of a saved tensor (weakly referenced by the context)."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """The saved tensors of one `allow_mutation_on_saved_tensors` block, by token, and the
    copies made of those written since. Entries go when the graph holding the token does."""

    def __init__(self) -> None:
        self.original: weakref.WeakKeyDictionary[_Token, Tensor] = weakref.WeakKeyDictionary()
        self.cloned: weakref.WeakKeyDictionary[_Token, Tensor] = weakref.WeakKeyDictionary()

    def pack(self, tensor: Tensor) -> _Token:
        token = _Token()
        self.original[token] = tensor
        return token

    def unpack(self, token: _Token) -> Tensor:
        copy = self.cloned.get(token)
        return copy if copy is not None else self.original[token]

    def before_write(self, tensor: Tensor) -> None:
        """Copy every saved tensor that shares memory (a version counter) with `tensor`."""
        counter = tensor._version_counter
        for token, saved in list(self.original.items()):
            if saved._version_counter is counter and token not in self.cloned:
                with no_grad():
                    self.cloned[token] = saved.clone()
                del self.original[token]

    def clear(self) -> None:
        self.original.clear()
        self.cloned.clear()


_active: list[_AllowMutationOnSavedContext] = []


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Inside, writing in place into a tensor saved for backward is allowed: the backward
    uses the value the tensor had when saved. Run forward and backward inside the block."""
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        if _active:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _active.append(ctx)
        write_watchers.append(ctx.before_write)
        try:
            yield ctx
        finally:
            write_watchers.remove(ctx.before_write)
            _active.remove(ctx)
            ctx.clear()
