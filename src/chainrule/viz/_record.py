"""Record what flows through a graph: each node's forward values and its backward gradients.

Arrays only, keyed weakly by node: a recording never keeps a graph alive.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .._backward.engine import current_graph_task
from ..autograd.graph import AccumulateGrad, Node, backward_watchers, node_watchers

__all__ = ["Recording", "record"]

Arrays = list[np.ndarray | None]


class Recording:
    """Forward values and last-backward gradients of the nodes seen during a `record()` block.

    Everything is looked up by node (a tensor's `grad_fn`, or a leaf's
    AccumulateGrad) and returned as NumPy arrays, one per output or input;
    None for a node the recording did not see.
    """

    def __init__(self) -> None:
        # Weak keys: an entry lives exactly as long as its node.
        self._values: weakref.WeakKeyDictionary[Node, Arrays] = weakref.WeakKeyDictionary()
        self._grad_outputs: weakref.WeakKeyDictionary[Node, Arrays] = weakref.WeakKeyDictionary()
        self._grad_inputs: weakref.WeakKeyDictionary[Node, Arrays] = weakref.WeakKeyDictionary()
        self._steps: weakref.WeakKeyDictionary[Node, int] = weakref.WeakKeyDictionary()
        self._task: int | None = None  # the backward pass now being recorded
        self._step = 0
        self._last_root: weakref.ref[Node] | None = None
        self._thread = threading.get_ident()

    def value(self, node: Node) -> Arrays | None:
        """The forward outputs of `node` (by output_nr) as they were made; a leaf's value."""
        if isinstance(node, AccumulateGrad):
            return [node.variable._data]
        return self._values.get(node)

    def grad_outputs(self, node: Node) -> Arrays | None:
        """What flowed into `node` in the last backward that ran it (one per output)."""
        return self._grad_outputs.get(node)

    def grad_inputs(self, node: Node) -> Arrays | None:
        """What `node` sent to its inputs in that backward (one per `next_functions` edge)."""
        return self._grad_inputs.get(node)

    def step(self, node: Node) -> int | None:
        """When `node` ran in its last backward: 1 for the first node that pass ran, 2, ..."""
        return self._steps.get(node)

    @property
    def last_root(self) -> Node | None:
        """The first node run by the most recent backward pass (the root it started from)."""
        return self._last_root() if self._last_root is not None else None

    def __repr__(self) -> str:
        return f"<Recording of {len(self._values)} forward and {len(self._steps)} backward nodes>"

    # --- the watchers ------------------------------------------------------------------

    def _on_node(self, node: Node, outputs: Sequence[Any]) -> None:
        if threading.get_ident() != self._thread:
            return
        values: Arrays = []
        for i, t in enumerate(outputs):
            # A custom Function's outputs are wired before it is announced (output_nr is
            # right); a built-in op's are wired after, and come in output order.
            nr = t._output_nr if t._grad_fn is node else i
            values.extend([None] * (nr + 1 - len(values)))
            # A copy: an in-place op may change the tensor later, not what the node made.
            values[nr] = np.array(t._data, copy=True)
        self._values[node] = values

    def _on_backward(
        self, node: Node, grad_outputs: Sequence[Any], grad_inputs: Sequence[Any]
    ) -> None:
        if threading.get_ident() != self._thread:
            return
        task = current_graph_task()
        task_id = task.id if task is not None else None
        if task_id != self._task or task_id is None:
            self._task = task_id
            self._step = 0
            self._last_root = weakref.ref(node)
        self._step += 1
        self._steps[node] = self._step
        self._grad_outputs[node] = [_array(g) for g in grad_outputs]
        self._grad_inputs[node] = [_array(g) for g in grad_inputs]


def _array(grad: Any) -> np.ndarray | None:
    return None if grad is None else grad._data


@contextlib.contextmanager
def record() -> Iterator[Recording]:
    """Record forward values and backward gradients of every node made or run in the block.

    ```
    with viz.record() as rec:
        y = (x * 2).sum()
        y.backward()
    rec.value(y.grad_fn), rec.grad_outputs(y.grad_fn)
    ```
    Only the thread that entered the block is recorded.
    """
    rec = Recording()
    on_node, on_backward = rec._on_node, rec._on_backward
    node_watchers.append(on_node)
    backward_watchers.append(on_backward)
    try:
        yield rec
    finally:
        # By identity: another recording's watcher is never removed by mistake.
        _remove(node_watchers, on_node)
        _remove(backward_watchers, on_backward)


def _remove(watchers: list[Any], fn: Any) -> None:
    for i, w in enumerate(watchers):
        if w is fn:
            del watchers[i]
            return
