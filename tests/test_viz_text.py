"""chainrule.viz's text view of the graph: `format_graph` / `print_graph`."""

from __future__ import annotations

import io

import chainrule as torch
from chainrule.viz import build_graph, format_graph, names_from, print_graph


def seed():
    """The first seed example, named as a learner would name it."""
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    return out, names_from(locals())


SEED = """\
out = MeanBackward0 #1  float32[]
└─ c = MulBackward0 #2  float32[2]  saved: other float32[]
   └─ self: MulBackward0 #3  float32[2]  saved: self float32[2], other float32[2]
      ├─ self: b = AddBackward0 #4  float32[2]
      │  └─ self: a = AccumulateGrad #5  float32[2]
      └─ other: b = AddBackward0  float32[2]  (see #4)
"""


def test_seed_example():
    out, names = seed()
    assert format_graph(out, names=names) == SEED


def test_seed_example_without_names():
    out, _ = seed()
    assert format_graph(out) == (
        "MeanBackward0 #1  float32[]\n"
        "└─ MulBackward0 #2  float32[2]  saved: other float32[]\n"
        "   └─ self: MulBackward0 #3  float32[2]  saved: self float32[2], other float32[2]\n"
        "      ├─ self: AddBackward0 #4  float32[2]\n"
        "      │  └─ self: AccumulateGrad #5  float32[2]\n"
        "      └─ other: AddBackward0  float32[2]  (see #4)\n"
    )


def test_tensor_name_attribute():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a.name = "w"
    loss = (a * a).sum()
    loss.name = "loss"
    assert format_graph(loss) == (
        "loss = SumBackward0 #1  float32[]\n"
        "└─ MulBackward0 #2  float32[2]  saved: self float32[2], other float32[2]\n"
        "   ├─ self: w = AccumulateGrad #3  float32[2]\n"
        "   └─ other: w = AccumulateGrad  float32[2]  (see #3)\n"
    )


def test_freed_after_backward():
    out, names = seed()
    out.backward(retain_graph=True)
    assert format_graph(out, names=names) == SEED  # retained: nothing freed
    out.backward()
    assert format_graph(out, names=names) == SEED.replace(
        "other float32[]", "other float32[] [freed]"
    ).replace("other float32[2]\n", "other float32[2] [freed]\n")
    assert "[freed]" in format_graph(out).splitlines()[2]


def test_shared_subgraph_printed_once():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * y + y
    assert format_graph(z, names=names_from(locals())) == (
        "z = AddBackward0 #1  float32[2]\n"
        "├─ self: MulBackward0 #2  float32[2]  saved: self float32[2], other float32[2]\n"
        "│  ├─ self: y = ExpBackward0 #3  float32[2]  saved: result float32[2]\n"
        "│  │  └─ x = AccumulateGrad #4  float32[2]\n"
        "│  └─ other: y = ExpBackward0  float32[2]  (see #3)\n"
        "└─ other: y = ExpBackward0  float32[2]  (see #3)\n"
    )


def test_multi_output_ops():
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a, b = w.unbind()
    s = (a * b).sum()
    assert format_graph(s, names={"w": w, "a": a, "b": b}) == (
        "SumBackward0 #1  float32[]\n"
        "└─ MulBackward0 #2  float32[2]  saved: self float32[2], other float32[2]\n"
        "   ├─ self: a = UnbindBackward0 #3 (output 0)  float32[2]\n"
        "   │  └─ w = AccumulateGrad #4  float32[2, 2]\n"
        "   └─ other: b = UnbindBackward0 (output 1)  float32[2]  (see #3)\n"
    )
    x = torch.arange(6.0, requires_grad=True)
    p, q, r = x.split(2)
    z = p * q + r.sum()
    # Two drawn tensors: the second tree refers back into the first.
    assert format_graph(z, q, names=names_from(locals())) == (
        "z = AddBackward0 #1  float32[2]\n"
        "├─ self: MulBackward0 #2  float32[2]  saved: self float32[2], other float32[2]\n"
        "│  ├─ self: p = SplitBackward0 #3 (output 0)  float32[2]\n"
        "│  │  └─ x = AccumulateGrad #4  float32[6]\n"
        "│  └─ other: q = SplitBackward0 (output 1)  float32[2]  (see #3)\n"
        "└─ other: SumBackward0 #5  float32[]\n"
        "   └─ r = SplitBackward0 (output 2)  float32[2]  (see #3)\n"
        "q = SplitBackward0 (output 1)  float32[2]  (see #3)\n"
    )


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad


def test_custom_function_and_freed_custom_function():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x).sum()
    expected = (
        "y = SumBackward0 #1  float32[]\n"
        "└─ CubeBackward #2  float32[2]  saved: saved_tensors[0] float32[2]\n"
        "   └─ x = AccumulateGrad #3  float32[2]\n"
    )
    assert format_graph(y, names=names_from(locals())) == expected
    y.backward()
    assert format_graph(y, names=names_from(locals())) == expected.replace(
        "saved_tensors[0] float32[2]", "[freed]"
    )


def test_nodes_leaves_plain_tensors_and_graphs():
    out, names = seed()
    # A grad_fn prints from that node (its shape is known here from the named tensor c).
    assert format_graph(out.grad_fn.next_functions[0][0], names=names) == (
        "c = MulBackward0 #1  float32[2]  saved: other float32[]\n"
        "└─ self: MulBackward0 #2  float32[2]  saved: self float32[2], other float32[2]\n"
        "   ├─ self: b = AddBackward0 #3  float32[2]\n"
        "   │  └─ self: a = AccumulateGrad #4  float32[2]\n"
        "   └─ other: b = AddBackward0  float32[2]  (see #3)\n"
    )
    assert format_graph(out.grad_fn).splitlines()[0] == "MeanBackward0 #1"
    assert format_graph(names["a"], names=names) == "a = AccumulateGrad #1  float32[2]\n"
    assert format_graph(torch.ones(2, 3)) == (
        "output  float32[2, 3]  (does not require grad: no graph)\n"
    )
    graph = build_graph(out, names=names)
    assert format_graph(graph) == SEED
    buffer = io.StringIO()
    print_graph(out, names=names, file=buffer)
    assert buffer.getvalue() == SEED


def test_depth_limit():
    out, names = seed()
    assert format_graph(out, names=names, max_depth=3) == (
        "out = MeanBackward0 #1  float32[]\n"
        "└─ c = MulBackward0 #2  float32[2]  saved: other float32[]\n"
        "   └─ self: MulBackward0 #3  float32[2]  saved: self float32[2], other float32[2]\n"
        "      ├─ self: … 2 hidden nodes #4  float32[2]\n"
        "      └─ other: … 2 hidden nodes  float32[2]  (see #4)\n"
    )


def chain(n):
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(n):
        y = y.sin()
    return y


def test_deep_chain_restarts_indentation():
    text = format_graph(chain(30))
    lines = text.splitlines()
    assert len(lines) == 32  # 30 ops, one leaf, one "continued" line
    assert lines[24] == "   " * 23 + "└─ SinBackward0 #25  float32[2]  saved: self float32[2]"
    assert lines[25] == "#25 continued:"
    assert lines[26] == "└─ SinBackward0 #26  float32[2]  saved: self float32[2]"
    assert lines[-1] == "   " * 5 + "└─ AccumulateGrad #31  float32[2]"
    assert max(len(line) for line in lines) < 130


def test_100k_node_chain():
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(100_000):
        y = y * 1.0
    text = format_graph(y)  # (its speed: benchmarks/bench_viz.py)
    lines = text.splitlines()
    assert len(lines) == 100_001 + 100_000 // 24
    assert lines[-1].endswith("AccumulateGrad #100001  float32[2]")
    assert max(len(line) for line in lines) < 140
    small = format_graph(y, max_depth=2)
    assert small == (
        "MulBackward0 #1  float32[2]  saved: other float32[]\n"
        "└─ self: MulBackward0 #2  float32[2]  saved: other float32[]\n"
        "   └─ self: … 99,999 hidden nodes #3  float32[2]\n"
    )
