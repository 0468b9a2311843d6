"""chainrule.viz's graph model: the one walk of the backward graph behind every drawing."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import chainrule as torch
from chainrule.viz import build_graph, names_from
from chainrule.viz._model import input_name, output_count, type_text


def seed():
    """The first seed example's tensors: a = [2, 3], b = a + 3, c = b * b * 3, out = c.mean()."""
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    return SimpleNamespace(a=a, b=b, c=c, out=out)


def summary(graph):
    """(kind, name, var_name, shape, depth) per node and (src, dst, index, shape) per edge."""
    nodes = [(n.kind, n.name, n.var_name, n.shape, n.depth) for n in graph.nodes]
    edges = [(e.src, e.dst, e.index, e.shape, e.output_nr) for e in graph.edges]
    return nodes, edges


def test_seed_example_nodes_edges_and_shapes():
    s = seed()
    graph = build_graph(s.out, names={"a": s.a, "b": s.b, "c": s.c, "out": s.out})
    nodes, edges = summary(graph)
    assert nodes == [
        ("tensor", "out", "out", (), 0),
        ("op", "MeanBackward0", "out", (), 1),
        ("op", "MulBackward0", "c", (2,), 2),
        ("op", "MulBackward0", None, (2,), 3),
        ("op", "AddBackward0", "b", (2,), 4),
        ("leaf", "AccumulateGrad", "a", (2,), 5),
    ]
    # b * b: two edges from the same AddBackward0, inputs 0 and 1 of the MulBackward0.
    assert edges == [
        (1, 0, 0, (), 0),
        (2, 1, 0, (2,), 0),
        (3, 2, 0, (2,), 0),
        (4, 3, 0, (2,), 0),
        (4, 3, 1, (2,), 0),
        (5, 4, 0, (2,), 0),
    ]
    assert graph.roots == [0]
    assert [n.id for n in graph.nodes] == list(range(6))
    assert all(e.dtype == "float32" for e in graph.edges)
    leaf = graph.nodes[5]
    assert leaf.tensor is s.a and leaf.node is s.b.grad_fn.next_functions[0][0]
    np.testing.assert_array_equal(leaf.value, [2.0, 3.0])
    assert leaf.grad is None
    # Values of intermediate ops come from the tensors the caller named.
    np.testing.assert_array_equal(graph.nodes[4].value, [5.0, 6.0])
    np.testing.assert_array_equal(graph.nodes[2].value, [75.0, 108.0])
    assert graph.nodes[3].value is None
    assert graph.inputs()[3] == [graph.edges[3], graph.edges[4]]


def test_saved_tensors_and_freed_after_backward():
    s = seed()
    graph = build_graph(s.out)
    mul_bb = graph.nodes[3]
    assert [(x.name, x.shape, x.dtype, x.freed) for x in mul_bb.saved] == [
        ("self", (2,), "float32", False),
        ("other", (2,), "float32", False),
    ]
    assert [(x.name, x.shape) for x in graph.nodes[2].saved] == [("other", ())]
    assert not mul_bb.freed
    s.out.backward(retain_graph=True)
    assert not build_graph(s.out).nodes[3].freed
    s.out.backward()
    graph = build_graph(s.out)
    # The names and shapes of what was freed are still known.
    assert [(x.name, x.shape, x.freed) for x in graph.nodes[3].saved] == [
        ("self", (2,), True),
        ("other", (2,), True),
    ]
    assert graph.nodes[3].freed and graph.nodes[2].freed
    assert not graph.nodes[4].freed  # AddBackward0 saves nothing, so frees nothing
    np.testing.assert_array_equal(graph.nodes[5].grad, [30.0, 36.0])  # two backwards


def test_saved_output_of_exp():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = x.exp()
    (node,) = [n for n in build_graph(y).nodes if n.kind == "op"]
    assert [(x.name, x.shape) for x in node.saved] == [("result", (2,))]


def test_names_precedence_and_names_from():
    s = seed()
    s.a.name = "alpha"
    assert build_graph(s.out).nodes[5].var_name == "alpha"
    # names= wins over t.name.
    assert build_graph(s.out, names={"w": s.a}).nodes[5].var_name == "w"
    scope = {"a": s.a, "c": s.c, "_hidden": s.b, "n": 3, "s": "text", 7: s.out}
    assert names_from(scope) == {"a": s.a, "c": s.c}
    with pytest.raises(TypeError, match="names must map str -> Tensor"):
        build_graph(s.out, names={"n": 3})
    with pytest.raises(TypeError, match="names must be a mapping"):
        build_graph(s.out, names=[s.a])  # type: ignore[arg-type]


def test_drawn_tensor_name_labels_its_grad_fn():
    s = seed()
    s.out.name = "loss"
    graph = build_graph(s.out)
    assert graph.nodes[0].label == "loss" and graph.nodes[1].var_name == "loss"
    np.testing.assert_array_equal(graph.nodes[1].value, 91.5)


def test_shared_subgraph_is_one_node():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * y + y
    graph = build_graph(z)
    names = [n.name for n in graph.nodes]
    assert names.count("ExpBackward0") == 1 and names.count("AccumulateGrad") == 1
    exp = names.index("ExpBackward0")
    assert sorted(graph.nodes[e.dst].name for e in graph.edges if e.src == exp) == [
        "AddBackward0",
        "MulBackward0",
        "MulBackward0",
    ]


def test_multi_output_split():
    x = torch.arange(6.0, requires_grad=True)
    p, q, r = x.split(2)
    z = p * q + r.sum()
    graph = build_graph(z, q)
    split = next(n for n in graph.nodes if n.name == "SplitBackward0")
    assert output_count(split.node) == 3
    assert sorted(e.output_nr for e in graph.edges if e.src == split.id) == [0, 1, 1, 2]
    assert len(graph.roots) == 2 and graph.nodes[graph.roots[1]].kind == "tensor"


def test_custom_function_node():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    out = Square.apply(w).sum()
    node = build_graph(out).nodes[2]
    assert (node.kind, node.name, node.shape) == ("op", "SquareBackward", (2,))
    assert [(x.name, x.shape, x.freed) for x in node.saved] == [("saved_tensors[0]", (2,), False)]
    out.backward()
    node = build_graph(out).nodes[2]
    assert node.freed and node.saved == []
    assert input_name(node.node, 0) == "input 0"


def test_roots_nodes_leaves_and_plain_tensors():
    s = seed()
    graph = build_graph(s.c.grad_fn)
    assert graph.nodes[0].kind == "op" and graph.nodes[0].depth == 0
    assert graph.nodes[0].shape is None  # nothing says what a bare node's output looked like
    graph = build_graph(s.a)
    assert [(n.kind, n.shape) for n in graph.nodes] == [("leaf", (2,))]
    plain = torch.ones(3)
    graph = build_graph(plain, s.out)
    assert graph.nodes[0].kind == "tensor" and graph.edges[0].dst != 0
    assert build_graph(s.out, s.out).roots == [0]  # the same tensor twice is drawn once
    # A drawn leaf that the graph also reaches is one node (its AccumulateGrad).
    graph = build_graph(s.out, s.a)
    assert [n.kind for n in graph.nodes].count("leaf") == 1 and graph.roots == [0, 1]
    assert graph.nodes[1].tensor is s.a and graph.nodes[1].depth == 0
    with pytest.raises(TypeError, match="at least one"):
        build_graph()
    with pytest.raises(TypeError, match="expected a Tensor or a grad_fn"):
        build_graph(3)  # type: ignore[arg-type]


def test_input_names_and_types():
    x = torch.ones(2, requires_grad=True)
    cat = torch.cat([x, x]).grad_fn
    assert [input_name(cat, i) for i in range(2)] == ["tensors[0]", "tensors[1]"]
    assert input_name((x * 2).grad_fn, 1) == "other"
    assert type_text((2, 3), "float64") == "float64[2, 3]"
    assert type_text((), "float32") == "float32[]"
    assert type_text(None, None) == "?[?]"


class FakeRecording:
    """What `viz.record()` gives, for op nodes: forward values and incoming gradients."""

    def __init__(self, values, grads):
        self.values, self.grads = values, grads

    def value(self, node):
        return self.values.get(id(node))

    def grad_outputs(self, node):
        return self.grads.get(id(node))

    def grad_inputs(self, node):
        return None


def test_values_and_grads_from_a_recording():
    s = seed()
    mul = s.c.grad_fn.next_functions[0][0]
    rec = FakeRecording({id(mul): [np.array([25.0, 36.0])]}, {id(mul): [np.array([1.5, 1.5])]})
    node = build_graph(s.out, recording=rec).nodes[3]
    np.testing.assert_array_equal(node.value, [25.0, 36.0])
    np.testing.assert_array_equal(node.grad, [1.5, 1.5])


def chain(n):
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(n):
        y = y * 1.0
    return y


def test_depth_limit_collapses_and_counts():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * 2).sin() + (y * 3).cos()  # a diamond whose bottom is hidden from two sides
    full = build_graph(z)
    graph = build_graph(z, max_depth=2)
    kinds = [n.kind for n in graph.nodes]
    collapsed = [n for n in graph.nodes if n.kind == "collapsed"]
    visible = len(graph.nodes) - len(collapsed)
    assert kinds.count("op") == 3  # AddBackward0, SinBackward0, CosBackward0
    assert [n.hidden for n in collapsed] == [3, 1]  # below Sin: Mul, Exp, leaf; below Cos: Mul
    assert sum(n.hidden for n in collapsed) == len(full.nodes) - visible
    assert collapsed[0].label == "3 hidden nodes" and collapsed[1].label == "1 hidden node"
    # The second box feeds into the first (its Mul uses the shared Exp), drawn once.
    pairs = [(e.src, e.dst) for e in graph.edges]
    assert (collapsed[0].id, collapsed[1].id) in pairs
    assert len(pairs) == len(set(pairs))
    assert build_graph(z, max_depth=0).nodes[1].hidden == len(full.nodes) - 1
    with pytest.raises(ValueError, match="max_depth"):
        build_graph(z, max_depth=-1)


def test_100k_node_chain_is_iterative():
    y = chain(100_000)
    graph = build_graph(y)  # (its speed: benchmarks/bench_viz.py)
    assert len(graph.nodes) == 100_002 and len(graph.edges) == 100_001
    assert graph.nodes[-1].kind == "leaf" and graph.nodes[-1].depth == 100_001
    small = build_graph(y, max_depth=10)
    assert len(small.nodes) == 12 and small.nodes[-1].hidden == 99_991
