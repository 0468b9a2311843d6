"""The one walk of the backward graph that every view (text, DOT, HTML) draws from:
`build_graph`, breadth-first with an explicit queue, in O(nodes + edges).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._ops.primitive import OpNode
from .._tensor import Tensor
from ..autograd.function import BackwardCFunction
from ..autograd.graph import AccumulateGrad, Node
from ..nn.modules.module import Module
from ._modules import GraphGroup, ModuleCalls, assign_groups
from ._names import NameTable

if TYPE_CHECKING:
    from ._record import Recording

__all__ = [
    "Graph",
    "GraphEdge",
    "GraphGroup",
    "GraphNode",
    "SavedInfo",
    "build_graph",
    "dtype_name",
    "input_name",
    "output_count",
    "type_text",
]

Shape = tuple[int, ...]


@dataclass(slots=True)
class SavedInfo:
    """A tensor a node saved for its backward."""

    name: str  # torch name: "self", "other", "result", "saved_tensors[0]", ...
    shape: Shape | None
    dtype: str | None  # "float32"
    freed: bool  # released by a backward that did not retain the graph


@dataclass(slots=True, eq=False)
class GraphNode:
    """A box of the drawing: an op (grad_fn), a leaf, a drawn tensor, or collapsed nodes."""

    id: int  # index in Graph.nodes
    kind: str  # "op", "leaf", "tensor" or "collapsed"
    name: str  # torch node name ("MulBackward0", "AccumulateGrad") or the tensor's label
    label: str  # what a drawing shows as the title
    var_name: str | None = None  # the tensor's name where known (names=, t.name)
    shape: Shape | None = None  # shape of the node's (first) output / of the leaf tensor
    dtype: str | None = None
    saved: list[SavedInfo] = field(default_factory=list)
    freed: bool = False  # this node's saved tensors were released by a backward
    depth: int = 0  # edges from the nearest root (roots are 0)
    node: Any = None  # the autograd Node, or None for kinds "tensor" and "collapsed"
    tensor: Any = None  # the leaf's tensor / the drawn tensor, else None
    value: np.ndarray | None = None  # forward output (ops: from a Recording or a named tensor)
    grad: np.ndarray | None = None  # gradient that flowed into the node (leaf: its .grad)
    hidden: int = 0  # kind "collapsed": how many nodes it stands for, else 0
    group: int | None = None  # the innermost module box holding the node (Graph.groups)


@dataclass(slots=True)
class GraphEdge:
    """A tensor flowing forward from `src` (an input) into `dst` (the node that used it)."""

    src: int  # producer (the input side; forward direction)
    dst: int  # consumer
    index: int  # position of this input in dst's next_functions
    shape: Shape | None
    dtype: str | None
    output_nr: int = 0  # which output of `src` flows (ops such as split have several)
    name: str | None = None  # the flowing tensor's name where known


@dataclass(eq=False)
class Graph:
    """Nodes in breadth-first order from the roots, the edges between them, and the
    module boxes around nodes (empty unless drawn with `modules=`)."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    roots: list[int]
    groups: list[GraphGroup] = field(default_factory=list)

    def inputs(self) -> list[list[GraphEdge]]:
        """For each node id, the edges into it, by input position."""
        out: list[list[GraphEdge]] = [[] for _ in self.nodes]
        for edge in self.edges:
            out[edge.dst].append(edge)
        for edges in out:
            if len(edges) > 1:
                edges.sort(key=lambda e: e.index)
        return out


_dtype_names: dict[Any, str] = {}


def dtype_name(dtype: Any) -> str | None:
    """The name of a NumPy or chainrule dtype (both have `.name`); None for None."""
    if dtype is None:
        return None
    name = _dtype_names.get(dtype)
    if name is None:  # NumPy's `.name` is slow enough to matter on big graphs: cached
        name = getattr(dtype, "name", None)
        name = _dtype_names[dtype] = name if isinstance(name, str) else str(np.dtype(dtype))
    return name


def type_text(shape: Shape | None, dtype: str | None) -> str:
    """`float32[2, 3]`; a 0-d tensor is `float32[]`, unknown parts are `?`."""
    dims = "?" if shape is None else ", ".join(map(str, shape))
    return f"{dtype or '?'}[{dims}]"


def input_name(node: Any, index: int) -> str:
    """What input `index` of `node` is called: "self", "other", "tensors[1]", "input 0"."""
    if isinstance(node, OpNode):
        names = node._prim.inputs
        if node._prim.variadic:
            return f"{names[0]}[{index}]"
        if index < len(names):
            return names[index]
    return f"input {index}"


def output_count(node: Any) -> int:
    """How many outputs `node`'s forward had (ops such as split have several)."""
    meta = getattr(node, "_output_meta", None)
    return len(meta) if meta else 1


def build_graph(
    *tensors: Tensor | Node,
    names: Mapping[str, Tensor] | None = None,
    recording: Recording | None = None,
    max_depth: int | None = None,
    modules: ModuleCalls | Module | None = None,
) -> Graph:
    """The graph behind `tensors` (tensors or grad_fn nodes), walked once.

    `names` maps names to tensors (leaves or intermediate results); it wins over
    `t.name`. With a `recording` (see `viz.record()`), op nodes carry their
    forward values and the gradients of the last backward. With `max_depth`,
    nodes more than `max_depth` edges from a root are replaced by "collapsed"
    nodes, one per node at the boundary, each counting the nodes it hides.
    With `modules` (what `viz.record_modules()` recorded, or the model itself),
    nodes are grouped in boxes by the module that made them (`Graph.groups`).
    """
    if not tensors:
        raise TypeError("build_graph() needs at least one tensor or grad_fn to draw")
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be >= 0, got {max_depth}")
    table = NameTable(names)
    for t in tensors:
        if isinstance(t, Tensor):
            table.add_drawn(t)
        elif not isinstance(t, Node):
            raise TypeError(f"expected a Tensor or a grad_fn node, got {type(t).__name__}")
    graph = _Walk(table, recording, max_depth).run(tensors)
    if modules is not None:
        graph.groups = assign_groups(graph.nodes, graph.edges, modules)
    return graph


class _Walk:
    """State of one breadth-first walk (see build_graph)."""

    def __init__(self, table: NameTable, recording: Recording | None, max_depth: int | None):
        self.table = table
        self.recording = recording
        self.max_depth = max_depth
        self.nodes: list[GraphNode] = []
        self.edges: list[GraphEdge] = []
        # id(tensor or Node) -> the graph node that shows it (a collapsed one if hidden).
        self.owner: dict[int, int] = {}
        self.depth: dict[int, int] = {}
        self.collapsed_below: dict[int, int] = {}  # boundary node id -> its collapsed node id
        self.collapsed_edges: set[tuple[int, int]] = set()

    def run(self, roots: Sequence[Tensor | Node]) -> Graph:
        queue: deque[Any] = deque()
        root_ids: list[int] = []
        for obj in roots:
            if isinstance(obj, Tensor) and obj._grad_fn is None and obj._accumulator is not None:
                # A drawn leaf is its AccumulateGrad node, which the graph may reach too.
                obj = obj._accumulator() or obj
            if id(obj) in self.owner:
                continue
            gid = self._add_visible(obj, 0, None)
            self.owner[id(obj)] = gid
            self.depth[id(obj)] = 0
            root_ids.append(gid)
            queue.append(obj)
        while queue:
            obj = queue.popleft()
            key = id(obj)
            depth = self.depth[key]
            dst = self.owner[key]
            dst_hidden = self.nodes[dst].kind == "collapsed"
            for index, (producer, output_nr, meta) in enumerate(_inputs(obj)):
                if producer is None:
                    continue
                pkey = id(producer)
                if pkey not in self.owner:
                    self.depth[pkey] = depth + 1
                    self.owner[pkey] = self._add(producer, depth + 1, meta, dst, dst_hidden)
                    queue.append(producer)
                src = self.owner[pkey]
                if src == dst:
                    continue
                shape, dtype = (None, None) if meta is None else _meta(meta)
                if shape is None and output_nr == 0:
                    shape, dtype = self.nodes[src].shape, self.nodes[src].dtype
                if dst_hidden:
                    if (src, dst) in self.collapsed_edges:
                        continue  # many hidden edges between two boxes are drawn once
                    self.collapsed_edges.add((src, dst))
                name = (
                    self.nodes[src].var_name
                    if output_nr == 0
                    else self.table.of_output(producer, output_nr)
                )
                self.edges.append(GraphEdge(src, dst, index, shape, dtype, output_nr, name))
        for n in self.nodes:
            if n.kind == "collapsed":
                n.label = f"{n.hidden:,} hidden node" + ("" if n.hidden == 1 else "s")
        return Graph(self.nodes, self.edges, root_ids)

    def _add(self, obj: Any, depth: int, meta: Any, parent: int, parent_hidden: bool) -> int:
        """A graph node for `obj`, reached first from graph node `parent`."""
        if self.max_depth is None or depth <= self.max_depth:
            return self._add_visible(obj, depth, meta)
        if parent_hidden:
            collapsed = parent  # deeper hidden nodes join their discoverer's box
        else:
            collapsed = self.collapsed_below.get(parent, -1)
            if collapsed < 0:
                collapsed = len(self.nodes)
                self.nodes.append(GraphNode(collapsed, "collapsed", "collapsed", "", depth=depth))
                self.collapsed_below[parent] = collapsed
        self.nodes[collapsed].hidden += 1
        return collapsed

    def _add_visible(self, obj: Any, depth: int, meta: Any) -> int:
        gid = len(self.nodes)
        if isinstance(obj, Tensor):
            node = self._tensor_node(gid, obj, depth)
        elif isinstance(obj, AccumulateGrad):
            node = self._leaf_node(gid, obj.variable, obj, depth)
        else:
            node = self._op_node(gid, obj, depth, meta)
        self.nodes.append(node)
        return gid

    def _tensor_node(self, gid: int, t: Tensor, depth: int) -> GraphNode:
        if t._grad_fn is None and t._requires_grad:
            acc = t._accumulator() if t._accumulator is not None else None
            return self._leaf_node(gid, t, acc, depth)
        name = self.table.of_tensor(t)
        box = GraphNode(gid, "tensor", name or "tensor", name or "output", name, depth=depth)
        return _showing(box, t)

    def _leaf_node(self, gid: int, t: Tensor, acc: Any, depth: int) -> GraphNode:
        name = self.table.of_tensor(t)
        box = GraphNode(gid, "leaf", "AccumulateGrad", name or "leaf", name, depth=depth, node=acc)
        return _showing(box, t)

    def _op_node(self, gid: int, node: Node, depth: int, meta: Any) -> GraphNode:
        name = node.name().rsplit("::", 1)[-1]
        out_meta = getattr(node, "_output_meta", ())
        shape, dtype = _meta(out_meta[0]) if out_meta else _meta(meta) if meta else (None, None)
        value = grad = None
        if self.recording is not None:
            value = _first(self.recording.value(node))
            grad = _first(self.recording.grad_outputs(node))
        output = self.table.tensor_of_output(node, 0)
        if output is not None:
            if shape is None:  # a bare root node: its named output tells
                shape, dtype = tuple(output._data.shape), dtype_name(output._data.dtype)
            value = output._data if value is None else value
            grad = _array(output._grad) if grad is None else grad
        var_name = self.table.of_output(node, 0)
        box = GraphNode(gid, "op", name, name, var_name, depth=depth, node=node)
        box.shape, box.dtype, box.value, box.grad = shape, dtype, value, grad
        box.saved, box.freed = _saved_infos(node, shape, dtype)
        return box


def _showing(box: GraphNode, t: Tensor) -> GraphNode:
    """`box` (a leaf's or a drawn tensor's) with the type, value and gradient of `t`."""
    box.shape, box.dtype = tuple(t._data.shape), dtype_name(t._data.dtype)
    box.tensor, box.value, box.grad = t, t._data, _array(t._grad)
    return box


def _inputs(obj: Any) -> list[tuple[Any, int, Any]]:
    """(producer, output_nr, (shape, dtype) or None) for each input of a tensor or node."""
    if isinstance(obj, Tensor):
        if obj._grad_fn is None:
            return []
        return [(obj._grad_fn, obj._output_nr, (obj._data.shape, obj._data.dtype))]
    edges = obj.next_functions
    metas = getattr(obj, "_input_meta", None)
    if metas is None or len(metas) != len(edges):
        return [(p, nr, None) for p, nr in edges]
    return [(p, nr, m) for (p, nr), m in zip(edges, metas, strict=True)]


def _meta(meta: Any) -> tuple[Shape | None, str | None]:
    shape, dtype = meta
    return (shape if type(shape) is tuple else tuple(shape)), dtype_name(dtype)


def _array(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value._data
    return np.asarray(value)


def _first(values: Sequence[Any] | None) -> np.ndarray | None:
    return _array(values[0]) if values else None


def _saved_infos(
    node: Node, shape: Shape | None, dtype: str | None
) -> tuple[list[SavedInfo], bool]:
    """What `node` saved for backward, and whether a backward has freed it."""
    if isinstance(node, OpNode):
        return _op_saved(node, shape, dtype)
    if isinstance(node, BackwardCFunction):
        if node._saved is None:
            return [], True  # a custom Function's saved list is gone with its length
        infos = []
        for k, s in enumerate(node._saved):
            data = None if s is None else s.tensor._data if s.tensor is not None else s.data
            infos.append(
                SavedInfo(
                    f"saved_tensors[{k}]",
                    None if data is None else tuple(data.shape),
                    dtype_name(None if data is None else data.dtype),
                    False,
                )
            )
        return infos, False
    return [], False


def _op_saved(node: OpNode, shape: Shape | None, dtype: str | None) -> tuple[list[SavedInfo], bool]:
    prim = node._prim
    saved = node._saved_names()
    freed = saved is None
    if saved is None:
        # The names are gone with the dict: ask the primitive what it saved, from which
        # inputs required grad (exactly those with an edge).
        save_inputs, save_outputs = prim.save_plan(tuple(p is not None for p in node._next[::2]))
        names = {name for _, name in (*save_inputs, *save_outputs)}
    else:
        names = set(saved)
    infos: list[SavedInfo] = []
    metas = node._input_meta
    for i, name in enumerate(prim.inputs):
        if name not in names:
            continue
        if prim.variadic:
            for k, m in enumerate(metas):
                infos.append(SavedInfo(f"{name}[{k}]", *_meta(m), freed))
        elif i < len(metas):
            infos.append(SavedInfo(name, *_meta(metas[i]), freed))
    for k, name in enumerate(prim.outputs):
        if name not in names:
            continue
        if node._output_meta:
            infos.append(SavedInfo(name, *_meta(node._output_meta[k]), freed))
        else:
            infos.append(SavedInfo(name, shape, dtype, freed))
    return infos, freed
