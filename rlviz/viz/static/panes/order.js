// The completion-order pane: the streams one merging node (a Concurrently, a union, a gather)
// pulls from, picked in a <select>. A union that recorded its scheduling decisions is drawn one
// row per round, its not-ready polls as hatched cells; any other merge as the items it got, one
// cell each, in the order they completed. Only what completed inside the visible window is drawn.
// Above it, the trace's notes: where a scheduling rule dominates the order. What each view shows
// is worked out by a function free of the DOM (`roundsPlan`, `itemsPlan`) and painted by another
// that takes a 2D context (`paintRounds`, `paintItems`).
import { completedIn, defaultMerge, mergeEvents, roundRows } from "../explorer_core.js";
import { GROUP_COLORS, NOT_READY_COLOR, counted, make, sized } from "../explorer_dom.js";

const WINDOW_SETTLE_MS = 120;       // a zoom or pan redraws the strip once it pauses
const RUNNING_DRAW_MS = 1000;       // while a live run appends, the pane is drawn again at most once a second
const MAX_ROUNDS = 24;              // round rows drawn at most (zoom in for the rest)
const ROUND_GUTTER = 34;            // room for the round number left of its row
const ROW_CELL = 11;                // a round's row height and its cells' widest width
const ITEM_ROWS = 8;                // rows of item cells drawn at most

/**
 * Mount the completion-order pane into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>, object): void, destroy: function(): void}}
 */
export function createOrder(host, view) {
  const pane = make("div", "rlviz-pane rlviz-order", "order");
  host.appendChild(pane);
  let timer = null, picked = null, drawnAt = -Infinity;
  const cache = { strip: null, order: null, events: null };
  draw();

  function draw() {
    drawnAt = performance.now();
    const { meta, model } = view;
    pane.replaceChildren(make("h4", null, null, "Completion order"));
    announce(pane, []);
    const strips = stripsOf(meta);
    if (!strips.length) {
      pane.appendChild(make("p", null, null, "No Concurrently or union here: the order pane shows the items of the "
        + "streams a node merges, and no node of this trace merges several streams."));
      return;
    }
    const k = picked != null && picked < strips.length ? picked     // the reader's pick, else the selection's merge
      : defaultMerge(model, strips, view.store.get().selected, meta.order_default ?? strips.length - 1);
    pane.appendChild(picker(strips, k, (j) => { picked = j; draw(); }));
    const strip = strips[k];
    const union = (meta.decisions?.specs || []).findIndex((spec) => spec.node === strip.node);
    const colors = groupColors(meta, strip);
    const items = strip.groups.map((g) => (meta.nodes[g.node]?.items ?? g.items));
    pane.append(make("p", null, "order-title", `${strip.merge} pulls from ${strip.groups.map((g) => g.name).join(" : ")}`),
      make("p", null, "order-ratio", ratioText(strip, items)),
      notesList(meta.notes || []));                 // above the rounds: a long list would hide them below the fold
    if (union >= 0) drawRounds(pane, view, roundsPlan(view, strip, union, colors));
    else drawItems(pane, view, strip, colors, items, cache);
  }

  /** Draw `ms` from now (a draw already due waits with it). */
  function drawIn(ms) {
    clearTimeout(timer);
    timer = setTimeout(() => { timer = null; draw(); }, ms);
  }

  /** A running view's append: drawn now (in the append's frame) when the last draw is `ms` old, else by a
   * later append, or a timer if none comes. */
  function drawAtMostEvery(ms) {
    const due = drawnAt + ms - performance.now();
    if (due <= 0) drawNow();
    else if (!timer) timer = setTimeout(() => { timer = null; draw(); }, due + ms / 2);
  }

  function drawNow() {
    clearTimeout(timer);
    timer = null;
    draw();
  }

  return {
    update(changed, info = {}) {
      const running = Boolean(view.store.get().live?.running);
      const appended = changed.has("data") || changed.has("order");
      if (["selected", "orderWidth", "rows"].some((key) => changed.has(key))) drawNow();
      // a running view's appends: the pane is rebuilt (DOM and canvas) at a pace a reader follows, not per append
      else if (appended && running) drawAtMostEvery(RUNNING_DRAW_MS);
      else if (appended) drawNow();
      else if (changed.has("window") && info.gesture) drawIn(WINDOW_SETTLE_MS);
      else if (changed.has("window")) drawNow();
    },
    destroy() { clearTimeout(timer); pane.remove(); },
  };
}

/** "weights 2 : 1 · measured 200 : 100 = 1.00 : 0.50": the weights (when every group has one) and the items made. */
export function ratioText(strip, items) {
  const weights = strip.groups.every((g) => g.weight != null) ? `weights ${strip.groups.map((g) => g.weight).join(" : ")} · ` : "";
  const first = items[0];
  return `${weights}measured ${items.map((v) => v.toLocaleString("en-US")).join(" : ")}`
    + (first ? ` = ${items.map((v) => (v / first).toFixed(2)).join(" : ")}` : "");
}

/**
 * What the rounds view of `union` shows now: its rounds that completed in the window (the newest
 * MAX_ROUNDS while following a run, else the first), each child's colour, items and not-ready
 * polls, and the cell width that fits the longest round in the pane.
 * @returns {object} {spec, rounds, shown, items, notReady, colorOf(child), cell, longest, follow}
 */
export function roundsPlan(view, strip, union, colors) {
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
  const shown = state.follow ? rounds.slice(-MAX_ROUNDS) : rounds.slice(0, MAX_ROUNDS);
  const longest = Math.max(1, ...shown.map((r) => r.cells.length));
  const width = Math.max(120, (state.orderWidth || 320) - 12) - ROUND_GUTTER;
  // a '*' turn can pull 100 times: cells narrow to fit the pane, rows keep their height
  const cell = Math.max(2, Math.min(ROW_CELL, Math.floor(width / longest)));
  return { spec, rounds, shown, items, notReady, cell, longest, follow: state.follow,
    colorOf: (c) => (groupOf[c] >= 0 ? colors[groupOf[c]] : GROUP_COLORS[c % GROUP_COLORS.length]) };
}

/** Paint the rounds shown, one row each after its number; returns how many cells were hatched (not ready). */
export function paintRounds(ctx, { shown, cell, colorOf }, selected) {
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  let hatched = 0;
  const gap = cell > 4 ? 1 : 0;
  shown.forEach((round, y) => {
    ctx.fillStyle = "#666";
    ctx.fillText(String(round.round), 2, y * ROW_CELL + ROW_CELL / 2);
    round.cells.forEach((c, x) => {
      const left = ROUND_GUTTER + x * cell, top = y * ROW_CELL;
      if (c.notReady) {
        hatch(ctx, left + gap, top + 1, Math.max(2, cell - 2 * gap), ROW_CELL - 2, colorOf(c.child));
        hatched++;
      } else {
        ctx.fillStyle = colorOf(c.child);
        ctx.fillRect(left + gap, top + 1, cell - 2 * gap, ROW_CELL - 2);
      }
      if (c.event >= 0 && c.event === selected) {
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 2;
        ctx.strokeRect(left, top, cell, ROW_CELL);
      }
    });
  });
  return hatched;
}

/** The rounds view: legend, the rounds' canvas (a click selects the pull), and a line saying what is shown. */
function drawRounds(pane, view, plan) {
  const { spec, rounds, shown, items, notReady, colorOf, cell, longest, follow } = plan;
  legend(pane, [...spec.children.map((name, c) => [colorOf(c),
    `${name} (${counted(items[c], "item")}, ${notReady[c].toLocaleString("en-US")} not ready)`, false]),
  [NOT_READY_COLOR, "not ready (turn ends)", true]]);
  const canvas = make("canvas", null, "order-rounds");
  const note = make("p", "rlviz-status", "order-note");
  pane.append(canvas, note);
  const ctx = sized(canvas, ROUND_GUTTER + longest * cell, Math.max(1, shown.length) * ROW_CELL);
  const hatched = paintRounds(ctx, plan, view.store.get().selected);
  canvas.dataset.rlvizRounds = String(shown.length);
  canvas.dataset.rlvizNotReady = String(hatched);
  announce(pane, shown);
  note.textContent = rounds.length > shown.length
    ? `${follow ? "newest" : "first"} ${shown.length} of ${rounds.length.toLocaleString("en-US")} rounds in the `
      + `visible window (${follow ? "following the run" : "zoom in for the rest"})`
    : `${rounds.length.toLocaleString("en-US")} round${rounds.length === 1 ? "" : "s"} in the visible window, one per row`;
  canvas.addEventListener("click", (e) => {
    const box = canvas.getBoundingClientRect();
    const round = shown[Math.floor((e.clientY - box.top) / ROW_CELL)];
    const x = Math.floor((e.clientX - box.left - ROUND_GUTTER) / cell);
    const c = round && x >= 0 ? round.cells[x] : null;
    if (c && c.event >= 0) view.actions.select(c.event);
  });
}

/**
 * What the items view shows now: the merge's items that completed in the window (at most
 * ITEM_ROWS rows of cells), each with its group; `cache` keeps the merge's list per strip and data.
 * @returns {object} {shown, group, first, total, perRow, cell, fromInputs}
 */
export function itemsPlan(model, strip, state, cache) {
  const width = Math.max(120, (state.orderWidth || 320) - 12), cell = 11;
  const perRow = Math.floor(width / cell);
  if (cache.strip !== strip || cache.order !== state.order) {     // once per strip and data
    Object.assign(cache, { strip, order: state.order, ...mergeEvents(model, strip) });
  }
  const [k0, k1] = completedIn(model, cache.events, state.window[0], state.window[1]);
  const shown = Array.from(cache.events.subarray(k0, Math.min(k1, k0 + perRow * ITEM_ROWS)));
  return { shown, group: (k) => cache.group[k0 + k], total: k1 - k0, perRow, cell, fromInputs: cache.fromInputs };
}

/** Paint the items shown, left to right and row by row, in their group's colour (no group: not-ready grey). */
export function paintItems(ctx, { shown, group, perRow, cell }, colors, selected) {
  shown.forEach((i, k) => {
    const g = group(k), x = (k % perRow) * cell, y = Math.floor(k / perRow) * cell;
    ctx.fillStyle = g >= 0 ? colors[g] : NOT_READY_COLOR;
    ctx.fillRect(x + 1, y + 1, cell - 2, cell - 2);
    if (i === selected) {
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.strokeRect(x, y, cell, cell);
    }
  });
}

/** The items view: legend, the items' canvas (a click selects the call), and a line saying what is shown. */
function drawItems(pane, view, strip, colors, items, cache) {
  const state = view.store.get();
  legend(pane, strip.groups.map((g, k) => [colors[k], `${g.name} (${items[k].toLocaleString("en-US")})`, false]));
  const canvas = make("canvas", null, "order-items");
  const note = make("p", "rlviz-status", "order-note");
  pane.append(canvas, note);
  if (!state.order) { note.textContent = "ordering the calls…"; return; }
  const plan = itemsPlan(view.model, strip, state, cache);
  const { shown, total, perRow, cell } = plan;
  paintItems(sized(canvas, perRow * cell, Math.max(1, Math.ceil(shown.length / perRow)) * cell), plan, colors, state.selected);
  note.textContent = total > shown.length
    ? `first ${shown.length.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} items completed in the visible window (zoom in for the rest)`
    : `${total.toLocaleString("en-US")} items ${plan.fromInputs ? "completed" : `${strip.merge} handed on`} in the visible window, left to right`;
  canvas.addEventListener("click", (e) => {
    const box = canvas.getBoundingClientRect();
    const k = Math.floor((e.clientY - box.top) / cell) * perRow + Math.floor((e.clientX - box.left) / cell);
    if (k >= 0 && k < shown.length) view.actions.select(shown[k]);
  });
}

/** The pane says what it drew: `data-rlviz-rounds` (rounds drawn) and `data-rlviz-last-round` (the highest). */
function announce(pane, shown) {
  pane.dataset.rlvizRounds = String(shown.length);
  pane.dataset.rlvizLastRound = String(shown.reduce((top, round) => Math.max(top, round.round), 0));
}

/** The <select> of merging nodes; `onPick(j)` when the reader picks strip j. */
function picker(strips, k, onPick) {
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
  select.addEventListener("change", () => onPick(Number(select.value)));
  return select;
}

/** Each group's colour: the payload's (the op's timeline colour, as plot_order), else a distinct one. */
function groupColors(meta, strip) {
  const given = strip.groups.map((g) => g.color || meta.nodes[g.node].color);
  return new Set(given).size === given.length ? given : strip.groups.map((_, k) => GROUP_COLORS[k % GROUP_COLORS.length]);
}

function legend(pane, entries) {
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
