// The completion-order pane: the streams one merging node (a Concurrently, a union, a gather)
// pulls from, picked in a <select>. A union that recorded its scheduling decisions is drawn one
// row per round, its not-ready polls as hatched cells; any other merge as the items it got, one
// cell each, in the order they completed. Only what completed inside the visible window is drawn.
// Under it, the trace's notes: where a scheduling rule dominates the order.
import { completedIn, defaultMerge, mergeEvents, roundRows } from "../explorer_core.js";
import { GROUP_COLORS, NOT_READY_COLOR, make, sized } from "../explorer_dom.js";

const WINDOW_SETTLE_MS = 120;       // a zoom or pan redraws the strip once it pauses
const MAX_ROUNDS = 24;              // round rows drawn at most (zoom in for the rest)
const ROUND_GUTTER = 34;            // room for the round number left of its row
const ROW_CELL = 11;                // a round's row height and its cells' widest width

/**
 * Mount the completion-order pane into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>, object): void, destroy: function(): void}}
 */
export function createOrder(host, view) {
  const pane = make("div", "rlviz-pane rlviz-order", "order");
  host.appendChild(pane);
  let timer = null, picked = null, cached = { strip: null, order: null, events: null };
  draw();

  /** The strip shown: the reader's pick, else the selection's merging node, else the payload's default. */
  function chosen(strips) {
    if (picked != null && picked < strips.length) return picked;
    const { model, meta } = view;
    return defaultMerge(model, strips, view.store.get().selected, meta.order_default ?? strips.length - 1);
  }

  /** The pane says what it drew: `data-rlviz-rounds` (rounds drawn) and `data-rlviz-last-round` (the highest). */
  function announce(shown) {
    pane.dataset.rlvizRounds = String(shown.length);
    pane.dataset.rlvizLastRound = String(shown.reduce((top, round) => Math.max(top, round.round), 0));
  }

  function draw() {
    const { meta } = view;
    pane.replaceChildren(make("h4", null, null, "Completion order"));
    announce([]);
    const strips = stripsOf(meta);
    if (!strips.length) {
      pane.appendChild(make("p", null, null, "No Concurrently or union here: the order pane shows the items of the "
        + "streams a node merges, and no node of this trace merges several streams."));
      return;
    }
    const k = chosen(strips);
    pane.appendChild(picker(strips, k));
    const strip = strips[k];
    const union = (meta.decisions?.specs || []).findIndex((spec) => spec.node === strip.node);
    const colors = groupColors(strip);
    const names = strip.groups.map((g) => g.name).join(" : ");
    pane.appendChild(make("p", null, "order-title", `${strip.merge} pulls from ${names}`));
    const items = strip.groups.map((g) => itemsOf(g));
    const weights = strip.groups.every((g) => g.weight != null) ? `weights ${strip.groups.map((g) => g.weight).join(" : ")} · ` : "";
    const first = items[0];
    const measured = `measured ${items.map((v) => v.toLocaleString("en-US")).join(" : ")}`
      + (first ? ` = ${items.map((v) => (v / first).toFixed(2)).join(" : ")}` : "");
    pane.appendChild(make("p", null, "order-ratio", weights + measured));
    if (union >= 0) drawRounds(strip, union, colors);
    else drawItems(strip, colors, items);
    pane.appendChild(notesList(meta.notes || []));
  }

  function itemsOf(group) {
    const node = view.meta.nodes[group.node];
    return node && node.items != null ? node.items : group.items;
  }

  function picker(strips, k) {
    const select = make("select", null, "order-node");
    select.setAttribute("aria-label", "merging node whose order is shown");
    const seen = strips.map((s) => s.merge);
    strips.forEach((s, j) => {
      const option = make("option", null, null, seen.filter((m) => m === s.merge).length > 1 || s.where !== "driver"
        ? `${s.merge} @ ${s.where}` : s.merge);
      option.value = String(j);
      select.appendChild(option);
    });
    select.value = String(k);
    select.addEventListener("change", () => { picked = Number(select.value); draw(); });
    return select;
  }

  /** Each group's colour: the payload's (the op's timeline colour, as plot_order), else a distinct one. */
  function groupColors(strip) {
    const given = strip.groups.map((g) => g.color || view.meta.nodes[g.node].color);
    return new Set(given).size === given.length ? given : strip.groups.map((_, k) => GROUP_COLORS[k % GROUP_COLORS.length]);
  }

  function legend(entries) {
    const box = make("div", "rlviz-legend", "order-legend");
    for (const [color, text, hatched] of entries) {
      const entry = make("span", "entry");              // a swatch never wraps away from its name
      const swatch = make("span", hatched ? "sw hatch" : "sw");
      if (!hatched) swatch.style.background = color;
      entry.append(swatch, make("span", null, null, text));
      box.appendChild(entry);
    }
    pane.appendChild(box);
  }

  /** One row per round of `union`'s decisions; a not-ready poll is a hatched cell. */
  function drawRounds(strip, union, colors) {
    const { meta, model } = view, state = view.store.get();
    const spec = meta.decisions.specs[union], rows = meta.decisions.rows;
    const groupOf = spec.children.map((name, c) => {
      const k = strip.groups.findIndex((g) => g.name === name || g.name.startsWith(`${name} @ `));
      return k >= 0 ? k : c < strip.groups.length ? c : -1;
    });
    const [t0, t1] = state.window;
    const inWindow = (row) => {
      const i = rows.event[row] >= 0 ? rows.event[row] : rows.union_event[row];
      if (i < 0 || i >= model.n) return true;
      const end = model.start[i] + model.duration[i];
      return end >= t0 && end <= t1;
    };
    const { rounds, items, notReady } = roundRows(meta.decisions, union, inWindow);
    const colorOf = (c) => (groupOf[c] >= 0 ? colors[groupOf[c]] : GROUP_COLORS[c % GROUP_COLORS.length]);
    legend([...spec.children.map((name, c) => [colorOf(c),
      `${name} (${items[c].toLocaleString("en-US")} items, ${notReady[c].toLocaleString("en-US")} not ready)`, false]),
    [NOT_READY_COLOR, "not ready (turn ends)", true]]);
    const canvas = make("canvas", null, "order-rounds");
    pane.appendChild(canvas);
    const note = make("p", "rlviz-status", "order-note");
    pane.appendChild(note);
    // following a live run, the newest rounds; otherwise the window's first
    const shown = state.follow ? rounds.slice(-MAX_ROUNDS) : rounds.slice(0, MAX_ROUNDS);
    const longest = Math.max(1, ...shown.map((r) => r.cells.length));
    const width = Math.max(120, (state.orderWidth || 320) - 12) - ROUND_GUTTER;
    // a '*' turn can pull 100 times: cells narrow to fit the pane, rows keep their height
    const cell = Math.max(2, Math.min(ROW_CELL, Math.floor(width / longest)));
    const ctx = sized(canvas, ROUND_GUTTER + longest * cell, Math.max(1, shown.length) * ROW_CELL);
    ctx.font = "10px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    let hatched = 0;
    shown.forEach((round, y) => {
      ctx.fillStyle = "#666";
      ctx.fillText(String(round.round), 2, y * ROW_CELL + ROW_CELL / 2);
      const gap = cell > 4 ? 1 : 0;
      round.cells.forEach((c, x) => {
        const left = ROUND_GUTTER + x * cell, top = y * ROW_CELL;
        if (c.notReady) { hatch(ctx, left + gap, top + 1, Math.max(2, cell - 2 * gap), ROW_CELL - 2, colorOf(c.child)); hatched++; }
        else { ctx.fillStyle = colorOf(c.child); ctx.fillRect(left + gap, top + 1, cell - 2 * gap, ROW_CELL - 2); }
        if (c.event >= 0 && c.event === state.selected) {
          ctx.strokeStyle = "#000";
          ctx.lineWidth = 2;
          ctx.strokeRect(left, top, cell, ROW_CELL);
        }
      });
    });
    canvas.dataset.rlvizRounds = String(shown.length);
    canvas.dataset.rlvizNotReady = String(hatched);
    announce(shown);
    note.textContent = rounds.length > shown.length
      ? `${state.follow ? "newest" : "first"} ${shown.length} of ${rounds.length.toLocaleString("en-US")} rounds in the `
        + `visible window (${state.follow ? "following the run" : "zoom in for the rest"})`
      : `${rounds.length.toLocaleString("en-US")} round${rounds.length === 1 ? "" : "s"} in the visible window, one per row`;
    canvas.addEventListener("click", (e) => {
      const box = canvas.getBoundingClientRect();
      const round = shown[Math.floor((e.clientY - box.top) / ROW_CELL)];
      const x = Math.floor((e.clientX - box.left - ROUND_GUTTER) / cell);
      const c = round && x >= 0 ? round.cells[x] : null;
      if (c && c.event >= 0) view.actions.select(c.event);
    });
  }

  /** The items the merge handed on, in completion order, one cell each coloured by its stream (no decisions recorded). */
  function drawItems(strip, colors, items) {
    const { model } = view, state = view.store.get();
    legend(strip.groups.map((g, k) => [colors[k], `${g.name} (${items[k].toLocaleString("en-US")})`, false]));
    const canvas = make("canvas", null, "order-items");
    pane.appendChild(canvas);
    const note = make("p", "rlviz-status", "order-note");
    pane.appendChild(note);
    const width = Math.max(120, (state.orderWidth || 320) - 12), cell = 11;
    const perRow = Math.floor(width / cell), maxRows = 8;
    if (!state.order) { note.textContent = "ordering the calls…"; return; }
    if (cached.strip !== strip || cached.order !== state.order) {     // once per strip and data
      cached = { strip, order: state.order, ...mergeEvents(model, strip) };
    }
    const order = cached.events;
    const [k0, k1] = completedIn(model, order, state.window[0], state.window[1]);
    const total = k1 - k0;
    const shown = Array.from(order.subarray(k0, Math.min(k1, k0 + perRow * maxRows)));
    const rows = Math.max(1, Math.ceil(shown.length / perRow));
    const ctx = sized(canvas, perRow * cell, rows * cell);
    shown.forEach((i, k) => {
      const g = cached.group[k0 + k];
      ctx.fillStyle = g >= 0 ? colors[g] : NOT_READY_COLOR;
      ctx.fillRect((k % perRow) * cell + 1, Math.floor(k / perRow) * cell + 1, cell - 2, cell - 2);
      if (i === state.selected) {
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 2;
        ctx.strokeRect((k % perRow) * cell, Math.floor(k / perRow) * cell, cell, cell);
      }
    });
    note.textContent = total > shown.length
      ? `first ${shown.length.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} items completed in the visible window (zoom in for the rest)`
      : `${total.toLocaleString("en-US")} items ${cached.fromInputs ? "completed" : `${strip.merge} handed on`} in the visible window, left to right`;
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

/**
 * The trace's notes (rlviz.trace.analysis.order_notes: where a scheduling rule dominates), one item
 * each, in a list that says how many it holds (`data-rlviz-count`); empty when nothing stands out.
 */
export function notesList(notes) {
  const list = make("ul", "rlviz-notes", "notes");
  list.dataset.rlvizCount = String(notes.length);
  for (const note of notes) list.appendChild(make("li", null, null, note));
  return list;
}

/** The payload's merging nodes (a live view's meta may carry only the default one). */
function stripsOf(meta) {
  return meta.orders || (meta.order ? [meta.order] : []);
}

/** A not-ready cell (w x h): white, outlined and struck with diagonal lines in the op's colour. */
function hatch(ctx, x, y, w, h, color) {
  ctx.save();
  ctx.fillStyle = "#fff";
  ctx.fillRect(x, y, w, h);
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let d = -h; d < w; d += 3) { ctx.moveTo(x + d, y + h); ctx.lineTo(x + d + h, y); }
  ctx.stroke();
  ctx.strokeStyle = "#555";
  ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
  ctx.restore();
}
