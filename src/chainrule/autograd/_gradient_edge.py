"""`GradientEdge`: where a gradient enters the graph, usable in place of a tensor as an
output or an input of `autograd.grad` and `backward` (public in `autograd.graph`)."""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from .._autograd.node import AccumulateGrad, Node
from .._dtype import from_numpy_dtype

__all__ = ["GradientEdge", "edge_meta", "known_edges"]


class GradientEdge(NamedTuple):
    """Where a gradient enters the graph: input `output_nr` of `node` (the node that made
    a tensor, or a leaf's AccumulateGrad). `autograd.grad` and `backward` take one in
    place of a tensor, as an output or an input. `ownership_token` is always None here:
    holding `node` keeps the graph alive."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


# (shape, dtype) of the tensor behind each edge `get_gradient_edge` made, so a gradient
# can be made for it (most nodes do not keep their outputs' shapes).
known_edges: weakref.WeakKeyDictionary[Node, dict[int, tuple[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)


def edge_meta(edge: GradientEdge) -> tuple[Any, Any] | None:
    """(shape, dtype) of the gradient `edge` takes, where known."""
    node, nr = edge.node, edge.output_nr
    known = known_edges.get(node)
    if known is not None and nr in known:
        return known[nr]
    if isinstance(node, AccumulateGrad):
        return node.variable._data.shape, node.variable.dtype
    outputs = getattr(node, "_output_meta", None)
    if outputs and nr < len(outputs):
        shape, dtype = outputs[nr]
        return shape, from_numpy_dtype(dtype) if isinstance(dtype, np.dtype) else dtype
    return None


GradientEdge.__module__ = "chainrule.autograd.graph"
