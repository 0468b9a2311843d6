"""Non-reentrant checkpointing, built as PyTorch builds it, on saved-tensor hooks.

The checkpointed function runs with grad on, so its graph is recorded as usual, but
every tensor a node saves is packed as an empty `_Holder`. The first time backward
unpacks one, the function runs again (with the random state it had) under hooks that
fill the holders, in the order the tensors were saved; with early stop, the rerun ends
as soon as every holder is filled. Gradients flow through the original graph, so they
reach everything the function used: arguments, closures, module parameters.

Each backward pass (a graph task) recomputes once for itself: holders keep one value
per pass id, and a value is handed out once.
"""

from __future__ import annotations

import itertools
import traceback
import weakref
from collections.abc import Callable
from typing import Any, NoReturn

from .._autograd import grad_mode
from .._autograd.node import Node, node_watchers
from .._backward.engine import current_graph_task
from .._backward.saved import SavedTensor, saved_tensors_hooks
from .._tensor import Tensor

__all__ = ["CheckpointError", "Frame", "StopRecomputation", "checkpoint_hook", "debug_context"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


class StopRecomputation(Exception):
    """Ends a recomputation once every saved tensor has its value (early stop)."""


DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""

# Backward passes have ids; an unpack outside any (reading `grad_fn._saved_*`) gets a
# fresh one, so it recomputes for itself.
_outside_ids = itertools.count(-1, -1)


class _Holder:
    """Stands for one saved tensor: its recomputed value per backward pass (None once used)."""

    __slots__ = ("__weakref__", "values")

    def __init__(self) -> None:
        self.values: dict[int, Tensor | None] = {}


class Frame:
    """One checkpointed call: how to rerun it, its inputs, and its saved tensors' holders."""

    def __init__(
        self,
        recompute: Callable[..., Any],
        early_stop: bool,
        metadata: Callable[[Tensor], Any],
        on_error: Callable[[CheckpointError], NoReturn] | None,
    ) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata = metadata
        self.on_error = on_error
        self.inputs: list[Any] = []
        self.holders: list[weakref.ref[_Holder]] = []
        self.saved_metadata: list[Any] = []
        self.counts: dict[int, int] = {}
        self.recomputed: set[int] = set()
        self.forward_done = False
        self.ignore_mismatch = False

    def save_inputs(self, args: tuple[Any, ...]) -> None:
        # Kept as saved tensors: an input written in place before backward is an error.
        self.inputs = [SavedTensor(a) if isinstance(a, Tensor) else a for a in args]

    def _inputs(self) -> list[Any]:
        return [a.unpack(_NO_NODE) if isinstance(a, SavedTensor) else a for a in self.inputs]

    # --- the hooks --------------------------------------------------------------------

    def pack(self, tensor: Tensor) -> _Holder:
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        with grad_mode.no_grad():
            self.saved_metadata.append(self.metadata(tensor))
        return holder

    def unpack(self, holder: _Holder) -> Tensor:
        try:
            return self._unpack(holder)
        except CheckpointError as e:
            if self.on_error is None:
                raise
            self.on_error(e)

    def _unpack(self, holder: _Holder) -> Tensor:
        task = current_graph_task()
        gid = task.id if task is not None else next(_outside_ids)
        if gid not in self.recomputed:
            try:
                with _RecomputeHooks(self, gid), grad_mode.enable_grad():
                    self.recompute(*self._inputs())
            except StopRecomputation:
                pass
            self.recomputed.add(gid)
            self._check(gid)
        value = holder.values.get(gid)
        if value is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                "already unpacked once. If you are calling ctx.saved_tensors in backward, make "
                "sure to do so only once. Otherwise please open an issue with details on your "
                "use case."
            )
        holder.values[gid] = None
        return value

    def _check(self, gid: int) -> None:
        """The recomputation must save as many tensors, with the same metadata."""
        if self.ignore_mismatch:
            return
        count = self.counts.get(gid, 0)
        if count != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {count}.\n{DEBUG_TIP}"
            )
        different = ""
        for k, ref in enumerate(self.holders):
            holder = ref()
            value = None if holder is None else holder.values.get(gid)
            if value is None:
                continue
            now = self.metadata(value)
            if now != self.saved_metadata[k]:
                different += (
                    f"tensor at position {k}:\nsaved metadata: {self.saved_metadata[k]}\n"
                    f"recomputed metadata: {now}\n"
                )
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{different}.\n{DEBUG_TIP}"
            )

    def record(self, gid: int, tensor: Tensor) -> Tensor:
        """The recomputation saved `tensor`: it is the value of the next holder."""
        tensor = tensor.detach() if tensor.requires_grad else tensor
        k = self.counts.get(gid, 0)
        self.counts[gid] = k + 1
        if k >= len(self.holders):
            if not self.forward_done:  # a backward inside the checkpointed function
                self.ignore_mismatch = True
                return tensor
            raise CheckpointError(
                "torch.utils.checkpoint: trying to save more tensors during recomputation than "
                f"during the original forward pass.\n{DEBUG_TIP}"
            )
        holder = self.holders[k]()
        if holder is not None:  # else its graph is gone: nothing needs the value
            holder.values[gid] = tensor
        if self.early_stop and k + 1 == len(self.holders):
            raise StopRecomputation
        return tensor


class _RecomputeHooks(saved_tensors_hooks):
    """While the function reruns: what it saves fills the frame's holders, in order."""

    def __init__(self, frame: Frame, gid: int) -> None:
        super().__init__(lambda t: frame.record(gid, t), lambda t: t)


def checkpoint_hook(frame: Frame) -> saved_tensors_hooks:
    """The hooks the original forward runs under: holders in place of saved tensors."""
    return saved_tensors_hooks(frame.pack, frame.unpack)


_NO_NODE: Any = None  # inputs are never a node's own output: unpack needs no node


# --- debug mode -----------------------------------------------------------------------------

_DEBUG_TEMPLATE = """ \
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.
Scroll all the way down for guidance on how to navigate these logs.

+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+
(Scroll up to correlate stack traces with each operation listed below. This
 helps identify their source in the code.)

IMPORTANT: Differences in "detach" calls between the original forward and the
           recomputation are expected. They are introduced by the checkpointing
           mechanism and can be ignored.

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}

+------------------------------------------------------------------------------+
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. This can happen if different operators were ran in the
 original forward and in the recomputation.

 To identify where the mismatch may be coming from, you can do the following:

 1) Compare the operators ran during original forward and recomputation to
    see where they differ. These operators are printed above in the order they
    were executed.

 2) Review the stack trace for each operator to locate its invocation source.
    Each operator's stack trace is printed in their execution order.

 Note that the logs can be quite long. Here's how they are structured:
 (Tip: you can Ctrl-f for these headers)

 1. Stack traces of the operators that ran in the original forward
 2. Stack traces of the operators that ran during recomputation
 3. Log of operators in the original forward and recomputation
 4. Error message                                             <--- You are here
--------------------------------------------------------------------------------
"""


class _OpLog:
    """The graph nodes recorded while active, with where each was made (chainrule has no
    operator dispatch: its "operators" here are the nodes the ops record)."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.traces: list[list[traceback.FrameSummary]] = []

    def __enter__(self) -> None:
        self.ops.clear()
        self.traces.clear()
        node_watchers.append(self._watch)

    def __exit__(self, *exc: object) -> None:
        node_watchers.remove(self._watch)

    def _watch(self, node: Node, outputs: Any) -> None:
        self.ops.append(node.name())
        self.traces.append(traceback.extract_stack()[:-3])

    def text(self, label: str) -> str:
        out = ""
        for i, (op, trace) in enumerate(zip(self.ops, self.traces, strict=True)):
            out += f"{op}   ({i + 1} of {len(self.ops)} in {label})\n\n"
            out += "".join(f"{f.filename}:{f.lineno}:{f.name}\n" for f in trace) + "\n\n"
        return out


def debug_context() -> tuple[Callable[[], Any], Callable[[CheckpointError], NoReturn]]:
    """A context_fn that logs both runs, and the error callback that prints the logs."""
    forward, recompute = _OpLog(), _OpLog()

    def on_error(e: CheckpointError) -> NoReturn:
        raise CheckpointError(
            _DEBUG_TEMPLATE.format(
                forward_traces=forward.text("original"),
                recompute_traces=recompute.text("recompute"),
                forward_ops="\n".join(forward.ops),
                recompute_ops="\n".join(recompute.ops),
            )
        ) from e

    return (lambda: (forward, recompute)), on_error
