// The layered layout of chainrule.viz (_layout.py), step for step, so the page can lay the
// graph out again when a module box collapses or expands. Same inputs, same numbers: a
// test compares the two on the same graph.
const crvLayout = (function () {
  "use strict";

  // Python's round(): halves go to the even neighbour.
  function round(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  // Python's comparison of numbers and tuples (arrays here), for sort keys.
  function compare(a, b) {
    if (typeof a === "number") return a < b ? -1 : a > b ? 1 : 0;
    const k = Math.min(a.length, b.length);
    for (let i = 0; i < k; i++) {
      const c = compare(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  }

  function sortBy(list, key) {
    const keys = new Map(list.map((v) => [v, key(v)]));
    list.sort((u, v) => compare(keys.get(u), keys.get(v)));
  }

  function sum(list, at) {
    let s = 0;
    for (const u of list) s += at(u);
    return s;
  }

  // Longest-path layering from the roots (see _layers).
  function layers(n, pairs) {
    const producers = Array.from({ length: n }, () => []);
    const waiting = new Array(n).fill(0);
    for (const [src, dst] of pairs) {
      if (src !== dst) {
        producers[dst].push(src);
        waiting[src]++;
      }
    }
    const layer = new Array(n).fill(0);
    const done = new Array(n).fill(false);
    const stack = [];
    for (let v = 0; v < n; v++) if (waiting[v] === 0) stack.push(v);
    let placed = 0, nextUnplaced = 0;
    while (placed < n) {
      if (!stack.length) {
        while (done[nextUnplaced]) nextUnplaced++;
        stack.push(nextUnplaced);
      }
      const v = stack.pop();
      if (done[v]) continue;
      done[v] = true;
      placed++;
      const above = layer[v] + 1;
      for (const p of producers[v]) {
        if (layer[p] < above) layer[p] = above;
        waiting[p]--;
        if (waiting[p] === 0 && !done[p]) stack.push(p);
      }
    }
    return layer;
  }

  // Which box each vertex sits in (see _Boxes).
  function Boxes(parents, groups) {
    this.active = parents.length > 0;
    this.chains = [];
    for (const parent of parents) {
      const above = parent >= 0 ? this.chains[parent] : [];
      this.chains.push([...above, this.chains.length]);
    }
    this.none = [];
    this.of = groups.slice();
    this.levels = 0;
    for (const g of this.of) this.levels = Math.max(this.levels, this.chain(g).length);
  }
  Boxes.prototype.chain = function (g) {
    return g >= 0 ? this.chains[g] : this.none;
  };
  Boxes.prototype.common = function (u, v) {
    const a = this.chain(this.of[u]), b = this.chain(this.of[v]);
    let k = 0;
    while (k < Math.min(a.length, b.length) && a[k] === b[k]) k++;
    return [a, b, k];
  };
  Boxes.prototype.addDummy = function (src, dst) {
    const [a, , k] = this.common(src, dst);
    this.of.push(k ? a[k - 1] : -1);
  };
  Boxes.prototype.boundaries = function (u, v) {
    const [a, b, k] = this.common(u, v);
    return a.length + b.length - 2 * k;
  };
  Boxes.prototype.sort = function (row) {
    const total = new Map(), count = new Map();
    row.forEach((v, k) => {
      for (const g of this.chain(this.of[v])) {
        total.set(g, (total.get(g) || 0) + k);
        count.set(g, (count.get(g) || 0) + 1);
      }
    });
    const rank = new Map(row.map((v, k) => [v, k]));
    sortBy(row, (v) => [
      ...this.chain(this.of[v]).map((g) => [total.get(g) / count.get(g), g]),
      [rank.get(v), -1],
    ]);
  };

  // The layered graph with dummies (see _Network).
  function Network(n, layer, pairs, slots, sizes, boxes, C) {
    this.n = n;
    this.C = C;
    this.boxes = boxes;
    this.margin = C.MARGIN + C.GROUP_ROOM * boxes.levels;
    this.pairs = pairs;
    this.vlayer = layer.slice();
    this.width = sizes.map((s) => s[0]);
    this.height = sizes.map((s) => s[1]);
    this.top = Math.max(0, ...layer);
    this.down = Array.from({ length: n }, () => []);
    this.up = Array.from({ length: n }, () => []);
    let budget = n + 1000;
    const bySpan = pairs.map((_, i) => i);
    const span = (i) => layer[pairs[i][0]] - layer[pairs[i][1]];
    sortBy(bySpan, span);
    const chains = new Map();
    for (const i of bySpan) {
      const [src, dst] = pairs[i];
      const s = span(i);
      if (s < 1 || s - 1 > budget) {
        chains.set(i, null);
        continue;
      }
      budget -= s - 1;
      const chain = [src];
      for (let lay = layer[src] - 1; lay > layer[dst]; lay--) {
        chain.push(this.addDummy(lay));
        if (boxes.active) boxes.addDummy(src, dst);
      }
      chain.push(dst);
      for (let k = 0; k < chain.length - 1; k++) {
        const a = chain[k], b = chain[k + 1];
        this.down[a].push([b, b === dst ? slots[i] : 0]);
        this.up[b].push(a);
      }
      chains.set(i, chain);
    }
    this.chains = pairs.map((_, i) => chains.get(i));
    this.below = this.down.map((d) => d.map((e) => e[0]));
    this.rows = Array.from({ length: this.top + 1 }, () => []);
    this.pos = new Array(this.vlayer.length).fill(0);
    this.x = new Array(this.vlayer.length).fill(0);
  }

  Network.prototype.addDummy = function (lay) {
    this.vlayer.push(lay);
    this.width.push(0);
    this.height.push(0);
    this.down.push([]);
    this.up.push([]);
    return this.vlayer.length - 1;
  };

  Network.prototype.order = function (roots) {
    const rows = this.rows;
    const first = new Map(roots.map((r, k) => [r, k]));
    for (let v = 0; v < this.vlayer.length; v++) rows[this.vlayer[v]].push(v);
    this.sort(0, (v) => [first.has(v) ? first.get(v) : first.size, v]);
    for (let lay = 1; lay <= this.top; lay++) this.sort(lay, (v) => this.firstConsumer(v));
    let best = rows.map((row) => row.slice());
    let fewest = this.crossings();
    for (let sweep = 0; sweep < this.C.ORDER_SWEEPS; sweep++) {
      if (fewest === 0) break;
      if (sweep % 2 === 0) {
        for (let lay = 1; lay <= this.top; lay++) this.sortByBarycenter(lay, this.below);
      } else {
        for (let lay = this.top - 1; lay >= 0; lay--) this.sortByBarycenter(lay, this.up);
      }
      const count = this.crossings();
      if (count < fewest) {
        fewest = count;
        best = rows.map((row) => row.slice());
      }
    }
    this.rows = best;
    for (let lay = 0; lay <= this.top; lay++) this.number(lay);
    return fewest;
  };

  Network.prototype.sort = function (lay, key) {
    sortBy(this.rows[lay], key);
    if (this.boxes.active) this.boxes.sort(this.rows[lay]);
    this.number(lay);
  };

  Network.prototype.number = function (lay) {
    this.rows[lay].forEach((v, k) => { this.pos[v] = k; });
  };

  Network.prototype.firstConsumer = function (v) {
    const below = this.down[v];
    if (!below.length) return [this.vlayer.length, 0, v];
    let best = below[0];
    for (const e of below) {
      if (compare([this.pos[e[0]], e[1]], [this.pos[best[0]], best[1]]) < 0) best = e;
    }
    return [this.pos[best[0]], best[1], v];
  };

  Network.prototype.sortByBarycenter = function (lay, neighbours) {
    const pos = this.pos;
    const keys = new Map();
    for (const v of this.rows[lay]) {
      const near = neighbours[v];
      keys.set(v, [near.length ? sum(near, (u) => pos[u]) / near.length : pos[v], pos[v]]);
    }
    this.sort(lay, (v) => keys.get(v));
  };

  Network.prototype.crossings = function () {
    const pos = this.pos;
    let total = 0;
    for (let lay = 1; lay <= this.top; lay++) {
      const lower = this.rows[lay - 1].length;
      const tree = new Array(lower + 1).fill(0);
      let seen = 0;
      for (const v of this.rows[lay]) {
        const ps = this.down[v].map((e) => pos[e[0]]).sort((a, b) => a - b);
        for (const p of ps) {
          let i = p + 1, notRight = 0;
          while (i > 0) {
            notRight += tree[i];
            i -= i & -i;
          }
          total += seen - notRight;
          i = p + 1;
          while (i <= lower) {
            tree[i] += 1;
            i += i & -i;
          }
          seen++;
        }
      }
    }
    return total;
  };

  Network.prototype.gap = function (u, v) {
    let gap = u >= this.n || v >= this.n ? this.C.DUMMY_GAP : this.C.NODE_GAP;
    if (this.boxes.active) gap += this.C.GROUP_GAP * this.boxes.boundaries(u, v);
    return gap;
  };

  Network.prototype.placeX = function () {
    for (const row of this.rows) {
      let offset = 0;
      row.forEach((v, k) => {
        if (k) offset += (this.width[row[k - 1]] + this.width[v]) / 2 + this.gap(row[k - 1], v);
        this.x[v] = offset;
      });
    }
    for (let sweep = 0; sweep < this.C.PLACE_PASSES; sweep++) {
      const down = () => { for (let lay = 1; lay <= this.top; lay++) this.pack(lay, this.below); };
      const up = () => { for (let lay = this.top - 1; lay >= 0; lay--) this.pack(lay, this.up); };
      if (sweep % 2 === 0) { down(); up(); } else { up(); down(); }
    }
    let left = Infinity;
    for (let v = 0; v < this.x.length; v++) left = Math.min(left, this.x[v] - this.width[v] / 2);
    if (left === Infinity) left = 0;
    const shift = this.margin - left;
    this.x = this.x.map((x) => x + shift);
  };

  // Weighted isotonic regression by pool-adjacent-violators (see _pack).
  Network.prototype.pack = function (lay, neighbours) {
    const row = this.rows[lay], x = this.x, at = (u) => x[u];
    if (row.length === 1) {
      const near = neighbours[row[0]];
      if (near.length) x[row[0]] = sum(near, at) / near.length;
      return;
    }
    const levels = [], weights = [], sizes = [], offsets = [];
    let offset = 0;
    row.forEach((v, k) => {
      if (k) {
        const u = row[k - 1];
        offset += (this.width[u] + this.width[v]) / 2 + this.gap(u, v);
      }
      offsets.push(offset);
      const near = neighbours[v];
      let level = (near.length ? sum(near, at) / near.length : x[v]) - offset;
      let weight = v >= this.n ? this.C.DUMMY_WEIGHT : 1.0;
      let size = 1;
      while (levels.length && levels[levels.length - 1] >= level) {
        const other = weights.pop();
        level = (levels.pop() * other + level * weight) / (other + weight);
        weight += other;
        size += sizes.pop();
      }
      levels.push(level);
      weights.push(weight);
      sizes.push(size);
    });
    let k = 0;
    levels.forEach((level, b) => {
      for (let j = 0; j < sizes[b]; j++) {
        x[row[k]] = level + offsets[k];
        k++;
      }
    });
  };

  Network.prototype.placeY = function () {
    const rowHeight = new Array(this.top + 1).fill(0);
    for (let v = 0; v < this.n; v++) {
      const lay = this.vlayer[v];
      rowHeight[lay] = Math.max(rowHeight[lay], this.height[v]);
    }
    const rowTop = new Array(this.top + 1).fill(0);
    let y = this.margin;
    const gap = this.C.LAYER_GAP + this.C.GROUP_ROOM * this.boxes.levels;
    for (let lay = this.top; lay >= 0; lay--) {
      rowTop[lay] = y;
      y += rowHeight[lay] + gap;
    }
    let right = -Infinity;
    for (let v = 0; v < this.x.length; v++) right = Math.max(right, this.x[v] + this.width[v] / 2);
    if (right === -Infinity) right = 0;
    return [Math.ceil(right + this.margin), rowTop, rowHeight];
  };

  Network.prototype.routes = function (boxes, rowTop, rowHeight) {
    const routes = this.chains.map((chain) => {
      const points = [];
      for (const v of chain ? chain.slice(1, -1) : []) {
        const column = round(this.x[v]), lay = this.vlayer[v];
        const bottom = rowTop[lay] + rowHeight[lay];
        if (points.length && points[points.length - 1][0] === column) {
          points[points.length - 1] = [column, bottom];
        } else {
          points.push([column, rowTop[lay]]);
          points.push([column, bottom]);
        }
      }
      return points;
    });
    const outs = Array.from({ length: this.n }, () => []);
    const ins = Array.from({ length: this.n }, () => []);
    this.pairs.forEach(([src, dst], i) => {
      outs[src].push(i);
      ins[dst].push(i);
    });
    const toward = (i, end) => {
      const points = routes[i];
      if (points.length) return points[end === 0 ? 0 : points.length - 1][0];
      const [src, dst] = this.pairs[i];
      return end === 0 ? this.x[dst] : this.x[src];
    };
    const starts = new Map(), ends = new Map();
    for (let v = 0; v < this.n; v++) {
      const [left, top, w, h] = boxes[v];
      for (const [side, edges, end] of [[top + h, outs[v], 0], [top, ins[v], -1]]) {
        const ranked = edges.map((i) => [toward(i, end), i]);
        ranked.sort(compare);
        ranked.forEach(([, i], k) => {
          const port = [round(left + (w * (k + 1)) / (ranked.length + 1)), side];
          (end === 0 ? starts : ends).set(i, port);
        });
      }
    }
    return this.pairs.map((_, i) => [starts.get(i), ...routes[i], ends.get(i)]);
  };

  // The layout of n vertices of `sizes` ([w, h]) joined by `pairs` ([producer, consumer]),
  // `groups[v]` the box of vertex v (-1: none) and `parents[g]` the box around box g.
  function layout(n, pairs, slots, sizes, roots, parents, groups, C) {
    const layer = layers(n, pairs);
    const net = new Network(n, layer, pairs, slots, sizes, new Boxes(parents, groups), C);
    const crossings = net.order(roots);
    net.placeX();
    const [width, rowTop, rowHeight] = net.placeY();
    const positions = [];
    for (let v = 0; v < n; v++) {
      positions.push([
        round(net.x[v]) - sizes[v][0] / 2,
        round(rowTop[layer[v]] + (rowHeight[layer[v]] - sizes[v][1]) / 2),
        sizes[v][0],
        sizes[v][1],
      ]);
    }
    const height = n ? rowTop[0] + rowHeight[0] + net.margin : 2 * C.MARGIN;
    const routes = net.routes(positions, rowTop, rowHeight);
    return { positions, routes, layers: layer, width, height, crossings };
  }

  return { layout: layout, round: round };
})();
