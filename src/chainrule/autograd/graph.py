"""Nodes of the backward graph (what `grad_fn` is), their hooks, and saved tensors.

Vocabulary used throughout chainrule: a node's *grad_outputs* are the gradients
of the final output with respect to the node's forward outputs (what flows into
the node during backward); its *grad_inputs* are the gradients with respect to
its forward inputs (what it sends on, one per edge in `next_functions`).
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import anomaly_mode as _anomaly

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "AccumulateGrad",
    "Node",
    "RemovableHandle",
    "SavedTensor",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]

Edge = tuple["Node | None", int]

_sequence = itertools.count()
_handle_ids = itertools.count()

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

    # (shape, dtype) of each input, for the engine to check gradients against; None
    # where a node kind does not keep them.
    _input_meta: Any = None

    def __init__(self, next_edges: tuple[Edge, ...] = ()) -> None:
        self._next = next_edges
        self._seq = next(_sequence)
        self._pre_hooks: HookDict | None = None
        self._hooks: HookDict | None = None
        self._tensor_pre_hooks: dict[int, HookDict] | None = None
        self._retained: dict[int, weakref.ref[Tensor]] | None = None
        self._metadata: dict[str, Any] | None = None
        if _anomaly._enabled:
            _anomaly.record(self)

    def name(self) -> str:
        n = type(self).__name__
        # PyTorch's hand-written C++ nodes report their namespace.
        native = ("AccumulateGrad", "CopySlices", "CopyBackwards", "Identity")
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
            variable = self.variable
            variable._accumulate_grad(grad)
            hooks = variable.__dict__.get("_post_accumulate_grad_hooks")
            if hooks:
                for hook in list(hooks.values()):
                    _check_post_accumulate_result(hook(variable))
        return ()


def _check_post_accumulate_result(result: object) -> None:
    """Post-accumulate-grad hooks return None (PyTorch's errors otherwise)."""
    if result is None:
        return
    if not isinstance(result, tensor_type()):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    raise RuntimeError("Tensor post accumulate grad hooks should return None.")


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved.

    An input is kept as the Tensor itself (so a create_graph backward links to
    its graph); a node's own output is kept as its array only and re-wrapped on
    use with the node as grad_fn, so node and output never form a cycle.

    Under `saved_tensors_hooks`, what the pack hook returns is kept instead (see
    `_Packed`); version checks still apply to the tensor that was saved.
    """

    __slots__ = (
        "data",
        "expected_version",
        "hooked",
        "is_output",
        "output_nr",
        "tangent",
        "tensor",
        "version",
    )

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
        self.hooked: _Packed | None = None
        # An output's forward-mode tangent, with the level it belongs to (set by forward_ad).
        self.tangent: tuple[int, Tensor] | None = None
        if _saved_hooks.top is not None:  # the one check on the normal path
            self._pack(tensor, _saved_hooks.top)
        elif is_output:
            self.data = tensor._data
            self.tensor = None
        else:
            self.tensor = tensor
            self.data = None

    def unpack(self, node: Node) -> Tensor:
        if self.version.value != self.expected_version:
            raise RuntimeError(self._modified_message(node))
        if self.hooked is not None:
            return self._unpack_hooked(node)
        if self.tensor is not None:
            return self.tensor
        assert self.data is not None
        if self.data.dtype.kind != "f":  # integer outputs (indices) are outside the graph
            return tensor_type()._make(self.data)
        out = tensor_type()._make(self.data, True, node, self.output_nr)
        if self.tangent is not None:
            from .forward_ad import restore_tangent

            restore_tangent(out, *self.tangent)
        return out

    def _pack(self, tensor: Tensor, hooks: tuple[Callable[..., Any], Callable[..., Any]]) -> None:
        pack_hook, unpack_hook = hooks
        packed = pack_hook(tensor)
        if tensor._version_counter.value != self.expected_version:
            raise RuntimeError(_PACK_INPLACE)
        self.tensor = self.data = None
        if self.is_output and packed is tensor:
            # Keeping the output itself would make node -> saved -> output -> node a
            # cycle: keep its array, as without hooks, and re-wrap it for unpack_hook.
            self.data = tensor._data
            packed = _OUTPUT
        self.hooked = _Packed(tensor, packed, unpack_hook, self.is_output)

    def _unpack_hooked(self, node: Node) -> Tensor:
        """unpack_hook's tensor, with the saved tensor's place in the graph (as PyTorch)."""
        hooked = self.hooked
        assert hooked is not None
        packed = hooked.packed
        if packed is _OUTPUT:
            assert self.data is not None
            differentiable = self.data.dtype.kind == "f"
            packed = tensor_type()._make(self.data, differentiable, node, self.output_nr)
        result = hooked.unpack_hook(packed)
        Tensor = tensor_type()
        if not isinstance(result, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(result).__name__}"
            )
        data = result._data
        if self.is_output:
            differentiable = data.dtype.kind == "f"
            out = Tensor._make(data, differentiable, node if differentiable else None)
            out._output_nr = self.output_nr
        else:
            out = Tensor._make(data, hooked.requires_grad, hooked.grad_fn, self.output_nr)
            out._accumulator = hooked.accumulator  # a leaf's gradient still reaches the leaf
        out._version_counter = result._version_counter
        return out

    def _modified_message(self, node: Node) -> str:
        if self.hooked is not None:
            desc, maker = self.hooked.desc, self.hooked.grad_fn
        else:
            data = self.tensor._data if self.tensor is not None else self.data
            assert data is not None
            desc = _describe(data)
            maker = self.tensor._grad_fn if self.tensor is not None else None
        # The node that made the tensor, by its forward name (ExpBackward0 -> Exp), as PyTorch.
        if self.is_output:
            desc += f", which is output {self.output_nr} of {_forward_name(node)},"
        elif maker is not None:
            desc += f", which is output {self.output_nr} of {_forward_name(maker)},"
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


def _describe(data: np.ndarray) -> str:
    """`[torch.FloatTensor [2, 3]]`: how PyTorch's messages name a saved tensor."""
    from .._dtype import legacy_type_name

    return f"[{legacy_type_name(data)} [{', '.join(map(str, data.shape))}]]"


# --- saved tensor hooks -----------------------------------------------------------

_PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)

_OUTPUT: Any = object()  # stands for "the node's own output, re-wrapped from `data`"


class _Packed:
    """What a SavedTensor keeps under `saved_tensors_hooks`: pack_hook's result, the
    unpack hook, and the saved tensor's place in the graph (not the tensor itself)."""

    __slots__ = ("accumulator", "desc", "grad_fn", "packed", "requires_grad", "unpack_hook")

    def __init__(
        self, tensor: Tensor, packed: Any, unpack_hook: Callable[..., Any], is_output: bool
    ) -> None:
        self.packed = packed
        self.unpack_hook = unpack_hook
        self.desc = _describe(tensor._data)
        self.requires_grad = tensor._requires_grad
        # An output's grad_fn is the node that saves it: storing it would be a cycle.
        self.grad_fn = None if is_output else tensor._grad_fn
        self.accumulator = None
        if not is_output and tensor._grad_fn is None and tensor._requires_grad:
            tensor._gradient_edge()  # the leaf's AccumulateGrad, which the node's edges keep
            self.accumulator = tensor._accumulator


class _SavedHooksState(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[Callable[..., Any], Callable[..., Any]]] = []
        self.top: tuple[Callable[..., Any], Callable[..., Any]] | None = None
        self.disabled: str | None = None


_saved_hooks = _SavedHooksState()


class saved_tensors_hooks:
    """While active, every tensor saved for backward is stored as `pack_hook(tensor)`
    and given back as `unpack_hook(packed)` when the backward (or `_saved_*`) uses it.

    The innermost active pair is used. For a node's own output, a pack hook that
    returns the tensor itself gets no reference cycle: the array is kept (as without
    hooks) and unpack_hook receives the output re-wrapped with the node as grad_fn.
    A packed value that holds the output some other way (in a tuple, a closure) does
    make a cycle node -> packed -> output -> node, which Python's garbage collector
    frees, later than reference counting would.
    """

    def __init__(
        self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]
    ) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        state = _saved_hooks
        if state.disabled is not None:
            raise RuntimeError(state.disabled)
        state.stack.append((self.pack_hook, self.unpack_hook))
        state.top = state.stack[-1]

    def __exit__(self, *exc: object) -> None:
        state = _saved_hooks
        state.stack.pop()
        state.top = state.stack[-1] if state.stack else None


class save_on_cpu(saved_tensors_hooks):
    """Save copies of the tensors saved for backward (everything is on the CPU here)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor: Tensor) -> tuple[Any, Tensor]:
            return tensor.device, tensor_type()._make(np.array(tensor._data, copy=True))

        def unpack(packed: tuple[Any, Tensor]) -> Tensor:
            return packed[1]

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Make entering `saved_tensors_hooks` (and being inside one now) raise `error_message`."""
    state = _saved_hooks
    if state.stack:
        raise RuntimeError(error_message)
    prev = state.disabled
    state.disabled = error_message
    try:
        yield
    finally:
        state.disabled = prev


# --- hooks on several tensors ---------------------------------------------------------


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
    from .engine import current_graph_task

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
