"""See and explain the backward graph: a text tree (`print_graph`), Graphviz (`to_dot`,
`render`, `show`), an interactive page (`to_html`) and a narrated backward (`explain`).
"""

from ._dot import GraphView, render, show, to_dot
from ._explain import explain
from ._html import to_html
from ._model import Graph, GraphEdge, GraphNode, SavedInfo, build_graph
from ._names import names_from
from ._record import Recording, record
from ._text import format_graph, print_graph

__all__ = [
    "Graph",
    "GraphEdge",
    "GraphNode",
    "GraphView",
    "Recording",
    "SavedInfo",
    "build_graph",
    "explain",
    "format_graph",
    "names_from",
    "print_graph",
    "record",
    "render",
    "show",
    "to_dot",
    "to_html",
]
