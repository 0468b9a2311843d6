"""The layered layout behind the HTML view: layers, order, coordinates, edge routes, scale."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence

import chainrule as torch
from chainrule.viz import Graph, GraphEdge, GraphNode, build_graph
from chainrule.viz._layout import DUMMY_GAP, LAYER_GAP, MARGIN, Layout, box_size, layout


def make_graph(labels: Sequence[str], edges: Sequence[tuple[int, int, int]], roots=(0,)) -> Graph:
    """A graph by hand: `edges` are (producer, consumer, input slot)."""
    nodes = [GraphNode(i, "op", label, label) for i, label in enumerate(labels)]
    return Graph(nodes, [GraphEdge(s, d, k, None, None) for s, d, k in edges], list(roots))


def centre(box: tuple[float, float, float, float]) -> float:
    return box[0] + box[2] / 2


def brute_force_crossings(drawn: Layout) -> int:
    """Crossings seen in the drawing: in each gap between two rows, pairs of routes whose
    ends come in opposite orders. A route crosses a gap in a curve from one point to the
    next, or inside a straight vertical run through several rows."""
    rows: dict[int, float] = {}
    for (_, y, _, h), lay in zip(drawn.positions, drawn.layers, strict=True):
        rows[lay] = max(rows.get(lay, 0), y + h)
    gaps = [(rows[lay], rows[lay] + LAYER_GAP) for lay in rows if lay > 0]
    count = 0
    for top, bottom in gaps:
        ends = []
        for route in drawn.edges:
            for (x0, y0), (x1, y1) in itertools.pairwise(route):
                if (y0, y1) == (top, bottom) or (x0 == x1 and y0 <= top and y1 >= bottom):
                    ends.append((x0, x1))
        for i, (a0, a1) in enumerate(ends):
            count += sum((a0 - b0) * (a1 - b1) < 0 for b0, b1 in ends[i + 1 :])
    return count


def check_drawing(graph: Graph, drawn: Layout) -> None:
    """What any layout must satisfy: edges run down, boxes of a layer keep apart, routes
    join the right sides and stay out of boxes, everything lies inside the drawing."""
    boxes = drawn.positions
    for e, route in zip(graph.edges, drawn.edges, strict=True):
        src, dst = boxes[e.src], boxes[e.dst]
        assert drawn.layers[e.src] > drawn.layers[e.dst]
        assert route[0][1] == src[1] + src[3] and src[0] <= route[0][0] <= src[0] + src[2]
        assert route[-1][1] == dst[1] and dst[0] <= route[-1][0] <= dst[0] + dst[2]
        assert all(p[1] <= q[1] for p, q in itertools.pairwise(route))
        for x, y in route[1:-1]:
            assert not any(b[0] < x < b[0] + b[2] and b[1] < y < b[1] + b[3] for b in boxes)
    rows: dict[int, list[tuple[float, float, float, float]]] = {}
    for v, box in enumerate(boxes):
        rows.setdefault(drawn.layers[v], []).append(box)
        assert box[0] >= MARGIN - 0.5 and box[0] + box[2] <= drawn.width - MARGIN + 0.5
        assert box[1] >= MARGIN and box[1] + box[3] <= drawn.height - MARGIN
    for row in rows.values():
        row.sort()
        for a, b in itertools.pairwise(row):
            # NODE_GAP apart, or less when edges pass between them: DUMMY_GAP on each side.
            assert b[0] - (a[0] + a[2]) >= 2 * DUMMY_GAP - 1


def test_box_size_fits_monospace_text_in_whole_pixels():
    # 12 characters of 7.2 px, 10 px padding each side, rounded up to an even width.
    assert box_size(["MulBackward0", "float32[2]"]) == (108, 44)
    assert box_size(["a"]) == (28, 28)
    assert box_size([]) == (20, 28)


def test_diamond_exact_positions_and_ports():
    # out <- add(p, q); p and q both read x: x sits centred over p and q, add under them.
    graph = make_graph(
        ["out", "add", "p", "q", "x"], [(1, 0, 0), (2, 1, 0), (3, 1, 1), (4, 2, 0), (4, 3, 0)]
    )
    drawn = layout(graph)
    assert drawn.layers == [0, 1, 2, 2, 3]
    assert drawn.positions == [
        (37, 236, 42, 28),
        (37, 164, 42, 28),
        (20, 92, 28, 28),
        (68, 92, 28, 28),
        (44, 20, 28, 28),
    ]
    assert (drawn.width, drawn.height, drawn.crossings) == (116, 284, 0)
    # Two edges into `add` enter at a third and two thirds of its top side, slot 0 left.
    assert drawn.edges[1] == [(34, 120), (51, 164)]
    assert drawn.edges[2] == [(82, 120), (65, 164)]
    assert drawn.edges[0] == [(58, 192), (58, 236)]
    # Rows are LAYER_GAP apart.
    assert drawn.positions[1][1] - (drawn.positions[2][1] + 28) == LAYER_GAP
    check_drawing(graph, drawn)


def test_seed_example_is_one_straight_column_with_two_edges_for_b_times_b():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    graph = build_graph(out)
    drawn = layout(graph)
    assert drawn.layers == [0, 1, 2, 3, 4, 5]
    centres = {centre(box) for box in drawn.positions}
    assert len(centres) == 1  # output, mean, both muls, add and leaf on one axis
    twice = [route for e, route in zip(graph.edges, drawn.edges, strict=True) if e.dst == 3]
    assert len(twice) == 2
    # b * b: the two edges leave and enter at different ports, so both are seen.
    assert twice[0][0][0] < twice[1][0][0] and twice[0][-1][0] < twice[1][-1][0]
    check_drawing(graph, drawn)


def test_layers_are_longest_paths_from_the_roots():
    # x feeds the output directly and through a chain of three: it sits above the chain.
    graph = make_graph(
        ["out", "f", "g", "h", "x"], [(1, 0, 0), (4, 0, 1), (2, 1, 0), (3, 2, 0), (4, 3, 0)]
    )
    drawn = layout(graph)
    assert drawn.layers == [0, 1, 2, 3, 4]
    # The long edge x -> out bends around the chain through a point per layer it crosses.
    long_route = drawn.edges[1]
    assert len(long_route) == 4
    assert long_route[1][1] == drawn.positions[3][1]  # enters h's row at its top...
    assert long_route[2][1] == drawn.positions[1][1] + drawn.positions[1][3]  # ...leaves f's
    check_drawing(graph, drawn)


def test_barycenter_sweeps_remove_a_crossing_the_first_order_has():
    # r0 <- a, r1 <- b; c feeds a and b, d feeds a. Placed in id order c, d the edges
    # c -> b and d -> a cross; ordering by the mean position of consumers puts d first.
    graph = make_graph(
        ["r0", "r1", "a", "b", "c", "d"],
        [(2, 0, 0), (3, 1, 0), (4, 2, 0), (4, 3, 0), (5, 2, 1)],
        roots=(0, 1),
    )
    drawn = layout(graph)
    assert drawn.crossings == 0 == brute_force_crossings(drawn)
    assert centre(drawn.positions[5]) < centre(drawn.positions[4])
    check_drawing(graph, drawn)


def test_reported_crossings_match_the_drawing_on_random_dags():
    rng = random.Random(5)
    for size in (10, 40, 80):
        edges = []
        for v in range(1, size):  # each node feeds one to three earlier ones: rooted at 0
            for k, u in enumerate(sorted(rng.sample(range(v), min(v, rng.randint(1, 3))))):
                edges.append((v, u, k))
        graph = make_graph([f"n{i}" for i in range(size)], edges)
        drawn = layout(graph)
        assert drawn.crossings == brute_force_crossings(drawn)
        check_drawing(graph, drawn)


def test_a_cycle_in_a_hand_made_graph_does_not_hang():
    graph = make_graph(["a", "b", "c"], [(1, 0, 0), (2, 1, 0), (1, 2, 0)])
    drawn = layout(graph)
    assert len(drawn.positions) == 3 and len(drawn.edges) == 3


def test_single_node():
    drawn = layout(make_graph(["out"], []))
    assert drawn.positions == [(20, 20, 42, 28)]
    assert (drawn.width, drawn.height) == (82, 68)


def test_100k_node_chain_with_a_shared_leaf_lays_out_in_seconds():
    # y = sin(y) and y = y * w alternately: w is read at 50,000 depths, so its edges span
    # up to the whole height; the budget on bend points keeps the drawing linear in size.
    n = 100_000
    nodes = [GraphNode(0, "tensor", "output", "output")]
    edges = []
    for i in range(1, n + 1):
        name = "MulBackward0" if i % 2 else "SinBackward0"
        nodes.append(GraphNode(i, "op", name, name))
        edges.append(GraphEdge(i, i - 1, 0, (1,), "float32"))
    nodes.append(GraphNode(n + 1, "leaf", "AccumulateGrad", "w"))
    edges.extend(GraphEdge(n + 1, i, 1, (1,), "float32") for i in range(1, n + 1, 2))
    nodes.append(GraphNode(n + 2, "leaf", "AccumulateGrad", "x"))
    edges.append(GraphEdge(n + 2, n, 0, (1,), "float32"))
    graph = Graph(nodes, edges, [0])
    start = time.perf_counter()
    drawn = layout(graph)
    seconds = time.perf_counter() - start
    print(f"layout of {len(nodes):,} nodes, {len(edges):,} edges: {seconds:.2f} s")
    assert seconds < 30  # about 2 s here; a quadratic step would take hours
    assert drawn.layers[n] == n == drawn.layers[n + 1] and drawn.layers[n + 2] == n + 1
    assert sum(len(route) for route in drawn.edges) < 6 * len(edges)
    for e, route in zip(edges[:1000], drawn.edges[:1000], strict=True):
        assert route[0][1] == drawn.positions[e.src][1] + drawn.positions[e.src][3]
        assert route[-1][1] == drawn.positions[e.dst][1]
