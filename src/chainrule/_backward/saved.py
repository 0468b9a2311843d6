"""Tensors saved for backward, with their version checks, and the hooks that pack them
(`saved_tensors_hooks`, `save_on_cpu`). Public in `chainrule.autograd.graph`.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .._autograd.grad_mode import _INFERENCE_SAVE
from .._autograd.node import Node
from .._autograd.tangents import restore_tangent
from .._autograd.versions import VersionCounter
from .._dtype import legacy_type_name
from .._tensor import Tensor

__all__ = [
    "RawSavedTensor",
    "SavedTensor",
    "disable_saved_tensors_hooks",
    "save_on_cpu",
    "saved_tensors_hooks",
]


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved.

    An input is kept as the Tensor itself (so a create_graph backward links to
    its graph); a node's own output is kept as its array only and re-wrapped on
    use with the node as grad_fn, so node and output never form a cycle.

    Under `saved_tensors_hooks`, what the pack hook returns is kept instead (see
    `_Packed`), and versions are not checked: the hooks may have kept a copy.
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
            raise RuntimeError(_INFERENCE_SAVE)
        self.version = tensor._version_counter
        self.expected_version = tensor._version_counter.value
        self.is_output = is_output
        self.output_nr = tensor._output_nr
        self.hooked: _Packed | None = None
        # An output's forward-mode tangent, with the level it belongs to (set by forward mode).
        self.tangent: tuple[int, Tensor] | None = None
        if _saved_hooks.top is not None and "_wrapped_number" not in tensor.__dict__:
            self._pack(tensor, _saved_hooks.top)  # (the first test: the normal path's one)
        elif is_output:
            self.data = tensor._data
            self.tensor = None
        else:
            self.tensor = tensor
            self.data = None

    @staticmethod
    def kept(
        tensor: Tensor | None,
        data: np.ndarray | None,
        version: VersionCounter,
        is_output: bool,
        output_nr: int,
    ) -> SavedTensor:
        """A tensor a node kept in its lean form (an input itself, or its output's array;
        see OpNode), saved at version 0, as a SavedTensor."""
        saved = SavedTensor.__new__(SavedTensor)
        saved.version, saved.expected_version = version, 0
        saved.is_output, saved.output_nr = is_output, output_nr
        saved.hooked = saved.tangent = None
        saved.tensor, saved.data = tensor, data
        return saved

    def unpack(self, node: Node) -> Tensor:
        if self.hooked is not None:
            # What the hooks keep may be a copy: versions are not checked (as in PyTorch).
            return self._unpack_hooked(node)
        if self.version.value != self.expected_version:
            raise RuntimeError(self._modified_message(node))
        if self.tensor is not None:
            return self.tensor
        assert self.data is not None
        if self.data.dtype.kind != "f":  # integer outputs (indices) are outside the graph
            return Tensor._make(self.data)
        out = Tensor._make(self.data, True, node, self.output_nr)
        if self.tangent is not None:
            restore_tangent(out, *self.tangent)
        return out

    def array(self, node: Node) -> np.ndarray:
        """What `unpack` gives, as its array: no tensor made where none is kept."""
        if self.hooked is not None:
            return self._unpack_hooked(node)._data
        if self.version.value != self.expected_version:
            raise RuntimeError(self._modified_message(node))
        if self.tensor is not None:
            return self.tensor._data
        assert self.data is not None
        return self.data

    def register_hooks(
        self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]
    ) -> None:
        """Pack the tensor saved here now, and unpack it with `unpack_hook` from then on.

        `pack_hook` gets the saved tensor's data outside the graph (as PyTorch gives it);
        the unpacked tensor takes the saved tensor's place in the graph, as with
        `saved_tensors_hooks`.
        """
        if self.hooked is not None:
            raise RuntimeError(_HOOKS_ALREADY_SET)
        source = self.tensor
        data = source._data if source is not None else self.data
        assert data is not None
        plain = Tensor._make(data)
        plain._version_counter = self.version
        version = self.version.value
        packed = pack_hook(plain)
        if self.version.value != version:
            raise RuntimeError(_PACK_INPLACE)
        self.hooked = _Packed(
            source if source is not None else plain, packed, unpack_hook, self.is_output
        )
        self.tensor = self.data = None

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
            packed = Tensor._make(self.data, differentiable, node, self.output_nr)
        result = hooked.unpack_hook(packed)
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


class RawSavedTensor:
    """`grad_fn._raw_saved_<name>` (`_raw_saved_tensors` of a custom Function's node): a
    tensor the node saved, on which `register_hooks(pack_hook, unpack_hook)` sets hooks
    of its own. It keeps the node, to know whether the backward has freed what it saved.
    """

    __slots__ = ("_node", "_saved")

    def __init__(self, node: Node, saved: SavedTensor | None) -> None:
        self._node = node
        self._saved = saved

    def register_hooks(
        self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]
    ) -> None:
        """Call `pack_hook` on the saved tensor now; `unpack_hook` runs on every use of it."""
        if self._saved is None or getattr(self._node, "_saved", None) is None:
            raise RuntimeError(_FREED)
        self._saved.register_hooks(pack_hook, unpack_hook)


def _forward_name(node: Node) -> str:
    """`ExpBackward0` -> `Exp`, `MyFnBackward` -> `MyFn`; other names unchanged."""
    return re.sub(r"Backward\d*$", "", node.name())


def _describe(data: np.ndarray) -> str:
    """`[torch.FloatTensor [2, 3]]`: how PyTorch's messages name a saved tensor."""
    return f"[{legacy_type_name(data)} [{', '.join(map(str, data.shape))}]]"


# --- saved tensor hooks -----------------------------------------------------------

_PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)

_HOOKS_ALREADY_SET = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
    "one pair of hooks is allowed at a time."
)

_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward."
)

_OUTPUT: Any = object()  # stands for "the node's own output, re-wrapped from `data`"


class _Packed:
    """What a SavedTensor keeps under `saved_tensors_hooks`: pack_hook's result, the
    unpack hook, and the saved tensor's place in the graph (not the tensor itself)."""

    __slots__ = ("accumulator", "grad_fn", "packed", "requires_grad", "unpack_hook")

    def __init__(
        self, tensor: Tensor, packed: Any, unpack_hook: Callable[..., Any], is_output: bool
    ) -> None:
        self.packed = packed
        self.unpack_hook = unpack_hook
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
            return tensor.device, Tensor._make(np.array(tensor._data, copy=True))

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


# Users meet these classes in chainrule.autograd.graph, and so they report it (as PyTorch's).
for _cls in (SavedTensor, RawSavedTensor, saved_tensors_hooks, save_on_cpu):
    _cls.__module__ = "chainrule.autograd.graph"
