"""`explain()`: narrate each backward pass, step by step, as the chain rule with the real numbers.

A step is a node the engine runs: what flowed in, each input's local derivative and the
product sent on to it, and at a leaf the accumulation into `.grad`.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Any, TextIO

import numpy as np

from .._backward.engine import current_graph_task, run_backward
from ..autograd import grad_mode
from ..autograd.graph import AccumulateGrad, Node, backward_watchers
from ._names import NameTable
from ._rules import Derivative, derivatives, local_value
from ._summary import summarize

__all__ = ["explain"]


class explain(contextlib.ContextDecorator):
    """Print every step of every backward pass run inside the block (or decorated function).

    ```
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3; c = b * b * 3; out = c.mean()
    with viz.explain(names=viz.names_from(locals())):
        out.backward()
    ```
    prints the steps in the order the engine runs them, then `a.grad = [15, 18]`.
    `names` maps names to tensors (leaves or intermediate results); a tensor's
    own `t.name` is used too. Arrays of more than `max_entries` entries are
    summarised (shape, norm, a few entries). `file` defaults to sys.stdout.
    Gradients that `autograd.grad` captures (and does not accumulate) are
    reported when the next backward starts or the block ends.
    """

    def __init__(
        self,
        file: TextIO | None = None,
        max_entries: int = 6,
        names: Mapping[str, Any] | None = None,
    ) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        NameTable(names)  # check `names` now, where the mistake was made
        self.file = file
        self.max_entries = max_entries
        self.names = names
        self._active: list[_Narrator] = []  # one per entered block (a decorator may nest)

    def __enter__(self) -> explain:
        narrator = _Narrator(self.file, self.max_entries, NameTable(self.names))
        self._active.append(narrator)
        backward_watchers.append(narrator.watch)
        return self

    def __exit__(self, *exc: object) -> None:
        narrator = self._active.pop()
        # By identity, so that only this block's watcher goes, even on an error.
        for i, watcher in enumerate(backward_watchers):
            if watcher is narrator.watch:
                del backward_watchers[i]
                break
        narrator.finish()


class _Pass:
    """One backward pass being told: its number, the step reached, what is still pending."""

    __slots__ = ("depth", "number", "old_grads", "pending", "root", "roots", "step", "task")

    def __init__(self, task: int, number: int, depth: int) -> None:
        self.task = task  # the engine's id for the pass
        self.number = number
        self.depth = depth  # how many passes run on the thread, this one included
        self.step = 0
        self.roots: list[str | None] = []  # the tensors it was seeded at (None: unnamed)
        self.root: str | None = None  # what it differentiates: `out`, `(y1 + y2)`, or unknown
        # What each node has been sent so far, per output: what the engine sums into its
        # grad_output. Entries never consumed were captured (autograd.grad) instead.
        self.pending: dict[Node, dict[int, list[np.ndarray]]] = {}
        self.old_grads: dict[Node, np.ndarray | None] = {}  # leaves' .grad before this pass

    def seeded(self, name: str | None) -> None:
        """The pass (also) starts at a tensor called `name`: the gradients are of the sum."""
        self.roots.append(name)
        named = [r for r in self.roots if r is not None]
        if len(named) < len(self.roots):
            self.root = None  # an unnamed root: `∂?/∂x` would say nothing
        else:
            self.root = named[0] if len(named) == 1 else f"({' + '.join(named)})"


class _Narrator:
    """The state of one `explain` block: the passes being told, and the names met."""

    def __init__(self, file: TextIO | None, max_entries: int, table: NameTable) -> None:
        self.file = file
        self.max_entries = max_entries
        self.table = table
        self.thread = threading.get_ident()
        self.passes: list[_Pass] = []  # the pass being told, above any it runs inside
        self.count = 0  # passes started so far
        self.accumulated: dict[AccumulateGrad, None] = {}  # the leaves reached, in order
        self.labels: dict[Node, str] = {}  # the leaves' names (given, or leaf1, leaf2, ...)
        self.found: dict[tuple[Node, int], str] = {}  # names read off saved inputs
        self.watch = self.on_backward  # one bound method, to remove by identity

    # --- the engine's watcher ---------------------------------------------------------

    def on_backward(
        self, node: Node, grad_outputs: Sequence[Any], grad_inputs: Sequence[Any]
    ) -> None:
        if threading.get_ident() != self.thread:
            return
        task = current_graph_task()
        task_id = task.id if task is not None else -1
        lines: list[str] = []
        if not self.passes or self.passes[-1].task != task_id:
            lines += self._switch(task_id, node)
        now = self.passes[-1]
        now.step += 1
        try:
            lines += self._tell(now, node, grad_outputs, grad_inputs)
        except Exception as err:  # never let the narration break the user's backward
            lines.append(f"step {now.step}  {_name(node)}: (not explained: {err!r})")
        self._write(lines)

    def finish(self) -> None:
        """End of the block: pending captures, then each accumulated leaf's final .grad."""
        lines = self._end(self.passes)
        if self.accumulated:
            lines.append("")
            for acc in self.accumulated:
                lines.append(f"{self._leaf(acc)}.grad = {self._fmt(acc.variable._grad)}")
        self._write(lines)
        self.passes.clear()
        self.accumulated.clear()
        self.labels.clear()
        self.found.clear()
        self.table = NameTable()

    # --- passes -----------------------------------------------------------------------

    def _switch(self, task_id: int, node: Node) -> list[str]:
        """A node of another pass ran: a new pass, one run inside this one, or back out."""
        for k, outer in enumerate(self.passes):
            if outer.task == task_id:  # the passes run inside it are over
                lines = self._end(self.passes[k + 1 :])
                del self.passes[k + 1 :]
                return [*lines, "", f"back in backward pass {outer.number}"]
        depth = _engine_depth()
        lines = []
        inside = ""
        if self.passes and depth > self.passes[-1].depth:
            inside = f", run inside pass {self.passes[-1].number}"  # by checkpoint, say
        else:
            lines = self._end(self.passes)  # they are over: a new one has begun
            self.passes.clear()
        self.count += 1
        self.passes.append(_Pass(task_id, self.count, depth))
        root = self._result_name(node, 0)
        head = f"backward pass {self.count}" + (f", from {root}" if root else "") + inside
        if grad_mode.is_grad_enabled():
            head += " (create_graph=True: every step is recorded as a new graph too)"
        return [*lines, "", head] if self.count > 1 else [head]  # a blank line between passes

    def _end(self, passes: list[_Pass]) -> list[str]:
        """Gradients sent to nodes that never ran: autograd.grad captured them."""
        lines = []
        for done in reversed(passes):
            for node, outputs in done.pending.items():
                for nr, sent in outputs.items():
                    label = self._target(node, nr)
                    what = f"the gradient for {label}" if label else "a gradient"
                    if done.root and label:
                        what = f"∂{done.root}/∂{label}"
                    note = "returned to the caller"
                    if isinstance(node, AccumulateGrad):
                        note += f", {label}.grad is not changed"
                    lines.append(f"captured: {what} = {self._fmt(_sum(sent))}  ({note})")
            done.pending.clear()
            done.old_grads.clear()
        return lines

    # --- one step -----------------------------------------------------------------------

    def _tell(
        self, now: _Pass, node: Node, grad_outputs: Sequence[Any], grad_inputs: Sequence[Any]
    ) -> list[str]:
        sent = now.pending.pop(node, {})
        if isinstance(node, AccumulateGrad):
            return self._tell_leaf(now, node, grad_outputs, sent)
        made = self._result_name(node, 0)
        lines = [f"step {now.step}  {_name(node)}" + (f", made {made}" if made else "")]
        many = len(grad_outputs) > 1
        for nr, g in enumerate(grad_outputs):
            if g is not None:
                label = made if nr == 0 else self._result_name(node, nr)
                index = f"[{nr}]" if many else ""
                lines.append(self._incoming(now, label, g, sent.get(nr, []), index))
        self._learn_names(node)
        g = grad_outputs[0] if len(grad_outputs) == 1 else None
        inputs = zip(node.next_functions, derivatives(node), strict=False)
        for i, ((child, nr), d) in enumerate(inputs):
            gi = grad_inputs[i] if i < len(grad_inputs) else None
            if child is None:
                lines.append(f"  {d.input}{self._constant(node, d.input)}: a constant, no gradient")
            else:
                lines += self._outgoing(now, node, i, d, (child, nr), made, g, gi)
        return lines

    def _tell_leaf(
        self,
        now: _Pass,
        acc: AccumulateGrad,
        grad_outputs: Sequence[Any],
        sent: dict[int, list[np.ndarray]],
    ) -> list[str]:
        label = self._leaf(acc)
        new = grad_outputs[0] if grad_outputs else None
        lines = [f"step {now.step}  AccumulateGrad of {label}"]
        if new is None:
            return lines
        lines.append(self._incoming(now, label, new, sent.get(0, []), ""))
        total = self._fmt(acc.variable._grad)
        added = self._fmt(new) if self._small(new) else "grad_output"
        if acc in now.old_grads:
            old = now.old_grads.pop(acc)
            before = "None" if old is None else self._fmt(old)
            lines.append(f"  {label}.grad = {before} + {added} = {total}")
        else:  # the pass started at this leaf: its .grad was not seen before it ran
            lines.append(f"  {label}.grad += {added}, now {total}")
        self.accumulated[acc] = None
        return lines

    def _incoming(
        self, now: _Pass, label: str | None, g: Any, sent: list[np.ndarray], index: str
    ) -> str:
        """The grad_output line: the seed, or the sum of what the node's consumers sent."""
        value = self._fmt(g)
        if not sent:  # nothing reached it from a consumer: the pass starts (also) here
            now.seeded(label)
            of = f": ∂{label}/∂{label}" if label else ""
            return f"  grad_output{index}{of} = {value}  (the seed)"
        lhs = f"grad_output{index}" + (f": ∂{now.root}/∂{label}" if now.root and label else "")
        data = g._data
        if len(sent) == 1:
            line = f"  {lhs} = {value}"
        else:
            if len(sent) <= self.max_entries and all(self._small(s) for s in sent):
                terms = " + ".join(self._fmt(s) for s in sent)
            else:
                terms = f"the sum of the {len(sent)} gradients sent"
            who = label or "this result"
            line = (
                f"  {lhs} = {terms} = {value}  "
                f"({who} is used {len(sent)} times; the engine adds up their gradients)"
            )
        if not (len(sent) == 1 and sent[0] is data):  # else it is what was sent, untouched
            total = _sum(sent)
            if total.shape != data.shape or not np.allclose(total, data, equal_nan=True):
                line += f"  (a hook changed {self._fmt(total)} into this)"
        return line

    def _outgoing(
        self,
        now: _Pass,
        node: Node,
        i: int,
        d: Derivative,
        edge: tuple[Node, int],
        made: str | None,
        g: Any,
        gi: Any,
    ) -> list[str]:
        """The lines for input `i`: its local derivative, and what is sent along `edge`."""
        slot = d.input
        name = self._target(*edge)
        head = f"  {slot} = {name}: " if name else f"  {slot}: "
        local = ""
        value = local_value(node, d, g, gi)  # None for a vector-Jacobian product
        if d.elementwise:
            rhs = d.rhs
            local = f"∂{made or 'result'}/∂{name or slot}"
            formula = f"{local} = {rhs}"
            if value is not None:
                text = self._fmt(value)
                if rhs != text and not rhs.endswith(f" = {text}"):
                    formula += f" = {text}"
                if value.ndim == 0 and _numel(node, i) > 1:
                    formula += " each"
        else:
            formula = d.formula
        if d.saved:
            formula += f"  (uses saved {', '.join(d.saved)})"
        if gi is None:
            return [head + formula, "    nothing sent (no requested input needs it)"]
        arrow = f"{name} ({_name(edge[0])})" if name else _name(edge[0])
        ident = slot.replace(" ", "")
        if value is not None and g is not None:
            summed = _summed(g, value, gi)
            if self._small(g) and self._small(value):
                product = f"{self._fmt(g)} * {self._fmt(value)}"
            else:
                product = f"grad_output * {local}"
            sends = f"    grad_{ident} = {product}{summed} = {self._fmt(gi)} → {arrow}"
        else:
            sends = f"    grad_{ident} = {self._fmt(gi)} → {arrow}"
        self._deliver(now, edge, gi)
        return [head + formula, sends]

    def _deliver(self, now: _Pass, edge: tuple[Node, int], gi: Any) -> None:
        """Remember what a node was sent; a leaf's .grad is noted before it changes."""
        child, nr = edge
        if isinstance(child, AccumulateGrad) and child not in now.old_grads:
            grad = child.variable._grad
            now.old_grads[child] = None if grad is None else np.array(grad._data, copy=True)
        now.pending.setdefault(child, {}).setdefault(nr, []).append(gi._data)

    # --- names and numbers -----------------------------------------------------------------

    def _result_name(self, node: Node, nr: int) -> str | None:
        if isinstance(node, AccumulateGrad):
            return self._leaf(node)
        return self.table.of_output(node, nr) or self.found.get((node, nr))

    def _target(self, child: Node, nr: int) -> str | None:
        """The name of the tensor that flows from `child` (a leaf, or a named result)."""
        if isinstance(child, AccumulateGrad):
            return self._leaf(child)
        return self._result_name(child, nr)

    def _leaf(self, acc: AccumulateGrad) -> str:
        label = self.labels.get(acc)
        if label is None:
            variable = acc.variable
            label = self.table.of_tensor(variable) or f"leaf{len(self.labels) + 1}"
            self.labels[acc] = label
        return label

    def _learn_names(self, node: Node) -> None:
        """Saved inputs are the input tensors themselves: their `.name` names their producer."""
        saved = getattr(node, "_saved", None)
        if not isinstance(saved, dict):
            return
        for entry in saved.values():
            tensor = getattr(entry, "tensor", None)
            if tensor is None or tensor._grad_fn is None:
                continue
            name = self.table.of_tensor(tensor)
            if name is not None:
                self.found.setdefault((tensor._grad_fn, tensor._output_nr), name)

    def _constant(self, node: Node, slot: str) -> str:
        """` = 3` for an input that needs no gradient, when the node saved it (else "")."""
        saved = getattr(node, "_saved", None)
        entry = saved.get(slot) if isinstance(saved, dict) else None
        tensor = getattr(entry, "tensor", None)
        if tensor is None or tensor._data.size > self.max_entries:
            return ""
        return f" = {summarize(tensor._data, self.max_entries)}"

    def _fmt(self, value: Any) -> str:
        return summarize(value, self.max_entries)

    def _small(self, value: Any) -> bool:
        """Shown in full (so worth writing out inside a product or a sum)."""
        return int(getattr(value, "_data", value).size) <= self.max_entries

    def _write(self, lines: list[str]) -> None:
        if lines:
            out = self.file if self.file is not None else sys.stdout
            out.write("\n".join(lines) + "\n")


_RUN_BACKWARD = run_backward.__code__


def _engine_depth() -> int:
    """How many backward passes are running on this thread.

    A pass started from inside a node's backward (checkpoint recomputing, a custom
    Function calling backward) runs while the outer one waits on the stack; counting
    the engine's frames tells such a nested pass from one that follows a finished pass.
    """
    depth = 0
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        depth += frame.f_code is _RUN_BACKWARD
        frame = frame.f_back
    return depth


def _name(node: Node) -> str:
    return node.name().rsplit("::", 1)[-1]  # torch::autograd::AccumulateGrad -> AccumulateGrad


def _numel(node: Node, i: int) -> int:
    """How many entries input `i` of `node` has (from the node's input metadata)."""
    meta = getattr(node, "_input_meta", ())
    return math.prod(meta[i][0]) if i < len(meta) else 1


def _summed(g: Any, value: np.ndarray, gi: Any) -> str:
    """A note when broadcasting was undone: the product had more entries than the input."""
    if g._data.shape == gi._data.shape and (value.ndim == 0 or value.shape == gi._data.shape):
        return ""  # the common case, decided without NumPy
    try:
        shape = np.broadcast_shapes(np.shape(g._data), value.shape)
    except ValueError:
        return ""
    if int(np.prod(shape)) > gi._data.size:
        return f", summed to shape {tuple(gi._data.shape)}"
    return ""


def _sum(arrays: list[np.ndarray]) -> np.ndarray:
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total
