"""Module boxes for the drawings: which `nn.Module` call made each node of a graph.

`record_modules(model)` watches module calls through the global forward hooks while
its block runs. Every node keeps the creation number it got when it was recorded
(`Node._seq`), and a call notes the next number when it starts and when it ends, so
the nodes made during a call are exactly those numbered between: a node belongs to
the innermost call it was made in. Nothing is added to recording an op; only module
calls pay, and only inside the block. A parameter's leaf belongs to the module that
owns it (to the innermost box around all its calls when the module ran more than once).

Without a recording, `modules=model` groups by parameters alone: a module's box holds
its parameters and the ops that read them (directly or through ops of its parameters
only, such as a transpose of a weight). Modules without parameters (activations) get
no box that way; record the forward for the full picture.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._autograd.node import _sequence
from .._tensor import Tensor
from ..nn.modules import _module_hooks
from ..nn.modules.module import Module

if TYPE_CHECKING:
    from ._model import GraphEdge, GraphNode

__all__ = ["GraphGroup", "ModuleCall", "ModuleCalls", "assign_groups", "record_modules"]

Meta = tuple[tuple[int, ...], str]  # (shape, dtype name) of a tensor a call took or returned


@dataclass(slots=True)
class ModuleCall:
    """One call of one module, as `record_modules` saw it."""

    path: str  # qualified name below the root ("" for the root itself), e.g. "encoder.0"
    cls: str  # the module's class name
    label: str  # what a box shows: "0: Linear", "Sequential", "0: Linear (2)" for a 2nd call
    parent: int | None  # index of the call it ran inside, in ModuleCalls.calls
    start: int  # nodes made during the call have creation numbers start < seq < end
    end: int | None  # None while the call runs (or if it never returned)
    module: weakref.ref[Module]
    inputs: list[Meta] = field(default_factory=list)
    outputs: list[Meta] = field(default_factory=list)


@dataclass(slots=True)
class GraphGroup:
    """A module box of a drawing: some nodes, nested in its parent box."""

    id: int  # index in Graph.groups (parents come before their children)
    path: str
    cls: str
    label: str
    parent: int | None
    level: int  # boxes around it (0 for an outermost box)
    inputs: list[Meta] = field(default_factory=list)
    outputs: list[Meta] = field(default_factory=list)
    size: int = 0  # nodes inside, nested boxes' included

    def io_text(self) -> str:
        """`float32[8, 64] → float32[8, 32]`, or "" when the call's tensors are not known."""
        if not self.inputs and not self.outputs:
            return ""
        return f"{_types(self.inputs)} → {_types(self.outputs)}"


def _types(metas: Sequence[Meta]) -> str:
    if not metas:
        return "()"
    shown = ", ".join(f"{dtype}[{', '.join(map(str, shape))}]" for shape, dtype in metas[:3])
    return shown + (", …" if len(metas) > 3 else "")


class ModuleCalls:
    """The module calls seen during a `record_modules()` block, in the order they started."""

    def __init__(self, model: Module | None = None) -> None:
        if model is not None and not isinstance(model, Module):
            raise TypeError(
                f"record_modules() expects an nn.Module or None, got {type(model).__name__}"
            )
        self.calls: list[ModuleCall] = []
        self._open: list[int] = []  # calls now running, innermost last
        self._thread = threading.get_ident()
        # With a model, names come from it and other modules are not recorded.
        self._names: dict[int, str] | None = None
        if model is not None:
            self._names = {id(m): name for name, m in model.named_modules()}
        self._model = model
        self._relative: dict[int, dict[int, str]] = {}  # id(module) -> its submodules' names
        self._labels: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"<ModuleCalls: {len(self.calls)} module call{'s' * (len(self.calls) != 1)}>"

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[ModuleCall]:
        return iter(self.calls)

    # --- the hooks ---------------------------------------------------------------------

    def _before(self, module: Module, args: Any) -> None:
        if threading.get_ident() != self._thread:
            return
        if self._names is not None and id(module) not in self._names:
            return
        parent = self._open[-1] if self._open else None
        path = self._path(module, parent)
        cls = type(module).__name__
        label = f"{path}: {cls}" if path else cls
        seen = self._labels.get(label, 0) + 1
        self._labels[label] = seen
        if seen > 1:
            label = f"{label} ({seen})"
        call = ModuleCall(path, cls, label, parent, next(_sequence), None, weakref.ref(module))
        call.inputs = _metas(args)
        self._open.append(len(self.calls))
        self.calls.append(call)

    def _after(self, module: Module, args: Any, output: Any) -> None:
        if not self._open or threading.get_ident() != self._thread:
            return
        call = self.calls[self._open[-1]]
        if call.module() is not module:
            return  # a module this recording does not watch
        self._open.pop()
        call.end = next(_sequence)
        call.outputs = _metas(output)

    def _path(self, module: Module, parent: int | None) -> str:
        if self._names is not None:
            return self._names[id(module)]
        if parent is None:
            return ""  # an outermost call: the root its submodules are named from
        above = self.calls[parent]
        owner = above.module()
        if owner is None:
            return ""
        names = self._relative.get(id(owner))
        if names is None:
            names = self._relative[id(owner)] = {
                id(m): name for name, m in owner.named_modules() if name
            }
        name = names.get(id(module))
        if name is None:
            return ""  # not a submodule of the caller: named by its class, like a root
        return f"{above.path}.{name}" if above.path else name

    # --- which call made a node --------------------------------------------------------

    def innermost(self, seq: int, starts: Sequence[int] | None = None) -> int | None:
        """The index of the innermost call that node number `seq` was made in, or None.

        `starts` is `[c.start for c in calls]`, when many nodes are looked up."""
        if starts is None:
            starts = [c.start for c in self.calls]
        k = bisect.bisect_left(starts, seq) - 1
        while k is not None and k >= 0:
            call = self.calls[k]
            if call.end is None or seq < call.end:
                return k
            k = call.parent  # type: ignore[assignment]
        return None


def _metas(value: Any) -> list[Meta]:
    """(shape, dtype) of each tensor in `value` (nested tuples, lists and dicts), in order."""
    out: list[Meta] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            out.append((tuple(item._data.shape), str(item._data.dtype)))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
    return out


@contextlib.contextmanager
def record_modules(model: Module | None = None) -> Iterator[ModuleCalls]:
    """Record which module call makes each node, for boxes around modules in the drawings.

    ```
    with viz.record_modules(model) as calls:
        loss = loss_fn(model(x), y)
    viz.to_html(loss, "graph.html", modules=calls)
    ```
    With `model`, boxes are named by the path below it (`0: Linear`,
    `encoder.layers.0.self_attn: MultiheadAttention`) and other modules are left
    out; without it, every module call is recorded and an outermost call is named
    by its class. A module called twice gets a box per call (`0: Linear (2)`).
    Only the thread that entered the block is recorded.
    """
    calls = ModuleCalls(model)
    before = _module_hooks.register_module_forward_pre_hook(calls._before)
    after = _module_hooks.register_module_forward_hook(calls._after, always_call=True)
    try:
        yield calls
    finally:
        before.remove()
        after.remove()


# --- boxes for a graph -------------------------------------------------------------------


def assign_groups(
    nodes: Sequence[GraphNode], edges: Sequence[GraphEdge], modules: ModuleCalls | Module
) -> list[GraphGroup]:
    """The module boxes of a graph; sets `node.group` of every node inside one."""
    if isinstance(modules, ModuleCalls):
        owner, names = _from_calls(nodes, modules)
        boxes = [(c.path, c.cls, c.label, c.parent, c.inputs, c.outputs) for c in modules.calls]
    elif isinstance(modules, Module):
        owner, names, boxes = _from_parameters(nodes, edges, modules)
    else:
        raise TypeError(
            "modules must be what record_modules() recorded or an nn.Module, "
            f"got {type(modules).__name__}"
        )
    # Boxes with nodes, and the boxes around them, in the order the calls started.
    used: set[int] = set()
    for k in owner.values():
        c: int | None = k
        while c is not None and c not in used:
            used.add(c)
            c = boxes[c][3]
    group_of: dict[int, int] = {}
    groups: list[GraphGroup] = []
    for k in sorted(used):
        path, cls, label, parent, inputs, outputs = boxes[k]
        gp = group_of[parent] if parent is not None else None
        level = 0 if gp is None else groups[gp].level + 1
        group_of[k] = len(groups)
        groups.append(GraphGroup(len(groups), path, cls, label, gp, level, inputs, outputs))
    _name_parameters(nodes, edges, names)
    for node in nodes:
        call = owner.get(node.id)
        if call is None:
            continue
        node.group = group_of[call]
        g: int | None = node.group
        while g is not None:
            groups[g].size += 1
            g = groups[g].parent
    return groups


def _name_parameters(
    nodes: Sequence[GraphNode], edges: Sequence[GraphEdge], names: dict[int, str]
) -> None:
    """Parameter leaves with no name yet take their name in the model (`0.weight`)."""
    renamed: set[int] = set()
    for v, name in names.items():
        node = nodes[v]
        if node.var_name is None:
            node.var_name = node.label = name
            renamed.add(v)
    for e in edges:
        if e.src in renamed and e.name is None:
            e.name = nodes[e.src].var_name


def _from_calls(
    nodes: Sequence[GraphNode], calls: ModuleCalls
) -> tuple[dict[int, int], dict[int, str]]:
    """node id -> index of the call that made it (ops) or whose module owns it (parameters),
    and the parameters' names (the owner's path and the parameter's attribute)."""
    starts = [c.start for c in calls.calls]
    by_param: dict[int, list[int]] = {}
    param_names: dict[int, str] = {}
    for k, call in enumerate(calls.calls):
        module = call.module()
        if module is not None:
            for name, p in module._parameters.items():
                if p is not None:
                    by_param.setdefault(id(p), []).append(k)
                    param_names.setdefault(id(p), f"{call.path}.{name}" if call.path else name)
    owner: dict[int, int] = {}
    names: dict[int, str] = {}
    for node in nodes:
        if node.kind == "op":
            seq = getattr(node.node, "_seq", None)
            if seq is not None and starts:
                made_in = calls.innermost(seq, starts)
                if made_in is not None:
                    owner[node.id] = made_in
        elif node.kind == "leaf" and node.tensor is not None:
            found = by_param.get(id(node.tensor))
            if found:
                owner[node.id] = _common(calls.calls, found)
                names[node.id] = param_names[id(node.tensor)]
    return owner, names


def _common(calls: Sequence[ModuleCall], ks: Sequence[int]) -> int:
    """The innermost call around all of `ks` (itself when there is one)."""
    chains = []
    for k in ks:
        chain: list[int] = []
        c: int | None = k
        while c is not None:
            chain.append(c)
            c = calls[c].parent
        chains.append(chain[::-1])
    common = chains[0]
    for chain in chains[1:]:
        n = 0
        while n < min(len(common), len(chain)) and common[n] == chain[n]:
            n += 1
        common = common[:n]
    # Calls with no common outer call (two top-level calls): the first one's box.
    return common[-1] if common else ks[0]


Box = tuple[str, str, str, int | None, list[Meta], list[Meta]]


def _from_parameters(
    nodes: Sequence[GraphNode], edges: Sequence[GraphEdge], model: Module
) -> tuple[dict[int, int], dict[int, str], list[Box]]:
    """The boxes of `model`'s modules, holding their parameters and the ops reading them."""
    named = list(model.named_modules())
    index = {id(m): k for k, (_, m) in enumerate(named)}
    boxes: list[Box] = []
    for path, m in named:
        parent = index[id(_parent_of(model, path))] if path else None
        cls = type(m).__name__
        boxes.append((path, cls, f"{path}: {cls}" if path else cls, parent, [], []))
    by_param: dict[int, int] = {}
    param_names: dict[int, str] = {}
    for path, m in named:
        for name, p in m._parameters.items():
            if p is not None and id(p) not in by_param:
                by_param[id(p)] = index[id(m)]
                param_names[id(p)] = f"{path}.{name}" if path else name
    producers: list[list[int]] = [[] for _ in nodes]
    consumers: list[list[int]] = [[] for _ in nodes]
    for e in edges:
        producers[e.dst].append(e.src)
        consumers[e.src].append(e.dst)
    owner: dict[int, int] = {}
    names: dict[int, str] = {}
    only_params: set[int] = set()  # nodes computed from one module's parameters alone
    for v in _producers_first(len(nodes), producers, consumers):
        node = nodes[v]
        if node.kind == "leaf" and node.tensor is not None:
            k = by_param.get(id(node.tensor))
            if k is not None:
                owner[v] = k
                names[v] = param_names[id(node.tensor)]
                only_params.add(v)
        elif node.kind == "op":
            reading = [owner[u] for u in producers[v] if u in only_params]
            if reading:
                owner[v] = reading[0]
                # Inputs that do not require grad have no edge: count them from the node.
                inputs = len(node.node.next_functions) if node.node is not None else 0
                if len(reading) == inputs and len(set(reading)) == 1:
                    only_params.add(v)
    return owner, names, boxes


def _parent_of(model: Module, path: str) -> Module:
    parent = model
    for part in path.split(".")[:-1]:
        parent = parent._modules[part]  # type: ignore[assignment]
    return parent


def _producers_first(
    n: int, producers: Sequence[list[int]], consumers: Sequence[list[int]]
) -> list[int]:
    """The nodes in an order where every producer comes before its consumers (Kahn)."""
    waiting = [len(p) for p in producers]
    ready = [v for v in range(n) if waiting[v] == 0]
    order: list[int] = []
    while ready:
        v = ready.pop()
        order.append(v)
        for c in consumers[v]:
            waiting[c] -= 1
            if waiting[c] == 0:
                ready.append(c)
    return order
