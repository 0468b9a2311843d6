"""chainrule.viz's Graphviz output: DOT text, rendered files, and the notebook view."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import chainrule as torch
from chainrule.viz import format_graph, names_from, render, show, to_dot
from chainrule.viz._dot import graphviz_available

DOT = shutil.which("dot")
needs_dot = pytest.mark.skipif(DOT is None, reason="Graphviz's dot program is not installed")
needs_graphviz = pytest.mark.skipif(
    not graphviz_available(), reason="the graphviz package or the dot program is missing"
)

NODE = re.compile(r'^  (\w+) \[label="((?:[^"\\]|\\.)*)", (.*)\];$')
EDGE = re.compile(r"^  (\w+) -> (\w+)(?: \[(.*)\])?;$")


def parse(dot):
    """The node statements {id: (label, attributes)} and edge statements [(src, dst, attrs)]."""
    lines = dot.splitlines()
    assert lines[0] == "digraph chainrule {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[4:-1]:
        node, edge = NODE.match(line), EDGE.match(line)
        assert node or edge, line
        if node:
            nodes[node[1]] = (node[2], node[3])
        else:
            edges.append((edge[1], edge[2], edge[3]))
    return nodes, edges


def svg_of(dot):
    """Graphviz's own parse of the DOT text, as SVG."""
    run = subprocess.run([DOT, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    return run.stdout


def seed():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    return out, names_from(locals())


def test_seed_example_dot():
    out, names = seed()
    nodes, edges = parse(to_dot(out, names=names))
    assert nodes == {
        "n0": ("out\\nfloat32[]", 'fillcolor="#caff70"'),  # the output: green
        "n1": ("out = MeanBackward0", 'fillcolor="#d9d9d9"'),  # ops: grey boxes
        "n2": ("c = MulBackward0", 'fillcolor="#d9d9d9"'),
        "n3": ("MulBackward0", 'fillcolor="#d9d9d9"'),
        "n4": ("b = AddBackward0", 'fillcolor="#d9d9d9"'),
        "n5": ("a\\nfloat32[2]", 'fillcolor="#add8e6"'),  # leaves: light blue, name and shape
    }
    # Forward direction, each edge labelled with what flows along it; b * b gives two edges.
    assert edges == [
        ("n1", "n0", 'label=" float32[]"'),
        ("n2", "n1", 'label=" float32[2]"'),
        ("n3", "n2", 'label=" float32[2]"'),
        ("n4", "n3", 'label=" float32[2]"'),
        ("n4", "n3", 'label=" float32[2]"'),
        ("n5", "n4", 'label=" float32[2]"'),
    ]


def test_saved_tensors_values_and_grads():
    out, names = seed()
    dot = to_dot(out, params={"a": names["a"]}, show_saved=True, show_values=True)
    nodes, edges = parse(dot)
    saved = {k: v[0] for k, v in nodes.items() if k.startswith("s")}
    assert saved == {
        "s2_0": "other\\nfloat32[]",
        "s3_0": "self\\nfloat32[2]",
        "s3_1": "other\\nfloat32[2]",
    }
    assert ("s3_1", "n3", "style=dotted, arrowhead=none") in edges
    assert nodes["n5"][0] == "a\\nfloat32[2]\\nvalue: [2, 3]"
    assert nodes["n1"][0] == "MeanBackward0\\nvalue: 91.5"
    out.backward()
    nodes, _ = parse(to_dot(out, params={"a": names["a"]}, show_saved=True, show_values=True))
    assert nodes["s3_0"][0] == "self\\nfloat32[2]\\n[freed]"
    assert 'style="filled,dashed"' in nodes["s3_0"][1]
    assert nodes["n5"][0] == "a\\nfloat32[2]\\nvalue: [2, 3]\\ngrad: [15, 18]"
    # names= wins over params= for the same tensor.
    nodes, _ = parse(to_dot(out, params={"a": names["a"]}, names={"w": names["a"]}))
    assert nodes["n5"][0] == "w\\nfloat32[2]"


def test_labels_are_escaped():
    a = torch.ones(2, requires_grad=True)
    out = (a * 2).sum()
    dot = to_dot(out, names={'we"ird\\name': a})
    nodes, _ = parse(dot)
    assert nodes["n3"][0] == 'we\\"ird\\\\name\\nfloat32[2]'
    if DOT is not None:
        assert "we&quot;ird\\name" in svg_of(dot)


def test_multi_output_edges_and_depth_limit():
    x = torch.arange(4.0, requires_grad=True)
    p, q = x.split(2)
    out = (p * q).sum()
    _, edges = parse(to_dot(out))
    assert [(s, d, a) for s, d, a in edges if s == "n3"] == [
        ("n3", "n2", 'label=" output 0: float32[2]"'),
        ("n3", "n2", 'label=" output 1: float32[2]"'),
    ]
    nodes, edges = parse(to_dot(out, max_depth=2))
    assert nodes["n3"] == ("… 2 hidden nodes", 'fillcolor="#ffffff", style="filled,dashed"')
    assert len(nodes) == 4 and len(edges) == 4


@needs_dot
def test_dot_parses_with_graphviz():
    out, names = seed()
    out.backward(retain_graph=True)
    dot = to_dot(out, names=names, show_saved=True, show_values=True)
    nodes, edges = parse(dot)
    svg = svg_of(dot)
    assert svg.count('class="node"') == len(nodes) == 9
    assert svg.count('class="edge"') == len(edges) == 9
    assert ">c = MulBackward0<" in svg and ">grad: [15, 18]<" in svg


def chain(n):
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(n):
        y = y * 1.0
    return y


def test_100k_node_chain():
    y = chain(100_000)
    dot = to_dot(y)  # (its speed: benchmarks/bench_viz.py)
    assert dot.count(" -> ") == 100_001
    assert dot.count('fillcolor="#d9d9d9"') == 100_000
    small = to_dot(y, max_depth=5)
    nodes, edges = parse(small)
    assert len(nodes) == 7 and len(edges) == 6
    assert nodes["n6"][0] == "… 99,996 hidden nodes"
    if DOT is not None:
        assert svg_of(small).count('class="node"') == 7


def test_render_dot_needs_nothing(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # as if not installed
    out, names = seed()
    path = render(out, tmp_path / "graph.dot", names=names)
    assert path.read_text() == to_dot(out, names=names)
    with pytest.raises(ValueError, match="give a suffix such as"):
        render(out, tmp_path / "graph")


def test_render_says_how_to_install_graphviz(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    out, _ = seed()
    with pytest.raises(ImportError) as info:
        render(out, tmp_path / "graph.svg")
    message = str(info.value)
    assert 'pip install "chainrule[viz]"' in message
    assert "apt-get install graphviz" in message and "brew install graphviz" in message
    assert not (tmp_path / "graph.svg").exists()


def test_render_says_how_to_install_dot(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path))  # the package is there, the program is not
    out, _ = seed()
    with pytest.raises(RuntimeError, match=r"`dot` was not found.*apt-get install graphviz"):
        render(out, tmp_path / "graph.png")


@needs_graphviz
def test_render_svg_png_pdf(tmp_path):
    out, names = seed()
    svg = render(out, tmp_path / "graph.svg", names=names, show_saved=True)
    assert svg == tmp_path / "graph.svg"
    text = svg.read_text()
    assert "<svg" in text and ">b = AddBackward0<" in text and ">self<" in text
    assert render([out], tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert render(out, tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"
    assert render(out, tmp_path / "g.img", format="svg").read_text().count('class="node"') == 6


def test_notebook_view_without_graphviz(monkeypatch):
    out, names = seed()
    monkeypatch.setattr("chainrule.viz._dot.graphviz_available", lambda: False)
    view = show(out, names=names)
    assert view._repr_svg_() is None
    assert repr(view) == format_graph(out, names=names)
    html = view._repr_html_()
    assert html is not None and html.startswith("<iframe srcdoc=")  # the interactive page
    monkeypatch.setitem(sys.modules, "chainrule.viz._html", None)  # and without it: text
    html = view._repr_html_()
    assert html is not None and html.startswith("<pre>out = MeanBackward0 #1")
    assert "└─ c = MulBackward0" in html


@needs_graphviz
def test_notebook_view_with_graphviz():
    out, names = seed()
    view = show(out, names=names)
    svg = view._repr_svg_()
    assert svg is not None and "<svg" in svg and svg.count('class="node"') == 6
    assert view._repr_html_() is None  # the SVG is shown, not the same picture twice
    interactive = show(out, names=names, interactive=True)
    assert interactive._repr_svg_() is None
    html = interactive._repr_html_()
    assert html is not None and html.startswith("<iframe srcdoc=")
    with pytest.raises(TypeError, match="at least one"):
        show()
