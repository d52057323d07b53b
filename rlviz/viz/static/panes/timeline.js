// The timeline pane: the ruler, one row per node grouped by lane, spans drawn from the store's
// window, with overlays for errors, restarts, the selection (arrows to producers and consumers)
// and the hover; wheel zooms, drag pans, hover shows a tooltip, click selects.
import {
  NOT_READY, STOP, aggregateRow, drawsExact, errorsInWindow, hitTest, isDroppedInput, matchMarks, nodeMatches, pollAlpha,
  rowLayout, tickStep, visibleRange,
} from "../explorer_core.js";
import {
  CONSUMER_COLOR, DARK, DROPPED_LINK_COLOR, ERROR_COLOR, GREY, GUTTER, LANE_GAP, MATCH_COLOR, MAX_ARROWS, PRODUCER_COLOR,
  RESTART_COLOR, ROW_H, RULER_H, fitText, formatMs, make, measure, pack, rgbOf, sized,
} from "../explorer_dom.js";
import { createGaugeTracks } from "./gauges.js";

const DRAWN_BY = ["window", "hover", "filter", "width", "data", "matches"];

/**
 * Mount the timeline into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context (model, meta, store, actions, describe)
 * @returns {{update: function(Set<string>): void, destroy: function(): void, element: HTMLElement}}
 */
export function createTimeline(host, view) {
  const { store } = view;
  const element = make("div", "rlviz-timeline", "timeline");
  const ruler = make("canvas", null, "ruler");
  const scroll = make("div", "rlviz-scroll");
  const canvas = make("canvas", null, "lanes");
  const tooltip = make("div", "rlviz-tooltip", "tooltip");
  scroll.appendChild(canvas);
  element.append(ruler, scroll);
  host.append(element);
  const gauges = createGaugeTracks(element, view);     // gauge tracks under the lanes (panes/gauges.js)
  view.root.appendChild(tooltip);
  const raster = { canvas: document.createElement("canvas") };
  raster.ctx = raster.canvas.getContext("2d");
  let layout = layoutRows(), rowY = layout.y, frame = 0, firstFrame = false, drag = null;
  showEmpty();

  const plotWidth = () => Math.max(50, store.get().width - GUTTER - 8);
  const xOf = (t) => { const [a, b] = store.get().window; return GUTTER + ((t - a) / (b - a)) * plotWidth(); };
  const tOf = (x) => { const [a, b] = store.get().window; return a + ((x - GUTTER) / plotWidth()) * (b - a); };

  const listeners = [
    [canvas, "wheel", (e) => {
      e.preventDefault();
      const box = canvas.getBoundingClientRect();
      const t = tOf(Math.max(GUTTER, e.clientX - box.left));
      const factor = Math.exp((e.deltaY || 0) * 0.002);
      const [a, b] = store.get().window;
      view.actions.setWindow([t - (t - a) * factor, t + (b - t) * factor], { from: "user", gesture: true });
    }, { passive: false }],
    [canvas, "pointerdown", (e) => {
      drag = { x: e.clientX, window: store.get().window.slice(), moved: false };
      canvas.setPointerCapture?.(e.pointerId);
    }],
    [canvas, "pointermove", (e) => {
      if (drag) {
        const dx = e.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved) {
          const shift = (dx / plotWidth()) * (drag.window[1] - drag.window[0]);
          view.actions.setWindow([drag.window[0] - shift, drag.window[1] - shift], { from: "user", gesture: true });
        }
        return;
      }
      const started = performance.now();
      const i = eventAt(e.clientX, e.clientY);
      measure("rlviz:hit", started);
      store.set({ hover: i }, { from: "pointer" });
      showTooltip(i, e.clientX, e.clientY);
    }],
    [canvas, "pointerup", (e) => {
      if (drag && !drag.moved) view.actions.select(eventAt(e.clientX, e.clientY), { center: false });
      drag = null;
    }],
    [canvas, "pointerleave", () => {
      tooltip.style.display = "none";
      store.set({ hover: -1 }, { from: "pointer" });
    }],
  ];
  for (const [target, name, handler, options] of listeners) target.addEventListener(name, handler, options);
  drawNow();

  function showEmpty() {
    if (view.model.n > 0) {
      if (scroll.firstChild !== canvas) scroll.replaceChildren(canvas);
      return;
    }
    scroll.replaceChildren(make("div", "rlviz-empty", null,
      "Empty trace: nothing was recorded. Run the code to watch inside `with rlviz.record() as trace:` "
      + "(calls made outside the block are not recorded), then show the trace again."));
  }

  function layoutRows() {
    const state = store.get();
    return rowLayout(view.model, state.filter, state.hideOthers, { rowHeight: ROW_H, laneGap: LANE_GAP });
  }

  function relayout() {
    layout = layoutRows();
    rowY = layout.y;
  }

  function scheduleDraw() {
    if (frame) return;
    frame = requestAnimationFrame(() => { frame = 0; drawNow(); });
  }

  function drawNow() {
    const started = performance.now();
    if (!store.get().width) store.set({ width: element.clientWidth || 960 }, { from: "layout" });
    drawRuler();
    if (view.model.n > 0) drawLanes();
    gauges.draw();
    measure("rlviz:draw", started);
    if (!firstFrame) {
      firstFrame = true;
      performance.mark("rlviz:first-frame");
      view.root.dataset.rlvizReady = "1";
    }
  }

  function drawRuler() {
    const { model } = view, state = store.get();
    const ctx = sized(ruler, state.width, RULER_H);
    if (model.n === 0) return;
    const [a, b] = state.window;
    const toMs = (t) => t * model.unitMs;
    const tick = tickStep(toMs(b - a), plotWidth() / 90);
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
    const { model, meta } = view, state = store.get();
    const width = state.width, height = rowY[model.rows.length];
    const ctx = sized(canvas, width, height);
    const plotW = Math.floor(plotWidth());
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    model.rows.forEach((row, r) => {
      if (!layout.shown[r]) return;
      const lane = meta.lanes[row.lane], y = rowY[r];
      if (layout.first[r]) {
        let end = r;
        while (!layout.last[end]) end++;
        const laneEnd = rowY[end] + ROW_H;
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
    const key = [state.window[0], state.window[1], plotW, height, state.filter.op, state.filter.where, state.hideOthers,
      state.data].join("|");
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
      if (!layout.shown[r]) return;
      ctx.globalAlpha = nodeMatches(model, row.node, state.filter) ? 1 : 0.12;
      drawErrors(ctx, r);
    });
    ctx.globalAlpha = 1;
    if (state.matches) drawMatches(ctx, state.matches, plotW);
    drawRestarts(ctx, height);
    if (state.selected >= 0 && shownEvent(state.selected)) drawSelection(ctx, state.selected);
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
    const { model } = view, state = store.get();
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
      if (!layout.shown[r]) return;
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
          if (polls[x] > 0) lower[x] = pack(GREY, dim * pollAlpha(polls[x]));   // visible at every zoom
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
    const { model } = view;
    const r = model.nodeRow[model.node[i]], s = model.start[i];
    const x0 = xOf(s), x1 = Math.max(xOf(s + model.duration[i]), x0 + 1);
    const y = rowY[r], outcome = model.flags[i] & 3;
    if (outcome === NOT_READY) return [x0, y + ROW_H * 0.55, x1 - x0, ROW_H * 0.45 - 1];
    return [x0, y + 1, x1 - x0, ROW_H - 2];
  }

  const shownEvent = (i) => layout.shown[view.model.nodeRow[view.model.node[i]]] === 1;

  /** Every search hit in the window, outlined (merged per pixel), whatever the zoom. */
  function drawMatches(ctx, hits, plotW) {
    const [a, b] = store.get().window;
    const { marks } = matchMarks(view.model, hits, a, b, plotW);
    ctx.strokeStyle = MATCH_COLOR;
    ctx.lineWidth = 2;
    for (const [r, ranges] of marks) {
      if (!layout.shown[r]) continue;
      for (let k = 0; k < ranges.length; k += 2) {
        ctx.strokeRect(GUTTER + ranges[k] - 1, rowY[r], ranges[k + 1] - ranges[k] + 2, ROW_H);
      }
    }
  }

  function drawErrors(ctx, r) {
    const [a, b] = store.get().window;
    ctx.fillStyle = ERROR_COLOR;
    for (const i of errorsInWindow(view.model, r, a, b)) {
      const [x, y, w, h] = spanBox(i);
      ctx.fillRect(x - 0.5, y - 1, Math.max(w, 2), h + 2);
    }
  }

  function drawRestarts(ctx, height) {
    const { model } = view, [a, b] = store.get().window;
    const restarts = [];
    const restartRows = model.rows.map((row, r) => (model.nodes[row.node].restart ? r : -1)).filter((r) => r >= 0);
    for (const r of restartRows) {
      if (!drawsExact(model, r, a, b, plotWidth())) continue;
      const [k0, k1] = visibleRange(model, r, a, b);
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

  function arrow(ctx, fromX, fromY, toX, toY, color, dashed = false) {
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 1.4;
    ctx.beginPath();
    if (dashed) ctx.setLineDash([4, 3]);
    ctx.moveTo(fromX, fromY);
    ctx.bezierCurveTo((fromX + toX) / 2, fromY, (fromX + toX) / 2, toY, toX, toY);
    ctx.stroke();
    ctx.setLineDash([]);
    const angle = Math.atan2(0, toX - (fromX + toX) / 2) || 0;
    ctx.beginPath();
    ctx.moveTo(toX, toY);
    ctx.lineTo(toX - 6 * Math.cos(angle - 0.45), toY - 6 * Math.sin(angle - 0.45));
    ctx.lineTo(toX - 6 * Math.cos(angle + 0.45), toY - 6 * Math.sin(angle + 0.45));
    ctx.fill();
  }

  function drawSelection(ctx, i) {
    const { model } = view;
    const [x, y, w, h] = spanBox(i);
    const cy = (k) => { const box = spanBox(k); return box[1] + box[3] / 2; };
    for (let k = model.inOffsets[i]; k < Math.min(model.inOffsets[i + 1], model.inOffsets[i] + MAX_ARROWS); k++) {
      const p = model.inputs[k];
      if (!shownEvent(p)) continue;
      const color = isDroppedInput(model, i, p) ? DROPPED_LINK_COLOR : PRODUCER_COLOR;   // dropped: grey, dashed
      outline(ctx, p, color, 2);
      arrow(ctx, xOf(model.start[p] + model.duration[p]), cy(p), x, y + h / 2, color, color === DROPPED_LINK_COLOR);
    }
    for (let k = model.outOffsets[i]; k < Math.min(model.outOffsets[i + 1], model.outOffsets[i] + MAX_ARROWS); k++) {
      const c = model.outputs[k];
      if (!shownEvent(c)) continue;
      const color = isDroppedInput(model, c, i) ? DROPPED_LINK_COLOR : CONSUMER_COLOR;
      outline(ctx, c, color, 2);
      arrow(ctx, x + w, y + h / 2, xOf(model.start[c]), cy(c), color, color === DROPPED_LINK_COLOR);
    }
    outline(ctx, i, "#000", 2);
  }

  function rowAt(y) {
    for (let r = 0; r < view.model.rows.length; r++) if (layout.shown[r] && y >= rowY[r] && y < rowY[r] + ROW_H) return r;
    return -1;
  }

  function eventAt(clientX, clientY) {
    const box = canvas.getBoundingClientRect();
    const x = clientX - box.left, y = clientY - box.top;
    if (x < GUTTER) return -1;
    const [a, b] = store.get().window;
    return hitTest(view.model, rowAt(y), tOf(x), (3 / plotWidth()) * (b - a));
  }

  function showTooltip(i, clientX, clientY) {
    if (i < 0) { tooltip.style.display = "none"; return; }
    const d = view.describe(i);
    tooltip.textContent = [
      `${d.node.op} @ ${d.node.where}`,
      d.node.label.length > 90 ? `${d.node.label.slice(0, 89)}…` : d.node.label,
      `${d.outcome}${d.item != null ? `: ${d.item}` : ""}`,
      `start ${formatMs(d.startMs)} ms · ${formatMs(d.durationMs)} ms long · #${i}`,
    ].join("\n");
    const box = view.root.getBoundingClientRect();
    const x = clientX - box.left + 14, flip = x > box.width - 330;
    tooltip.style.display = "block";
    tooltip.style.left = flip ? "" : `${x}px`;
    tooltip.style.right = flip ? `${box.width - x + 28}px` : "";
    tooltip.style.top = `${clientY - box.top + 16}px`;
  }

  return {
    element,
    update(changed) {
      if (changed.has("rows")) { relayout(); showEmpty(); }
      const hiding = changed.has("hideOthers") || (changed.has("filter") && store.get().hideOthers);
      if (hiding) relayout();
      if (changed.has("selected") || changed.has("rows") || hiding) drawNow();     // a step draws at once
      else if (DRAWN_BY.some((key) => changed.has(key))) scheduleDraw();
    },
    destroy() {
      if (frame) cancelAnimationFrame(frame);
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      tooltip.remove();
      gauges.destroy();
      element.remove();
    },
  };
}
