"""Nodes of the backward graph (what `grad_fn` is): the base class and a leaf's AccumulateGrad.

Vocabulary used throughout chainrule: a node's *grad_outputs* are the gradients
of the final output with respect to the node's forward outputs (what flows into
the node during backward); its *grad_inputs* are the gradients with respect to
its forward inputs (what it sends on, one per edge in `next_functions`).
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import anomaly_mode as _anomaly
from .hooks import HookDict, RemovableHandle, add_hook

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "SECOND_BACKWARD_MESSAGE",
    "AccumulateGrad",
    "Edge",
    "Node",
    "backward_watchers",
    "flat_edges",
    "node_watchers",
]

Edge = tuple["Node | None", int]

# Creation order of nodes: the engine runs later-created nodes first.
_sequence = itertools.count()

# Watchers of the graph, for tools that show it (chainrule.viz). Lists mutated in
# place, so modules may import them; empty lists cost one truth test per node.
# `node_watchers`: fn(node, outputs) when a node is recorded with its outputs.
# `backward_watchers`: fn(node, grad_outputs, grad_inputs) after a node runs in backward.
node_watchers: list[Callable[[Node, Sequence[Tensor]], None]] = []
backward_watchers: list[
    Callable[[Node, Sequence[Tensor | None], Sequence[Tensor | None]], None]
] = []

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class Node:
    """A step of the backward pass: maps grad_outputs to grad_inputs.

    `next_functions` holds one edge `(node, output_nr)` per forward input; the
    edge is `(None, 0)` for inputs that do not require grad. The node keeps them
    flat, `_next = (node0, nr0, node1, nr1, ...)`: one tuple per node rather than
    one per edge as well (fewer objects for memory and for the garbage collector to
    walk); `next_functions` pairs them up when asked. (Calling a node,
    `node(*grad_outputs)`, is defined in `chainrule.autograd`: it makes tensors
    of numbers.)
    """

    __slots__ = ("__weakref__", "_next", "_rare", "_seq")

    # (shape, dtype) of each input, for the engine to check gradients against; None
    # where a node kind does not keep them.
    _input_meta: Any = None
    # Whether a backward that does not retain the graph must call `_release` (OpNode
    # keeps its own answer: False when it saved nothing, None once freed).
    _holds: bool | None = True
    # A first-order backward on arrays, `_apply_arrays(grad_outputs, needed)`, where a node
    # kind has one (OpNode); None for the rest, which run on tensors.
    _apply_arrays: Callable[..., Any] | None = None

    if TYPE_CHECKING:

        def __call__(self, *grad_outputs: Any) -> Any: ...

    def __init__(self, next_edges: tuple[Edge, ...] = ()) -> None:
        self._next: tuple[Any, ...] = flat_edges(next_edges)
        self._seq = next(_sequence)
        self._rare: Rare | None = None
        if _anomaly._enabled:
            _anomaly.record(self)

    def name(self) -> str:
        n = type(self).__name__
        # PyTorch's hand-written C++ nodes report their namespace.
        native = ("AccumulateGrad", "CopySlices", "CopyBackwards", "Identity")
        return f"torch::autograd::{n}" if n in native else n

    @property
    def next_functions(self) -> tuple[Edge, ...]:
        flat = self._next
        return tuple(zip(flat[::2], flat[1::2], strict=True))

    @property
    def metadata(self) -> dict[str, Any]:
        rare = self._rare_fields()
        if rare.metadata is None:
            rare.metadata = {}
        return rare.metadata

    # What few nodes have, kept together in `_rare` (None for most nodes).
    @property
    def _hooks(self) -> HookDict | None:
        return None if self._rare is None else self._rare.hooks

    @property
    def _pre_hooks(self) -> HookDict | None:
        return None if self._rare is None else self._rare.pre_hooks

    @property
    def _tensor_pre_hooks(self) -> dict[int, HookDict] | None:
        return None if self._rare is None else self._rare.tensor_pre_hooks

    @property
    def _metadata(self) -> dict[str, Any] | None:
        return None if self._rare is None else self._rare.metadata

    @property
    def _retained(self) -> dict[int, weakref.ref[Tensor]] | None:
        return None if self._rare is None else self._rare.retained

    def _rare_fields(self) -> Rare:
        rare = self._rare
        if rare is None:
            rare = self._rare = Rare()
        return rare

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # --- hooks -----------------------------------------------------------------

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` runs after the node; it may return new grad_inputs."""
        rare = self._rare_fields()
        if rare.hooks is None:
            rare.hooks = HookDict()
        return add_hook(rare.hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """`fn(grad_outputs)` runs before the node; it may return new grad_outputs."""
        rare = self._rare_fields()
        if rare.pre_hooks is None:
            rare.pre_hooks = HookDict()
        return add_hook(rare.pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        rare = self._rare_fields()
        if rare.tensor_pre_hooks is None:
            rare.tensor_pre_hooks = {}
        hooks = rare.tensor_pre_hooks.setdefault(output_nr, HookDict())
        return add_hook(hooks, fn)

    def _retain_grad(self, output_nr: int, tensor: Tensor) -> None:
        rare = self._rare_fields()
        if rare.retained is None:
            rare.retained = {}
        rare.retained[output_nr] = weakref.ref(tensor)

    # --- running ---------------------------------------------------------------

    def _apply(
        self, grad_outputs: list[Tensor | None], needed: Sequence[bool] | None = None
    ) -> Sequence[Tensor | None]:
        """grad_inputs for the given grad_outputs; subclasses implement it."""
        raise NotImplementedError

    def _release(self) -> None:
        """Free saved values after a backward that does not retain the graph."""


class Rare:
    """A node's hooks, retained gradients and metadata: set on few nodes, so kept in one
    object a node makes on first need (one slot, one store per recorded node)."""

    __slots__ = ("hooks", "metadata", "pre_hooks", "retained", "tensor_pre_hooks")

    def __init__(self) -> None:
        self.hooks: HookDict | None = None
        self.pre_hooks: HookDict | None = None
        self.tensor_pre_hooks: dict[int, HookDict] | None = None
        self.retained: dict[int, weakref.ref[Tensor]] | None = None
        self.metadata: dict[str, Any] | None = None


def flat_edges(edges: Iterable[Edge]) -> tuple[Any, ...]:
    """Edges `((node, nr), ...)` as a node keeps them: `(node, nr, ...)`."""
    return tuple(itertools.chain.from_iterable(edges))


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds what arrives into `variable.grad`."""

    __slots__ = ("variable",)
    _holds = False  # it saves nothing

    def __init__(self, variable: Tensor) -> None:
        super().__init__(())
        self.variable = variable

    def _apply(
        self, grad_outputs: list[Tensor | None], needed: Sequence[bool] | None = None
    ) -> Sequence[Tensor | None]:
        grad = grad_outputs[0]
        if grad is not None:
            self.accumulate(grad)
        return ()

    def accumulate(self, grad: Tensor, owned: bool = False) -> None:
        """Add `grad` into `.grad`, then run the post-accumulate hooks. `owned`: nothing
        but the backward pass holds `grad`, so it may become `.grad` itself."""
        variable = self.variable
        variable._accumulate_grad(grad, owned)
        hooks = variable.__dict__.get("_post_accumulate_grad_hooks")
        if hooks:
            variable._run_post_accumulate_grad_hooks(hooks)


# Users meet these classes in chainrule.autograd.graph, and so they report it (as PyTorch's).
for _cls in (Node, AccumulateGrad):
    _cls.__module__ = "chainrule.autograd.graph"
