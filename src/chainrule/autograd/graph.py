"""Nodes of the backward graph (what `grad_fn` is), their hooks, and saved tensors.

Vocabulary used throughout chainrule: a node's *grad_outputs* are the gradients
of the final output with respect to the node's forward outputs (what flows into
the node during backward); its *grad_inputs* are the gradients with respect to
its forward inputs (what it sends on, one per edge in `next_functions`).
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["AccumulateGrad", "Node", "RemovableHandle", "SavedTensor"]

Edge = tuple["Node | None", int]

_sequence = itertools.count()
_handle_ids = itertools.count()

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


_tensor_type: Any = None


def tensor_type() -> Any:
    """chainrule's Tensor class (imported on first use: `_tensor` imports this module)."""
    global _tensor_type
    if _tensor_type is None:
        from .._tensor import Tensor

        _tensor_type = Tensor
    return _tensor_type


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


class Node:
    """A step of the backward pass: maps grad_outputs to grad_inputs.

    `next_functions` holds one edge `(node, output_nr)` per forward input; the
    edge is `(None, 0)` for inputs that do not require grad.
    """

    __slots__ = (
        "__weakref__",
        "_hooks",
        "_metadata",
        "_next",
        "_pre_hooks",
        "_retained",
        "_seq",
        "_tensor_pre_hooks",
    )

    def __init__(self, next_edges: tuple[Edge, ...] = ()) -> None:
        self._next = next_edges
        self._seq = next(_sequence)
        self._pre_hooks: HookDict | None = None
        self._hooks: HookDict | None = None
        self._tensor_pre_hooks: dict[int, HookDict] | None = None
        self._retained: dict[int, weakref.ref[Tensor]] | None = None
        self._metadata: dict[str, Any] | None = None

    def name(self) -> str:
        n = type(self).__name__
        # PyTorch's hand-written C++ nodes report their namespace.
        native = ("AccumulateGrad", "CopySlices", "CopyBackwards")
        return f"torch::autograd::{n}" if n in native else n

    @property
    def next_functions(self) -> tuple[Edge, ...]:
        return self._next

    @property
    def metadata(self) -> dict[str, Any]:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # --- hooks -----------------------------------------------------------------

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` runs after the node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = HookDict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """`fn(grad_outputs)` runs before the node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, HookDict())
        return add_hook(hooks, fn)

    def _retain_grad(self, output_nr: int, tensor: Tensor) -> None:
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = weakref.ref(tensor)

    # --- running ---------------------------------------------------------------

    def _apply(
        self, grad_outputs: list[Tensor | None], needed: Sequence[bool] | None = None
    ) -> Sequence[Tensor | None]:
        """grad_inputs for the given grad_outputs; subclasses implement it."""
        raise NotImplementedError

    def _release(self) -> None:
        """Free saved values after a backward that does not retain the graph."""

    def __call__(self, *grad_outputs: Any) -> Any:
        from .._tensor import as_grad

        grads = self._apply([as_grad(g) for g in grad_outputs])
        return grads[0] if len(grads) == 1 else tuple(grads)


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds what arrives into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__(())
        self.variable = variable

    def _apply(
        self, grad_outputs: list[Tensor | None], needed: Sequence[bool] | None = None
    ) -> Sequence[Tensor | None]:
        grad = grad_outputs[0]
        if grad is not None:
            self.variable._accumulate_grad(grad)
        return ()


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved.

    An input is kept as the Tensor itself (so a create_graph backward links to
    its graph); a node's own output is kept as its array only and re-wrapped on
    use with the node as grad_fn, so node and output never form a cycle.
    """

    __slots__ = ("data", "expected_version", "is_output", "output_nr", "tensor", "version")

    data: np.ndarray | None
    tensor: Tensor | None

    def __init__(self, tensor: Tensor, is_output: bool = False) -> None:
        if tensor._inference:
            from .grad_mode import _INFERENCE_SAVE

            raise RuntimeError(_INFERENCE_SAVE)
        self.version = tensor._version_counter
        self.expected_version = tensor._version_counter.value
        self.is_output = is_output
        self.output_nr = tensor._output_nr
        if is_output:
            self.data = tensor._data
            self.tensor = None
        else:
            self.tensor = tensor
            self.data = None

    def unpack(self, node: Node) -> Tensor:
        if self.version.value != self.expected_version:
            raise RuntimeError(self._modified_message(node))
        if self.tensor is not None:
            return self.tensor
        assert self.data is not None
        if self.data.dtype.kind != "f":  # integer outputs (indices) are outside the graph
            return tensor_type()._make(self.data)
        return tensor_type()._make(self.data, True, node, self.output_nr)

    def _modified_message(self, node: Node) -> str:
        data = self.tensor._data if self.tensor is not None else self.data
        assert data is not None
        from .._tensor import legacy_type_name

        desc = f"[{legacy_type_name(data)} [{', '.join(map(str, data.shape))}]]"
        # The node that made the tensor, by its forward name (ExpBackward0 -> Exp), as PyTorch.
        if self.is_output:
            desc += f", which is output {self.output_nr} of {_forward_name(node)},"
        elif self.tensor is not None and self.tensor._grad_fn is not None:
            maker = _forward_name(self.tensor._grad_fn)
            desc += f", which is output {self.tensor._output_nr} of {maker},"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc} is at version {self.version.value}; expected version "
            f"{self.expected_version} instead. Hint: enable anomaly detection to find the "
            "operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )


def _forward_name(node: Node) -> str:
    """`ExpBackward0` -> `Exp`, `MyFnBackward` -> `MyFn`; other names unchanged."""
    return re.sub(r"Backward\d*$", "", node.name())
