// The timeline's first track: lanes of spans, one row per node grouped by lane. Its renderer is a
// set of functions of (model, layout, frame): the spans go into an RGBA pixel buffer (no canvas
// needed, so node tests read the pixels), the row labels and the overlays (errors, search hits,
// restarts, the selection with arrows to producers and consumers, the hover) onto a 2D context.
import {
  NOT_READY, STOP, aggregateRow, busyAlpha, drawsExact, errorsInWindow, hitTest, isDroppedInput, matchMarks, nodeMatches,
  pollAlpha, rowLayout, visibleRange,
} from "../explorer_core.js";
import {
  CONSUMER_COLOR, DARK, DROPPED_LINK_COLOR, ERROR_COLOR, GREY, GUTTER, LANE_GAP, MATCH_COLOR, MAX_ARROWS, PRODUCER_COLOR,
  RESTART_COLOR, ROW_H, counted, fitText, pack, rgbOf,
} from "../explorer_dom.js";
import { startText } from "../explorer_time.js";

const DIMMED = 0.12;                 // opacity of the rows a filter rejects
const POLL_BAND = 0.55;              // a row's not-ready polls fill its lower band, from this share of its height

/**
 * The span track of a timeline (the `rows` track, panes/timeline.js): `height`, `draw`, `hit`, `label`
 * and `summary` over the frame the timeline passes; it keeps its row layout and its rasterized spans
 * between frames. The room under each lane's rows comes with the frame (`frame.laneRoom`).
 * @param {object} view  the Explorer's shared context (model, store)
 * @param {object} hosts  `{newCanvas}`: makes the offscreen canvas the spans are rasterized in
 * @returns {object} the track
 */
export function createSpanTrack(view, { newCanvas = () => document.createElement("canvas") } = {}) {
  let layout = null, raster = null, roomKey = "", room = [];
  const laidOut = (frame = null) => {
    if (frame) room = frame.laneRoom ?? [];
    const state = view.store.get(), key = room.join(",");
    if (key !== roomKey) { layout = null; roomKey = key; }     // a lane's gauge tracks came (or went)
    layout ??= rowLayout(view.model, state.filter, state.hideOthers, { rowHeight: ROW_H, laneGap: LANE_GAP, laneExtra: room });
    return layout;
  };
  return {
    /** Forget the row layout when the rows or the rows shown change. */
    update(changed, state) {
      if (changed.has("rows") || changed.has("hideOthers") || (changed.has("filter") && state.hideOthers)) layout = null;
    },
    height: (frame) => laidOut(frame).y[frame.model.rows.length],
    draw(ctx, frame) {
      raster ??= { canvas: newCanvas() };
      this.drawn = drawSpanTrack(ctx, frame, laidOut(frame), raster);
    },
    /** What the last draw drew: lanes from the model (`exact`) and from a long trace's levels (`levels`). */
    drawn: { exact: 0, levels: 0 },
    hit: (frame, x, y) => spanAt(frame, laidOut(frame), x, y),
    /** The full "lane · row" name under (x, y) in the gutter, which may cut it ("" elsewhere). */
    label: (frame, x, y) => gutterLabelAt(frame, laidOut(frame), x, y),
    /** Where a lane is drawn from a long trace's levels, what they count at (x, y) ("" elsewhere). */
    summary: (frame, x, y) => levelSummaryAt(frame, laidOut(frame), x, y),
    /** Whether event `i` is on a row shown. */
    shows: (i) => laidOut().shown[view.model.nodeRow[view.model.node[i]]] === 1,
    /** Where lane `lane`'s free room under its rows starts (px from the track's top; undefined if not shown). */
    laneEnd: (lane) => laidOut().laneEnd.get(lane),
    /** Lane `lane`'s rows as [top, bottom] px from the track's top (undefined if none is shown). */
    laneSpan(lane) {
      const l = laidOut(), r = view.model.rows.findIndex((row, k) => row.lane === lane && l.shown[k]);
      return r < 0 ? undefined : [l.y[r], l.laneEnd.get(lane)];
    },
  };
}

/**
 * Draw the span track: row labels, the rasterized spans (cached until what they show changes), the overlays.
 * Returns how many lanes were drawn from the model (`exact`) and from a long trace's levels (`levels`).
 */
export function drawSpanTrack(ctx, frame, layout, raster) {
  const { model, state, plotW } = frame;
  const height = layout.y[model.rows.length];
  drawRowLabels(ctx, frame, layout);
  const key = [state.window[0], state.window[1], plotW, height, state.filter.op, state.filter.where, state.hideOthers,
    state.data, frame.lod.levels ? 1 : 0, frame.lod.loaded ?? ""].join("|");
  if (raster.key !== key) {                   // a step or a hover keeps the spans: only overlays change
    paintRaster(raster, frame, layout, height);
    raster.key = key;
  }
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(raster.canvas, 0, 0, plotW, height, GUTTER, 0, plotW, height);
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER, 0, plotW, height);
  ctx.clip();
  drawOverlays(ctx, frame, layout, height);
  ctx.restore();
  return raster.drawn;
}

function paintRaster(raster, frame, layout, height) {
  const { plotW } = frame;
  if (!raster.image || raster.image.width !== plotW || raster.image.height !== height) {
    raster.canvas.width = plotW;
    raster.canvas.height = height;
    raster.ctx ??= raster.canvas.getContext("2d");
    raster.image = raster.ctx.createImageData(plotW, height);
    raster.pixels = new Uint32Array(raster.image.data.buffer);
  }
  raster.drawn = rasterizeSpans(raster.pixels, frame, layout);
  raster.ctx.putImageData(raster.image, 0, 0);
}

/**
 * Draw every shown row's spans into `pixels` (RGBA, `frame.plotW` wide, one CSS pixel each): exact
 * spans when a row has few events in the window, per-pixel aggregates otherwise. A row is built as
 * two scanlines (upper band: items and stops; lower band: not-ready polls) copied to its pixel rows,
 * so a frame costs O(rows x width) plus the exact spans drawn. A lane whose events in the window the
 * model does not hold (`frame.lod`, explorer_long.js) is drawn from its levels instead (`levelScanlines`).
 * @param {Uint32Array} pixels  plotW x height, filled here
 * @param {object} frame  {model, state: {window, filter}, plotW, lod}
 * @param {object} layout  rowLayout's answer
 * @returns {{exact: number, levels: number}} the lanes drawn from the model and from the levels
 */
export function rasterizeSpans(pixels, { model, state, plotW, lod }, layout) {
  pixels.fill(0);
  const upper = new Uint32Array(plotW), lower = new Uint32Array(plotW);
  const [a, b] = state.window;
  const fromLevels = new Map();          // lane -> its levels over the window (null: none yet; false: from the model)
  const laneLevels = (lane) => {
    if (!fromLevels.has(lane)) fromLevels.set(lane, !lod.exact(lane, a, b) ? lod.pixels(lane, a, b, plotW) : false);
    return fromLevels.get(lane);
  };
  const drawn = { exact: new Set(), levels: new Set() };
  let painted = "";                      // the lane and dim the scanlines hold from its levels (its rows share them)
  model.rows.forEach((row, r) => {
    if (!layout.shown[r]) return;
    const dim = nodeMatches(model, row.node, state.filter) ? 1 : DIMMED;
    const levels = laneLevels(row.lane);
    if (levels === false) {
      rowScanlines(model, r, state.window, plotW, { color: rgbOf(model.nodes[row.node].color), dim }, upper, lower);
      painted = "";
    } else if (painted !== `${row.lane}:${dim}`) {
      if (levels) levelScanlines(model, levels, dim, upper, lower);
      else { upper.fill(0); lower.fill(0); }          // its levels have not arrived yet
      painted = `${row.lane}:${dim}`;
    }
    (levels === false ? drawn.exact : drawn.levels).add(row.lane);
    const top = Math.round(layout.y[r]) + 1, split = Math.round(layout.y[r] + ROW_H * POLL_BAND);
    const bottom = Math.round(layout.y[r]) + ROW_H - 1;
    for (let y = top; y < bottom; y++) pixels.set(y < split ? upper : lower, y * plotW);
    if (levels && layout.first[r]) markErrors(pixels, levels.errors, top, plotW, dim);
  });
  return { exact: drawn.exact.size, levels: drawn.levels.size };
}

/**
 * A row's two scanlines from its lane's levels (lanePixels): the upper band in the colour of each
 * pixel's busiest node, as opaque as its busy fraction makes it (busyAlpha, as a row drawn from
 * loaded events: rowScanlines), the lower band grey where it counts not-ready calls.
 */
export function levelScanlines(model, { fraction, busiest, notReady }, dim, upper, lower) {
  upper.fill(0);
  lower.fill(0);
  const colors = new Map();
  for (let x = 0; x < upper.length; x++) {
    if (fraction[x] > 0 && busiest[x] >= 0) {
      if (!colors.has(busiest[x])) colors.set(busiest[x], rgbOf(model.nodes[busiest[x]].color));
      upper[x] = pack(colors.get(busiest[x]), dim * busyAlpha(fraction[x]));
    }
    lower[x] = notReady[x] > 0 ? pack(GREY, dim * pollAlpha(notReady[x])) : upper[x];
  }
}

/** Errors counted in a lane's levels: two red scanlines over the top of its first row where a pixel counts one. */
function markErrors(pixels, errors, top, plotW, dim) {
  const red = pack(rgbOf(ERROR_COLOR), dim);
  for (let x = 0; x < plotW; x++) {
    if (errors[x] > 0) for (let y = top; y < top + 2; y++) pixels[y * plotW + x] = red;
  }
}

/** Row `r`'s two scanlines over window [a, b] at `plotW` pixels; where it has no poll, the lower band shows the upper. */
export function rowScanlines(model, r, [a, b], plotW, { color, dim }, upper, lower) {
  upper.fill(0);
  lower.fill(0);
  if (drawsExact(model, r, a, b, plotW)) {
    const [k0, k1] = visibleRange(model, r, a, b), scale = plotW / (b - a);
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
      if (fraction[x] > 0) upper[x] = pack(color, dim * busyAlpha(fraction[x]));
      if (polls[x] > 0) lower[x] = pack(GREY, dim * pollAlpha(polls[x]));   // visible at every zoom
    }
  }
  for (let x = 0; x < plotW; x++) if (lower[x] === 0) lower[x] = upper[x];
}

/** The gutter: each lane's band and name (its `label`, if it has one), each row's node name. */
export function drawRowLabels(ctx, { model, meta, width }, layout) {
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  model.rows.forEach((row, r) => {
    if (!layout.shown[r]) return;
    const lane = meta.lanes[row.lane], y = layout.y[r];
    if (layout.first[r]) {
      let end = r;
      while (!layout.last[end]) end++;
      const laneEnd = layout.y[end] + ROW_H;
      ctx.fillStyle = r % 2 ? "#fafafa" : "#f6f8fa";
      ctx.fillRect(0, y - 2, width, laneEnd - y + 4);
      ctx.fillStyle = lane.color;
      ctx.fillRect(0, y - 2, 4, laneEnd - y + 4);
      const room = GUTTER - 22 - ctx.measureText(row.name).width;
      ctx.font = "bold 11px system-ui, sans-serif";
      ctx.fillText(fitText(ctx, lane.label ?? lane.name, room), 8, y + ROW_H / 2);   // a diff page's: "run · lane"
      ctx.font = "11px system-ui, sans-serif";
    }
    ctx.fillStyle = "#333";
    ctx.textAlign = "right";
    ctx.fillText(row.name, GUTTER - 6, y + ROW_H / 2);
    ctx.textAlign = "left";
  });
}

/** What is drawn over the spans: errors, search hits, restarts, the selection and the hover. */
export function drawOverlays(ctx, frame, layout, height) {
  const { model, state } = frame;
  const shown = (i) => layout.shown[model.nodeRow[model.node[i]]] === 1;
  model.rows.forEach((row, r) => {
    if (!layout.shown[r]) return;
    ctx.globalAlpha = nodeMatches(model, row.node, state.filter) ? 1 : DIMMED;
    drawErrors(ctx, frame, layout, r);
  });
  ctx.globalAlpha = 1;
  if (state.matches) drawMatches(ctx, frame, layout, state.matches);
  drawRestarts(ctx, frame, height);
  if (state.selected >= 0 && shown(state.selected)) drawSelection(ctx, frame, layout, state.selected, shown);
  if (state.hover >= 0 && state.hover !== state.selected) outline(ctx, spanBox(frame, layout, state.hover), "#000", 1);
}

/** Event `i`'s box [x, y, width, height] in the track: a not-ready poll fills the row's lower band only. */
export function spanBox({ model, xOf }, layout, i) {
  const r = model.nodeRow[model.node[i]], s = model.start[i];
  const x0 = xOf(s), x1 = Math.max(xOf(s + model.duration[i]), x0 + 1);
  const y = layout.y[r];
  if ((model.flags[i] & 3) === NOT_READY) return [x0, y + ROW_H * POLL_BAND, x1 - x0, ROW_H * (1 - POLL_BAND) - 1];
  return [x0, y + 1, x1 - x0, ROW_H - 2];
}

/** Every search hit in the window, outlined (merged per pixel), whatever the zoom. */
function drawMatches(ctx, { model, state, plotW }, layout, hits) {
  const [a, b] = state.window;
  const { marks } = matchMarks(model, hits, a, b, plotW);
  ctx.strokeStyle = MATCH_COLOR;
  ctx.lineWidth = 2;
  for (const [r, ranges] of marks) {
    if (!layout.shown[r]) continue;
    for (let k = 0; k < ranges.length; k += 2) {
      ctx.strokeRect(GUTTER + ranges[k] - 1, layout.y[r], ranges[k + 1] - ranges[k] + 2, ROW_H);
    }
  }
}

function drawErrors(ctx, frame, layout, r) {
  const [a, b] = frame.state.window;
  ctx.fillStyle = ERROR_COLOR;
  for (const i of errorsInWindow(frame.model, r, a, b)) {
    const [x, y, w, h] = spanBox(frame, layout, i);
    ctx.fillRect(x - 0.5, y - 1, Math.max(w, 2), h + 2);
  }
}

/** A dashed line down the whole track at each restart drawn exactly in the window. */
function drawRestarts(ctx, { model, state, plotW, xOf }, height) {
  const [a, b] = state.window;
  const restarts = new Set();
  model.rows.forEach((row, r) => {
    if (!model.nodes[row.node].restart || !drawsExact(model, r, a, b, plotW)) return;
    const [k0, k1] = visibleRange(model, r, a, b);
    for (let k = k0; k < k1; k++) restarts.add(model.rowEvents[k]);
  });
  ctx.strokeStyle = RESTART_COLOR;
  ctx.setLineDash([5, 3]);
  ctx.lineWidth = 1.2;
  ctx.beginPath();
  for (const i of restarts) {
    const x = xOf(model.start[i]);
    ctx.moveTo(x, 0);
    ctx.lineTo(x, height);
  }
  ctx.stroke();
  ctx.setLineDash([]);
}

function outline(ctx, [x, y, w, h], color, width) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.strokeRect(x - 1, y - 1, Math.max(w, 1) + 2, h + 2);
}

function arrow(ctx, [fromX, fromY], [toX, toY], color) {
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 1.4;
  ctx.beginPath();
  if (color === DROPPED_LINK_COLOR) ctx.setLineDash([4, 3]);      // a value its consumer dropped: dashed
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

/** The selected event outlined, with arrows from the producers of its inputs and to the consumers of its output. */
function drawSelection(ctx, frame, layout, i, shown) {
  const { model, xOf } = frame;
  const box = (k) => spanBox(frame, layout, k);
  const middle = (k) => { const [, y, , h] = box(k); return y + h / 2; };
  const [x, y, w, h] = box(i);
  for (let k = model.inOffsets[i]; k < Math.min(model.inOffsets[i + 1], model.inOffsets[i] + MAX_ARROWS); k++) {
    const p = model.inputs[k];
    if (!shown(p)) continue;
    const color = isDroppedInput(model, i, p) ? DROPPED_LINK_COLOR : PRODUCER_COLOR;
    outline(ctx, box(p), color, 2);
    arrow(ctx, [xOf(model.start[p] + model.duration[p]), middle(p)], [x, y + h / 2], color);
  }
  for (let k = model.outOffsets[i]; k < Math.min(model.outOffsets[i + 1], model.outOffsets[i] + MAX_ARROWS); k++) {
    const c = model.outputs[k];
    if (!shown(c)) continue;
    const color = isDroppedInput(model, c, i) ? DROPPED_LINK_COLOR : CONSUMER_COLOR;
    outline(ctx, box(c), color, 2);
    arrow(ctx, [x + w, y + h / 2], [xOf(model.start[c]), middle(c)], color);
  }
  outline(ctx, [x, y, w, h], "#000", 2);
}

/** The full name of the row under (x, y) in the gutter, "lane · row" ("" off the gutter or between rows): the hover text of a label the gutter cuts. */
export function gutterLabelAt({ model, meta }, layout, x, y) {
  if (x >= GUTTER) return "";
  for (let r = 0; r < model.rows.length; r++) {
    if (layout.shown[r] && y >= layout.y[r] && y < layout.y[r] + ROW_H) {
      const lane = meta.lanes[model.rows[r].lane];
      return `${lane.label ?? lane.name} · ${model.rows[r].name}`;
    }
  }
  return "";
}

/** The event under (x, y) of the track (-1 for none): on the row at y, within 3 pixels of x; none where a lane is drawn from its levels. */
export function spanAt({ model, state, plotW, tOf, lod }, layout, x, y) {
  if (x < GUTTER) return -1;
  let row = -1;
  for (let r = 0; r < model.rows.length && row < 0; r++) {
    if (layout.shown[r] && y >= layout.y[r] && y < layout.y[r] + ROW_H) row = r;
  }
  const [a, b] = state.window;
  if (row >= 0 && !lod.exact(model.rows[row].lane, a, b)) return -1;     // drawn from the levels: no event
  return hitTest(model, row, tOf(x), (3 / plotW) * (b - a));
}

/**
 * What hovering (x, y) says where its row's lane is drawn from a long trace's levels ("" elsewhere, or where no
 * bucket counts a call): the busiest op (or ops) of the buckets under the pointer, where they ran, how many calls
 * the buckets count (and of them not ready, errors) and over what time.
 */
export function levelSummaryAt({ model, meta, state, plotW, lod }, layout, x, y) {
  if (x < GUTTER) return "";
  const r = model.rows.findIndex((row, k) => layout.shown[k] && y >= layout.y[k] && y < layout.y[k] + ROW_H);
  const [a, b] = state.window;
  if (r < 0 || lod.exact(model.rows[r].lane, a, b)) return "";
  const lane = model.rows[r].lane, pixel = lod.pixelAt(lane, a, b, plotW, Math.floor(x - GUTTER));
  return pixel ? levelText(pixel, model.nodes, meta.lanes[lane], model.unitMs) : "";
}

/** The hover text of a pixel drawn from the levels (levelPixelAt's answer), `nodes` naming its busiest nodes. */
export function levelText({ count, errors, notReady, from, to, busiest }, nodes, lane, unitMs) {
  const ops = [...new Set(busiest.map(([node]) => nodes[node].op))];
  const shown = ops.length > 3 ? [...ops.slice(0, 3), `${ops.length - 3} more`] : ops;
  const also = [notReady ? `${counted(notReady, "call")} not ready` : "", errors ? counted(errors, "error") : ""]
    .filter(Boolean);
  return [
    `${shown.join(", ") || "calls"} @ ${lane.label ?? lane.name}`,
    `${counted(count, "call")} here${also.length ? ` (${also.join(", ")})` : ""}`,
    `${startText(from * unitMs)} to ${startText(to * unitMs)}, counted by the overview's levels: zoom in for each call`,
  ].join("\n");
}
