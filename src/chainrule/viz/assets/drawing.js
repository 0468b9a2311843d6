// What the graph page of chainrule.viz draws: "items", each a node (0 .. n-1) or a
// collapsed module (n + its box's index), placed by Python's layout while every module
// is open, else laid out here again (layout.js); and the frames of the open modules.
const crvDrawing = function (data) {
  "use strict";
  const N = data.nodes;
  const E = data.edges;
  const n = N.x.length;
  const m = E.src.length;
  const GR = data.groups || null;
  const ng = GR ? GR.label.length : 0;
  const collapsed = GR ? GR.collapsed.map(Boolean) : [];
  const MODULE = data.kinds.length; // the kind of a collapsed module's item
  const palette = GR ? [...data.colors, GR.colors.node] : data.colors;
  const PAD = 5; // room between a module's frame and what it holds
  const TITLE = 15; // the frame's title strip, which collapses it when clicked

  // The item that shows node v: itself, or its outermost collapsed module.
  function itemOf(v) {
    if (!GR) return v;
    let g = data.nodeGroup[v], top = -1;
    for (; g >= 0; g = GR.parent[g]) if (collapsed[g]) top = g;
    return top >= 0 ? n + top : v;
  }

  function itemText(v) {
    return v < n ? N.text[v] : GR.text[v - n];
  }

  // A drawing from item positions and edges (src, dst, edge of the graph, points).
  function drawing(items, x, y, w, h, layer, edges, width, height) {
    const d = { items, x, y, w, h, layer, width, height, src: [], dst: [], orig: [], pts: [] };
    d.byKind = palette.map(() => []);
    d.ins = new Map(items.map((v) => [v, []]));
    d.outs = new Map(items.map((v) => [v, []]));
    for (const v of items) d.byKind[v < n ? N.kind[v] : MODULE].push(v);
    edges.forEach(([a, b, i, pts], k) => {
      d.src.push(a);
      d.dst.push(b);
      d.orig.push(i);
      d.pts.push(pts);
      d.ins.get(b).push(k);
      d.outs.get(a).push(k);
    });
    d.frames = frames(d);
    return d;
  }

  function fromPython() {
    const items = [];
    for (let v = 0; v < n; v++) items.push(v);
    const edges = [];
    for (let i = 0; i < m; i++) edges.push([E.src[i], E.dst[i], i, E.pts[i]]);
    return drawing(items, N.x, N.y, N.w, N.h, data.layers || [], edges, data.width, data.height);
  }

  // Lay out the graph with the collapsed modules drawn as one item each.
  function relayout() {
    if (!collapsed.some(Boolean)) return fromPython();
    const item = new Array(n);
    const items = [], local = new Map();
    for (let v = 0; v < n; v++) {
      item[v] = itemOf(v);
      if (!local.has(item[v])) {
        local.set(item[v], items.length);
        items.push(item[v]);
      }
    }
    const pairs = [], slots = [], orig = [], seen = new Set();
    for (let i = 0; i < m; i++) {
      const a = item[E.src[i]], b = item[E.dst[i]];
      const key = a * (n + ng) + b;
      if (a === b || seen.has(key)) continue; // edges inside a collapsed module are gone
      seen.add(key);
      pairs.push([local.get(a), local.get(b)]);
      slots.push(E.slot[i]);
      orig.push(i);
    }
    const sizes = items.map((v) => (v < n ? [N.w[v], N.h[v]] : [GR.w[v - n], GR.h[v - n]]));
    const roots = [];
    for (const r of data.roots) {
      const k = local.get(item[r]);
      if (!roots.includes(k)) roots.push(k);
    }
    const groups = items.map((v) => (v < n ? data.nodeGroup[v] : GR.parent[v - n]));
    const res = crvLayout.layout(items.length, pairs, slots, sizes, roots, GR.parent, groups,
      data.layout);
    const size = n + ng;
    const x = new Array(size).fill(0), y = x.slice(), w = x.slice(), h = x.slice();
    const layer = x.slice();
    items.forEach((v, k) => {
      [x[v], y[v], w[v], h[v]] = res.positions[k];
      layer[v] = res.layers[k];
    });
    const edges = pairs.map(([a, b], k) => [items[a], items[b], orig[k], res.routes[k].flat()]);
    return drawing(items, x, y, w, h, layer, edges, res.width, res.height);
  }

  // The frame of each expanded module around what it holds, outer frames first: its
  // outline hugs each layer's part of the module (boxes of other modules may sit beside
  // it in a layer above or below), with a title strip on top.
  function frames(d) {
    if (!GR) return [];
    // Each layer's vertical extent, and where the outlines step between two layers.
    const top = new Map(), bottom = new Map();
    for (const v of d.items) {
      const lay = d.layer[v];
      top.set(lay, Math.min(top.has(lay) ? top.get(lay) : Infinity, d.y[v]));
      bottom.set(lay, Math.max(bottom.has(lay) ? bottom.get(lay) : -Infinity, d.y[v] + d.h[v]));
    }
    // rows[g]: layer -> [left, right, top, bottom] of what module g holds there.
    const rows = Array.from({ length: ng }, () => new Map());
    const grow = (g, lay, l, r, t, b) => {
      const row = rows[g].get(lay);
      if (!row) rows[g].set(lay, [l, r, t, b]);
      else {
        row[0] = Math.min(row[0], l); row[1] = Math.max(row[1], r);
        row[2] = Math.min(row[2], t); row[3] = Math.max(row[3], b);
      }
    };
    for (const v of d.items) {
      const g = v < n ? data.nodeGroup[v] : GR.parent[v - n];
      if (g >= 0) grow(g, d.layer[v], d.x[v], d.x[v] + d.w[v], d.y[v], d.y[v] + d.h[v]);
    }
    const out = [];
    for (let g = ng - 1; g >= 0; g--) { // a module's index is above those of the ones it holds
      if (!rows[g].size) continue;
      const layers = [...rows[g].keys()].sort((a, b) => b - a); // top of the page first
      const list = [];
      for (let lay = layers[0]; lay >= layers[layers.length - 1]; lay--) {
        let row = rows[g].get(lay);
        if (!row) { // a layer the module only passes through: span its neighbours
          const above = list[list.length - 1];
          const below = rows[g].get(layers.find((l) => l < lay));
          row = [Math.min(above[1], below[0]), Math.max(above[2], below[1]),
            top.has(lay) ? top.get(lay) : above[4], bottom.has(lay) ? bottom.get(lay) : above[4]];
        }
        list.push([lay, row[0] - PAD, row[1] + PAD, row[2] - PAD, row[3] + PAD]);
      }
      list[0][3] -= TITLE;
      // The outline: down the right side, then up the left, stepping between layers.
      const steps = [];
      for (let k = 0; k + 1 < list.length; k++) {
        const [lay, , , , b] = list[k], t = list[k + 1][3];
        const mid = (bottom.get(lay) + top.get(list[k + 1][0])) / 2;
        steps.push(Math.max(b, Math.min(mid, t)));
      }
      const pts = [[list[0][2], list[0][3]]];
      list.forEach((row, k) => {
        if (k) pts.push([row[2], steps[k - 1]]);
        pts.push([row[2], k < steps.length ? steps[k] : row[4]]);
      });
      for (let k = list.length - 1; k >= 0; k--) {
        pts.push([list[k][1], k < steps.length ? steps[k] : list[k][4]]);
        pts.push([list[k][1], k ? steps[k - 1] : list[0][3]]);
      }
      let x0 = Infinity, x1 = -Infinity;
      for (const [, l, r] of list) { x0 = Math.min(x0, l); x1 = Math.max(x1, r); }
      const head = list[0];
      out.push({ g, pts, x: x0, y: head[3], w: x1 - x0, h: list[list.length - 1][4] - head[3],
        title: [head[1], head[3], head[2] - head[1], TITLE + PAD] });
      const parent = GR.parent[g];
      if (parent >= 0) for (const [lay, l, r, t, b] of list) grow(parent, lay, l, r, t, b);
    }
    return out.reverse();
  }

  // The module whose frame's title strip is at world point (wx, wy) in drawing L, or -1.
  function titleAt(L, wx, wy) {
    for (let k = L.frames.length - 1; k >= 0; k--) {
      const [x, y, w, h] = L.frames[k].title;
      if (wx >= x && wx <= x + w && wy >= y && wy <= y + h) return L.frames[k].g;
    }
    return -1;
  }

  // The script's own layout of the whole graph, to compare with Python's.
  function layoutAll() {
    const pairs = [], slots = [], sizes = [];
    for (let i = 0; i < m; i++) {
      pairs.push([E.src[i], E.dst[i]]);
      slots.push(E.slot[i]);
    }
    for (let v = 0; v < n; v++) sizes.push([N.w[v], N.h[v]]);
    const res = crvLayout.layout(n, pairs, slots, sizes, data.roots || [0],
      GR ? GR.parent : [], GR ? data.nodeGroup : new Array(n).fill(-1), data.layout || {});
    return { positions: res.positions, routes: res.routes.map((r) => r.flat()),
      width: res.width, height: res.height };
  }

  return { collapsed, palette, itemOf, itemText, relayout, titleAt, layoutAll, PAD, TITLE };
};
