"""See and explain the backward graph: a text tree (`print_graph`), Graphviz (`to_dot`,
`render`, `show`), an interactive page (`to_html`) and a narrated backward (`explain`).

Every view takes `modules=` to draw the nodes of each `nn.Module` call in a box named by
the module's path and class (`0: Linear`): pass what `record_modules(model)` recorded
around the forward (each node goes to the module call it was made in; nothing is added
to recording ops), or the model alone (boxes from its parameters and the ops reading
them, so modules without parameters get none).
"""

from ._dot import GraphView, render, show, to_dot
from ._explain import explain
from ._html import to_html
from ._model import Graph, GraphEdge, GraphNode, SavedInfo, build_graph
from ._modules import GraphGroup, ModuleCall, ModuleCalls, record_modules
from ._names import names_from
from ._record import Recording, record
from ._text import format_graph, print_graph

__all__ = [
    "Graph",
    "GraphEdge",
    "GraphGroup",
    "GraphNode",
    "GraphView",
    "ModuleCall",
    "ModuleCalls",
    "Recording",
    "SavedInfo",
    "build_graph",
    "explain",
    "format_graph",
    "names_from",
    "print_graph",
    "record",
    "record_modules",
    "render",
    "show",
    "to_dot",
    "to_html",
]
