"""How a view was made, where PyTorch's in-place checks care: without grad mode, or as an
output of an op that returns several views (`split`, `unbind`), or a view of such a view;
read by `view_errors`, which says what each forbids."""

from __future__ import annotations

import re

from .._autograd import grad_mode
from .._tensor import Tensor

__all__ = ["mark_multi_view", "mark_view_creation"]


def mark_view_creation(view: Tensor, source: Tensor, node_name: str) -> None:
    """Note how `view` was made where PyTorch's in-place checks care (see `view_errors`):
    `_no_grad_view` is "" for a view made without grad mode and, for a view made with grad
    mode of such a view (or of one of those), the forward name of the op that made it;
    `_multi_view`, for a view of a `split`/`unbind` output (or of a view of one), is that
    forward name too."""
    if not grad_mode._state.grad_enabled:
        if not grad_mode._state.inference:
            view.__dict__["_no_grad_view"] = ""
        return
    made = source.__dict__
    if "_no_grad_view" in made:
        view.__dict__["_no_grad_view"] = _forward_name(node_name)
    elif "_multi_view" in made:
        view.__dict__["_multi_view"] = _forward_name(node_name)


def mark_multi_view(view: Tensor, node_name: str) -> None:
    """`view` is an output of `node_name`'s op, which returns several views. Made with grad
    mode, it is marked `_multi_view` (this outranks how its source was made, as PyTorch's
    creation kinds do); made without, it stays a plain no_grad view."""
    if grad_mode._state.grad_enabled:
        view.__dict__.pop("_no_grad_view", None)
        view.__dict__["_multi_view"] = _forward_name(node_name)


def _forward_name(node_name: str) -> str:
    """`SliceBackward0` -> `Slice`: how PyTorch's view messages name the op."""
    return re.sub(r"Backward\d*$", "", node_name)
