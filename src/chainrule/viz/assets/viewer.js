// The interactive graph page of chainrule.viz: draws the layout computed in Python on a
// canvas (fast for 100,000 nodes), pans, zooms, and shows a node's details when clicked.
// Module boxes collapse into one node and expand again (drawing.js lays them out).
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("crv-data").textContent);
  const S = data.strings;
  const N = data.nodes;
  const E = data.edges;
  const n = N.x.length;
  const m = E.src.length;
  const GR = data.groups || null;
  const M = crvDrawing(data);
  const { collapsed, palette, itemOf, itemText, relayout, PAD, TITLE } = M;
  const titleAt = (wx, wy) => M.titleAt(L, wx, wy);
  // The drawing now shown: item positions, edges between items, and module frames.
  let L = null;
  const canvas = document.getElementById("crv-canvas");
  const ctx = canvas.getContext("2d");
  const panel = document.getElementById("crv-panel");
  const SELECTED = "#e8590c";
  const FONT = "12px ui-monospace, 'DejaVu Sans Mono', monospace";
  const LINE = 16;

  const view = { k: 1, x: 0, y: 0 }; // screen = world * k + (x, y), in CSS pixels
  const stats = { frames: 0, nodes: 0, edges: 0, labels: 0, ms: 0 };
  let selected = -1;
  let hover = -1;
  let hoverTitle = -1; // the module whose title the pointer is over
  let pending = false;
  let fitted = false; // the view shows the whole graph, until the user zooms or pans
  let width = 0;
  let height = 0;

  // Edges into and out of each node, for the panel.
  const ins = [];
  const outs = [];
  for (let v = 0; v < n; v++) {
    ins.push([]);
    outs.push([]);
  }
  for (let i = 0; i < m; i++) {
    ins[E.dst[i]].push(i);
    outs[E.src[i]].push(i);
  }
  for (const list of ins) list.sort((a, b) => E.slot[a] - E.slot[b]);

  // Collapse or expand module g, keeping it where it was on the screen.
  function toggle(g) {
    const before = anchor(g);
    collapsed[g] = !collapsed[g];
    hover = hoverTitle = -1;
    L = relayout();
    if (selected >= 0 && itemOf(selected) !== selected) select(-1);
    if (fitted) return fit();
    const after = anchor(g);
    if (before && after) {
      view.x += (before[0] - after[0]) * view.k;
      view.y += (before[1] - after[1]) * view.k;
    }
    redraw();
  }

  // The top middle of module g as drawn (its frame, or its item), in world coordinates.
  function anchor(g) {
    if (L.ins.has(n + g)) return [L.x[n + g] + L.w[n + g] / 2, L.y[n + g]];
    const f = L.frames.find((fr) => fr.g === g);
    return f ? [f.title[0] + f.title[2] / 2, f.title[1]] : null;
  }

  function setAll(value) {
    if (!GR) return;
    collapsed.fill(value);
    hover = hoverTitle = -1;
    L = relayout();
    if (selected >= 0 && itemOf(selected) !== selected) select(-1);
    fit();
  }

  // The bounds of the drawing, frames included.
  function bounds() {
    let x0 = 0, y0 = 0, x1 = L.width, y1 = L.height;
    for (const { x, y, w, h } of L.frames) {
      x0 = Math.min(x0, x - PAD); y0 = Math.min(y0, y - PAD);
      x1 = Math.max(x1, x + w + PAD); y1 = Math.max(y1, y + h + PAD);
    }
    return [x0, y0, x1 - x0, y1 - y0];
  }

  function resize() {
    const r = canvas.getBoundingClientRect();
    width = r.width;
    height = r.height;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(width * dpr));
    canvas.height = Math.max(1, Math.round(height * dpr));
    if (fitted) fit();
    else redraw();
  }

  function fit() {
    const [bx, by, bw, bh] = bounds();
    const k = Math.min(width / bw, height / bh, 1.5);
    view.k = k > 0 ? k : 1;
    view.x = (width - bw * view.k) / 2 - bx * view.k;
    view.y = (height - bh * view.k) / 2 - by * view.k;
    fitted = true;
    redraw();
  }

  function zoomAt(factor, sx, sy) {
    const [, , bw, bh] = bounds();
    const least = Math.min(0.5, Math.min(width / bw, height / bh) / 2);
    const k = Math.max(least, Math.min(8, view.k * factor));
    view.x = sx - ((sx - view.x) * k) / view.k;
    view.y = sy - ((sy - view.y) * k) / view.k;
    view.k = k;
    fitted = false;
    redraw();
  }

  function redraw() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(draw);
    }
  }

  // An edge's polyline: straight down through layers, S-curves between them.
  function tracePath(i) {
    const p = L.pts[i];
    ctx.moveTo(p[0], p[1]);
    for (let j = 2; j < p.length; j += 2) {
      const x0 = p[j - 2], y0 = p[j - 1], x1 = p[j], y1 = p[j + 1];
      if (x0 === x1) ctx.lineTo(x1, y1);
      else {
        const ym = (y0 + y1) / 2;
        ctx.bezierCurveTo(x0, ym, x1, ym, x1, y1);
      }
    }
  }

  function edgeVisible(i, x0, y0, x1, y1) {
    const p = L.pts[i];
    let lx = Infinity, ly = Infinity, hx = -Infinity, hy = -Infinity;
    for (let j = 0; j < p.length; j += 2) {
      lx = Math.min(lx, p[j]); hx = Math.max(hx, p[j]);
      ly = Math.min(ly, p[j + 1]); hy = Math.max(hy, p[j + 1]);
    }
    return hx >= x0 && lx <= x1 && hy >= y0 && ly <= y1;
  }

  // An arrowhead where edge i enters its consumer, if that lies in the view: thousands
  // of tiny paths far outside it still cost the canvas seconds.
  function arrow(i, x0, y0, x1, y1) {
    const p = L.pts[i];
    const x = p[p.length - 2], y = p[p.length - 1];
    if (x < x0 || x > x1 || y < y0 || y > y1 + 8) return;
    ctx.moveTo(x, y);
    ctx.lineTo(x - 3.5, y - 7);
    ctx.lineTo(x + 3.5, y - 7);
    ctx.closePath();
  }

  // Far zoomed out, a box is still drawn at least 2 screen pixels wide and high.
  function boxPath(v) {
    const least = 2 / view.k;
    const w = Math.max(L.w[v], least), h = Math.max(L.h[v], least);
    const x = L.x[v] + (L.w[v] - w) / 2, y = L.y[v] + (L.h[v] - h) / 2;
    if (ctx.roundRect && w === L.w[v]) ctx.roundRect(x, y, w, h, 4);
    else ctx.rect(x, y, w, h);
  }

  // Expanded modules: a frame around what they hold, titled with the module's name.
  function drawFrames(x0, y0, x1, y1, detailed) {
    if (!L.frames.length) return;
    const [fill, outline] = GR.colors.frame;
    const k = view.k;
    for (const { g, pts, x, y, w, h, title } of L.frames) {
      if (x + w < x0 || x > x1 || y + h < y0 || y > y1) continue;
      ctx.beginPath();
      ctx.moveTo(pts[0][0], pts[0][1]);
      for (const [px, py] of pts) ctx.lineTo(px, py);
      ctx.closePath();
      ctx.fillStyle = fill;
      ctx.globalAlpha = 0.55;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.lineWidth = (g === hoverTitle ? 2 : 1) / Math.max(k, 0.25);
      ctx.strokeStyle = g === hoverTitle ? GR.colors.node[1] : outline;
      ctx.stroke();
      if (detailed) {
        ctx.font = "11px ui-monospace, 'DejaVu Sans Mono', monospace";
        ctx.textAlign = "left";
        ctx.textBaseline = "middle";
        ctx.fillStyle = "#495057";
        ctx.fillText("\u25be " + S[GR.label[g]], title[0] + 6, title[1] + 4 + TITLE / 2,
          title[2] - 10);
      }
    }
  }

  function draw() {
    pending = false;
    const start = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const k = view.k;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * view.x, dpr * view.y);
    // The world rectangle on screen: only what meets it is drawn.
    const x0 = -view.x / k, y0 = -view.y / k;
    const x1 = x0 + width / k, y1 = y0 + height / k;
    const detailed = k * 12 >= 5; // text of at least 5 screen pixels is worth drawing
    drawFrames(x0, y0, x1, y1, detailed);
    let edges = 0;
    const shown = [];
    ctx.beginPath();
    for (let i = 0; i < L.pts.length; i++) {
      if (!edgeVisible(i, x0, y0, x1, y1)) continue;
      shown.push(i);
      tracePath(i);
      edges++;
    }
    ctx.lineWidth = 1.2 / Math.max(k, 0.25);
    ctx.strokeStyle = "#8c939d";
    ctx.stroke();
    if (detailed) {
      ctx.beginPath();
      for (const i of shown) arrow(i, x0, y0, x1, y1);
      ctx.fillStyle = "#8c939d";
      ctx.fill();
    }
    const visible = [];
    let nodes = 0;
    palette.forEach(([fill, outline], kind) => {
      ctx.beginPath();
      for (const v of L.byKind[kind]) {
        if (L.x[v] + L.w[v] < x0 || L.x[v] > x1 || L.y[v] + L.h[v] < y0 || L.y[v] > y1) continue;
        boxPath(v);
        visible.push(v);
        nodes++;
      }
      ctx.fillStyle = fill;
      ctx.fill();
      ctx.lineWidth = 1 / Math.max(k, 0.25);
      ctx.strokeStyle = outline;
      ctx.stroke();
    });
    // Nodes whose saved tensors a backward freed: a dashed outline.
    ctx.beginPath();
    for (const v of visible) if (v < n && N.freed[v]) boxPath(v);
    ctx.setLineDash([4, 3]);
    ctx.lineWidth = 1.5 / Math.max(k, 0.25);
    ctx.strokeStyle = "#495057";
    ctx.stroke();
    ctx.setLineDash([]);
    if (selected >= 0) drawSelection(x0, y0, x1, y1);
    if (hover >= 0 && hover !== selected) {
      ctx.beginPath();
      boxPath(hover);
      ctx.lineWidth = 2 / k;
      ctx.strokeStyle = "#495057";
      ctx.stroke();
    }
    let labels = 0;
    if (detailed) {
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#212529";
      for (const v of visible) {
        const lines = itemText(v);
        const top = L.y[v] + (L.h[v] - lines.length * LINE) / 2 + LINE / 2;
        for (let j = 0; j < lines.length; j++) {
          ctx.font = (j === 0 ? "bold " : "") + FONT;
          ctx.fillText(S[lines[j]], L.x[v] + L.w[v] / 2, top + j * LINE, L.w[v] - 8);
        }
        labels++;
      }
    }
    stats.frames++;
    stats.nodes = nodes;
    stats.edges = edges;
    stats.labels = labels;
    stats.ms = performance.now() - start;
  }

  function drawSelection(left, top, right, bottom) {
    const k = view.k;
    const near = [...L.ins.get(selected), ...L.outs.get(selected)];
    ctx.beginPath();
    for (const i of near) tracePath(i);
    ctx.lineWidth = 2.5 / Math.min(k, 1);
    ctx.strokeStyle = SELECTED;
    ctx.stroke();
    ctx.beginPath();
    for (const i of near) arrow(i, left, top, right, bottom);
    ctx.fillStyle = SELECTED;
    ctx.fill();
    ctx.beginPath();
    boxPath(selected);
    ctx.lineWidth = 3 / Math.min(k, 1);
    ctx.stroke();
  }

  // --- finding and selecting nodes -------------------------------------------------------

  // The node under screen point (sx, sy), or the nearest within 3 screen pixels (tiny
  // boxes stay clickable when zoomed out), or -1.
  function nodeAt(sx, sy) {
    const wx = (sx - view.x) / view.k, wy = (sy - view.y) / view.k;
    let best = -1, bestDistance = 3 / view.k;
    for (const v of L.items) {
      const dx = Math.max(L.x[v] - wx, 0, wx - L.x[v] - L.w[v]);
      const dy = Math.max(L.y[v] - wy, 0, wy - L.y[v] - L.h[v]);
      const distance = Math.max(dx, dy);
      if (distance === 0) return v;
      if (distance <= bestDistance) {
        best = v;
        bestDistance = distance;
      }
    }
    return best;
  }

  // Bring node v into view, close enough to read.
  function centerOn(v) {
    const cx = L.x[v] + L.w[v] / 2, cy = L.y[v] + L.h[v] / 2;
    const sx = cx * view.k + view.x, sy = cy * view.k + view.y;
    const small = view.k < 0.5;
    if (small) view.k = 1;
    if (small || sx < 40 || sx > width - 40 || sy < 40 || sy > height - 40) {
      view.x = width / 2 - cx * view.k;
      view.y = height / 2 - cy * view.k;
      fitted = false;
      redraw();
    }
  }

  function select(v, recenter) {
    if (v >= n) { // a collapsed module: open it
      toggle(v - n);
      return;
    }
    if (v >= 0 && itemOf(v) !== v) { // inside a collapsed module: open the modules around it
      for (let g = data.nodeGroup[v]; g >= 0; g = GR.parent[g]) collapsed[g] = false;
      hover = hoverTitle = -1;
      L = relayout();
    }
    selected = v;
    panel.hidden = v < 0;
    if (v >= 0) showDetails(v);
    resize(); // the panel takes room from the drawing
    if (v >= 0 && recenter) centerOn(v);
  }

  // --- the details panel (built with textContent: names and values are never HTML) ------

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function section(title, body) {
    panel.appendChild(el("h3", title));
    panel.appendChild(body);
  }

  function link(v) {
    const b = el("button", S[N.text[v][0]] + " #" + v, "crv-link");
    b.addEventListener("click", () => select(v, true));
    return b;
  }

  function showDetails(v) {
    const d = data.details[v];
    const kind = data.kinds[N.kind[v]];
    panel.textContent = "";
    const close = el("button", "×", "crv-close");
    close.title = "Close (Esc)";
    close.addEventListener("click", () => select(-1));
    panel.appendChild(close);
    panel.appendChild(el("h2", S[N.text[v][0]]));
    panel.appendChild(el("div", kind + " #" + v, "crv-muted"));
    if (!d) {
      panel.appendChild(el("p", "Details are kept for the " + data.detailLimit +
        " nodes nearest the output. Draw with max_depth to see this part closely.", "crv-muted"));
      return;
    }
    const facts = el("pre", "");
    const lines = ["node: " + d.name];
    if (d.var) lines.push("tensor: " + d.var);
    if (d.type) lines.push("output: " + d.type);
    lines.push("depth: " + d.depth);
    if (d.hidden) lines.push("stands for " + d.hidden + " nodes deeper than max_depth");
    facts.textContent = lines.join("\n");
    panel.appendChild(facts);
    section("forward value", d.value !== null ? el("pre", d.value)
      : el("div", d.valueHint, "crv-muted"));
    const gradTitle = kind === "leaf" ? "gradient (.grad)"
      : "gradient that flowed in (grad_output)";
    const noGrad = {
      leaf: "none yet: run backward",
      op: "not recorded: run the backward inside viz.record() and pass recording=",
      tensor: "not kept: call .retain_grad() on it before backward",
    }[kind] || "";
    section(gradTitle, d.grad !== null ? el("pre", d.grad) : el("div", noGrad, "crv-muted"));
    if (ins[v].length) {
      const list = el("ul");
      for (const i of ins[v]) {
        const li = el("li");
        li.appendChild(el("code", S[E.name[i]] + " ← "));
        li.appendChild(link(E.src[i]));
        const which = E.output[i] >= 0 ? " (its output " + E.output[i] + ")" : "";
        li.appendChild(el("span", which + "  " + S[E.type[i]], "crv-muted"));
        const sent = d.sent ? d.sent[E.slot[i]] : null;
        if (sent !== undefined && sent !== null) li.appendChild(el("pre", "sent back: " + sent));
        list.appendChild(li);
      }
      section("inputs", list);
    }
    if (outs[v].length) {
      const list = el("ul");
      for (const i of outs[v]) {
        const li = el("li");
        li.appendChild(link(E.dst[i]));
        li.appendChild(el("span", "  as " + S[E.name[i]], "crv-muted"));
        list.appendChild(li);
      }
      section("used by", list);
    }
    if (d.saved.length || d.freed) {
      const list = el("ul");
      for (const [name, type, freed] of d.saved) {
        const li = el("li");
        li.appendChild(el("code", name + "  " + type));
        if (freed) li.appendChild(el("span", "  freed", "crv-freed-tag"));
        list.appendChild(li);
      }
      if (d.freed) list.appendChild(el("li", "freed by a backward without retain_graph=True",
        "crv-freed-tag"));
      section("saved tensors", list);
    }
    if (d.rules.length) section("local derivative", el("pre", d.rules.join("\n")));
  }

  // --- pan, zoom, click ------------------------------------------------------------------

  let drag = null;
  canvas.addEventListener("pointerdown", (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", (ev) => {
    const r = canvas.getBoundingClientRect();
    if (drag) {
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        canvas.classList.add("crv-dragging");
        view.x = drag.vx + dx;
        view.y = drag.vy + dy;
        fitted = false;
        redraw();
      }
      return;
    }
    const sx = ev.clientX - r.left, sy = ev.clientY - r.top;
    const v = nodeAt(sx, sy);
    const title = v < 0 && GR ? titleAt((sx - view.x) / view.k, (sy - view.y) / view.k) : -1;
    if (v !== hover || title !== hoverTitle) {
      hover = v;
      hoverTitle = title;
      canvas.classList.toggle("crv-over", v >= 0 || title >= 0);
      redraw();
    }
  });
  canvas.addEventListener("pointerup", (ev) => {
    const r = canvas.getBoundingClientRect();
    if (drag && !drag.moved) click(ev.clientX - r.left, ev.clientY - r.top);
    drag = null;
    canvas.classList.remove("crv-dragging");
  });
  canvas.addEventListener("pointerleave", () => {
    if (hover >= 0 || hoverTitle >= 0) {
      hover = hoverTitle = -1;
      redraw();
    }
  });

  // A click on a node selects it; on a module's title or a collapsed module, toggles it.
  function click(sx, sy) {
    const v = nodeAt(sx, sy);
    const title = v < 0 && GR ? titleAt((sx - view.x) / view.k, (sy - view.y) / view.k) : -1;
    if (title >= 0) toggle(title);
    else select(v, false);
  }
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    const delta = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
    zoomAt(Math.exp(-delta * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  const actions = {
    "zoom-in": () => zoomAt(1.25, width / 2, height / 2),
    "zoom-out": () => zoomAt(0.8, width / 2, height / 2),
    fit: fit,
    collapse: () => setAll(true),
    expand: () => setAll(false),
  };
  for (const b of document.querySelectorAll("[data-act]")) {
    b.addEventListener("click", () => actions[b.dataset.act]());
  }
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "+" || ev.key === "=") actions["zoom-in"]();
    else if (ev.key === "-") actions["zoom-out"]();
    else if (ev.key === "0" || ev.key === "f") fit();
    else if (ev.key === "Escape") select(-1);
  });
  window.addEventListener("resize", resize);

  // For scripts and tests: the view, what was drawn, and a way to pick a node.
  window.chainruleViz = {
    data: data,
    view: view,
    stats: stats,
    select: (v) => select(v, true),
    selected: () => selected,
    nodeAt: nodeAt,
    // Where item v's centre is, in client (page) coordinates (n + g: collapsed module g).
    screenPoint: (v) => {
      const r = canvas.getBoundingClientRect();
      return [r.left + (L.x[v] + L.w[v] / 2) * view.k + view.x,
        r.top + (L.y[v] + L.h[v] / 2) * view.k + view.y];
    },
    // Where module g's title strip is, in client coordinates, while it is expanded.
    titlePoint: (g) => {
      const r = canvas.getBoundingClientRect();
      const f = L.frames.find((fr) => fr.g === g);
      return f ? [r.left + (f.title[0] + 12) * view.k + view.x,
        r.top + (f.title[1] + f.title[3] / 2) * view.k + view.y] : null;
    },
    drawn: () => L,
    collapsed: () => collapsed.slice(),
    toggle: toggle,
    collapseAll: () => setAll(true),
    expandAll: () => setAll(false),
    // The script's own layout of the whole graph, to compare with Python's.
    layoutAll: M.layoutAll,
    fit: fit,
    zoom: (factor) => zoomAt(factor, width / 2, height / 2),
  };

  L = relayout();
  resize();
  fit();
  // `page.html#node=3` opens with node 3 selected.
  const wanted = /node=(\d+)/.exec(window.location.hash);
  if (wanted && Number(wanted[1]) < n) select(Number(wanted[1]), false);
})();
