// The order strip: the items of the streams a Concurrently / union merges, one cell each, in
// the order they completed inside the visible window; the weights and the measured ratio above.
import { completedIn } from "../explorer_core.js";
import { GROUP_COLORS, make, sized } from "../explorer_dom.js";

const WINDOW_SETTLE_MS = 120;       // a zoom or pan redraws the strip once it pauses

/**
 * Mount the order strip into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>, object): void, destroy: function(): void}}
 */
export function createOrder(host, view) {
  const pane = make("div", "rlviz-pane rlviz-order", "order");
  host.appendChild(pane);
  let timer = null;
  draw();

  function draw() {
    const { meta, model } = view, state = view.store.get();
    pane.replaceChildren(make("h4", null, null, "Completion order"));
    const strip = meta.order;
    if (!strip) {
      pane.appendChild(make("p", null, null, "No Concurrently or union here: the order strip shows the items of the "
        + "streams a node merges, and no node of this trace merges several streams."));
      return;
    }
    const names = strip.groups.map((g) => g.name).join(" : ");
    pane.appendChild(make("p", null, "order-title", `${strip.merge} pulls from ${names}`));
    const weights = strip.groups.every((g) => g.weight != null) ? `weights ${strip.groups.map((g) => g.weight).join(" : ")} · ` : "";
    const measured = `measured ${strip.groups.map((g) => g.items.toLocaleString("en-US")).join(" : ")}`
      + (strip.ratio ? ` = ${strip.ratio.map((v) => v.toFixed(2)).join(" : ")}` : "");
    pane.appendChild(make("p", null, "order-ratio", weights + measured));
    const legend = make("div", "rlviz-legend");
    const opColors = strip.groups.map((g) => meta.nodes[g.node].color);
    const colors = new Set(opColors).size === opColors.length ? opColors : strip.groups.map((_, k) => GROUP_COLORS[k % GROUP_COLORS.length]);
    strip.groups.forEach((g, k) => {
      const swatch = make("span", "sw");
      swatch.style.background = colors[k];
      legend.append(swatch, make("span", null, null, `${g.name} (${g.items.toLocaleString("en-US")})`));
    });
    pane.appendChild(legend);
    const canvas = make("canvas");
    pane.appendChild(canvas);
    const note = make("p", "rlviz-status");
    pane.appendChild(note);
    const width = Math.max(120, (state.orderWidth || 320) - 12), cell = 11;
    const perRow = Math.floor(width / cell), maxRows = 8;
    const order = state.order;
    if (!order) { note.textContent = "ordering the calls…"; return; }
    const [k0, k1] = completedIn(model, order, state.window[0], state.window[1]);
    const total = k1 - k0;
    const shown = Array.from(order.subarray(k0, Math.min(k1, k0 + perRow * maxRows)));
    const rows = Math.max(1, Math.ceil(shown.length / perRow));
    const ctx = sized(canvas, perRow * cell, rows * cell);
    shown.forEach((i, k) => {
      ctx.fillStyle = colors[model.orderGroup[model.node[i]]];
      ctx.fillRect((k % perRow) * cell + 1, Math.floor(k / perRow) * cell + 1, cell - 2, cell - 2);
      if (i === state.selected) {
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 2;
        ctx.strokeRect((k % perRow) * cell, Math.floor(k / perRow) * cell, cell, cell);
      }
    });
    note.textContent = total > shown.length
      ? `first ${shown.length.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} items completed in the visible window (zoom in for the rest)`
      : `${total.toLocaleString("en-US")} items completed in the visible window, left to right`;
    canvas.addEventListener("click", (e) => {
      const box = canvas.getBoundingClientRect();
      const k = Math.floor((e.clientY - box.top) / cell) * perRow + Math.floor((e.clientX - box.left) / cell);
      if (k >= 0 && k < shown.length) view.actions.select(shown[k]);
    });
  }

  return {
    update(changed, info = {}) {
      if (["selected", "order", "orderWidth", "rows", "data"].some((key) => changed.has(key))) {
        clearTimeout(timer);
        draw();
      } else if (changed.has("window")) {
        clearTimeout(timer);
        if (info.gesture) timer = setTimeout(draw, WINDOW_SETTLE_MS);
        else draw();
      }
    },
    destroy() { clearTimeout(timer); pane.remove(); },
  };
}
