"""A layered (Sugiyama-style) drawing of a graph: layers, crossing reduction, coordinates.

Every step is an explicit loop, linear (or n log n) per sweep, so a 100,000-node graph
lays out in seconds. The output sits at the bottom; the leaves it came from above it.
With module boxes (`Graph.groups`), each layer keeps a box's nodes side by side, with
room between boxes. The page's script (assets/viewer.js) holds the same algorithm, step
for step, to lay out again when a box is collapsed or expanded.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._model import Graph

__all__ = ["CHAR_WIDTH", "LINE_HEIGHT", "Layout", "box_size", "layout", "paused_gc"]

Point = tuple[float, float]

# Boxes are sized for 12px monospace text, which the HTML view draws with.
CHAR_WIDTH = 7.2
LINE_HEIGHT = 16
PAD_X = 10
PAD_Y = 6
LAYER_GAP = 44  # vertical room between two layers, where the edges run
NODE_GAP = 20  # horizontal room between two boxes of a layer
DUMMY_GAP = 8  # between an edge passing through a layer and its neighbours
MARGIN = 20
DUMMY_WEIGHT = 4.0  # long edges resist bending more than boxes resist moving
ORDER_SWEEPS = 4
PLACE_PASSES = 2
GROUP_GAP = 10  # more room between neighbours for each box boundary between them
GROUP_ROOM = 12  # more room between layers for each level of nested boxes


@dataclass
class Layout:
    """Where to draw each node and edge of a `Graph` (same indices as its nodes and edges)."""

    positions: list[tuple[float, float, float, float]]  # (x, y, w, h): top-left corner, size
    edges: list[list[Point]]  # polyline of each edge, from the producer down to the consumer
    layers: list[int]  # layer of each node: 0 holds the roots, drawn lowest
    width: float
    height: float
    crossings: int  # crossings between adjacent layers, among edges routed through them


def box_size(lines: Sequence[str]) -> tuple[int, int]:
    """Width and height of a box showing `lines` of monospace text, in whole pixels."""
    longest = max((len(line) for line in lines), default=0)
    return (
        2 * math.ceil(longest * CHAR_WIDTH / 2 + PAD_X),  # even: centres on whole pixels
        math.ceil(max(len(lines), 1) * LINE_HEIGHT + 2 * PAD_Y),
    )


def layout(graph: Graph, sizes: Sequence[tuple[float, float]] | None = None) -> Layout:
    """Lay out `graph`; `sizes[i]` is node i's (w, h), by default sized to fit its label."""
    with paused_gc():
        return _layout(graph, sizes)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while making many small objects: each collection
    they would trigger rescans the whole graph (twice as slow on big graphs). The objects
    made hold no cycles, so reference counting frees them as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _layout(graph: Graph, sizes: Sequence[tuple[float, float]] | None) -> Layout:
    n = len(graph.nodes)
    if sizes is None:
        sizes = [box_size([node.label]) for node in graph.nodes]
    pairs = [(e.src, e.dst) for e in graph.edges]
    layer = _layers(n, pairs)
    boxes = _Boxes([g.parent for g in graph.groups], [node.group for node in graph.nodes])
    net = _Network(n, layer, pairs, [e.index for e in graph.edges], sizes, boxes)
    crossings = net.order(graph.roots)
    net.place_x()
    width, row_top, row_height = net.place_y()
    positions: list[tuple[float, float, float, float]] = [
        (
            _whole(round(net.x[v]) - sizes[v][0] / 2),
            round(row_top[layer[v]] + (row_height[layer[v]] - sizes[v][1]) / 2),
            sizes[v][0],
            sizes[v][1],
        )
        for v in range(n)
    ]
    height = (row_top[0] + row_height[0] + net.margin) if n else 2 * MARGIN
    routes = net.routes(positions, row_top, row_height)
    return Layout(positions, routes, layer, width, height, crossings)


def _whole(x: float) -> float:
    """`x` as an int when it is one (the page's JSON is shorter for it)."""
    return int(x) if x == int(x) else x


def _layers(n: int, pairs: Sequence[tuple[int, int]]) -> list[int]:
    """Longest-path layering from the roots: a producer sits one layer above its highest consumer.

    Kahn's algorithm, consumers first. Should the graph have a cycle (a graph of
    nodes cannot, but a hand-made one might), one of its nodes is taken anyway.
    """
    producers: list[list[int]] = [[] for _ in range(n)]
    waiting = [0] * n  # consumers not yet placed
    for src, dst in pairs:
        if src != dst:
            producers[dst].append(src)
            waiting[src] += 1
    layer = [0] * n
    done = [False] * n
    # The order nodes are taken in does not change the layers, only where a cycle breaks.
    stack = [v for v in range(n) if waiting[v] == 0]
    placed = 0
    next_unplaced = 0
    while placed < n:
        if not stack:
            while done[next_unplaced]:
                next_unplaced += 1
            stack.append(next_unplaced)  # a cycle: break it here
        v = stack.pop()
        if done[v]:
            continue
        done[v] = True
        placed += 1
        above = layer[v] + 1
        for p in producers[v]:
            if layer[p] < above:
                layer[p] = above
            waiting[p] -= 1
            if waiting[p] == 0 and not done[p]:
                stack.append(p)
    return layer


class _Boxes:
    """Which module box each vertex sits in, and the boxes around each box."""

    def __init__(self, parents: Sequence[int | None], groups: Sequence[int | None]) -> None:
        self.active = bool(parents)
        # chains[g]: the boxes around g and g itself, outermost first; chains[-1] is ().
        self.chains: list[tuple[int, ...]] = []
        for parent in parents:
            above = self.chains[parent] if parent is not None else ()
            self.chains.append((*above, len(self.chains)))
        self.chains.append(())
        self.of: list[int] = [-1 if g is None else g for g in groups]  # per vertex
        self.levels = max((len(c) for c in self.chains), default=0)

    def add_dummy(self, src: int, dst: int) -> None:
        """A dummy of edge src -> dst sits in the innermost box around both ends."""
        a, b = self.chains[self.of[src]], self.chains[self.of[dst]]
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        self.of.append(a[k - 1] if k else -1)

    def boundaries(self, u: int, v: int) -> int:
        """How many box outlines lie between neighbours u and v of a layer."""
        a, b = self.chains[self.of[u]], self.chains[self.of[v]]
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        return len(a) + len(b) - 2 * k

    def sort(self, row: list[int]) -> None:
        """Reorder `row` (sorted as if there were no boxes) so each box's vertices are side
        by side: boxes, like vertices, go by the mean place of their vertices."""
        total: dict[int, float] = {}
        count: dict[int, int] = {}
        for k, v in enumerate(row):
            for g in self.chains[self.of[v]]:
                total[g] = total.get(g, 0) + k
                count[g] = count.get(g, 0) + 1
        rank = {v: k for k, v in enumerate(row)}
        chains = self.chains
        of = self.of

        def key(v: int) -> tuple[tuple[float, int], ...]:
            return (*((total[g] / count[g], g) for g in chains[of[v]]), (rank[v], -1))

        row.sort(key=key)


class _Network:
    """The layered graph: real nodes plus one dummy vertex per layer a long edge crosses."""

    def __init__(
        self,
        n: int,
        layer: list[int],
        pairs: Sequence[tuple[int, int]],
        slots: Sequence[int],
        sizes: Sequence[tuple[float, float]],
        boxes: _Boxes,
    ) -> None:
        self.n = n
        self.boxes = boxes
        self.margin = MARGIN + GROUP_ROOM * boxes.levels  # room for the outermost boxes
        self.pairs = pairs
        self.vlayer = list(layer)
        self.width: list[float] = [w for w, _ in sizes]
        self.height: list[float] = [h for _, h in sizes]
        self.top = max(layer, default=0)
        # down[v]: (vertex one layer below, input slot there); up[v]: vertices one layer above.
        self.down: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.up: list[list[int]] = [[] for _ in range(n)]
        self.below: list[list[int]] = []  # down without the slots, once the vertices are known
        # chains[i]: the vertices edge i runs through, or None when drawn as a straight line.
        self.chains: list[list[int] | None] = []
        budget = n + 1000  # dummies allowed (shortest edges first), so drawings stay linear in size
        by_span = sorted(range(len(pairs)), key=lambda i: layer[pairs[i][0]] - layer[pairs[i][1]])
        chains: dict[int, list[int] | None] = {}
        for i in by_span:
            src, dst = pairs[i]
            span = layer[src] - layer[dst]
            if span < 1 or span - 1 > budget:
                chains[i] = None
                continue
            budget -= span - 1
            chain = [src]
            for lay in range(layer[src] - 1, layer[dst], -1):
                chain.append(self._add_dummy(lay))
                if boxes.active:
                    boxes.add_dummy(src, dst)
            chain.append(dst)
            for k in range(len(chain) - 1):
                a, b = chain[k], chain[k + 1]
                self.down[a].append((b, slots[i] if b == dst else 0))
                self.up[b].append(a)
            chains[i] = chain
        self.chains = [chains[i] for i in range(len(pairs))]
        self.below = [[b for b, _ in d] for d in self.down]
        self.rows: list[list[int]] = [[] for _ in range(self.top + 1)]
        self.pos = [0] * len(self.vlayer)
        self.x = [0.0] * len(self.vlayer)

    def _add_dummy(self, lay: int) -> int:
        self.vlayer.append(lay)
        self.width.append(0.0)
        self.height.append(0.0)
        self.down.append([])
        self.up.append([])
        return len(self.vlayer) - 1

    # --- order within layers ------------------------------------------------------

    def order(self, roots: Sequence[int]) -> int:
        """Order each layer to reduce crossings; returns the crossings left."""
        rows = self.rows
        first = {r: k for k, r in enumerate(roots)}
        for v in range(len(self.vlayer)):
            rows[self.vlayer[v]].append(v)
        self._sort(0, lambda v: (first.get(v, len(first)), v))
        # Start like a tree: each layer in the order its vertices feed the layer below.
        for lay in range(1, self.top + 1):
            self._sort(lay, self._first_consumer)
        best = [list(row) for row in rows]
        fewest = self.crossings()
        for sweep in range(ORDER_SWEEPS):
            if fewest == 0:
                break
            if sweep % 2 == 0:
                for lay in range(1, self.top + 1):
                    self._sort_by_barycenter(lay, self.below)
            else:
                for lay in range(self.top - 1, -1, -1):
                    self._sort_by_barycenter(lay, self.up)
            count = self.crossings()
            if count < fewest:
                fewest, best = count, [list(row) for row in rows]
        self.rows = best
        for lay in range(self.top + 1):
            self._number(lay)
        return fewest

    def _sort(self, lay: int, key: Callable[[int], Any]) -> None:
        self.rows[lay].sort(key=key)
        if self.boxes.active:
            self.boxes.sort(self.rows[lay])
        self._number(lay)

    def _number(self, lay: int) -> None:
        pos = self.pos
        for k, v in enumerate(self.rows[lay]):
            pos[v] = k

    def _first_consumer(self, v: int) -> tuple[int, int, int]:
        below = self.down[v]
        if not below:
            return (len(self.vlayer), 0, v)
        pos = self.pos
        b, slot = min(below, key=lambda e: (pos[e[0]], e[1]))
        return (pos[b], slot, v)

    def _sort_by_barycenter(self, lay: int, neighbours: list[list[int]]) -> None:
        pos = self.pos
        keys: dict[int, tuple[float, int]] = {}
        for v in self.rows[lay]:
            near = neighbours[v]
            # A vertex with no neighbours on that side keeps its place.
            keys[v] = (sum(pos[u] for u in near) / len(near) if near else pos[v], pos[v])
        self._sort(lay, keys.__getitem__)

    def crossings(self) -> int:
        """Crossings between each pair of adjacent layers (inversions, with a Fenwick tree)."""
        pos = self.pos
        total = 0
        for lay in range(1, self.top + 1):
            lower = len(self.rows[lay - 1])
            tree = [0] * (lower + 1)
            seen = 0
            for v in self.rows[lay]:
                for p in sorted(pos[b] for b, _ in self.down[v]):
                    # Edges seen so far that end right of p cross this one.
                    i, not_right = p + 1, 0
                    while i > 0:
                        not_right += tree[i]
                        i -= i & -i
                    total += seen - not_right
                    i = p + 1
                    while i <= lower:
                        tree[i] += 1
                        i += i & -i
                    seen += 1
        return total

    # --- coordinates ----------------------------------------------------------------

    def place_x(self) -> None:
        """x of each vertex: near the mean of its neighbours, in order, boxes not overlapping."""
        for row in self.rows:  # start tightly packed from the left
            offset = 0.0
            for k, v in enumerate(row):
                if k:
                    offset += self._distance(row[k - 1], v)
                self.x[v] = offset
        for sweep in range(PLACE_PASSES):
            if sweep % 2 == 0:
                for lay in range(1, self.top + 1):
                    self._pack(lay, self.below)
                for lay in range(self.top - 1, -1, -1):
                    self._pack(lay, self.up)
            else:
                for lay in range(self.top - 1, -1, -1):
                    self._pack(lay, self.up)
                for lay in range(1, self.top + 1):
                    self._pack(lay, self.below)
        left = min((self.x[v] - self.width[v] / 2 for v in range(len(self.x))), default=0.0)
        shift = self.margin - left
        self.x = [x + shift for x in self.x]

    def _distance(self, u: int, v: int) -> float:
        """Least distance between the centres of neighbours u, v of a layer."""
        gap = DUMMY_GAP if u >= self.n or v >= self.n else NODE_GAP
        if self.boxes.active:
            gap += GROUP_GAP * self.boxes.boundaries(u, v)
        return (self.width[u] + self.width[v]) / 2 + gap

    def _pack(self, lay: int, neighbours: list[list[int]]) -> None:
        """Place one layer as close as it can to targets, by weighted isotonic regression.

        With offsets o[k] (the least distance from the first vertex), y[k] = x[k] - o[k]
        must not decrease along the layer: pool-adjacent-violators solves that exactly.
        """
        row = self.rows[lay]
        x = self.x
        at = x.__getitem__
        if len(row) == 1:  # long chains: most layers hold one vertex
            near = neighbours[row[0]]
            if near:
                x[row[0]] = sum(map(at, near)) / len(near)
            return
        n, width = self.n, self.width
        grouped = self.boxes.active
        # Blocks of adjacent vertices pooled so far: their level (mean y), weight, size.
        levels: list[float] = []
        weights: list[float] = []
        sizes: list[int] = []
        offsets: list[float] = []
        offset = 0.0
        for k, v in enumerate(row):
            if k:
                u = row[k - 1]
                gap = DUMMY_GAP if v >= n or u >= n else NODE_GAP
                if grouped:
                    gap += GROUP_GAP * self.boxes.boundaries(u, v)
                offset += (width[u] + width[v]) / 2 + gap
            offsets.append(offset)
            near = neighbours[v]
            level = (sum(map(at, near)) / len(near) if near else x[v]) - offset
            weight = DUMMY_WEIGHT if v >= n else 1.0
            size = 1
            while levels and levels[-1] >= level:
                other = weights.pop()
                level = (levels.pop() * other + level * weight) / (other + weight)
                weight += other
                size += sizes.pop()
            levels.append(level)
            weights.append(weight)
            sizes.append(size)
        k = 0
        for level, size in zip(levels, sizes, strict=True):
            for _ in range(size):
                x[row[k]] = level + offsets[k]
                k += 1

    def place_y(self) -> tuple[float, list[float], list[float]]:
        """Width of the drawing, and top and height of each layer's row (top layer first)."""
        row_height: list[float] = [0] * (self.top + 1)
        for v in range(self.n):
            lay = self.vlayer[v]
            row_height[lay] = max(row_height[lay], self.height[v])
        row_top: list[float] = [0] * (self.top + 1)
        y: float = self.margin
        gap = LAYER_GAP + GROUP_ROOM * self.boxes.levels
        for lay in range(self.top, -1, -1):
            row_top[lay] = y
            y += row_height[lay] + gap
        right = max((self.x[v] + self.width[v] / 2 for v in range(len(self.x))), default=0.0)
        return math.ceil(right + self.margin), row_top, row_height

    def routes(
        self,
        boxes: list[tuple[float, float, float, float]],
        row_top: list[float],
        row_height: list[float],
    ) -> list[list[Point]]:
        """Each edge's polyline: out of its producer's bottom side, through its dummies, into
        its consumer's top side. Edges sharing a side get ports spread along it in order."""
        routes: list[list[Point]] = []
        for chain in self.chains:
            points: list[Point] = []
            for v in chain[1:-1] if chain is not None else ():
                # Down through the layer's row, so the edge never cuts a box of that row.
                column, lay = round(self.x[v]), self.vlayer[v]
                bottom = row_top[lay] + row_height[lay]
                if points and points[-1][0] == column:
                    points[-1] = (column, bottom)  # a straight run needs only its ends
                else:
                    points.append((column, row_top[lay]))
                    points.append((column, bottom))
            routes.append(points)
        # Ports: the order of the next point along each side keeps the edges from crossing there.
        outs: list[list[int]] = [[] for _ in range(self.n)]
        ins: list[list[int]] = [[] for _ in range(self.n)]
        for i, (src, dst) in enumerate(self.pairs):
            outs[src].append(i)
            ins[dst].append(i)

        def toward(i: int, end: int) -> float:
            """x of the point edge i heads for after leaving (end 0) or before reaching (end -1)."""
            points = routes[i]
            if points:
                return points[end][0]
            src, dst = self.pairs[i]
            return self.x[dst] if end == 0 else self.x[src]

        starts: dict[int, Point] = {}
        ends: dict[int, Point] = {}
        for v in range(self.n):
            left, top, w, h = boxes[v]
            for side, edges, end in ((top + h, outs[v], 0), (top, ins[v], -1)):
                ranked = sorted((toward(i, end), i) for i in edges)
                for k, (_, i) in enumerate(ranked):
                    port = (round(left + w * (k + 1) / (len(ranked) + 1)), side)
                    (starts if end == 0 else ends)[i] = port
        return [[starts[i], *routes[i], ends[i]] for i in range(len(self.pairs))]
