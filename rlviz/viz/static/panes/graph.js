// The graph pane: the dataflow graph as SVG from the layout Python computed, with each node's
// counters; a click filters the timeline to that node, the selection's producers and consumers
// are outlined.
import { nodeMatches } from "../explorer_core.js";
import { CONSUMER_COLOR, PRODUCER_COLOR, compact, formatBusy, make, revealInPane, svg } from "../explorer_dom.js";

/**
 * Mount the graph pane into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>): void, destroy: function(): void}}
 */
export function createGraph(host, view) {
  const pane = make("div", "rlviz-pane rlviz-graph", "graph");
  host.appendChild(pane);
  let drawing = null, boxes = new Map();
  build();

  function build() {
    const { meta } = view;
    pane.replaceChildren(make("h4", null, null, "Dataflow graph (click a node to filter the timeline)"));
    drawing = null;
    boxes = new Map();
    // a live page lists nodes of earlier plans too (hidden: they keep node indices stable)
    const drawn = meta.nodes.map((n, k) => k).filter((k) => !meta.nodes[k].hidden);
    if (!drawn.length) { pane.appendChild(make("p", null, null, "No dataflow nodes.")); return; }
    const colW = 180, rowH = 60, boxW = 156, boxH = 42, pad = 8;
    const place = meta.nodes.map((n) => [pad + n.column * colW, pad + n.row * rowH]);
    const width = Math.max(...drawn.map((k) => place[k][0])) + boxW + pad;
    const height = Math.max(...drawn.map((k) => place[k][1])) + boxH + pad;
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
    // shrink a wide graph to the pane, but not so far that its text gets unreadable (the pane scrolls)
    const room = (view.store.get().width || 960) * 5 / 12 - 16;
    root.style.width = `${width * Math.min(1, Math.max(0.6, room / width))}px`;
    const defs = svg("defs");
    const marker = svg("marker", { id: "rlviz-head", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#888" }));
    defs.appendChild(marker);
    root.appendChild(defs);
    const lanes = Object.fromEntries(meta.lanes.map((l) => [l.name, l.color]));
    for (const [u, v, count, back] of meta.edges) {
      const [x1, y1] = [place[u][0] + boxW, place[u][1] + boxH / 2];
      const [x2, y2] = [place[v][0], place[v][1] + boxH / 2];
      const bend = Math.max(30, Math.abs(x2 - x1) / 2);
      const path = svg("path", { d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
        fill: "none", stroke: "#888", "stroke-width": 1 + Math.log10(1 + count) / 2, "marker-end": "url(#rlviz-head)" });
      if (back) path.setAttribute("stroke-dasharray", "4 3");
      const title = svg("title");
      title.textContent = `${meta.nodes[u].op} → ${meta.nodes[v].op}: ${count.toLocaleString("en-US")} values`;
      path.appendChild(title);
      root.appendChild(path);
    }
    for (const k of drawn) {
      const n = meta.nodes[k];
      const g = svg("g", { class: "rlviz-node", transform: `translate(${place[k][0]},${place[k][1]})` });
      g.dataset.node = String(k);
      g.dataset.op = n.op;
      const rect = svg("rect", { width: boxW, height: boxH, rx: 5, fill: "#fff", stroke: lanes[n.where] || "#5b6770", "stroke-width": 1.6 });
      const title = svg("title");
      title.textContent = `${n.label}\n@ ${n.where}`;
      const name = svg("text", { x: boxW / 2, y: 14, "text-anchor": "middle", "font-size": 11, "font-weight": 600 });
      name.textContent = n.short;
      const stats = svg("text", { x: boxW / 2, y: 27, "text-anchor": "middle", "font-size": 9, fill: "#444" });
      const more = svg("text", { x: boxW / 2, y: 38, "text-anchor": "middle", "font-size": 9, fill: "#444" });
      g.append(title, rect, name, stats, more);
      g.addEventListener("click", () => {
        const { filter } = view.store.get();
        const same = filter.op === n.op && filter.where === n.where;
        view.actions.setFilter(same ? {} : { op: n.op, where: n.where });
      });
      root.appendChild(g);
      boxes.set(k, { g, rect, stats, more });
    }
    pane.appendChild(root);
    drawing = root;
    counters();
    mark();
  }

  /** Each node's calls, items, busy time, not-ready and errors, as the meta counts them now. */
  function counters() {
    view.meta.nodes.forEach((n, k) => {
      const box = boxes.get(k);
      if (!box) return;
      box.stats.textContent = `${compact(n.calls)} calls · ${compact(n.items)} items`;
      box.more.textContent = [`${formatBusy(n.busy_ms)} ms busy`, n.not_ready ? `${compact(n.not_ready)} not ready` : "",
        n.errors ? `${compact(n.errors)} errors` : ""].filter(Boolean).join(" · ");
    });
  }

  /** Outline the selection and its producers and consumers; scroll to the selection only when `reveal`. */
  function mark(reveal = false) {
    if (!drawing) return;
    const { model, meta } = view, { selected: i, filter } = view.store.get();
    const related = new Map();
    if (i >= 0) {
      for (let k = model.inOffsets[i]; k < model.inOffsets[i + 1]; k++) related.set(model.node[model.inputs[k]], PRODUCER_COLOR);
      for (let k = model.outOffsets[i]; k < model.outOffsets[i + 1]; k++) related.set(model.node[model.outputs[k]], CONSUMER_COLOR);
      related.set(model.node[i], "#000");
    }
    const filtered = filter.op != null || filter.where != null;
    for (const [k, { g, rect }] of boxes) {
      const color = related.get(k);
      rect.setAttribute("stroke-width", color ? 3.2 : 1.6);
      rect.setAttribute("fill", color === "#000" ? "#fff6d5" : "#fff");
      if (color && color !== "#000") rect.setAttribute("stroke", color);
      else rect.setAttribute("stroke", (meta.lanes.find((l) => l.name === model.nodes[k].where) || {}).color || "#5b6770");
      if (color === "#000") rect.setAttribute("stroke", "#000");
      g.setAttribute("opacity", !filtered || nodeMatches(model, k, filter) ? 1 : 0.35);
      if (color !== "#000") delete g.dataset.selected;
      else {
        g.dataset.selected = "1";
        if (reveal) revealInPane(pane, g, pane.firstElementChild);   // a step or Play moves on: follow it
      }
    }
  }

  return {
    update(changed, info = {}) {
      if (changed.has("rows")) build();             // new nodes: lay the graph out again
      else if (changed.has("data")) counters();
      // a click never scrolls the pane under the cursor: only keyboard and Play steps are followed
      if (changed.has("selected") || changed.has("filter") || changed.has("data")) mark(Boolean(info.reveal) && changed.has("selected"));
    },
    destroy() { pane.remove(); },
  };
}
