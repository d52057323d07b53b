// The graph pane: the dataflow graph as SVG, drawn where Python's layout (rlviz/viz/layout.py, the one
// plot_graph draws) put each node box and each process's group box; nothing is laid out here. Each
// node's counters are shown; a click filters the timeline to that node, the selection's producers and
// consumers are outlined. The pane opens fitted: every node inside it, its text never under
// MIN_TEXT_PX on screen (a graph too wide for its column takes the whole row under the timeline);
// "actual size" shows it unscaled, the pane scrolling both ways. In a live view, the op with a
// breakpoint wears a red dot.
import { nodeMatches } from "../explorer_core.js";
import { CONSUMER_COLOR, PRODUCER_COLOR, compact, counted, formatBusy, make, revealInPane, svg } from "../explorer_dom.js";

const PAD = 4;                  // room around the drawing, so outlines are not cut
const TEXT_PAD = 6;             // room left and right of a box's text
/** The smallest a node's text may be on screen, in CSS px. */
export const MIN_TEXT_PX = 10;
const NAME_PX = 11, COUNTER_PX = 10;    // a node's name and counter lines at actual size
const LINES_MAX = 12.5;         // the largest font (drawing units) three lines fit a node box at
const NAME_MAX = 24;            // the largest font of a name shown alone in its box
const FIT_HEIGHT = 0.7;         // a fitted graph is at most this share of the window's height

/**
 * How a graph `width` x `height` (drawing px) is fitted into `room` x `tall` px: its `scale` (never
 * above 1) and the font sizes in drawing units that keep a node's text at MIN_TEXT_PX or more on
 * screen (`name`, `counter`). Where three lines at that size no longer fit a box, the box shows its
 * name alone (`counters` false: they stay in its hover text). `wide` when the text had to grow,
 * i.e. the graph wants more room than it was given.
 */
export function fitGraph(width, height, room, tall) {
  const scale = Math.min(1, room / width, tall > 40 ? tall / height : 1);
  const needed = MIN_TEXT_PX / scale;
  const counters = needed <= LINES_MAX;
  return { scale, name: counters ? Math.max(NAME_PX, needed) : Math.min(NAME_MAX, needed),
    counter: Math.max(COUNTER_PX, needed), counters, wide: NAME_PX * scale < MIN_TEXT_PX };
}

/**
 * The curve of an edge from node box `from` to `to` carrying `count` values (a back edge dashed):
 * `{d, width, dashed, title}` for an SVG path.
 */
export function edgeShape(from, to, count, back) {
  const [x1, y1] = [from.x + from.w, from.y + from.h / 2];
  const [x2, y2] = [to.x, to.y + to.h / 2];
  const bend = Math.max(30, Math.abs(x2 - x1) / 2);
  return { d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`, width: 1 + Math.log10(1 + count) / 2,
    dashed: Boolean(back), title: `${from.op} → ${to.op}: ${counted(count, "value")}` };
}

/** A node box's two counter lines, from the meta's counts now: calls and items; busy time, not-ready, errors. */
export function nodeCounterLines(n) {
  return [`${counted(n.calls, "call", compact)} · ${counted(n.items, "item", compact)}`,
    [`${formatBusy(n.busy_ms)} ms busy`, n.not_ready ? `${compact(n.not_ready)} not ready` : "",
      n.errors ? counted(n.errors, "error", compact) : ""].filter(Boolean).join(" · ")];
}

/**
 * How each node box is marked: `role` "selected" (the selected call's node), "producer" / "consumer"
 * (of its inputs / outputs) or null, and `dim` when the timeline's filter rejects the node.
 * @returns {Map<number, {role: (string|null), dim: boolean}>} by node index, for `nodes`
 */
export function graphMarks(model, selected, filter, nodes) {
  const role = new Map();
  if (selected >= 0) {
    for (let k = model.inOffsets[selected]; k < model.inOffsets[selected + 1]; k++) role.set(model.node[model.inputs[k]], "producer");
    for (let k = model.outOffsets[selected]; k < model.outOffsets[selected + 1]; k++) role.set(model.node[model.outputs[k]], "consumer");
    role.set(model.node[selected], "selected");
  }
  const filtered = filter.op != null || filter.where != null;
  return new Map(nodes.map((k) => [k, { role: role.get(k) ?? null, dim: filtered && !nodeMatches(model, k, filter) }]));
}

/** Whether two looks of a box (see createGraph's mark) are the same. */
function sameLook(a, b) {
  return Boolean(a) && a.width === b.width && a.fill === b.fill && a.stroke === b.stroke
    && a.opacity === b.opacity && a.selected === b.selected;
}

const ROLE_COLOR = { producer: PRODUCER_COLOR, consumer: CONSUMER_COLOR, selected: "#000" };

/**
 * Mount the graph pane into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>): void, destroy: function(): void}}
 */
export function createGraph(host, view) {
  const pane = make("div", "rlviz-pane rlviz-graph", "graph");
  host.appendChild(pane);
  let drawing = null, boxes = new Map(), fit = true;
  let measurer = null, family = null;     // a canvas that measures text without a layout of the page
  build();

  function header() {
    const title = make("h4", null, null, "Dataflow graph (click a node to filter the timeline) ");
    const button = make("button", "rlviz-fit", "graph-fit", fit ? "actual size" : "fit");
    button.type = "button";
    button.title = "Shrink the whole graph into the pane, or show it at its size (the pane scrolls)";
    button.setAttribute("aria-pressed", String(fit));
    button.addEventListener("click", () => { fit = !fit; build(); });
    title.appendChild(button);
    return title;
  }

  function build() {
    const { meta } = view;
    pane.replaceChildren(header());
    drawing = null;
    boxes = new Map();
    // a live page lists nodes of earlier plans too (hidden: they keep node indices stable)
    const drawn = meta.nodes.map((n, k) => k).filter((k) => !meta.nodes[k].hidden);
    if (!drawn.length) { pane.appendChild(make("p", null, null, "No dataflow nodes.")); return; }
    const { width, height, groups } = meta.graph;
    const root = svg("svg", { viewBox: `${-PAD} ${-PAD} ${width + 2 * PAD} ${height + 2 * PAD}`, role: "img" });
    root.dataset.rlviz = "graph-drawing";
    pane.appendChild(root);
    const sizes = placement(width + 2 * PAD, height + 2 * PAD);
    root.style.width = `${(width + 2 * PAD) * sizes.scale}px`;
    root.dataset.scale = String(sizes.scale);
    const defs = svg("defs");
    const marker = svg("marker", { id: "rlviz-head", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#888" }));
    defs.appendChild(marker);
    root.appendChild(defs);
    for (const group of groups) root.appendChild(groupBox(group));
    for (const [u, v, count, back] of meta.edges) root.appendChild(edge(meta.nodes[u], meta.nodes[v], count, back));
    const lanes = Object.fromEntries(meta.lanes.map((l) => [l.name, l.color]));
    for (const k of drawn) {
      const n = meta.nodes[k];
      const g = svg("g", { class: "rlviz-node", transform: `translate(${n.x},${n.y})` });
      g.dataset.node = String(k);
      g.dataset.op = n.op;
      g.dataset.rlviz = "node";
      g.dataset.where = n.where;
      const rect = svg("rect", { width: n.w, height: n.h, rx: 5, fill: "#fff", stroke: lanes[n.where] || "#5b6770", "stroke-width": 1.6 });
      const title = svg("title");
      title.textContent = `${n.label}\n@ ${n.where}`;
      const nameY = sizes.counters ? 14 : n.h / 2 + sizes.name * 0.35;
      const name = svg("text", { x: n.w / 2, y: nameY, "text-anchor": "middle", "font-size": sizes.name, "font-weight": 600 });
      name.textContent = n.short;
      const stats = svg("text", { x: n.w / 2, y: 27, "text-anchor": "middle", "font-size": sizes.counter, fill: "#444" });
      const more = svg("text", { x: n.w / 2, y: 39, "text-anchor": "middle", "font-size": sizes.counter, fill: "#444" });
      if (!sizes.counters) stats.style.display = more.style.display = "none";    // too small to read: in the title
      const dot = svg("circle", { cx: 0, cy: 0, r: 5, fill: "#d62728", stroke: "#fff", "stroke-width": 1.5 });
      dot.style.display = "none";
      const dotTitle = svg("title");
      dotTitle.textContent = "breakpoint: the run pauses after each call of this op";
      dot.appendChild(dotTitle);
      g.append(title, rect, name, stats, more, dot);
      g.addEventListener("click", () => {
        const { filter } = view.store.get();
        const same = filter.op === n.op && filter.where === n.where;
        view.actions.setFilter(same ? {} : { op: n.op, where: n.where });
      });
      root.appendChild(g);
      boxes.set(k, { g, rect, name, stats, more, dot, title, width: n.w });
      squeeze(name, n.w);
    }
    drawing = root;
    counters();
    mark();
    breakpoint();
  }

  /** The red dot on the driver op the run breaks on (live views). */
  function breakpoint() {
    const live = view.store.get().live, op = live ? live.break_op ?? null : null;
    for (const [k, { g, dot }] of boxes) {
      const n = view.meta.nodes[k], on = op != null && n.op === op && n.where === "driver";
      dot.style.display = on ? "" : "none";
      if (on) g.dataset.break = "1"; else delete g.dataset.break;
    }
  }

  /** The scale and font sizes of a drawing `width` x `height`: fitted when "fit" is on (a graph too wide
   * for its column first takes the whole row), else at actual size (the pane scrolls). */
  function placement(width, height) {
    if (!fit) {
      pane.classList.remove("rlviz-graph-wide", "rlviz-graph-fitted");
      return { scale: 1, name: NAME_PX, counter: COUNTER_PX, counters: true };
    }
    pane.classList.add("rlviz-graph-fitted");
    pane.classList.remove("rlviz-graph-wide");
    let sizes = fitGraph(width, height, room(), tall());
    if (sizes.wide) {
      pane.classList.add("rlviz-graph-wide");
      sizes = fitGraph(width, height, room(), tall());
    }
    return sizes;
  }

  function room() {
    const share = pane.classList.contains("rlviz-graph-wide") ? 1 : 5 / 12;     // .rlviz-lower's columns
    return (pane.clientWidth || (view.store.get().width || 960) * share) - 2 * PAD;
  }

  function tall() {
    const header = pane.firstElementChild ? pane.firstElementChild.offsetHeight + 4 : 24;
    return (globalThis.innerHeight || 800) * FIT_HEIGHT - header - 2 * PAD;
  }

  function groupBox({ where, color, x, y, w, h }) {
    const g = svg("g", { class: "rlviz-group" });
    g.dataset.rlviz = "graph-group";
    g.dataset.where = where;
    const box = svg("rect", { x, y, width: w, height: h, rx: 6, fill: color, "fill-opacity": 0.08, stroke: color, "stroke-width": 1 });
    const name = svg("text", { x: x + 5, y: y + 11, "font-size": 10, "font-weight": 600, fill: color });
    name.textContent = where;
    const title = svg("title");
    title.textContent = where;                 // a fitted wide graph draws the name small: in full on hover
    g.append(title, box, name);
    return g;
  }

  function edge(from, to, count, back) {
    const shape = edgeShape(from, to, count, back);
    const path = svg("path", { d: shape.d, fill: "none", stroke: "#888", "stroke-width": shape.width, "marker-end": "url(#rlviz-head)" });
    if (shape.dashed) path.setAttribute("stroke-dasharray", "4 3");
    const title = svg("title");
    title.textContent = shape.title;
    path.appendChild(title);
    return path;
  }

  /** `text`'s width in px in its own font (size and weight from its attributes, family from the pane's style). */
  function textWidth(text) {
    const canvas = measurer || (measurer = document.createElement("canvas").getContext?.("2d"));
    if (!canvas) return text.getComputedTextLength ? text.getComputedTextLength() : 0;
    family ??= getComputedStyle(pane).fontFamily || "sans-serif";
    canvas.font = `${text.getAttribute("font-weight") || 400} ${text.getAttribute("font-size")}px ${family}`;
    return canvas.measureText(text.textContent).width;
  }

  /** Keep `text` inside a box `width` wide: Python sized the box for the op name in DejaVu Sans, a
   * browser's font may be wider, and the counters grow during a live run. The width is measured on a
   * canvas in the text's own font, so a live run's counters cost no layout of the page per append. */
  function squeeze(text, width) {
    const wide = textWidth(text) > width - 2 * TEXT_PAD;
    if (wide) {
      text.setAttribute("textLength", width - 2 * TEXT_PAD);
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    } else if (text.hasAttribute("textLength")) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
    }
  }

  /** Each node's calls, items, busy time, not-ready and errors, as the meta counts them now; only lines
   * that changed are written. */
  function counters() {
    view.meta.nodes.forEach((n, k) => {
      const box = boxes.get(k);
      if (!box) return;
      const [stats, more] = nodeCounterLines(n);
      if (box.stats.textContent !== stats) { box.stats.textContent = stats; squeeze(box.stats, box.width); }
      if (box.more.textContent !== more) { box.more.textContent = more; squeeze(box.more, box.width); }
      const hover = [`${n.label}`, `@ ${n.where}`, stats, more].filter(Boolean).join("\n");   // every word a box cuts
      if (box.title.textContent !== hover) box.title.textContent = hover;
    });
  }

  /** Outline the selection and its producers and consumers; scroll to the selection only when `reveal`.
   * A box is written only when its look changed (a live run marks at every append). */
  function mark(reveal = false) {
    if (!drawing) return;
    const { model, meta } = view, { selected, filter } = view.store.get();
    const marks = graphMarks(model, selected, filter, [...boxes.keys()]);
    for (const [k, box] of boxes) {
      const { role, dim } = marks.get(k), color = role && ROLE_COLOR[role];
      const laneColor = (meta.lanes.find((l) => l.name === model.nodes[k].where) || {}).color || "#5b6770";
      const look = { width: color ? 3.2 : 1.6, fill: color === "#000" ? "#fff6d5" : "#fff",
        stroke: color || laneColor, opacity: dim ? 0.35 : 1, selected: color === "#000" };
      if (!sameLook(box.look, look)) paintBox(box, look);
      if (look.selected && reveal) revealInPane(pane, box.g, pane.firstElementChild);   // a step or Play moves on: follow it
    }
  }

  function paintBox(box, look) {
    box.rect.setAttribute("stroke-width", look.width);
    box.rect.setAttribute("fill", look.fill);
    box.rect.setAttribute("stroke", look.stroke);
    box.g.setAttribute("opacity", look.opacity);
    if (look.selected) box.g.dataset.selected = "1"; else delete box.g.dataset.selected;
    box.look = look;
  }

  return {
    update(changed, info = {}) {
      if (changed.has("rows") || (changed.has("width") && fit)) build();   // new nodes, or a new room to fit
      else if (changed.has("data")) counters();
      // a click never scrolls the pane under the cursor: only keyboard and Play steps are followed
      if (changed.has("selected") || changed.has("filter") || changed.has("data")) mark(Boolean(info.reveal) && changed.has("selected"));
      if (changed.has("live") || changed.has("rows")) breakpoint();
    },
    destroy() { pane.remove(); },
  };
}
