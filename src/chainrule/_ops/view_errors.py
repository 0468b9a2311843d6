"""What PyTorch forbids of the views `view_creation` marks (made without grad mode, or by
an op that returns several views, or views of those): writing them in place where a
gradient is recorded, and using their graph once their memory was written.

Note: one node serves all the outputs of `split`, so it can't be rebased for one of
them, and a view made without grad mode has no node to rebase. PyTorch refuses to
write such a view in place where that would be needed (`check_view_write`), and once
its base (or any view of it) is written, reading the view's grad_fn raises: so does
any op that records it, `backward` from it, `is_leaf`, hooks. Reads that don't need
the graph (values, `requires_grad`, ops under no_grad, printing, which shows
`grad_fn=<Invalid>`) still work. chainrule marks an output of split/unbind (or a view
of one) stale when its memory is written (`inplace.bump_version` calls `invalidate`), by
giving it a class whose `_grad_fn` raises; every other tensor keeps the plain slot.
Unlike PyTorch's, a view made without grad mode does not go stale: a write through its
base does not reach it (only views made with grad mode are tracked), and one written
itself is remade as other views are.
"""

from __future__ import annotations

from typing import Any

from .._autograd.node import Node
from .._tensor import Tensor

__all__ = ["check_view_write", "goes_stale", "invalidate"]

_WRITTEN = "is being modified inplace"
_WRITTEN_THROUGH_BASE = "its base or another view of its base has been modified inplace"
_NO_GRAD_ADVICE = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)
_MULTI_VIEW_ADVICE = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one."
)

# The grad_fn slot of Tensor itself, which the stale class's property reads and writes.
_slot: Any = Tensor.__dict__["_grad_fn"]


def goes_stale(view: Tensor) -> bool:
    """Whether a write to `view`'s memory makes its graph unusable (see the Note), rather
    than giving it a node on its base's new place in the graph."""
    return "_multi_view" in view.__dict__


def check_view_write(t: Tensor, records: bool) -> None:
    """Refuse to write `t` in place if it is a view PyTorch forbids writing (see the Note):
    a view made without grad mode (or a view of one) where its base requires grad or the
    write records a gradient; an output of split/unbind (or a view of one) that has a
    grad_fn or would get one.

    `records`: whether the in-place op would record a gradient into a view that has none.
    """
    base = t._base
    if base is None:
        return
    made = t.__dict__
    if "_no_grad_view" in made:
        if records or base._requires_grad:
            raise RuntimeError(_message(t, _WRITTEN))
    elif "_multi_view" in made and (records or _slot.__get__(t) is not None):
        raise RuntimeError(_message(t, _WRITTEN))


def _message(view: Tensor, what: str) -> str:
    """PyTorch's error for a marked view that `what` (is being written, or was through its
    base)."""
    made = view.__dict__
    made_from = made.get("_no_grad_view")
    if made_from is not None:
        if made_from:
            return (
                f"Output 0 of {made_from} is a view of a view which was created in no_grad mode "
                f"and {what} with grad mode enabled. {_NO_GRAD_ADVICE}"
            )
        return f"A view was created in no_grad mode and {what} with grad mode enabled. " + (
            _NO_GRAD_ADVICE
        )
    if _slot.__get__(view) is None:  # its base needed no gradient when it was made
        return f"A view was created in no_grad mode and {what} with grad mode enabled. " + (
            _MULTI_VIEW_ADVICE
        )
    return f"Output {view._output_nr} of {made['_multi_view']} is a view and {what}. " + (
        _MULTI_VIEW_ADVICE
    )


class _StaleView(Tensor):
    """A marked view whose memory was written in place: its graph is unusable."""

    __slots__ = ()

    @property
    def _grad_fn(self) -> Node | None:
        node: Node | None = _slot.__get__(self)
        base = self._base
        if node is None and (base is None or not base._requires_grad):
            return None  # nothing was recorded, and there is nothing to record now
        raise RuntimeError(_message(self, _WRITTEN_THROUGH_BASE))

    @_grad_fn.setter
    def _grad_fn(self, node: Node | None) -> None:
        _slot.__set__(self, node)


# Printed and named as a Tensor is (`type(t)` reads the same).
_StaleView.__name__ = _StaleView.__qualname__ = "Tensor"
_StaleView.__module__ = Tensor.__module__


def invalidate(view: Tensor) -> None:
    """Mark a view stale after a write to its memory (see the Note). Ops give plain
    Tensors, so a view is one (a subclass keeps its class, and its plain slot)."""
    base = view._base
    if base is not None and base._requires_grad:
        view._requires_grad = True  # a view needs a gradient once its base does
    if type(view) is Tensor:
        view.__class__ = _StaleView
