"""Module boxes: `record_modules` and `modules=` group each node under the module call that
made it, in the text tree, the DOT clusters, the page's payload, its layout and, where
Chromium is installed, its collapsible boxes."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import chainrule as torch
import chainrule.nn.functional as F
from browser import Browser, find_chromium
from chainrule import nn, viz
from chainrule.nn.modules import _module_hooks
from chainrule.viz._html import COLLAPSE_ABOVE, collapsed_at_first
from chainrule.viz._layout import layout


class ReLU(nn.Module):
    def forward(self, x: Any) -> Any:
        return F.relu(x)


class Block(nn.Module):
    """x + out(act(lin(x))): two Linear layers and an activation, nested in a block."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.act = ReLU()
        self.out = nn.Linear(d, d)

    def forward(self, x: Any) -> Any:
        return x + self.out(self.act(self.lin(x)))


class Net(nn.Module):
    def __init__(self, d: int = 4, blocks: int = 2) -> None:
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(blocks)])
        self.head = nn.Linear(d, 1)

    def forward(self, x: Any) -> Any:
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def mlp_loss() -> dict[str, Any]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), ReLU(), nn.Linear(32, 10))
    x = torch.randn(8, 64)
    with viz.record_modules(model) as calls:
        out = model(x)
    loss = out.square().mean()
    return {"model": model, "calls": calls, "loss": loss}


def by_group(graph: viz.Graph) -> dict[str | None, list[str]]:
    """Node titles by the label of their box (None: outside every box), sorted."""
    out: dict[str | None, list[str]] = {}
    for node in graph.nodes:
        key = graph.groups[node.group].label if node.group is not None else None
        title = f"{node.var_name} = {node.name}" if node.var_name else node.name
        out.setdefault(key, []).append(title)
    return {k: sorted(v) for k, v in out.items()}


# --- which module made each node -------------------------------------------------------


def test_sequential_groups_each_layer_with_its_parameters():
    s = mlp_loss()
    graph = viz.build_graph(s["loss"], modules=s["calls"])
    labels = [(g.label, g.parent, g.level) for g in graph.groups]
    assert labels == [("Sequential", None, 0), ("0: Linear", 0, 1), ("1: ReLU", 0, 1),
                      ("2: Linear", 0, 1)]  # fmt: skip
    assert by_group(graph) == {
        None: ["MeanBackward0", "PowBackward0", "tensor"],
        "0: Linear": [
            "0.bias = AccumulateGrad",
            "0.weight = AccumulateGrad",
            "AddmmBackward0",
            "TBackward0",
        ],
        "1: ReLU": ["ReluBackward0"],
        "2: Linear": [
            "2.bias = AccumulateGrad",
            "2.weight = AccumulateGrad",
            "AddmmBackward0",
            "TBackward0",
        ],
    }
    assert [g.size for g in graph.groups] == [9, 4, 1, 4]
    first = graph.groups[1]
    assert (first.inputs, first.outputs) == ([((8, 64), "float32")], [((8, 32), "float32")])
    assert first.io_text() == "float32[8, 64] → float32[8, 32]"


def test_nested_modules_make_nested_boxes_named_by_path():
    torch.manual_seed(0)
    model = Net()
    with viz.record_modules(model) as calls:
        loss = model(torch.randn(3, 4)).sum()
    graph = viz.build_graph(loss, modules=calls)
    labels = [g.label for g in graph.groups]
    assert labels == [
        "Net",
        "layers.0: Block",
        "layers.0.lin: Linear",
        "layers.0.act: ReLU",
        "layers.0.out: Linear",
        "layers.1: Block",
        "layers.1.lin: Linear",
        "layers.1.act: ReLU",
        "layers.1.out: Linear",
        "head: Linear",
    ]
    parents = {g.label: graph.groups[g.parent].label for g in graph.groups if g.parent is not None}
    assert parents["layers.1.act: ReLU"] == "layers.1: Block"
    assert parents["layers.1: Block"] == "Net"
    assert max(g.level for g in graph.groups) == 2
    groups = by_group(graph)
    # The residual add is the block's own op; the Linear's ops are in the Linear's box.
    assert groups["layers.0: Block"] == ["AddBackward0"]
    assert groups["layers.1.out: Linear"] == [
        "AddmmBackward0",
        "TBackward0",
        "layers.1.out.bias = AccumulateGrad",
        "layers.1.out.weight = AccumulateGrad",
    ]
    assert groups[None] == ["SumBackward0", "tensor"]


def test_without_a_model_outermost_calls_are_named_by_their_class():
    torch.manual_seed(0)
    block, head = Block(3), nn.Linear(3, 3)
    with viz.record_modules() as calls:
        y = head(block(torch.randn(2, 3)))
        z = head(y)
    graph = viz.build_graph(z.sum(), modules=calls)
    assert [c.label for c in calls] == [
        "Block",
        "lin: Linear",
        "act: ReLU",
        "out: Linear",
        "Linear",
        "Linear (2)",
    ]
    assert [g.label for g in graph.groups] == [c.label for c in calls]
    # A parameter used by two calls with no common outer call: in the first call's box.
    assert by_group(graph)["Linear"] == ["AddmmBackward0", "TBackward0", "bias = AccumulateGrad",
                                         "weight = AccumulateGrad"]  # fmt: skip


def test_a_module_called_twice_gets_a_box_per_call_and_its_parameters_the_box_around_both():
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            return self.lin(self.lin(x).tanh())

    torch.manual_seed(0)
    model = Twice()
    with viz.record_modules(model) as calls:
        loss = model(torch.randn(2, 3)).sum()
    graph = viz.build_graph(loss, modules=calls)
    assert [g.label for g in graph.groups] == ["Twice", "lin: Linear", "lin: Linear (2)"]
    groups = by_group(graph)
    assert groups["lin: Linear"] == ["AddmmBackward0", "TBackward0"]
    assert groups["lin: Linear (2)"] == ["AddmmBackward0", "TBackward0"]
    assert groups["Twice"] == [
        "TanhBackward0",
        "lin.bias = AccumulateGrad",
        "lin.weight = AccumulateGrad",
    ]


def test_a_module_run_without_grad_gets_no_box():
    class Frozen(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            with torch.no_grad():
                return self.lin(x)

    torch.manual_seed(0)
    model = nn.Sequential(Frozen(), nn.Linear(3, 2))
    with viz.record_modules(model) as calls:
        loss = model(torch.randn(2, 3)).sum()
    assert [c.label for c in calls] == ["Sequential", "0: Frozen", "0.lin: Linear", "1: Linear"]
    graph = viz.build_graph(loss, modules=calls)
    assert [g.label for g in graph.groups] == ["Sequential", "1: Linear"]
    assert by_group(graph)["1: Linear"] == [
        "1.bias = AccumulateGrad",
        "1.weight = AccumulateGrad",
        "AddmmBackward0",
        "TBackward0",
    ]


def test_an_input_that_requires_grad_stays_outside_every_box():
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    x = torch.randn(2, 3, requires_grad=True)
    x.name = "x"
    with viz.record_modules(model) as calls:
        loss = model(x).sum()
    groups = by_group(viz.build_graph(loss, modules=calls))
    assert "x = AccumulateGrad" in groups[None]
    assert groups["Linear"] == ["AddmmBackward0", "TBackward0", "bias = AccumulateGrad",
                                "weight = AccumulateGrad"]  # fmt: skip


def test_a_forward_that_raises_leaves_the_recording_usable():
    class Fails(nn.Module):
        def forward(self, x: Any) -> Any:
            raise ValueError("no")

    torch.manual_seed(0)
    bad, good = Fails(), nn.Linear(2, 2)
    with viz.record_modules() as calls:
        with pytest.raises(ValueError, match="no"):
            bad(torch.randn(1, 2))
        loss = good(torch.randn(1, 2)).sum()
    assert [(c.label, c.parent) for c in calls] == [("Fails", None), ("Linear", None)]
    assert calls.calls[0].end is not None
    assert "Linear" in by_group(viz.build_graph(loss, modules=calls))


def test_hooks_are_removed_and_other_threads_are_not_recorded():
    torch.manual_seed(0)
    model = nn.Linear(2, 2)
    hooks = (_module_hooks._global_forward_pre_hooks, _module_hooks._global_forward_hooks)
    before = [len(h) for h in hooks]
    with viz.record_modules() as calls:
        assert [len(h) for h in hooks] == [b + 1 for b in before]
        worker = threading.Thread(target=lambda: model(torch.randn(1, 2)))
        worker.start()
        worker.join()
    assert [len(h) for h in hooks] == before
    assert len(calls) == 0
    model(torch.randn(1, 2))  # after the block: not recorded
    assert len(calls) == 0 and repr(calls) == "<ModuleCalls: 0 module calls>"


def test_the_model_alone_groups_parameters_and_the_ops_reading_them():
    s = mlp_loss()
    graph = viz.build_graph(s["loss"], modules=s["model"])
    assert [g.label for g in graph.groups] == ["Sequential", "0: Linear", "2: Linear"]
    groups = by_group(graph)
    assert groups["0: Linear"] == [
        "0.bias = AccumulateGrad",
        "0.weight = AccumulateGrad",
        "AddmmBackward0",
        "TBackward0",
    ]
    # A module without parameters cannot be told from its parameters: outside the boxes.
    assert "ReluBackward0" in groups[None]
    assert graph.groups[1].io_text() == ""


def test_bad_arguments_raise_type_errors():
    s = mlp_loss()
    with pytest.raises(TypeError, match="modules must be what record_modules"):
        viz.build_graph(s["loss"], modules="model")  # type: ignore[arg-type]
    expected = r"record_modules\(\) expects an nn.Module or None"
    with pytest.raises(TypeError, match=expected), viz.record_modules(42):  # type: ignore[arg-type]
        pass


# --- the views --------------------------------------------------------------------------


def test_text_tree_tags_each_line_with_its_module():
    s = mlp_loss()
    text = viz.format_graph(s["loss"], modules=s["calls"])
    assert text.splitlines()[:5] == [
        "MeanBackward0 #1  float32[]",
        "└─ PowBackward0 #2  float32[8, 10]  saved: self float32[8, 10]",
        "   └─ AddmmBackward0 #3  float32[8, 10]  saved: mat1 float32[8, 32], "
        "mat2 float32[32, 10]  [2: Linear]",
        "      ├─ self: 2.bias = AccumulateGrad #4  float32[10]  [2: Linear]",
        "      ├─ mat1: ReluBackward0 #5  float32[8, 32]  saved: result float32[8, 32]  [1: ReLU]",
    ]
    plain = viz.format_graph(s["loss"])
    assert "[" not in "".join(line.split("  ")[0] for line in plain.splitlines())
    assert "Linear" not in plain and plain.count("\n") == text.count("\n")


def test_dot_draws_a_cluster_per_module():
    s = mlp_loss()
    dot = viz.to_dot(s["loss"], modules=s["calls"])
    assert re.findall(r"subgraph (cluster_\d+) \{", dot) == [f"cluster_{k}" for k in range(4)]
    assert re.findall(r'label="([^"]*)"; labeljust', dot) == [
        "Sequential",
        "0: Linear",
        "1: ReLU",
        "2: Linear",
    ]
    # Nested: the layers' clusters open and close inside the Sequential's.
    body = dot[dot.index("subgraph cluster_0") :]
    depth, most = 0, 0
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        most = max(most, depth)
    assert most == 2
    relu = dot[dot.index("subgraph cluster_2") :]
    assert relu.index('label="ReluBackward0"') < relu.index("}")
    # Every node and edge of the plain drawing is still there.
    plain = viz.to_dot(s["loss"])
    node_ids = r"^\s*(n\d+) \["
    assert sorted(re.findall(node_ids, dot, re.M)) == sorted(re.findall(node_ids, plain, re.M))
    assert re.findall(r"n\d+ -> n\d+", dot) == re.findall(r"n\d+ -> n\d+", plain)
    assert "subgraph" not in plain


def test_layout_keeps_each_module_side_by_side_in_every_layer():
    torch.manual_seed(0)
    model = Net(blocks=3)
    with viz.record_modules(model) as calls:
        loss = model(torch.randn(3, 4)).sum()
    graph = viz.build_graph(loss, modules=calls)
    drawn = layout(graph)
    chains = []
    for node in graph.nodes:
        chain, g = [], node.group
        while g is not None:
            chain.append(g)
            g = graph.groups[g].parent
        chains.append(set(chain))
    for lay in set(drawn.layers):
        row = sorted(
            (v for v in range(len(graph.nodes)) if drawn.layers[v] == lay),
            key=lambda v: drawn.positions[v][0],
        )
        for g in range(len(graph.groups)):
            inside = [k for k, v in enumerate(row) if g in chains[v]]
            assert inside == list(range(inside[0], inside[-1] + 1)) if inside else True


def page_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="crv-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_page_payload_holds_the_groups():
    s = mlp_loss()
    data = page_data(viz.to_html(s["loss"], modules=s["calls"]))
    strings = data["strings"]
    groups = data["groups"]
    assert [strings[k] for k in groups["label"]] == ["Sequential", "0: Linear", "1: ReLU",
                                                     "2: Linear"]  # fmt: skip
    assert groups["parent"] == [-1, 0, 0, 0]
    assert groups["collapsed"] == [0, 0, 0, 0]  # 12 nodes: all open
    assert [[strings[k] for k in text] for text in groups["text"]][1] == [
        "0: Linear · 4 nodes",
        "float32[8, 64] → float32[8, 32]",
    ]
    assert Counter(data["nodeGroup"]) == {-1: 3, 1: 4, 2: 1, 3: 4}
    assert data["roots"] == [0] and len(data["layers"]) == 12
    assert data["layout"]["GROUP_GAP"] > 0
    # Without modules, the page has none of it.
    plain = page_data(viz.to_html(s["loss"]))
    assert not {"groups", "nodeGroup", "roots", "layout", "layers"} & set(plain)


def test_big_graphs_open_collapsed_level_by_level():
    torch.manual_seed(0)
    model = Net(blocks=6)
    with viz.record_modules(model) as calls:
        loss = model(torch.randn(3, 4)).sum()
    graph = viz.build_graph(loss, modules=calls)
    assert len(graph.nodes) > COLLAPSE_ABOVE
    collapsed = collapsed_at_first(graph)
    by_level = {
        level: {collapsed[g.id] for g in graph.groups if g.level == level} for level in range(3)
    }
    assert by_level == {0: {False}, 1: {False}, 2: {True}}
    s = mlp_loss()
    small = viz.build_graph(s["loss"], modules=s["calls"])
    assert collapsed_at_first(small) == [False] * 4


# --- in a headless browser ----------------------------------------------------------------

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    assert CHROMIUM is not None
    with Browser(CHROMIUM, tmp_path_factory.mktemp("chromium")) as b:
        yield b


def open_page(browser: Browser, path: Path) -> Any:
    page = browser.new_page(1000, 700)
    page.goto(path.as_uri())
    page.frame()
    return page


@needs_chromium
def test_clicking_a_title_collapses_a_module_and_clicking_it_expands(
    browser: Browser, tmp_path: Path
):
    s = mlp_loss()
    path = tmp_path / "mlp.html"
    viz.to_html(s["loss"], path, modules=s["calls"])
    page = open_page(browser, path)
    try:
        assert page.errors() == []
        assert all(url.startswith("file://") for url in page.requests())
        assert page.evaluate("chainruleViz.stats.nodes") == 12
        x, y = page.evaluate("chainruleViz.titlePoint(1)")  # 0: Linear
        page.click(x, y)
        page.frame()
        assert page.evaluate("chainruleViz.collapsed()") == [False, True, False, False]
        assert page.evaluate("chainruleViz.stats.nodes") == 9  # 4 nodes became 1
        drawn = page.evaluate(
            "(() => { const L = chainruleViz.drawn(); return [L.items, L.src, L.dst]; })()"
        )
        items, src, dst = drawn
        n = 12
        assert n + 1 in items and all(v not in items for v in (7, 9, 10, 11))
        assert (n + 1, 5) in set(zip(src, dst, strict=True))  # rerouted: Linear -> ReLU
        # Clicking the collapsed module opens it again, where it was.
        x, y = page.evaluate(f"chainruleViz.screenPoint({n + 1})")
        page.click(x, y)
        page.frame()
        assert page.evaluate("chainruleViz.collapsed()") == [False] * 4
        assert page.evaluate("chainruleViz.stats.nodes") == 12
        # Selecting a node hidden in a collapsed module opens the modules around it.
        page.evaluate("chainruleViz.collapseAll()")
        page.frame()
        assert page.evaluate("chainruleViz.stats.nodes") == 4  # 3 outside, 1 module
        page.evaluate("chainruleViz.select(11)")
        page.frame()
        assert page.evaluate("chainruleViz.collapsed()") == [False, False, True, True]
        assert page.evaluate("chainruleViz.selected()") == 11
        assert page.errors() == []
    finally:
        page.close()


@needs_chromium
def test_the_page_lays_out_as_python_does(browser: Browser, tmp_path: Path):
    torch.manual_seed(0)
    model = Net(blocks=6)
    with viz.record_modules(model) as calls:
        loss = model(torch.randn(3, 4)).sum()
    path = tmp_path / "net.html"
    data = page_data(viz.to_html(loss, path, modules=calls))
    page = open_page(browser, path)
    try:
        mine = page.evaluate("chainruleViz.layoutAll()")
        python = [list(p) for p in zip(*(data["nodes"][k] for k in "xywh"), strict=True)]
        assert mine["positions"] == python
        assert mine["routes"] == data["edges"]["pts"]
        assert (mine["width"], mine["height"]) == (data["width"], data["height"])
        # It opened collapsed (a big graph); expanding everything shows every node.
        collapsed = page.evaluate("chainruleViz.collapsed()")
        assert collapsed == [bool(c) for c in data["groups"]["collapsed"]] and any(collapsed)
        assert page.evaluate("chainruleViz.stats.nodes") < len(python)
        page.evaluate("chainruleViz.expandAll()")
        page.frame()
        assert page.evaluate("chainruleViz.stats.nodes") == len(python)
        assert page.errors() == []
    finally:
        page.close()
