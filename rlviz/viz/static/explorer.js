// The Explorer: timeline, dataflow graph, order strip and inspector of an rlviz trace,
// drawn in the browser (canvas 2D and SVG). One module for the notebook widget (anywidget's
// `render`) and the standalone HTML file (`mountExplorer`). Text is set with textContent or
// fillText only, never parsed as HTML.
import {
  NOT_READY, OUTCOMES, STOP, aggregateRow, buildModel, completedIn, completionOrder, decodeColumns,
  drawsExact, errorsInWindow, hitTest, itemText, nodeMatches, orderEvents, searchEvents, step, stepList,
  decisionIndex, pollAlpha, searchStep, whyOf,
  tickStep, visibleRange,
} from "./explorer_core.js";

const GUTTER = 190, ROW_H = 13, LANE_GAP = 7, RULER_H = 24;
const NOT_READY_COLOR = "#b8b8b8", ERROR_COLOR = "#d62728", STOP_COLOR = "#333333";
const PRODUCER_COLOR = "#e67e22", CONSUMER_COLOR = "#2471a3", RESTART_COLOR = "#c0392b";
const GROUP_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
const MAX_ARROWS = 200, MAX_LINKS_LISTED = 40, PLAY_MS = 250;
const CSS = `
.rlviz-explorer { position: relative; font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
  border: 1px solid #ddd; border-radius: 4px; padding: 6px; background: #fff; outline: none; }
.rlviz-explorer:focus-visible { box-shadow: 0 0 0 2px #9cc3e6; }
.rlviz-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 4px; }
.rlviz-bar button { font: inherit; padding: 1px 8px; cursor: pointer; }
.rlviz-bar input { font: inherit; width: 16em; }
.rlviz-title { font-weight: 600; margin-right: 8px; }
.rlviz-status { color: #555; }
.rlviz-chip { background: #eef4fb; border: 1px solid #9cc3e6; border-radius: 9px; padding: 0 6px; }
.rlviz-banner { background: #fdecea; border-left: 4px solid #d62728; padding: 4px 8px; margin: 4px 0; white-space: pre-wrap; }
.rlviz-note { background: #fff4e0; border-left: 4px solid #e69500; padding: 3px 8px; margin: 4px 0; }
.rlviz-scroll { max-height: 62vh; overflow-y: auto; overflow-x: hidden; }
.rlviz-timeline canvas { display: block; cursor: crosshair; }
.rlviz-empty { padding: 2em; color: #555; text-align: center; border: 1px dashed #ccc; }
.rlviz-lower { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 4fr) minmax(0, 3fr); gap: 8px; margin-top: 6px; }
.rlviz-pane { border: 1px solid #eee; border-radius: 3px; padding: 4px; min-height: 120px; overflow: auto; max-height: 360px; }
.rlviz-pane h4 { margin: 0 0 4px 0; font-size: 12px; color: #444; }
.rlviz-graph svg { display: block; height: auto; max-width: none; }
.rlviz-graph g.rlviz-node { cursor: pointer; }
.rlviz-order canvas { display: block; cursor: pointer; }
.rlviz-legend span.sw { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 8px; vertical-align: -1px; }
.rlviz-inspector dl { display: grid; grid-template-columns: auto 1fr; gap: 1px 8px; margin: 0; }
.rlviz-inspector dt { color: #666; } .rlviz-inspector dd { margin: 0; overflow-wrap: anywhere; }
.rlviz-inspector button { font: inherit; display: block; text-align: left; border: none; background: none;
  color: #1f5f99; cursor: pointer; padding: 0; } .rlviz-inspector button:hover { text-decoration: underline; }
.rlviz-tooltip { position: absolute; pointer-events: none; background: rgba(30,30,30,0.92); color: #fff;
  padding: 4px 7px; border-radius: 3px; font-size: 11px; white-space: pre-wrap; overflow-wrap: anywhere; display: none; z-index: 10; max-width: 480px; }
`;

const GREY = rgbOf(NOT_READY_COLOR), DARK = rgbOf(STOP_COLOR);

/** [r, g, b] of a #rrggbb colour. */
function rgbOf(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** One RGBA pixel (little-endian Uint32) of colour [r, g, b] at opacity alpha. */
function pack([r, g, b], alpha) {
  return ((Math.round(alpha * 255) << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** `text` cut with an ellipsis to fit `room` pixels in the context's current font. */
function fitText(ctx, text, room) {
  if (ctx.measureText(text).width <= room) return text;
  let keep = text.length;
  while (keep > 1 && ctx.measureText(`${text.slice(0, keep)}…`).width > room) keep--;
  return `${text.slice(0, keep)}…`;
}

/** Create an element with a class, optional data-rlviz part name and text. */
function make(tag, className, part, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (part) node.dataset.rlviz = part;
  if (text != null) node.textContent = text;
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
  return node;
}

function formatMs(value) {
  const a = Math.abs(value);
  return a >= 1000 ? value.toFixed(1) : a >= 1 ? value.toFixed(3) : value.toFixed(4);
}

function formatBusy(ms) {
  return ms >= 1000 ? Math.round(ms).toLocaleString("en-US") : ms.toPrecision(3);
}

function compact(value) {
  if (value >= 1e7) return `${Math.round(value / 1e6)}M`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${Math.round(value / 1e3)}k`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}

function measure(name, started) {
  if (typeof performance !== "undefined" && performance.measure) {
    performance.measure(name, { start: started, end: performance.now() });
  }
}

/**
 * Mount the Explorer into `el`.
 * @param {HTMLElement} el  container (emptied)
 * @param {object} meta     the payload's JSON meta
 * @param {Array} buffers   the payload's buffers (ArrayBuffer / DataView / typed arrays)
 * @param {object} host     {onChange(state)}: called when the user changes selection, window or filter
 * @returns {object} {setSelected, setWindow, setFilter, showError, destroy, state}
 */
export function mountExplorer(el, meta, buffers, host = {}) {
  el.replaceChildren();
  const model = buildModel(meta, decodeColumns(meta, buffers));
  const root = make("div", "rlviz-explorer", "explorer");
  root.tabIndex = 0;
  root.appendChild(make("style", null, null, CSS));
  el.appendChild(root);
  const full = [0, Math.max(model.end, 1)];
  const state = { window: full.slice(), selected: -1, hover: -1, filter: { op: null, where: null },
    skipNotReady: false, steps: null, search: null, searchAt: -1, playing: null, width: 0 };
  const parts = buildDom();
  const rowY = layoutRows();
  let frameRequested = false, firstFrame = false, windowTimer = null;
  const raster = { canvas: document.createElement("canvas") };
  raster.ctx = raster.canvas.getContext("2d");
  let order = null;

  if (model.n === 0) {
    parts.scroll.replaceChildren(make("div", "rlviz-empty", null,
      "Empty trace: nothing was recorded. Run the code to watch inside `with rlviz.record() as trace:` "
      + "(calls made outside the block are not recorded), then show the trace again."));
  }
  drawGraph();
  drawOrder();
  drawInspector();
  drawNow();
  reflect();
  // widths are read here only: reading layout inside a draw would force the page to reflow
  const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
    const width = parts.timeline.clientWidth;
    if (width && width !== state.width) { state.width = width; state.orderWidth = parts.order.clientWidth; scheduleDraw(); drawOrder(); }
  });
  if (resize) resize.observe(parts.timeline);
  bindEvents();
  // completion order (a sort of every end time) is ready a moment after the first frame
  const ordering = setTimeout(() => { completionOrder(model); order = orderEvents(model); drawOrder(); }, 0);

  // ---------------------------------------------------------------- DOM
  function buildDom() {
    const bar = make("div", "rlviz-bar");
    const title = make("span", "rlviz-title", null, `${model.n.toLocaleString("en-US")} calls · ${meta.lanes.length} processes · ${formatMs(meta.span_ms)} ms`);
    const search = make("input", null, "search");
    search.type = "search";
    search.placeholder = "search op or item, op:Name for op names only (Enter: next)";
    search.setAttribute("aria-label", "search op, label or item text");
    const prev = make("button", null, "prev", "◀");
    prev.title = "previous call to complete (←)";
    const play = make("button", null, "play", "▶ Play");
    play.title = "step through calls in completion order";
    const next = make("button", null, "next", "▶|");
    next.title = "next call to complete (→)";
    const skip = make("label", "rlviz-skip", "skip-not-ready");
    const skipBox = make("input", null, "skip-not-ready-box");
    skipBox.type = "checkbox";
    skip.title = "step over calls that returned 'not ready'";
    skip.append(skipBox, document.createTextNode(" skip not-ready"));
    const zoomSel = make("button", null, "zoom-selection", "zoom to selection");
    const reset = make("button", null, "reset", "reset zoom");
    const chip = make("span", "rlviz-chip", "filter");
    chip.style.display = "none";
    const status = make("span", "rlviz-status", "status");
    bar.append(title, search, prev, play, next, skip, zoomSel, reset, chip, status);
    const banner = make("div", "rlviz-banner", "error");
    banner.style.display = "none";
    root.appendChild(bar);
    root.appendChild(banner);
    if (meta.dropped > 0) {
      root.appendChild(make("div", "rlviz-note", "dropped",
        `${meta.dropped.toLocaleString("en-US")} events were dropped by the bounded buffers (the oldest); `
        + "raise rlviz.record(capacity=...) to keep them."));
    }
    const timeline = make("div", "rlviz-timeline", "timeline");
    const ruler = make("canvas", null, "ruler");
    const scroll = make("div", "rlviz-scroll");
    const canvas = make("canvas", null, "lanes");
    scroll.appendChild(canvas);
    timeline.append(ruler, scroll);
    root.appendChild(timeline);
    const lower = make("div", "rlviz-lower");
    const graph = make("div", "rlviz-pane rlviz-graph", "graph");
    const orderPane = make("div", "rlviz-pane rlviz-order", "order");
    const inspector = make("div", "rlviz-pane rlviz-inspector", "inspector");
    lower.append(graph, orderPane, inspector);
    root.appendChild(lower);
    const tooltip = make("div", "rlviz-tooltip", "tooltip");
    root.appendChild(tooltip);
    return { bar, search, prev, play, next, skipBox, zoomSel, reset, chip, status, banner, timeline, ruler, scroll,
      canvas, graph, order: orderPane, inspector, tooltip };
  }

  function layoutRows() {
    const y = new Float64Array(model.rows.length + 1);
    let at = 4;
    model.rows.forEach((row, r) => {
      if (r > 0 && row.first) at += LANE_GAP;
      y[r] = at;
      at += ROW_H;
    });
    y[model.rows.length] = at + 4;
    return y;
  }

  // ---------------------------------------------------------------- state
  function toMs(t) { return t * model.unitMs; }
  function plotWidth() { return Math.max(50, state.width - GUTTER - 8); }
  function xOf(t) { const [a, b] = state.window; return GUTTER + ((t - a) / (b - a)) * plotWidth(); }
  function tOf(x) { const [a, b] = state.window; return a + ((x - GUTTER) / plotWidth()) * (b - a); }

  function reflect() {
    root.dataset.rlvizSelected = String(state.selected);
    root.dataset.rlvizWindow = `${formatMs(toMs(state.window[0]))},${formatMs(toMs(state.window[1]))}`;
    const f = state.filter;
    const filtered = f.op != null || f.where != null;
    parts.chip.style.display = filtered ? "" : "none";
    if (filtered) {
      parts.chip.textContent = `showing ${[f.op, f.where].filter((v) => v != null).join(" @ ")}  ✕`;
      parts.chip.title = "click to show every op and lane";
    }
  }

  function notify(what) {
    if (!host.onChange) return;
    const report = () => host.onChange({ selected: state.selected, window: [toMs(state.window[0]), toMs(state.window[1])],
      op: state.filter.op, where: state.filter.where, skipNotReady: state.skipNotReady, what });
    if (what === "window") {
      clearTimeout(windowTimer);
      windowTimer = setTimeout(report, 150);
    } else {
      report();
    }
  }

  function steps() {
    if (!state.steps) state.steps = stepList(model, state.filter, state.skipNotReady);
    return state.steps;
  }

  function select(index, { from = "user", center = true } = {}) {
    state.selected = index >= 0 && index < model.n ? index : -1;
    if (state.selected >= 0 && center) {
      const s = model.start[state.selected], e = s + model.duration[state.selected];
      const [a, b] = state.window;
      if (e < a || s > b) setWindowUnits([s + (e - s) / 2 - (b - a) / 2, s + (e - s) / 2 + (b - a) / 2], false);
    }
    drawInspector();
    markGraph();
    drawOrder();
    drawNow();
    reflect();
    if (from === "user") notify("selected");
  }

  function setWindowUnits([a, b], tell = true) {
    const minimum = 10 / Math.max(model.meta.unit_ns, 1);
    if (!(b - a >= minimum)) { const mid = (a + b) / 2; a = mid - minimum / 2; b = mid + minimum / 2; }
    const span = full[1] - full[0], extra = span * 0.5;
    if (b - a > span + 2 * extra) { a = full[0] - extra; b = full[1] + extra; }
    if (a < full[0] - extra) { b += full[0] - extra - a; a = full[0] - extra; }
    if (b > full[1] + extra) { a -= b - full[1] - extra; b = full[1] + extra; }
    state.window = [a, b];
    reflect();
    scheduleDraw();
    if (tell) notify("window");
  }

  function setFilter(filter, tell = true) {
    state.filter = { op: filter.op ?? null, where: filter.where ?? null };
    state.steps = null;
    state.search = null;
    reflect();
    markGraph();
    scheduleDraw();
    if (tell) notify("filter");
  }

  function setSkipNotReady(on, tell = true) {
    state.skipNotReady = Boolean(on);
    parts.skipBox.checked = state.skipNotReady;
    root.dataset.rlvizSkipNotReady = String(state.skipNotReady);
    state.steps = null;
    if (tell) notify("skip");
  }

  function doStep(direction) {
    const started = performance.now();
    const next = step(model, steps(), state.selected, direction);
    if (next >= 0) select(next);
    measure("rlviz:step", started);
    return next;
  }

  function togglePlay() {
    if (state.playing) {
      clearInterval(state.playing);
      state.playing = null;
      parts.play.textContent = "▶ Play";
      return;
    }
    parts.play.textContent = "❚❚ Pause";
    state.playing = setInterval(() => { if (doStep(1) < 0) togglePlay(); }, PLAY_MS);
  }

  function runSearch(direction) {
    const query = parts.search.value;
    if (!state.search || state.search.query !== query) {
      state.search = { query, hits: searchEvents(model, query, state.filter) };
    }
    const hits = state.search.hits;
    if (!query.trim()) { parts.status.textContent = ""; return; }
    if (hits.length === 0) { parts.status.textContent = `no call matches "${query}"`; return; }
    const found = searchStep(hits, state.selected, direction);     // ranked order, exact op names first (issue 21)
    const target = found >= 0 ? found : hits[direction > 0 ? 0 : hits.length - 1];
    select(target);
    const k = hits.indexOf(target);
    parts.status.textContent = `match ${(k + 1).toLocaleString("en-US")} of ${hits.length.toLocaleString("en-US")}`;
  }

  // ---------------------------------------------------------------- timeline
  function scheduleDraw() {
    if (frameRequested) return;
    frameRequested = true;
    requestAnimationFrame(() => { frameRequested = false; drawNow(); });
  }

  function drawNow() {
    const started = performance.now();
    if (!state.width) state.width = parts.timeline.clientWidth || 960;
    drawRuler();
    if (model.n > 0) drawLanes();
    measure("rlviz:draw", started);
    if (!firstFrame) {
      firstFrame = true;
      performance.mark("rlviz:first-frame");
      root.dataset.rlvizReady = "1";
    }
  }

  function sized(canvas, width, height) {
    const ratio = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    return ctx;
  }

  function drawRuler() {
    const ctx = sized(parts.ruler, state.width, RULER_H);
    if (model.n === 0) return;
    const [a, b] = state.window;
    const spanMs = toMs(b - a);
    const tick = tickStep(spanMs, plotWidth() / 90);
    ctx.fillStyle = "#444";
    ctx.font = "10px system-ui, sans-serif";
    ctx.textBaseline = "top";
    ctx.fillText("ms since trace start", 4, 6);
    ctx.strokeStyle = "#999";
    ctx.beginPath();
    for (let ms = Math.ceil(toMs(a) / tick) * tick; ms <= toMs(b); ms += tick) {
      const x = xOf(ms / model.unitMs);
      if (x < GUTTER) continue;
      ctx.moveTo(x + 0.5, RULER_H - 8);
      ctx.lineTo(x + 0.5, RULER_H);
      const digits = Math.max(0, -Math.floor(Math.log10(tick) + 1e-9));
      ctx.fillText(ms.toFixed(Math.min(digits, 6)), x + 2, 3);
    }
    ctx.stroke();
  }

  function drawLanes() {
    const width = state.width, height = rowY[model.rows.length];
    const ctx = sized(parts.canvas, width, height);
    const [a, b] = state.window;
    const plotW = Math.floor(plotWidth());
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    model.rows.forEach((row, r) => {
      const lane = meta.lanes[row.lane], y = rowY[r];
      if (row.first) {
        const laneEnd = rowY[r + lane.nodes.length - 1] + ROW_H;
        ctx.fillStyle = r % 2 ? "#fafafa" : "#f6f8fa";
        ctx.fillRect(0, y - 2, width, laneEnd - y + 4);
        ctx.fillStyle = lane.color;
        ctx.fillRect(0, y - 2, 4, laneEnd - y + 4);
        const room = GUTTER - 22 - ctx.measureText(row.name).width;
        ctx.font = "bold 11px system-ui, sans-serif";
        ctx.fillText(fitText(ctx, lane.name, room), 8, y + ROW_H / 2);
        ctx.font = "11px system-ui, sans-serif";
      }
      ctx.fillStyle = "#333";
      ctx.textAlign = "right";
      ctx.fillText(row.name, GUTTER - 6, y + ROW_H / 2);
      ctx.textAlign = "left";
    });
    const key = [state.window[0], state.window[1], plotW, height, state.filter.op, state.filter.where].join("|");
    if (raster.key !== key) {                   // a step or a hover keeps the spans: only overlays change
      rasterize(plotW, height);
      raster.key = key;
    }
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(raster.canvas, 0, 0, plotW, height, GUTTER, 0, plotW, height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, plotW, height);
    ctx.clip();
    model.rows.forEach((row, r) => {
      ctx.globalAlpha = nodeMatches(model, row.node, state.filter) ? 1 : 0.12;
      drawErrors(ctx, r);
    });
    ctx.globalAlpha = 1;
    drawRestarts(ctx, height);
    if (state.selected >= 0) drawSelection(ctx);
    if (state.hover >= 0 && state.hover !== state.selected) outline(ctx, state.hover, "#000", 1);
    ctx.restore();
  }

  /**
   * Draw every row's spans into one RGBA pixel buffer at CSS-pixel resolution: exact spans
   * when a row has few events in the window, per-pixel aggregates otherwise. A row is built as
   * two scanlines (upper band: items and stops; lower band: not-ready polls) copied to its
   * pixel rows, so a frame costs O(rows x width) plus the exact spans drawn.
   */
  function rasterize(plotW, height) {
    if (!raster.image || raster.image.width !== plotW || raster.image.height !== height) {
      raster.canvas.width = plotW;
      raster.canvas.height = height;
      raster.image = raster.ctx.createImageData(plotW, height);
      raster.pixels = new Uint32Array(raster.image.data.buffer);
      raster.upper = new Uint32Array(plotW);
      raster.lower = new Uint32Array(plotW);
    }
    const { pixels, upper, lower } = raster;
    pixels.fill(0);
    const [a, b] = state.window, scale = plotW / (b - a);
    model.rows.forEach((row, r) => {
      const dim = nodeMatches(model, row.node, state.filter) ? 1 : 0.12;
      const color = rgbOf(model.nodes[row.node].color);
      upper.fill(0);
      lower.fill(0);
      if (drawsExact(model, r, a, b, plotW)) {
        const [k0, k1] = visibleRange(model, r, a, b);
        const item = pack(color, dim), poll = pack(GREY, dim), stop = pack(DARK, dim);
        for (let k = k0; k < k1; k++) {
          const i = model.rowEvents[k], outcome = model.flags[i] & 3;
          const s = (model.start[i] - a) * scale;
          const x0 = Math.max(0, Math.floor(s));
          const x1 = Math.min(plotW, Math.max(x0 + 1, Math.ceil(s + model.duration[i] * scale)));
          if (x1 <= 0 || x0 >= plotW) continue;
          if (outcome === NOT_READY) lower.fill(poll, x0, x1);
          else upper.fill(outcome === STOP ? stop : item, x0, x1);
        }
      } else {
        const { fraction, polls } = aggregateRow(model, r, a, b, plotW);
        for (let x = 0; x < plotW; x++) {
          if (fraction[x] > 0) upper[x] = pack(color, dim * (0.3 + 0.7 * fraction[x]));
          if (polls[x] > 0) lower[x] = pack(GREY, dim * pollAlpha(polls[x]));   // visible at every zoom (issue 21)
        }
      }
      for (let x = 0; x < plotW; x++) if (lower[x] === 0) lower[x] = upper[x];
      const top = Math.round(rowY[r]) + 1, split = Math.round(rowY[r] + ROW_H * 0.55);
      const bottom = Math.round(rowY[r]) + ROW_H - 1;
      for (let y = top; y < bottom; y++) pixels.set(y < split ? upper : lower, y * plotW);
    });
    raster.ctx.putImageData(raster.image, 0, 0);
  }

  function spanBox(i) {
    const r = model.nodeRow[model.node[i]], s = model.start[i];
    const x0 = xOf(s), x1 = Math.max(xOf(s + model.duration[i]), x0 + 1);
    const y = rowY[r], outcome = model.flags[i] & 3;
    if (outcome === NOT_READY) return [x0, y + ROW_H * 0.55, x1 - x0, ROW_H * 0.45 - 1];
    return [x0, y + 1, x1 - x0, ROW_H - 2];
  }

  function drawErrors(ctx, r) {
    ctx.fillStyle = ERROR_COLOR;
    for (const i of errorsInWindow(model, r, state.window[0], state.window[1])) {
      const [x, y, w, h] = spanBox(i);
      ctx.fillRect(x - 0.5, y - 1, Math.max(w, 2), h + 2);
    }
  }

  function drawRestarts(ctx, height) {
    const restarts = [];
    const restartRows = model.rows.map((row, r) => (model.nodes[row.node].restart ? r : -1)).filter((r) => r >= 0);
    for (const r of restartRows) {
      if (!drawsExact(model, r, state.window[0], state.window[1], plotWidth())) continue;
      const [k0, k1] = visibleRange(model, r, state.window[0], state.window[1]);
      for (let k = k0; k < k1; k++) restarts.push(model.rowEvents[k]);
    }
    ctx.strokeStyle = RESTART_COLOR;
    ctx.setLineDash([5, 3]);
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    for (const i of new Set(restarts)) {
      const x = xOf(model.start[i]);
      ctx.moveTo(x, 0);
      ctx.lineTo(x, height);
    }
    ctx.stroke();
    ctx.setLineDash([]);
  }

  function outline(ctx, i, color, width) {
    const [x, y, w, h] = spanBox(i);
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.strokeRect(x - 1, y - 1, Math.max(w, 1) + 2, h + 2);
  }

  function arrow(ctx, fromX, fromY, toX, toY, color) {
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 1.4;
    ctx.beginPath();
    ctx.moveTo(fromX, fromY);
    ctx.bezierCurveTo((fromX + toX) / 2, fromY, (fromX + toX) / 2, toY, toX, toY);
    ctx.stroke();
    const angle = Math.atan2(0, toX - (fromX + toX) / 2) || 0;
    ctx.beginPath();
    ctx.moveTo(toX, toY);
    ctx.lineTo(toX - 6 * Math.cos(angle - 0.45), toY - 6 * Math.sin(angle - 0.45));
    ctx.lineTo(toX - 6 * Math.cos(angle + 0.45), toY - 6 * Math.sin(angle + 0.45));
    ctx.fill();
  }

  function drawSelection(ctx) {
    const i = state.selected;
    const [x, y, w, h] = spanBox(i);
    const cy = (k) => { const box = spanBox(k); return box[1] + box[3] / 2; };
    for (let k = model.inOffsets[i]; k < Math.min(model.inOffsets[i + 1], model.inOffsets[i] + MAX_ARROWS); k++) {
      const p = model.inputs[k];
      outline(ctx, p, PRODUCER_COLOR, 2);
      arrow(ctx, xOf(model.start[p] + model.duration[p]), cy(p), x, y + h / 2, PRODUCER_COLOR);
    }
    for (let k = model.outOffsets[i]; k < Math.min(model.outOffsets[i + 1], model.outOffsets[i] + MAX_ARROWS); k++) {
      const c = model.outputs[k];
      outline(ctx, c, CONSUMER_COLOR, 2);
      arrow(ctx, x + w, y + h / 2, xOf(model.start[c]), cy(c), CONSUMER_COLOR);
    }
    outline(ctx, i, "#000", 2);
  }

  function rowAt(y) {
    for (let r = 0; r < model.rows.length; r++) if (y >= rowY[r] && y < rowY[r] + ROW_H) return r;
    return -1;
  }

  function eventAt(clientX, clientY) {
    const box = parts.canvas.getBoundingClientRect();
    const x = clientX - box.left, y = clientY - box.top;
    if (x < GUTTER) return -1;
    const t = tOf(x), tolerance = (3 / plotWidth()) * (state.window[1] - state.window[0]);
    return hitTest(model, rowAt(y), t, tolerance);
  }

  // ---------------------------------------------------------------- text
  function describe(i) {
    const node = model.nodes[model.node[i]];
    const outcome = OUTCOMES[model.flags[i] & 3];
    const item = itemText(model, i);
    return { node, outcome, item, startMs: toMs(model.start[i]), durationMs: toMs(model.duration[i]) };
  }

  function showTooltip(i, clientX, clientY) {
    const tip = parts.tooltip;
    if (i < 0) { tip.style.display = "none"; return; }
    const d = describe(i);
    tip.textContent = [
      `${d.node.op} @ ${d.node.where}`,
      d.node.label.length > 90 ? `${d.node.label.slice(0, 89)}…` : d.node.label,
      `${d.outcome}${d.item != null ? `: ${d.item}` : ""}`,
      `start ${formatMs(d.startMs)} ms · ${formatMs(d.durationMs)} ms long · #${i}`,
    ].join("\n");
    const box = root.getBoundingClientRect();
    const x = clientX - box.left + 14, flip = x > box.width - 330;
    tip.style.display = "block";
    tip.style.left = flip ? "" : `${x}px`;
    tip.style.right = flip ? `${box.width - x + 28}px` : "";
    tip.style.top = `${clientY - box.top + 16}px`;
  }

  function eventButton(i) {
    const d = describe(i);
    const button = make("button", null, "link",
      `#${i} ${d.node.op} @ ${d.node.where}${d.item != null ? ` · ${d.item}` : ""} · ${formatMs(d.startMs)} ms`);
    button.dataset.event = String(i);
    button.addEventListener("click", () => select(i));
    return button;
  }

  let whyRows = null;       // event -> decision row, built on first use (issue 21)
  function drawInspector() {
    const pane = parts.inspector;
    pane.replaceChildren(make("h4", null, null, "Inspector"));
    const i = state.selected;
    if (i < 0) {
      pane.appendChild(make("p", null, null, model.n
        ? "Click a span, or press → (or Play) to step through the calls in the order they completed."
        : "Nothing to inspect: the trace is empty."));
      return;
    }
    const d = describe(i);
    const list = make("dl");
    const rank = completionOrder(model) && model.rank[i];
    const fields = [["op", d.node.op], ["label", d.node.label], ["lane", d.node.where], ["outcome", d.outcome],
      ["item", d.item ?? "(none)"], ["start", `${formatMs(d.startMs)} ms`], ["duration", `${formatMs(d.durationMs)} ms`],
      ["event", `#${i} · completed ${(rank + 1).toLocaleString("en-US")} of ${model.n.toLocaleString("en-US")}`]];
    // why: the union's scheduling decision behind this call (issue 21)
    whyRows = whyRows || decisionIndex(meta.decisions);
    const why = whyOf(meta.decisions, whyRows, i);
    if (why) fields.push(["why", why]);
    for (const [key, value] of fields) {
      list.append(make("dt", null, null, key), make("dd", null, key, value));
    }
    pane.appendChild(list);
    for (const [title, offsets, values, part] of [["its inputs came from", model.inOffsets, model.inputs, "producers"],
      ["its output went to", model.outOffsets, model.outputs, "consumers"]]) {
      const box = make("div", null, part);
      const count = offsets[i + 1] - offsets[i];
      box.appendChild(make("h4", null, null, `${title} (${count})`));
      for (let k = offsets[i]; k < Math.min(offsets[i + 1], offsets[i] + MAX_LINKS_LISTED); k++) box.appendChild(eventButton(values[k]));
      if (count > MAX_LINKS_LISTED) box.appendChild(make("span", null, null, `… and ${count - MAX_LINKS_LISTED} more`));
      pane.appendChild(box);
    }
  }

  // ---------------------------------------------------------------- graph
  function drawGraph() {
    const pane = parts.graph;
    pane.replaceChildren(make("h4", null, null, "Dataflow graph (click a node to filter the timeline)"));
    if (!meta.nodes.length) { pane.appendChild(make("p", null, null, "No dataflow nodes.")); return; }
    const colW = 180, rowH = 60, boxW = 156, boxH = 42, pad = 8;
    const place = meta.nodes.map((n) => [pad + n.column * colW, pad + n.row * rowH]);
    const width = Math.max(...place.map((p) => p[0])) + boxW + pad;
    const height = Math.max(...place.map((p) => p[1])) + boxH + pad;
    const root_ = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
    // shrink a wide graph to the pane, but not so far that its text gets unreadable (the pane scrolls)
    const pane_ = (parts.timeline.clientWidth || 960) * 5 / 12 - 16;
    root_.style.width = `${width * Math.min(1, Math.max(0.6, pane_ / width))}px`;
    const defs = svg("defs");
    const marker = svg("marker", { id: "rlviz-head", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#888" }));
    defs.appendChild(marker);
    root_.appendChild(defs);
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
      root_.appendChild(path);
    }
    meta.nodes.forEach((n, k) => {
      const g = svg("g", { class: "rlviz-node", transform: `translate(${place[k][0]},${place[k][1]})` });
      g.dataset.node = String(k);
      g.dataset.op = n.op;
      const rect = svg("rect", { width: boxW, height: boxH, rx: 5, fill: "#fff", stroke: lanes[n.where] || "#5b6770", "stroke-width": 1.6 });
      const title = svg("title");
      title.textContent = `${n.label}\n@ ${n.where}`;
      const name = svg("text", { x: boxW / 2, y: 14, "text-anchor": "middle", "font-size": 11, "font-weight": 600 });
      name.textContent = n.short;
      const stats = svg("text", { x: boxW / 2, y: 27, "text-anchor": "middle", "font-size": 9, fill: "#444" });
      stats.textContent = `${compact(n.calls)} calls · ${compact(n.items)} items`;
      const more = svg("text", { x: boxW / 2, y: 38, "text-anchor": "middle", "font-size": 9, fill: "#444" });
      more.textContent = [`${formatBusy(n.busy_ms)} ms busy`, n.not_ready ? `${compact(n.not_ready)} not ready` : "",
        n.errors ? `${compact(n.errors)} errors` : ""].filter(Boolean).join(" · ");
      g.append(title, rect, name, stats, more);
      g.addEventListener("click", () => {
        const same = state.filter.op === n.op && state.filter.where === n.where;
        setFilter(same ? {} : { op: n.op, where: n.where });
      });
      root_.appendChild(g);
    });
    pane.appendChild(root_);
    parts.graphSvg = root_;
    markGraph();
  }

  function markGraph() {
    if (!parts.graphSvg) return;
    const i = state.selected;
    const related = new Map();
    if (i >= 0) {
      for (let k = model.inOffsets[i]; k < model.inOffsets[i + 1]; k++) related.set(model.node[model.inputs[k]], PRODUCER_COLOR);
      for (let k = model.outOffsets[i]; k < model.outOffsets[i + 1]; k++) related.set(model.node[model.outputs[k]], CONSUMER_COLOR);
      related.set(model.node[i], "#000");
    }
    const filtered = state.filter.op != null || state.filter.where != null;
    for (const g of parts.graphSvg.querySelectorAll("g.rlviz-node")) {
      const k = Number(g.dataset.node);
      const rect = g.querySelector("rect");
      const color = related.get(k);
      rect.setAttribute("stroke-width", color ? 3.2 : 1.6);
      rect.setAttribute("fill", color === "#000" ? "#fff6d5" : "#fff");
      if (color && color !== "#000") rect.setAttribute("stroke", color);
      else rect.setAttribute("stroke", (meta.lanes.find((l) => l.name === model.nodes[k].where) || {}).color || "#5b6770");
      if (color === "#000") rect.setAttribute("stroke", "#000");
      g.setAttribute("opacity", !filtered || nodeMatches(model, k, state.filter) ? 1 : 0.35);
      if (color === "#000") { g.dataset.selected = "1"; revealInPane(parts.graph, g); } else delete g.dataset.selected;
    }
  }

  // Scroll the pane (never the page) just enough that the element is inside it.
  function revealInPane(pane, element) {
    const box = element.getBoundingClientRect(), view = pane.getBoundingClientRect();
    if (box.left < view.left) pane.scrollLeft -= view.left - box.left + 8;
    else if (box.right > view.right) pane.scrollLeft += box.right - view.right + 8;
    if (box.top < view.top) pane.scrollTop -= view.top - box.top + 8;
    else if (box.bottom > view.bottom) pane.scrollTop += box.bottom - view.bottom + 8;
  }

  // ---------------------------------------------------------------- order strip
  function drawOrder() {
    const pane = parts.order;
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
      if (k >= 0 && k < shown.length) select(shown[k]);
    });
  }

  // ---------------------------------------------------------------- events
  function bindEvents() {
    const canvas = parts.canvas;
    let drag = null, orderTimer = null;
    const redrawOrderSoon = () => { clearTimeout(orderTimer); orderTimer = setTimeout(drawOrder, 120); };
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const box = canvas.getBoundingClientRect();
      const t = tOf(Math.max(GUTTER, e.clientX - box.left));
      const factor = Math.exp((e.deltaY || 0) * 0.002);
      const [a, b] = state.window;
      setWindowUnits([t - (t - a) * factor, t + (b - t) * factor]);
      redrawOrderSoon();
    }, { passive: false });
    canvas.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, window: state.window.slice(), moved: false };
      canvas.setPointerCapture?.(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (drag) {
        const dx = e.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved) {
          const shift = (dx / plotWidth()) * (drag.window[1] - drag.window[0]);
          setWindowUnits([drag.window[0] - shift, drag.window[1] - shift]);
          redrawOrderSoon();
        }
        return;
      }
      const started = performance.now();
      const i = eventAt(e.clientX, e.clientY);
      measure("rlviz:hit", started);
      if (i !== state.hover) { state.hover = i; scheduleDraw(); }
      showTooltip(i, e.clientX, e.clientY);
    });
    canvas.addEventListener("pointerup", (e) => {
      if (drag && !drag.moved) {
        const i = eventAt(e.clientX, e.clientY);
        select(i, { center: false });
      }
      drag = null;
    });
    canvas.addEventListener("pointerleave", () => {
      state.hover = -1;
      parts.tooltip.style.display = "none";
      scheduleDraw();
    });
    root.addEventListener("keydown", (e) => {
      if (e.target === parts.search) return;
      // handled keys stay in the view: JupyterLab would otherwise move between cells too
      if (e.key === "ArrowRight") { e.preventDefault(); e.stopPropagation(); doStep(1); }
      else if (e.key === "ArrowLeft") { e.preventDefault(); e.stopPropagation(); doStep(-1); }
      else if (e.key === "Escape") { e.stopPropagation(); select(-1); }
    });
    // a click anywhere but in the search box gives the view the keyboard, so ← / → work next
    root.addEventListener("pointerdown", (e) => {
      if (e.target !== parts.search && document.activeElement !== root) root.focus({ preventScroll: true });
    });
    parts.skipBox.addEventListener("change", () => setSkipNotReady(parts.skipBox.checked));
    parts.prev.addEventListener("click", () => doStep(-1));
    parts.next.addEventListener("click", () => doStep(1));
    parts.play.addEventListener("click", togglePlay);
    parts.reset.addEventListener("click", () => { setWindowUnits(full.slice()); drawOrder(); });
    parts.zoomSel.addEventListener("click", () => { zoomToSelection(); drawOrder(); });
    parts.chip.addEventListener("click", () => setFilter({}));
    parts.search.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); runSearch(e.shiftKey ? -1 : 1); }
    });
  }

  function zoomToSelection() {
    const i = state.selected;
    if (i < 0) return;
    let a = model.start[i], b = a + model.duration[i];
    for (let k = model.inOffsets[i]; k < model.inOffsets[i + 1]; k++) a = Math.min(a, model.start[model.inputs[k]]);
    for (let k = model.outOffsets[i]; k < model.outOffsets[i + 1]; k++) {
      const c = model.outputs[k];
      b = Math.max(b, model.start[c] + model.duration[c]);
    }
    const pad = Math.max((b - a) * 0.15, 50 / Math.max(model.meta.unit_ns, 1));
    setWindowUnits([a - pad, b + pad]);
  }

  // ---------------------------------------------------------------- API
  return {
    state,
    model,
    root,
    /** Select trace index `i` (-1 for none) without telling the host. */
    setSelected(i) { select(Number(i), { from: "host" }); },
    /** Show [a, b] ms since the trace start without telling the host. */
    setWindow([a, b]) { setWindowUnits([a / model.unitMs, b / model.unitMs], false); drawOrder(); },
    /** Filter to op / lane (null for any) without telling the host. */
    setFilter(filter) { setFilter(filter, false); },
    /** Step over not-ready calls (or not) without telling the host. */
    setSkipNotReady(on) { setSkipNotReady(on, false); },
    /** Show an error message in the view (empty to hide it). */
    showError(message) {
      parts.banner.textContent = message || "";
      parts.banner.style.display = message ? "" : "none";
    },
    destroy() {
      if (state.playing) clearInterval(state.playing);
      clearTimeout(ordering);
      clearTimeout(windowTimer);
      if (resize) resize.disconnect();
      el.replaceChildren();
    },
  };
}

/** Decode base64 text into bytes (the standalone file embeds the columns this way). */
export function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  return bytes;
}

/** Split one blob into the payload's chunk buffers, in meta.columns order. */
export function splitChunks(meta, bytes) {
  const buffers = [];
  let at = 0;
  for (const spec of meta.columns) {
    for (const size of spec.chunks) { buffers.push(bytes.subarray(at, at + size)); at += size; }
  }
  return buffers;
}

/** anywidget entry point: the Python side sends the payload when the view says it is ready. */
function render({ model, el }) {
  let view = null;
  const token = Math.random().toString(36).slice(2);   // custom messages reach every view: name ours
  const showFailure = (error) => {
    const box = make("div", "rlviz-banner", "error", `The Explorer failed: ${error && error.message ? error.message : error}`);
    if (view) view.showError(box.textContent); else el.replaceChildren(box);
  };
  const onMessage = (message, buffers) => {
    try {
      if (message.type === "payload") {
        if (message.view !== token) return;       // the answer to another view of the same widget
        if (view) view.destroy();
        view = mountExplorer(el, message.meta, buffers, {
          onChange(state) {
            model.set("selected", state.selected);
            model.set("window", state.window);
            model.set("op", state.op);
            model.set("where", state.where);
            model.set("skip_not_ready", state.skipNotReady);
            model.save_changes();
          },
        });
        const w = model.get("window");
        if (w && w.length === 2 && w[1] > w[0]) {
          view.setWindow(w);
        } else if (message.meta.count > 0) {        // tell Python the range shown at first
          model.set("window", [0, message.meta.span_ms]);
          model.save_changes();
        }
        view.setFilter({ op: model.get("op"), where: model.get("where") });
        view.setSkipNotReady(model.get("skip_not_ready"));
        if (model.get("selected") >= 0) view.setSelected(model.get("selected"));
      } else if (message.type === "error") {
        if (view) view.showError(message.message); else showFailure(message.message);
      }
    } catch (error) {
      showFailure(error);
    }
  };
  model.on("msg:custom", onMessage);
  const follow = {
    "change:selected": () => view && view.state.selected !== model.get("selected") && view.setSelected(model.get("selected")),
    "change:window": () => {
      const w = model.get("window");
      if (view && w && w.length === 2 && w[1] > w[0]) view.setWindow(w);
    },
    "change:op": () => view && view.setFilter({ op: model.get("op"), where: model.get("where") }),
    "change:where": () => view && view.setFilter({ op: model.get("op"), where: model.get("where") }),
    "change:skip_not_ready": () => view && view.setSkipNotReady(model.get("skip_not_ready")),
  };
  for (const [event, handler] of Object.entries(follow)) model.on(event, handler);
  model.send({ type: "ready", view: token });
  return () => {
    model.off("msg:custom", onMessage);
    for (const [event, handler] of Object.entries(follow)) model.off(event, handler);
    if (view) view.destroy();
  };
}

export default { render };
