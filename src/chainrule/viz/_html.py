"""The graph as one interactive, self-contained HTML page (`to_html`): no network, no CDN.

Python lays the graph out (`_layout`); the page's inline script draws it on a canvas,
pans and zooms, and shows a clicked node's values, gradients, saved tensors and rule.
Module boxes (`modules=`) collapse and expand with a click; the script then lays the
graph out again with its own copy of `_layout`'s algorithm.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ..autograd.graph import Node
from . import _layout
from ._layout import Layout, box_size, layout, paused_gc
from ._model import Graph, GraphNode, build_graph, input_name, output_count, type_text
from ._rules import local_derivatives
from ._summary import summarize

if TYPE_CHECKING:
    from ..nn.modules.module import Module
    from ._modules import ModuleCalls
    from ._record import Recording

__all__ = ["COLLAPSE_ABOVE", "COLORS", "DETAIL_LIMIT", "MODULE_COLORS", "graph_html", "to_html"]

KINDS = ("op", "leaf", "tensor", "collapsed")
# Fill and outline of each kind's boxes, in the drawing and its legend.
COLORS = {
    "op": ("#e9ecef", "#868e96"),
    "leaf": ("#d0ebff", "#339af0"),
    "tensor": ("#d3f9d8", "#40c057"),
    "collapsed": ("#fff3bf", "#f59f00"),
}
# Values, gradients and rules are embedded for this many nodes (those nearest the roots):
# beyond it a page would grow by kilobytes per node and take long to write.
DETAIL_LIMIT = 2000
# A page opens with module boxes collapsed, outermost last, until at most this many boxes
# show; smaller graphs open with every box expanded.
COLLAPSE_ABOVE = 60
# Fill and outline of a collapsed module's box, and of an expanded module's frame.
MODULE_COLORS = {"node": ("#f3f0ff", "#7950f2"), "frame": ("#f8f9fa", "#adb5bd")}


def to_html(
    t: Tensor | Node | Sequence[Tensor | Node],
    path: str | Path | None = None,
    names: Mapping[str, Tensor] | None = None,
    recording: Recording | None = None,
    max_depth: int | None = None,
    title: str | None = None,
    modules: ModuleCalls | Module | None = None,
) -> str:
    """An interactive page drawing the graph behind `t` (a tensor, grad_fn, or several).

    The page is one file that works offline: drag to pan, wheel or +/- to zoom,
    "fit" to see everything, click a node for its op, value, gradient, saved
    tensors and local derivative. Op nodes show values and gradients when a
    `recording` (`with viz.record() as rec:`) watched the forward and backward.
    With `path`, the page is also written there. `names` maps names to tensors;
    `max_depth` collapses what lies deeper than that many edges from `t`.
    With `modules` (see `record_modules`, or the model itself), each module's nodes
    sit in a box; click its title to collapse it into one node, click that node to
    expand it again. Graphs of more than COLLAPSE_ABOVE nodes open collapsed.
    """
    roots = tuple(t) if isinstance(t, list | tuple) else (t,)
    graph = build_graph(
        *roots, names=names, recording=recording, max_depth=max_depth, modules=modules
    )
    if title is None:
        first = graph.nodes[graph.roots[0]] if graph.roots else None
        title = f"Backward graph of {first.label}" if first is not None else "Backward graph"
    page = graph_html(graph, title, recording)
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


def graph_html(
    graph: Graph, title: str = "Backward graph", recording: Recording | None = None
) -> str:
    """The page for a built `Graph` (see `to_html`)."""
    with paused_gc():
        texts = [_box_lines(node) for node in graph.nodes]
        drawing = layout(graph, [box_size(lines) for lines in texts])
        payload = _payload(graph, drawing, texts, recording)
        if graph.groups:
            payload.update(_groups(graph, payload["strings"]))
            payload["layers"] = drawing.layers
    return _PAGE.format(
        title=html.escape(title),
        stats=html.escape(_stats(graph)),
        legend=_legend(bool(graph.groups)),
        tools=_GROUP_TOOLS if graph.groups else "",
        hint=" · click a module's title to collapse it" if graph.groups else "",
        css=_asset("viewer.css"),
        data=_script_json(payload),
        layout_js=_asset("layout.js"),
        drawing_js=_asset("drawing.js"),
        js=_asset("viewer.js"),
    )


def _box_lines(node: GraphNode) -> list[str]:
    """The text drawn in a node's box: its title and the type of what it outputs."""
    if node.kind == "collapsed":
        return [f"… {node.label}"]
    if node.kind == "op":
        title = f"{node.var_name} = {node.name}" if node.var_name else node.name
    else:
        title = node.label
    if node.shape is None and node.dtype is None:
        return [title]
    return [title, type_text(node.shape, node.dtype)]


def _payload(
    graph: Graph, drawing: Layout, texts: list[list[str]], recording: Recording | None
) -> dict[str, Any]:
    """What the page's script reads: columns of numbers, strings stored once and indexed."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def ref(text: str) -> int:
        k = index.get(text)
        if k is None:
            k = index[text] = len(strings)
            strings.append(text)
        return k

    kinds = {kind: k for k, kind in enumerate(KINDS)}
    nodes = graph.nodes
    boxes = drawing.positions
    edges = graph.edges
    return {
        "kinds": list(KINDS),
        "colors": [COLORS[kind] for kind in KINDS],
        "width": drawing.width,
        "height": drawing.height,
        "detailLimit": DETAIL_LIMIT,
        "nodes": {
            "x": [b[0] for b in boxes],
            "y": [b[1] for b in boxes],
            "w": [b[2] for b in boxes],
            "h": [b[3] for b in boxes],
            "kind": [kinds[node.kind] for node in nodes],
            "freed": [int(node.freed) for node in nodes],
            "text": [[ref(line) for line in lines] for lines in texts],
        },
        "edges": {
            "src": [e.src for e in edges],
            "dst": [e.dst for e in edges],
            "slot": [e.index for e in edges],
            # Which output of its producer an edge carries, for ops with several (else -1).
            "output": [e.output_nr if output_count(nodes[e.src].node) > 1 else -1 for e in edges],
            "name": [ref(_slot_name(nodes[e.dst], e.index)) for e in edges],
            "type": [ref(type_text(e.shape, e.dtype)) for e in edges],
            "pts": [[c for point in route for c in point] for route in drawing.edges],
        },
        "details": _details(graph, recording),
        "strings": strings,
    }


def _groups(graph: Graph, strings: list[str]) -> dict[str, Any]:
    """The module boxes, for a page that collapses and expands them (and lays out again)."""
    index = {text: k for k, text in enumerate(strings)}

    def ref(text: str) -> int:
        k = index.get(text)
        if k is None:
            k = index[text] = len(strings)
            strings.append(text)
        return k

    groups = graph.groups
    texts = []
    for g in groups:
        nodes = f"{g.size:,} node{'s' * (g.size != 1)}"
        texts.append([f"{g.label} · {nodes}", *([g.io_text()] if g.io_text() else [])])
    sizes = [box_size(lines) for lines in texts]
    return {
        "groups": {
            "label": [ref(g.label) for g in groups],
            "parent": [-1 if g.parent is None else g.parent for g in groups],
            "text": [[ref(line) for line in lines] for lines in texts],
            "w": [w for w, _ in sizes],
            "h": [h for _, h in sizes],
            "collapsed": [int(c) for c in collapsed_at_first(graph)],
            "colors": MODULE_COLORS,
        },
        "nodeGroup": [-1 if n.group is None else n.group for n in graph.nodes],
        "roots": graph.roots,
        # The layout's settings, for the script's copy of its algorithm.
        "layout": {
            name: getattr(_layout, name)
            for name in (
                "LAYER_GAP",
                "NODE_GAP",
                "DUMMY_GAP",
                "MARGIN",
                "DUMMY_WEIGHT",
                "ORDER_SWEEPS",
                "PLACE_PASSES",
                "GROUP_GAP",
                "GROUP_ROOM",
            )
        },
    }


def collapsed_at_first(graph: Graph) -> list[bool]:
    """Which boxes a page opens collapsed: outer levels of boxes open first, while the
    drawing keeps at most COLLAPSE_ABOVE boxes (nodes and collapsed modules)."""
    groups = graph.groups
    direct = [0] * len(groups)  # nodes right inside each box, and boxes right inside
    outside = 0
    for node in graph.nodes:
        if node.group is None:
            outside += 1
        else:
            direct[node.group] += 1
    for g in groups:
        if g.parent is not None:
            direct[g.parent] += 1
    collapsed = [True] * len(groups)
    shown = outside + sum(1 for g in groups if g.parent is None)
    # A level of boxes opens as a whole, or not at all (and then no deeper one does).
    for level in range(max(g.level for g in groups) + 1 if groups else 0):
        opening = [g.id for g in groups if g.level == level]
        more = sum(direct[k] - 1 for k in opening)
        if shown + more > COLLAPSE_ABOVE:
            break
        shown += more
        for k in opening:
            collapsed[k] = False
    return collapsed


def _slot_name(consumer: GraphNode, index: int) -> str:
    """What an edge's tensor is called at its consumer: `self`, `other`, or `result` when
    the consumer is the drawn tensor (which is its producer's result)."""
    if consumer.kind == "tensor":
        return "result"
    if consumer.node is None:
        return "input"
    return input_name(consumer.node, index)


def _details(graph: Graph, recording: Recording | None) -> list[dict[str, Any] | None]:
    """What the panel shows for each node; None past the DETAIL_LIMIT nodes nearest a root."""
    nodes = graph.nodes
    kept = sorted(range(len(nodes)), key=lambda v: (nodes[v].depth, v))[:DETAIL_LIMIT]
    details: list[dict[str, Any] | None] = [None] * len(nodes)
    for v in kept:
        node = nodes[v]
        sent = recording.grad_inputs(node.node) if recording is not None and node.node else None
        details[v] = {
            "name": node.name,
            "var": node.var_name,
            "type": None if node.kind == "collapsed" else type_text(node.shape, node.dtype),
            "depth": node.depth,
            "hidden": node.hidden,
            "value": None if node.value is None else summarize(node.value),
            "valueHint": _value_hint(node),
            "grad": None if node.grad is None else summarize(node.grad),
            "sent": None if sent is None else [None if g is None else summarize(g) for g in sent],
            "saved": [[s.name, type_text(s.shape, s.dtype), s.freed] for s in node.saved],
            "freed": node.freed,
            "rules": local_derivatives(node.node) if node.node is not None else [],
        }
    return details


def _value_hint(node: GraphNode) -> str:
    if node.kind == "collapsed":
        return "hidden nodes: draw with a larger max_depth to see them"
    return (
        "not recorded: run the forward inside `with chainrule.viz.record() as rec:` "
        "and pass recording=rec"
    )


def _stats(graph: Graph) -> str:
    n, m = len(graph.nodes), len(graph.edges)
    return f"{n:,} node{'s' * (n != 1)} · {m:,} edge{'s' * (m != 1)}"


def _legend(modules: bool = False) -> str:
    words = {"op": "op", "leaf": "leaf", "tensor": "output", "collapsed": "collapsed"}
    items = [
        f'<span style="--fill: {COLORS[k][0]}; --stroke: {COLORS[k][1]}">{words[k]}</span>'
        for k in KINDS
    ]
    if modules:
        fill, stroke = MODULE_COLORS["node"]
        items.append(
            f'<span style="--fill: {fill}; --stroke: {stroke}" '
            'title="a collapsed module: click it to expand">module</span>'
        )
    items.append(
        '<span class="crv-freed" style="--stroke: #495057" '
        'title="a backward freed what the node saved">freed</span>'
    )
    return "".join(items)


def _script_json(payload: dict[str, Any]) -> str:
    """JSON that is safe inside <script>: no `<` (so no `</script>` or `<!--`) and no line
    separators that older JavaScript parsers choke on."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


_GROUP_TOOLS = """
<button type="button" data-act="collapse" title="Collapse every module">collapse all</button>
<button type="button" data-act="expand" title="Expand every module">expand all</button>"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<style>
{css}</style>
</head>
<body>
<div class="crv">
<header class="crv-bar">
<span class="crv-title">{title}</span>
<span class="crv-stats">{stats}</span>
<span class="crv-legend">{legend}</span>
<span class="crv-tools">
<button type="button" data-act="zoom-out" title="Zoom out (-)">&minus;</button>
<button type="button" data-act="zoom-in" title="Zoom in (+)">+</button>
<button type="button" data-act="fit" title="Fit the graph (0)">fit</button>{tools}
</span>
</header>
<div class="crv-main">
<div class="crv-stage">
<canvas id="crv-canvas" aria-label="{title}"></canvas>
<div class="crv-hint">drag to pan · wheel to zoom · click a node for details{hint}</div>
</div>
<aside id="crv-panel" class="crv-panel" hidden></aside>
</div>
</div>
<script type="application/json" id="crv-data">{data}</script>
<script>
{layout_js}
{drawing_js}
{js}</script>
</body>
</html>
"""
