"""The backward graph's public API: node types, hooks, saved tensors and their hooks.

The classes live below Tensor (`chainrule._autograd`) or beside the engine
(`chainrule._backward`); `register_multi_grad_hook`, gradient edges and
`increment_version` are defined here, `allow_mutation_on_saved_tensors` beside.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._autograd.hooks import HookDict, RemovableHandle
from .._autograd.node import AccumulateGrad, Node
from .._autograd.node import backward_watchers as backward_watchers  # for chainrule.viz
from .._autograd.node import node_watchers as node_watchers
from .._backward.engine import current_graph_task
from .._backward.saved import (
    SavedTensor,
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)
from .._tensor import Tensor
from ._allow_mutation import allow_mutation_on_saved_tensors
from ._gradient_edge import GradientEdge, known_edges
from .variable import Variable

__all__ = [
    "AccumulateGrad",
    "GradientEdge",
    "Node",
    "RemovableHandle",
    "SavedTensor",
    "Variable",
    "allow_mutation_on_saved_tensors",
    "disable_saved_tensors_hooks",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge a gradient for `tensor` enters the graph by: `autograd.grad(loss, edge)` gives
    what `autograd.grad(loss, tensor)` gives."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node, nr = tensor._gradient_edge()
    known_edges.setdefault(node, {})[nr] = (tensor._data.shape, tensor.dtype)
    return GradientEdge(node, nr)


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Count an in-place change autograd did not see (a write through NumPy, say), so that
    nodes that saved the tensor refuse to use it. Inference tensors have no version."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    for t in tensors:
        if not t._inference:
            t._version_counter.value += 1


class _MultiHandle(RemovableHandle):
    """Removes the per-tensor hooks behind one `register_multi_grad_hook`."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        super().__init__(HookDict())  # removes nothing itself
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(
    tensors: Sequence[Tensor], fn: Callable[..., Any], *, mode: str = "all"
) -> RemovableHandle:
    """Call `fn` once per backward pass about gradients of `tensors`.

    mode="all": `fn(grads)` after every tensor's gradient that the pass computes
    is known (None for the tensors it does not reach). mode="any": `fn(grad)`
    with the first of them computed. `fn`'s result is ignored.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    count = len(tensors)
    # Weak references: the hooks live on the tensors and nodes, so strong ones would cycle.
    refs: list[weakref.ref[Any]] = [
        weakref.ref(t) if t._grad_fn is None else weakref.ref(t._grad_fn) for t in tensors
    ]
    state: dict[str, Any] = {"task": None}

    def grad_node(i: int) -> Node | None:
        obj = refs[i]()
        if obj is None or isinstance(obj, Node):
            return obj
        return obj._accumulator() if obj._accumulator is not None else None

    def new_pass() -> bool:
        """Reset for a backward pass not seen before; False when already seen."""
        task = current_graph_task()
        task_id = task.id if task is not None else None
        if state["task"] == task_id and task_id is not None:
            return False
        state["task"] = task_id
        state["grads"] = [None] * count
        state["left"] = sum(task is None or task.will_execute(grad_node(i)) for i in range(count))
        state["fired"] = False
        return True

    def all_hook(i: int) -> Callable[[Tensor], None]:
        def hook(grad: Tensor) -> None:
            new_pass()
            state["grads"][i] = grad
            state["left"] -= 1
            if state["left"] == 0:
                fn(list(state["grads"]))

        return hook

    def any_hook(grad: Tensor) -> None:
        new_pass()
        if not state["fired"]:
            state["fired"] = True
            fn(grad)

    hooks = [all_hook(i) if mode == "all" else any_hook for i in range(count)]
    return _MultiHandle(tuple(t.register_hook(h) for t, h in zip(tensors, hooks, strict=True)))
