"""The graph as Graphviz DOT text (no dependency), rendered files and a notebook view.
Leaves are light blue, ops grey, the drawn output green; edges carry dtype and shape.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ..autograd.graph import Node
from ._model import Graph, GraphNode, build_graph, output_count, type_text
from ._summary import summarize
from ._text import format_graph

if TYPE_CHECKING:
    from ..nn.modules.module import Module
    from ._modules import ModuleCalls
    from ._record import Recording

__all__ = ["GraphView", "graph_to_dot", "graphviz_available", "render", "show", "to_dot"]

INSTALL_HINT = (
    'install the graphviz Python package with `pip install "chainrule[viz]"` (or `pip install '
    "graphviz`) and the Graphviz programs with `apt-get install graphviz` (Debian, Ubuntu) or "
    "`brew install graphviz` (macOS); to_dot() needs neither"
)

_STYLE = {
    "op": 'fillcolor="#d9d9d9"',
    "leaf": 'fillcolor="#add8e6"',
    "tensor": 'fillcolor="#caff70"',
    "collapsed": 'fillcolor="#ffffff", style="filled,dashed"',
}


def to_dot(
    *tensors: Tensor | Node,
    names: Mapping[str, Tensor] | None = None,
    params: Mapping[str, Tensor] | None = None,
    show_saved: bool = False,
    show_values: bool = False,
    max_depth: int | None = None,
    recording: Recording | None = None,
    modules: ModuleCalls | Module | None = None,
) -> str:
    """Graphviz DOT text for the backward graph of `tensors` (or grad_fn nodes).

    `names` (or `params`, as in `dict(model.named_parameters())`) maps names to
    tensors. `show_saved` adds each op's saved tensors as small orange nodes
    (dashed once a backward freed them); `show_values` adds forward values and
    gradients to the boxes (ops have them when drawn from a `recording`).
    `modules` (see `record_modules`) draws each module's nodes in a cluster.
    """
    merged = dict(names or {})
    for key, tensor in (params or {}).items():
        merged.setdefault(key, tensor)  # names= first: where both name a tensor, it wins
    graph = build_graph(
        *tensors, names=merged, recording=recording, max_depth=max_depth, modules=modules
    )
    return graph_to_dot(graph, show_saved=show_saved, show_values=show_values)


def graph_to_dot(graph: Graph, show_saved: bool = False, show_values: bool = False) -> str:
    """DOT text for a built Graph (see `to_dot`); module boxes become nested clusters."""
    out = [
        "digraph chainrule {",
        '  graph [ranksep=0.3, nodesep=0.25, fontname="Helvetica"];',
        '  node [shape=box, style=filled, fontname="Helvetica", fontsize=10, height=0.25];',
        '  edge [fontname="Helvetica", fontsize=8, color="#555555"];',
    ]
    nodes = graph.nodes
    inside: list[list[int]] = [[] for _ in range(len(graph.groups) + 1)]  # last: no box
    for n in nodes:
        inside[n.group if n.group is not None else -1].append(n.id)
    children: list[list[int]] = [[] for _ in range(len(graph.groups) + 1)]
    for group in graph.groups:
        children[group.parent if group.parent is not None else -1].append(group.id)
    # Boxes nest: a stack of (box, indent, opening or closing), each box's nodes then
    # its inner boxes.
    stack: list[tuple[int, str, bool]] = [(-1, "  ", True)]
    while stack:
        g, indent, opening = stack.pop()
        if not opening:
            out.append(f"{indent[:-2]}}}")
            continue
        if g >= 0:
            group = graph.groups[g]
            out.append(f"{indent[:-2]}subgraph cluster_{g} {{")
            out.append(
                f"{indent}label={_quote(group.label)}; labeljust=l; fontsize=10; "
                'style="rounded,filled"; fillcolor="#f8f9fa"; color="#868e96";'
            )
            stack.append((g, indent, False))
        for v in inside[g]:
            out.extend(indent + line for line in _node_lines(nodes[v], show_saved, show_values))
        stack.extend((c, indent + "  ", True) for c in reversed(children[g]))
    for e in graph.edges:
        label = type_text(e.shape, e.dtype) if e.shape is not None else ""
        if output_count(nodes[e.src].node) > 1:
            label = f"output {e.output_nr}: {label}"
        attrs = f" [label={_quote(' ' + label)}]" if label else ""
        out.append(f"  n{e.src} -> n{e.dst}{attrs};")
    out.append("}")
    return "\n".join(out) + "\n"


def _node_lines(n: GraphNode, show_saved: bool, show_values: bool) -> list[str]:
    """A node's DOT statements: its box, and its saved tensors with `show_saved`."""
    out = [f"n{n.id} [label={_quote(_label(n, show_values))}, {_STYLE[n.kind]}];"]
    if show_saved:
        for k, s in enumerate(n.saved):
            text = f"{s.name}\n{type_text(s.shape, s.dtype)}" + ("\n[freed]" * s.freed)
            style = 'style="filled,dashed", fontcolor="#777777"' if s.freed else "style=filled"
            out.append(
                f"s{n.id}_{k} [label={_quote(text)}, shape=oval, fillcolor=orange, "
                f"fontsize=8, {style}];"
            )
            out.append(f"s{n.id}_{k} -> n{n.id} [style=dotted, arrowhead=none];")
    return out


def _label(n: GraphNode, show_values: bool) -> str:
    if n.kind == "collapsed":
        lines = [f"… {n.label}"]
    elif n.kind == "op":
        lines = [f"{n.var_name} = {n.name}" if n.var_name else n.name]
    else:
        lines = [n.label, type_text(n.shape, n.dtype)]
    if show_values:
        if n.value is not None:
            lines.append(f"value: {summarize(n.value)}")
        if n.grad is not None:
            lines.append(f"grad: {summarize(n.grad)}")
    return "\n".join(lines)


def _quote(text: str) -> str:
    """A DOT quoted string; each line centred (`\\n`), backslashes and quotes escaped."""
    lines = text.split("\n")
    escaped = [
        line.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\t", " ")
        for line in lines
    ]
    return '"' + "\\n".join(escaped) + '"'


# --- rendering with Graphviz -------------------------------------------------------


def graphviz_available() -> bool:
    """Whether the graphviz Python package and the `dot` program are both installed."""
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return shutil.which("dot") is not None


def _graphviz() -> Any:
    try:
        import graphviz
    except ImportError:
        raise ImportError(f"drawing a picture needs Graphviz: {INSTALL_HINT}") from None
    return graphviz


def dot_to(dot: str, format: str) -> bytes:
    """`dot` rendered by Graphviz as `format` ("svg", "png", "pdf", ...)."""
    graphviz = _graphviz()
    try:
        return bytes(graphviz.Source(dot).pipe(format=format))
    except graphviz.ExecutableNotFound:
        raise RuntimeError(
            f"the Graphviz program `dot` was not found on PATH: {INSTALL_HINT}"
        ) from None


def render(
    tensors: Tensor | Node | Sequence[Tensor | Node],
    path: str | Path,
    *,
    format: str | None = None,
    names: Mapping[str, Tensor] | None = None,
    params: Mapping[str, Tensor] | None = None,
    show_saved: bool = False,
    show_values: bool = False,
    max_depth: int | None = None,
    recording: Recording | None = None,
    modules: ModuleCalls | Module | None = None,
) -> Path:
    """Draw the graph of `tensors` (one, or a list) into `path`; the format is its suffix.

    `.dot`/`.gv` write the DOT text; anything else (`.svg`, `.png`, `.pdf`, ...)
    is rendered by Graphviz (see INSTALL_HINT). Returns the path written.
    """
    path = Path(path)
    fmt = format or path.suffix.lstrip(".").lower()
    if not fmt:
        raise ValueError(f"cannot tell the format of {str(path)!r}: give a suffix such as .svg")
    items = tuple(tensors) if isinstance(tensors, list | tuple) else (tensors,)
    dot = to_dot(
        *items,
        names=names,
        params=params,
        show_saved=show_saved,
        show_values=show_values,
        max_depth=max_depth,
        recording=recording,
        modules=modules,
    )
    if fmt in ("dot", "gv"):
        path.write_text(dot, encoding="utf-8")
    else:
        path.write_bytes(dot_to(dot, fmt))
    return path


# --- notebooks ---------------------------------------------------------------------


class GraphView:
    """The graph of some tensors, displayed by Jupyter (and printed as text elsewhere).

    With Graphviz installed, notebooks show the SVG drawing; otherwise, or with
    `interactive=True`, the interactive page of `to_html` in an inline frame.
    """

    def __init__(
        self,
        *tensors: Tensor | Node,
        names: Mapping[str, Tensor] | None = None,
        max_depth: int | None = None,
        recording: Recording | None = None,
        show_saved: bool = False,
        show_values: bool = False,
        interactive: bool = False,
        modules: ModuleCalls | Module | None = None,
    ) -> None:
        if not tensors:
            raise TypeError("show() needs at least one tensor or grad_fn to draw")
        self.tensors = tensors
        self.names = names
        self.max_depth = max_depth
        self.recording = recording
        self.show_saved = show_saved
        self.show_values = show_values
        self.interactive = interactive
        self.modules = modules

    def dot(self) -> str:
        return to_dot(
            *self.tensors,
            names=self.names,
            show_saved=self.show_saved,
            show_values=self.show_values,
            max_depth=self.max_depth,
            recording=self.recording,
            modules=self.modules,
        )

    def text(self) -> str:
        return format_graph(
            *self.tensors,
            names=self.names,
            max_depth=self.max_depth,
            recording=self.recording,
            modules=self.modules,
        )

    def svg(self) -> str:
        """The SVG drawing (Graphviz must be installed)."""
        return dot_to(self.dot(), "svg").decode("utf-8")

    def _repr_svg_(self) -> str | None:
        if self.interactive or not graphviz_available():
            return None
        return self.svg()

    def _repr_html_(self) -> str | None:
        if not self.interactive and graphviz_available():
            return None  # the SVG is shown; the same picture again would double the output
        try:
            # Imported on use: where the interactive page cannot load, the text stands in.
            from ._html import to_html
        except ImportError:
            return f"<pre>{html.escape(self.text())}</pre>"
        drawn = self.tensors[0] if len(self.tensors) == 1 else list(self.tensors)
        page = to_html(
            drawn,
            names=self.names,
            recording=self.recording,
            max_depth=self.max_depth,
            modules=self.modules,
        )
        return (
            f'<iframe srcdoc="{html.escape(page, quote=True)}" '
            'style="width: 100%; height: 520px; border: 1px solid #ddd"></iframe>'
        )

    def __repr__(self) -> str:
        return self.text()


def show(
    *tensors: Tensor | Node,
    names: Mapping[str, Tensor] | None = None,
    max_depth: int | None = None,
    recording: Recording | None = None,
    show_saved: bool = False,
    show_values: bool = False,
    interactive: bool = False,
    modules: ModuleCalls | Module | None = None,
) -> GraphView:
    """A view of the graph that Jupyter displays inline (`viz.show(loss)` as a cell's last line)."""
    return GraphView(
        *tensors,
        names=names,
        max_depth=max_depth,
        recording=recording,
        show_saved=show_saved,
        show_values=show_values,
        interactive=interactive,
        modules=modules,
    )
