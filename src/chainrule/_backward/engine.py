"""The backward pass: walk the graph from the roots, run each node once, route gradients.

Iterative throughout (graphs of millions of nodes work): one walk counts each
node's consumers, a second runs nodes when every consumer has sent its
gradient, later-created nodes first (as PyTorch orders them).
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from .._autograd import anomaly_mode as _anomaly
from .._autograd import grad_mode
from .._autograd.node import AccumulateGrad, Node, backward_watchers
from .._dtype import from_numpy_dtype, legacy_type_name
from .._ops.broadcasting import sum_to_dims
from .._ops.quiet import mute, unmute
from .._tensor import Tensor

__all__ = ["GraphTask", "current_graph_task", "run_backward", "validate_grads"]

Edge = tuple[Node, int]


class GraphTask:
    """The backward pass now running on this thread: an id unique per pass, the nodes
    that will receive gradients in it (for `register_multi_grad_hook`), the callbacks to
    run when it ends (`queue_callback`), and whether a reentrant checkpoint may run in it
    (only in a whole-graph backward, with no `inputs` to capture, nested or not)."""

    __slots__ = ("callbacks", "can_checkpoint", "executes", "id")

    def __init__(self, executes: Collection[Node], can_checkpoint: bool) -> None:
        self.id = next(_task_ids)
        self.executes = executes
        self.callbacks: list[Callable[[], object]] = []
        self.can_checkpoint = can_checkpoint

    def will_execute(self, node: Node | None) -> bool:
        return node is not None and node in self.executes


_task_ids = itertools.count(1)
_current = threading.local()


def current_graph_task() -> GraphTask | None:
    """The innermost backward pass running on this thread, or None."""
    return getattr(_current, "task", None)


def _collect(
    roots: Sequence[Node], targets: set[Node] | None
) -> tuple[dict[Node, int], set[Node] | None, set[Node] | None, dict[Node, list[bool]]]:
    """Consumer counts for every node reachable from `roots` (roots included), the nodes
    that must run (None: all of them), (with `targets`) the nodes that lead to a
    target, and which inputs each running node must compute a gradient for, where
    that is not all of them.

    With `targets` (the nodes of requested inputs), a node runs only when one of
    its next functions leads to a target; otherwise every reachable node runs.
    """
    deps: dict[Node, int] = dict.fromkeys(roots, 0)  # also the walk's set of nodes seen
    needs: dict[Node, list[bool]] = {}
    if targets is None:
        stack = list(roots)
        while stack:
            for child in stack.pop()._next[::2]:
                if child is None:
                    continue
                if child in deps:
                    deps[child] += 1
                else:
                    deps[child] = 1
                    stack.append(child)
        return deps, None, None, needs
    # One depth-first walk, without recursion: a node is finished after all of its
    # children, so whether it leads to a target is known from theirs.
    leads: set[Node] = set()
    runs: set[Node] = set()
    seen: set[Node] = set()
    for root in roots:
        if root in seen:
            continue  # reached from an earlier root
        seen.add(root)
        walk = [(root, iter(root._next[::2]))]
        while walk:
            node, children = walk[-1]
            for child in children:  # resumes where this node's walk left off
                if child is None:
                    continue
                deps[child] = deps.get(child, 0) + 1
                if child not in seen:
                    seen.add(child)
                    walk.append((child, iter(child._next[::2])))
                    break
            else:
                walk.pop()
                hit = miss = False
                for c in node._next[::2]:
                    if c is not None:
                        if c in leads:
                            hit = True
                        else:
                            miss = True
                if hit:
                    runs.add(node)
                    leads.add(node)
                    if miss:  # some inputs lead nowhere wanted: skip their rules
                        needs[node] = [c in leads for c in node._next[::2]]
                elif node in targets:
                    leads.add(node)
    return deps, runs, leads, needs


def validate_grads(node: Node, grads: Sequence[Tensor | None]) -> list[Tensor | None]:
    """Check what a node returned and undo broadcasting and dtype changes (the one place)."""
    edges = node._next
    if len(grads) * 2 != len(edges):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(edges) // 2}, got {len(grads)})"
        )
    meta = node._input_meta
    out = grads if type(grads) is list else list(grads)
    for i, g in enumerate(out):
        if g is None:
            continue
        if edges[2 * i] is None:
            out[i] = None
            continue
        if type(g) is not Tensor and not isinstance(g, Tensor):
            raise TypeError(
                f"function {node.name()} returned a gradient of type {type(g).__name__} at "
                f"index {i}; expected a Tensor or None"
            )
        if meta:
            shape, dtype = meta[i]
            data = g._data
            if data.shape != shape:
                g = out[i] = _sum_to(g, shape, node, i)
            if data.dtype != dtype:
                out[i] = g.to(from_numpy_dtype(dtype))
    return out


def _sum_to(g: Tensor, shape: tuple[int, ...], node: Node, index: int) -> Tensor:
    """Sum a gradient over the dims that broadcasting added or expanded."""
    if sum_to_dims(g._data.shape, shape) is None:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(g._data.shape)} but expected shape compatible with {list(shape)}"
        )
    return g.sum_to_size(shape)


def run_backward(
    roots: Sequence[Edge],
    root_grads: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    captures: Sequence[Edge] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run the backward pass from `roots`, seeded with `root_grads`.

    `captures` are edges whose total incoming gradient is returned (for
    `autograd.grad` and `backward(inputs=...)`); with `accumulate=False`, leaves'
    `.grad` is not touched. Returns the captured gradients, in order.

    Note: a first-order pass (no `create_graph`) moves NumPy arrays, not tensors:
    buffers hold arrays, nodes with array rules (`OpNode._apply_arrays`) take and
    give arrays, and a tensor is made only for what sees one (another node's
    `_apply`, hooks, watchers, the captured results; see `_Tensors`). Under
    `create_graph` the rules run on tensors and record the graph of the backward.
    """
    targets = {n for n, _ in captures} if captures is not None else None
    root_nodes = list(dict.fromkeys([n for n, _ in roots]))
    deps, runs, leads, needs = _collect(root_nodes, targets)
    if accumulate and targets and runs is not None:
        # backward(inputs=...): the requested leaves accumulate too.
        runs |= {n for n in targets if isinstance(n, AccumulateGrad)}
    capture_at: dict[Node, list[tuple[int, int]]] = {}
    for k, (n, nr) in enumerate(captures or ()):
        capture_at.setdefault(n, []).append((k, nr))
    captured: list[Any] = [None] * len(captures or ())

    arrays = not create_graph
    as_tensors = _Tensors(root_grads) if arrays else None
    buffers: dict[Node, list[Any]] = {}
    for (root, nr), g in zip(roots, root_grads, strict=True):
        _add_to_buffer(buffers, root, nr, g._data if arrays else g)
    ready = [(-n._seq, id(n), n) for n in root_nodes if not deps[n]]
    heapq.heapify(ready)
    pop, push = heapq.heappop, heapq.heappush

    prev_task = current_graph_task()
    can_checkpoint = captures is None and (prev_task is None or prev_task.can_checkpoint)
    executes = leads if leads is not None else deps
    task = _current.task = GraphTask(executes, can_checkpoint)
    prev_mode = grad_mode.is_grad_enabled()
    grad_mode._set(create_graph)
    prev_evaluating = _anomaly._evaluating.node
    node: Node | None = None
    following: Node | None = None  # the one node made ready by the last, when none waits
    # Array rules run with NumPy's warnings off. The switch stays off from one array rule
    # to the next and is put back before anything that may run a user's code (hooks, a
    # custom Function, tensor rules): `quiet` holds the token of the switch, or None.
    quiet: Any = None
    try:
        while True:
            if following is not None:
                node, following = following, None
            elif ready:
                node = pop(ready)[2]
            else:
                break
            if _anomaly._enabled:
                _anomaly._evaluating.node = node  # the parent of nodes made from here
            grads = buffers.pop(node, None) or [None]
            kind = type(node)
            rare = node._rare  # hooks and retained grads, if any
            if (
                rare is not None and (rare.tensor_pre_hooks or rare.pre_hooks or rare.retained)
            ) or (kind is AccumulateGrad and node.variable._hooks):  # type: ignore[attr-defined]
                quiet = _loud(quiet)
                if as_tensors is not None:
                    grads = _arrays(_pre_process(node, as_tensors.list(grads)))
                else:
                    grads = _pre_process(node, grads)
            if capture_at and node in capture_at:
                for k, nr in capture_at[node]:
                    captured[k] = grads[nr] if nr < len(grads) else None
            edges = node._next
            if (runs is None or node in runs) and (accumulate or kind is not AccumulateGrad):
                if grads[0] is not None or any(g is not None for g in grads):
                    grad_inputs: list[Any] | None
                    if as_tensors is None:
                        grad_inputs = _run(node, grads, needs.get(node) if needs else None)
                    elif kind is AccumulateGrad:
                        quiet = _loud(quiet)
                        grad_inputs = _accumulate(node, grads, as_tensors)  # type: ignore[arg-type]
                    else:
                        need = needs.get(node) if needs else None
                        apply_arrays = node._apply_arrays
                        grad_inputs = None
                        if apply_arrays is not None:
                            if quiet is None:
                                quiet = mute()
                            grad_inputs = apply_arrays(grads, need)
                        if (
                            grad_inputs is None
                            or (rare is not None and rare.hooks)
                            or backward_watchers
                        ):
                            quiet = _loud(quiet)
                            grad_inputs = _run_arrays(node, grads, need, as_tensors, grad_inputs)
                else:
                    grad_inputs = [None] * (len(edges) // 2)
                if node._holds and not retain_graph:
                    node._release()
                if _anomaly._enabled and _anomaly._check_nan:
                    _anomaly.check_nan(node, _as_checkable(grad_inputs, as_tensors))
            else:
                grad_inputs = [None] * (len(edges) // 2)
            del grads  # the grad_outputs go now (and an owned gradient stays owned)
            for k in range(0, len(edges), 2):  # edges are flat: (node, nr, node, nr, ...)
                child = edges[k]
                if child is None:
                    continue
                gi = grad_inputs[k >> 1]
                nr = edges[k + 1]
                if gi is not None:
                    if nr == 0 and child not in buffers:  # the common case, here in the loop
                        buffers[child] = [gi]
                    else:
                        _add_to_buffer(buffers, child, nr, gi)
                left = deps[child] - 1
                deps[child] = left
                if not left:
                    if following is None and not ready:
                        following = child
                    else:
                        if following is not None:
                            push(ready, (-following._seq, id(following), following))
                            following = None
                        push(ready, (-child._seq, id(child), child))
            # Nothing here may keep a gradient once sent: AccumulateGrad takes over one
            # that only the buffers hold (see `_accumulate`).
            del grad_inputs
            gi = None
        quiet = _loud(quiet)
        # Callbacks queued while the pass ran (and by those callbacks), in order.
        while task.callbacks:
            task.callbacks.pop(0)()
    except Exception:
        if _anomaly._enabled and node is not None:
            # `node` is the one being run (the loop starts by taking one).
            _anomaly.print_stack(node)  # where the failing node was made, then its parents
        raise
    finally:
        _loud(quiet)
        _current.task = prev_task
        grad_mode._set(prev_mode)
        _anomaly._evaluating.node = prev_evaluating
    if as_tensors is not None:
        return as_tensors.list(captured)
    return captured


def _loud(quiet: Any) -> Any:
    """Put back the user's NumPy warning setting that `mute` replaced (`quiet`, its token,
    or None if nothing is muted); returns None, the token from now on."""
    if quiet is not None:
        unmute(quiet)
    return None


def _run(
    node: Node, grads: list[Tensor | None], needed: Sequence[bool] | None
) -> list[Tensor | None]:
    """A node's grad_inputs, checked, after its hooks and watchers (tensors throughout)."""
    grad_inputs = validate_grads(node, node._apply(grads, needed))
    if node._hooks:
        grad_inputs = _call_post_hooks(node, grad_inputs, grads)
    if backward_watchers:
        for watch in backward_watchers:
            watch(node, grads, grad_inputs)
    return grad_inputs


def _run_arrays(
    node: Node,
    grads: list[Any],
    needed: Sequence[bool] | None,
    as_tensors: _Tensors,
    grad_inputs: list[Any] | None,
) -> list[Any]:
    """`_run` in a first-order pass, arrays in and out: the node's grad_inputs from its
    array rules (`grad_inputs`, already checked) or, without them, its tensor rules;
    then its hooks and watchers."""
    if grad_inputs is None:
        return _arrays(_run(node, as_tensors.list(grads), needed))
    if node._hooks or backward_watchers:
        return _arrays(_run_given(node, as_tensors.list(grads), as_tensors.list(grad_inputs)))
    return grad_inputs


def _run_given(
    node: Node, grads: list[Tensor | None], grad_inputs: list[Tensor | None]
) -> list[Tensor | None]:
    """The hooks and watchers of `_run`, for grad_inputs computed on arrays."""
    if node._hooks:
        grad_inputs = _call_post_hooks(node, grad_inputs, grads)
    for watch in backward_watchers:
        watch(node, grads, grad_inputs)
    return grad_inputs


def _accumulate(node: AccumulateGrad, grads: list[Any], as_tensors: _Tensors) -> list[Any]:
    """A leaf's AccumulateGrad in a first-order pass. A first gradient that nothing but
    this pass holds becomes `.grad` itself, as PyTorch does, when it is laid out as
    `.grad` must be (see Tensor._accumulate_grad); others are copied."""
    g = grads[0]
    # The references: `grads` (the buffer), `g`, and getrefcount's argument.
    owned = sys.getrefcount(g) <= 3 and g.base is None and as_tensors.known(g) is None
    tensor = as_tensors.tensor(g)
    del g
    node.accumulate(tensor, owned)  # type: ignore[arg-type]
    if node._hooks or backward_watchers:
        _run_given(node, [tensor], [])
    return []


def _as_checkable(grad_inputs: Sequence[Any], as_tensors: _Tensors | None) -> Sequence[Any]:
    return grad_inputs if as_tensors is None else as_tensors.list(grad_inputs)


class _Tensors:
    """Tensors for a first-order pass's arrays: a root gradient is given back as the
    tensor the caller passed (hooks and `autograd.grad` see the same object, as in
    PyTorch); any other array gets a new tensor."""

    __slots__ = ("roots",)

    def __init__(self, root_grads: Sequence[Tensor]) -> None:
        self.roots = {id(g._data): g for g in root_grads}

    def known(self, a: Any) -> Tensor | None:
        t = self.roots.get(id(a))
        return t if t is not None and t._data is a else None

    def tensor(self, a: Any) -> Tensor | None:
        if a is None:
            return None
        t = self.known(a)
        return Tensor._make(a) if t is None else t

    def list(self, arrays: Sequence[Any]) -> list[Any]:
        return [self.tensor(a) for a in arrays]


def _arrays(grads: Sequence[Tensor | None]) -> list[Any]:
    return [None if g is None else g._data for g in grads]


def _add_to_buffer(buffers: dict[Node, list[Any]], node: Node, nr: int, g: Any) -> None:
    """Add `g` to what `node` has received for output `nr` (the backward loop handles a
    node's first gradient for output 0 itself). Arrays in a first-order pass, tensors
    under create_graph: a sum is a new one either way."""
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = []
    if len(buf) <= nr:
        buf.extend([None] * (nr + 1 - len(buf)))
    old = buf[nr]
    buf[nr] = g if old is None else _sum(old, g)


def _sum(a: Any, b: Any) -> Any:
    if type(a) is np.ndarray and type(b) is np.ndarray:
        return (Tensor._make(a) + Tensor._make(b))._data  # the operator's dtype and layout
    return a + b


def _pre_process(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """Tensor hooks, node pre-hooks and retain_grad, in PyTorch's order."""
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            if nr < len(grads) and grads[nr] is not None:
                for hook in list(hooks.values()):
                    new = hook(grads[nr])
                    if new is not None:
                        grads[nr] = _check_hook_result(hook, grads[nr], new)
    if isinstance(node, AccumulateGrad) and node.variable._hooks and grads[0] is not None:
        for hook in list(node.variable._hooks.values()):
            new = hook(grads[0])
            if new is not None:
                grads[0] = _check_hook_result(hook, grads[0], new)
    if node._retained:
        # Retained grads accumulate out of place (unlike leaves), as PyTorch does.
        for nr, ref in node._retained.items():
            t = ref()
            g = grads[nr] if nr < len(grads) else None
            if t is not None and g is not None:
                if t._grad is None:  # a contiguous copy, whatever the gradient's layout
                    copy = g.contiguous()
                    t._grad = copy if copy is not g else g.clone()
                else:
                    t._grad = t._grad + g
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            new = hook(tuple(grads))
            if new is not None:
                grads = list(new)
    return grads


def _check_hook_result(hook: object, old: Tensor | None, new: object) -> Tensor:
    """A tensor hook may replace the gradient, but not change its type or size (PyTorch's words)."""
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    assert old is not None
    name = getattr(hook, "__name__", "<unknown>")
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {legacy_type_name(old._data)} "
            f"got {legacy_type_name(new._data)})"
        )
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return new


def _call_post_hooks(
    node: Node, grad_inputs: list[Tensor | None], grad_outputs: list[Tensor | None]
) -> list[Tensor | None]:
    assert node._hooks is not None
    for hook in list(node._hooks.values()):
        new = hook(tuple(grad_inputs), tuple(grad_outputs))
        if new is not None:
            grad_inputs = list(new)
    return grad_inputs
