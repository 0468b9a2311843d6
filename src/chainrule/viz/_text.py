"""The graph as a text tree, from the output down to the leaves (`format_graph`).
A line reads `slot: name = NodeName #k  dtype[shape]  saved: ...`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

from .._tensor import Tensor
from ..autograd.graph import Node
from ._model import Graph, GraphEdge, GraphNode, build_graph, input_name, output_count, type_text

if TYPE_CHECKING:
    from ..nn.modules.module import Module
    from ._modules import ModuleCalls
    from ._record import Recording

__all__ = ["format_graph", "print_graph"]

# Past this many levels a subtree restarts at the left margin (a long chain would
# otherwise make lines, and the whole text, grow quadratically with its length).
MAX_INDENT = 24


def format_graph(
    *tensors: Tensor | Node | Graph,
    names: Mapping[str, Tensor] | None = None,
    max_depth: int | None = None,
    recording: Recording | None = None,
    modules: ModuleCalls | Module | None = None,
) -> str:
    """The backward graph of `tensors` (tensors, grad_fn nodes, or a built Graph) as a tree.

    Each line shows which input of the node above it is (`self:`), the tensor's
    name where known (`b = `), the torch node name and a number `#k`, the dtype
    and shape flowing up the edge, the node's saved tensors, and `[freed]` once a
    backward released them. A node reached again is printed as a reference
    `(see #k)`. `names` maps names to tensors (see `names_from`); `max_depth`
    collapses what lies deeper. With `modules` (see `record_modules`), a line ends
    with the module that made the node, as `[0: Linear]`.
    """
    if len(tensors) == 1 and isinstance(tensors[0], Graph):
        graph = tensors[0]
    else:
        items = [t for t in tensors if not isinstance(t, Graph)]
        if len(items) != len(tensors):
            raise TypeError("format_graph() takes tensors and nodes, or one Graph alone")
        graph = build_graph(
            *items, names=names, recording=recording, max_depth=max_depth, modules=modules
        )
    return "\n".join(_lines(graph)) + "\n"


def print_graph(
    *tensors: Tensor | Node | Graph,
    names: Mapping[str, Tensor] | None = None,
    max_depth: int | None = None,
    recording: Recording | None = None,
    file: TextIO | None = None,
    modules: ModuleCalls | Module | None = None,
) -> None:
    """Print `format_graph(...)` (to `file`, standard output by default)."""
    text = format_graph(
        *tensors, names=names, max_depth=max_depth, recording=recording, modules=modules
    )
    (file if file is not None else sys.stdout).write(text)


def _lines(graph: Graph) -> list[str]:
    nodes = graph.nodes
    inputs = graph.inputs()
    numbers: dict[int, int] = {}
    lines: list[str] = []
    for root in graph.roots:
        top = nodes[root]
        edge: GraphEdge | None = None
        start = root
        if top.kind == "tensor":
            if not inputs[root]:
                kind = type_text(top.shape, top.dtype)
                lines.append(f"{top.label}  {kind}  (does not require grad: no graph)")
                continue
            # A drawn tensor is shown as the node that made it, under the tensor's name.
            edge = inputs[root][0]
            start = edge.src
        # (node id, slot, name, edge it flows along, prefix of its line, prefix of its inputs)
        stack: list[tuple[int, str, str | None, GraphEdge | None, str, str]] = [
            (start, "", top.var_name, edge, "", "")
        ]
        while stack:
            gid, slot, name, edge, prefix, below = stack.pop()
            node = nodes[gid]
            seen = numbers.get(gid)
            tag = f"  [{graph.groups[node.group].label}]" if node.group is not None else ""
            if seen is not None:
                line = _describe(node, slot, name, edge, None)
                lines.append(f"{prefix}{line}  (see #{seen}){tag}")
                continue
            number = numbers[gid] = len(numbers) + 1
            lines.append(prefix + _describe(node, slot, name, edge, number) + tag)
            edges = inputs[gid]
            if not edges:
                continue
            if len(below) >= 3 * MAX_INDENT:
                lines.append(f"#{number} continued:")
                below = ""
            many = node.node is not None and len(node.node.next_functions) > 1
            for i in range(len(edges) - 1, -1, -1):
                e = edges[i]
                last = i == len(edges) - 1
                child_slot = input_name(node.node, e.index) if many else ""
                stack.append(
                    (
                        e.src,
                        child_slot,
                        e.name,
                        e,
                        below + ("└─ " if last else "├─ "),
                        below + ("   " if last else "│  "),
                    )
                )
    return lines


def _describe(
    node: GraphNode, slot: str, name: str | None, edge: GraphEdge | None, number: int | None
) -> str:
    """One line's text, without the tree prefix."""
    head = f"… {node.label}" if node.kind == "collapsed" else node.name
    if name:
        head = f"{name} = {head}"
    if slot:
        head = f"{slot}: {head}"
    if number is not None:
        head += f" #{number}"
    if edge is not None and output_count(node.node) > 1:
        head += f" (output {edge.output_nr})"
    if edge is not None and edge.shape is not None:
        head += f"  {type_text(edge.shape, edge.dtype)}"
    elif node.shape is not None:
        head += f"  {type_text(node.shape, node.dtype)}"
    if number is not None and (node.saved or node.freed):
        saved = ", ".join(f"{s.name} {type_text(s.shape, s.dtype)}" for s in node.saved)
        if node.freed:
            saved = f"{saved} [freed]".lstrip()
        head += f"  saved: {saved}"
    return head
