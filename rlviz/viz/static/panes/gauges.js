// Gauge tracks under their process: one line track per gauge and lane (element [data-rlviz=gauge],
// data-rlviz-name the gauge, data-rlviz-where the lane), right under that lane's rows of spans (an
// `under-lane` track of the timeline's registry: its laneRoom is what the rows leave), on the timeline's time axis. A value holds until the next reading (a step line);
// hovering a track shows the value at that time ([data-rlviz=gauge-value]). A long trace's page
// draws a track the way it draws the lanes (data-rlviz-level on the track says which): from its
// readings where the window's chunks are loaded ("exact"), else from the overview's summary of
// each bucket ("levels": a step line through each bucket's last value, a bar from its least to its
// greatest, so a spike shows), and hovering there says it reads a summary, over what time. The
// geometry is plain functions (trackPoints, summaryPoints, hoverText, summaryText), tested alone
// in tests/js/explorer_gauges.test.mjs.
import { GUTTER, fitText, make, sized } from "../explorer_dom.js";
import { startText } from "../explorer_time.js";
import { readingAt } from "../explorer_gauges.js";

/** Height of one gauge track, in CSS pixels. */
export const TRACK_H = 30;
const LINE_COLOR = "#2471a3";
const BAR_COLOR = "rgba(36, 113, 163, 0.35)";
/** A pixel's min-max bar is drawn when it is taller than this (px): the line, 1.5 px wide, covers the rest. */
const BAR_MIN = 2;

/** The value range [lo, hi] a track's height spans (a flat one gets ±1), and the map of a value to its y. */
function yScale(lo, hi, height) {
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  return { lo, hi, yOf: (v) => height - 3 - ((v - lo) / (hi - lo)) * (height - 6) };
}

/**
 * The step line of `track` over the window [a, b] drawn `width` pixels wide and `height` tall:
 * {xs, ys} (pixel coordinates; x from 0), {lo, hi} the value range the track's height spans
 * (`range` [least, greatest] when given, a long trace's whole run; else every reading held, so the
 * line does not jump when the window moves; a flat track gets ±1), and max, the largest. Empty xs
 * when no reading falls at or before b.
 */
export function trackPoints(track, a, b, width, height, range = null) {
  const xs = [], ys = [], n = track.time.length;
  let [least, max] = range ?? [Infinity, -Infinity];
  if (!range) for (const v of track.value) { if (v < least) least = v; if (v > max) max = v; }
  const { lo, hi, yOf } = yScale(least, max, height);
  const scale = width / (b - a);
  const xOf = (t) => Math.min(width, Math.max(0, (t - a) * scale));
  const first = Math.max(0, readingAt(track, a)), last = readingAt(track, b);
  for (let k = first; k <= last && k < n; k++) {
    const x = xOf(track.time[k]), y = yOf(track.value[k]);
    if (xs.length) { xs.push(x); ys.push(ys[ys.length - 1]); }   // the previous value held until now
    xs.push(x);
    ys.push(y);
  }
  if (xs.length) { xs.push(width); ys.push(ys[ys.length - 1]); }
  return { xs, ys, lo, hi, max };
}

/**
 * A track drawn from its summaries per pixel (explorer_levels.gaugePixels: count, low, high, last,
 * before) over `range` [least, greatest], `width` x `height` pixels: the step line {xs, ys} through
 * the value in force at the window's start and each pixel's last value (reached by the pixel's
 * end), and `bars`, per pixel whose readings span more than the line's width [x, yTop, yBottom]
 * from its greatest to its least (a narrower range lies under the line anyway).
 */
export function summaryPoints(pixels, range, width, height) {
  const { yOf } = yScale(range[0], range[1], height);
  const xs = [], ys = [], bars = [];
  let y = Number.isNaN(pixels.before) ? null : yOf(pixels.before);
  if (y !== null) { xs.push(0); ys.push(y); }
  for (let x = 0; x < width; x++) {
    if (pixels.count[x] > 0 && yOf(pixels.low[x]) - yOf(pixels.high[x]) > BAR_MIN) bars.push([x, yOf(pixels.high[x]), yOf(pixels.low[x])]);
    if (Number.isNaN(pixels.last[x])) continue;
    if (y !== null) { xs.push(x + 1); ys.push(y); }        // the value before held until here
    y = yOf(pixels.last[x]);
    xs.push(x + 1);
    ys.push(y);
  }
  if (y !== null) { xs.push(width); ys.push(y); }
  return { xs, ys, bars };
}

/**
 * What hovering a track drawn from its summaries shows at the bucket read there (lod.gaugeAt: {from,
 * to, count, last, low, high}, null if none): that it is a summary, over what time, of how many readings.
 */
export function summaryText(track, bucket, unitMs) {
  const head = `${track.name} @ ${track.where}`;
  if (!bucket) return `${head}: no reading yet`;
  const count = bucket.count === 1 ? "1 reading" : `${bucket.count.toLocaleString("en-US")} readings`;
  return `${head}: last ${formatValue(bucket.last)}, min ${formatValue(bucket.low)}, max ${formatValue(bucket.high)} `
    + `(a summary of ${count}, ${startText(bucket.from * unitMs)} to ${startText(bucket.to * unitMs)})`;
}

/** What hovering `track` at time `t` shows: its value then (or that it has none yet); `unitMs` converts times. */
export function hoverText(track, t, unitMs) {
  const k = readingAt(track, t);
  const head = `${track.name} @ ${track.where}`;
  if (k < 0) return `${head}: no reading yet`;
  return `${head}: ${formatValue(track.value[k])} (since ${startText(track.time[k] * unitMs)})`;
}

/** A gauge value: ints with thousands separators, others to 4 significant digits. */
export function formatValue(v) {
  return Number.isInteger(v) ? v.toLocaleString("en-US") : Number(v.toPrecision(4)).toString();
}

/** Pixels to leave under each lane's rows (by lane index, `lanes` the names): its gauge tracks' height. */
export function laneExtra(tracks, lanes) {
  const extra = lanes.map(() => 0);
  for (const track of tracks) {
    const k = lanes.indexOf(track.where);
    if (k >= 0) extra[k] += TRACK_H;
  }
  return extra;
}

/** The tracks in drawing order: by their lane's place in `lanes` (names), then by name. */
export function orderedTracks(tracks, lanes) {
  const rank = (where) => { const k = lanes.indexOf(where); return k < 0 ? lanes.length : k; };
  return [...tracks].sort((p, q) => rank(p.where) - rank(q.where) || p.where.localeCompare(q.where)
    || p.name.localeCompare(q.name));
}

/**
 * The gauge tracks of a timeline (its `under-lane` track): mounted into the scroll area over the lanes, each
 * right under its lane's rows.
 * @param {object} view  the Explorer's shared context (model with .gauges, meta, store, lod)
 * @param {object} hosts  `{scroll}`: the timeline's scroll area
 * @returns {{laneRoom: function(object): number[], draw: function(object, object): void, element: HTMLElement,
 *   destroy: function(): void}}
 */
export function createGaugeTracks(view, { scroll: host }) {
  const box = make("div", "rlviz-gauges", "gauges");
  Object.assign(box.style, { position: "absolute", left: "0", top: "0", width: "100%", height: "0",
    overflow: "visible", pointerEvents: "none" });
  host.appendChild(box);
  const drawn = new Map();         // "name\u0000where" -> {element, canvas, value}
  // Only the tracks in the scroll area's visible band are drawn (64 lanes' tracks cost ~20 ms a frame, most out
  // of sight); its scrollTop is read on its scroll events only (never inside a draw), which draw the band again.
  let scrolled = 0, pending = 0, placed = null;       // placed: the lanes of the last draw, for a scroll's
  const onScroll = () => {
    scrolled = host.scrollTop;
    if (!pending) pending = requestAnimationFrame(() => { pending = 0; if (placed) draw(placed); });
  };
  host.addEventListener("scroll", onScroll, { passive: true });
  const inSight = (y) => y + TRACK_H > scrolled && y < scrolled + (window.innerHeight || Infinity);

  function element(track) {
    const key = `${track.name}\u0000${track.where}`;
    let entry = drawn.get(key);
    if (entry) return entry;
    const el = make("div", "rlviz-gauge", "gauge");
    el.dataset.rlvizName = track.name;
    el.dataset.rlvizWhere = track.where;
    Object.assign(el.style, { position: "absolute", left: "0", right: "0", pointerEvents: "auto" });
    const canvas = make("canvas");
    const value = make("span", "rlviz-gauge-value", "gauge-value");
    Object.assign(value.style, { position: "absolute", top: "0", right: "4px", font: "10px system-ui, sans-serif",
      color: "#333", background: "rgba(255,255,255,0.85)", pointerEvents: "none" });
    el.append(canvas, value);
    canvas.addEventListener("pointermove", (e) => hover(entry, e));
    canvas.addEventListener("pointerleave", () => { value.textContent = ""; });
    entry = { el, canvas, value, track };
    drawn.set(key, entry);
    return entry;
  }

  function timeAt(clientX, canvas) {
    const [a, b] = view.store.get().window, width = plotWidth();
    const x = clientX - canvas.getBoundingClientRect().left - GUTTER;
    return a + (Math.max(0, x) / width) * (b - a);
  }

  function hover(entry, e) {
    const t = timeAt(e.clientX, entry.canvas), unitMs = view.model.unitMs;
    const [a, b] = view.store.get().window;
    const text = entry.summaries ? summaryText(entry.track, view.lod.gaugeAt(entry.index, t, a, b, plotWidth()), unitMs)
      : hoverText(entry.track, t, unitMs);
    entry.value.textContent = text;
    entry.el.title = text;
  }

  const plotWidth = () => Math.max(50, view.store.get().width - GUTTER - 8);

  /** Place and draw every track under its lane, `where.end(k)` being where lane k's free room starts (timeline.js). */
  function draw(where) {
    placed = where;
    const held = view.model.gauges, lanes = (view.meta.lanes || []).map((lane) => lane.name);
    const colors = new Map((view.meta.lanes || []).map((lane) => [lane.name, lane.color]));
    const tracks = held ? orderedTracks(held.tracks, lanes) : [];
    box.style.display = tracks.length ? "" : "none";
    const wanted = tracks.map((track) => element(track).el);
    if (wanted.length !== box.children.length || wanted.some((el, k) => box.children[k] !== el)) box.replaceChildren(...wanted);
    const [a, b] = view.store.get().window, width = view.store.get().width || 960;
    const summaries = !view.lod.exact(-1, a, b);     // the lanes' rule: not exact, its levels
    const below = new Map();                       // lane -> tracks placed under it so far
    for (const track of tracks) {
      const entry = element(track), lane = lanes.indexOf(track.where), k = below.get(lane) ?? 0;
      const top = where.end(lane);
      below.set(lane, k + 1);
      entry.track = track;
      entry.index = held.tracks.indexOf(track);
      entry.summaries = summaries;
      entry.el.dataset.rlvizLevel = summaries ? "levels" : "exact";
      entry.el.style.display = top === undefined ? "none" : "";      // its lane is hidden by a filter
      entry.el.style.top = `${(top ?? 0) + k * TRACK_H}px`;
      if (top === undefined || !inSight(top + k * TRACK_H)) continue;
      const range = view.lod.gaugeRange(entry.index);
      const pixels = summaries ? view.lod.gaugePixels(entry.index, a, b, plotWidth()) : null;
      drawTrack(sized(entry.canvas, width, TRACK_H), track, a, b, plotWidth(), colors.get(track.where),
        { range, pixels: summaries ? pixels ?? "none" : null });
    }
  }

  const laneNames = () => (view.meta.lanes || []).map((lane) => lane.name);
  return { laneRoom: () => laneExtra(view.model.gauges?.tracks ?? [], laneNames()), draw: (frame, lanes) => draw(lanes),
    element: box, destroy() {
    host.removeEventListener("scroll", onScroll);
    if (pending) cancelAnimationFrame(pending);
    box.remove();
  } };
}

/**
 * Draw one track: its lane's colour bar (as the timeline marks the lane) and label in the gutter,
 * then its step line over the window [a, b] (`plotW` wide): from its readings, or from `pixels` (its
 * summaries per pixel, "none" while the levels are not there yet) with their min-max bars; `range`
 * is the value range of a long trace's whole run.
 */
export function drawTrack(ctx, track, a, b, plotW, laneColor = "#5b6770", { range = null, pixels = null } = {}) {
  ctx.fillStyle = "#f4f7fb";
  ctx.fillRect(0, 1, GUTTER + plotW, TRACK_H - 2);
  ctx.fillStyle = laneColor;
  ctx.fillRect(0, 1, 4, TRACK_H - 2);
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.fillStyle = "#333";
  ctx.fillText(fitText(ctx, `${track.where} · ${track.name}`, GUTTER - 12), 8, TRACK_H / 2);
  const drawable = !pixels || (pixels !== "none" && range);          // summaries need the run's range
  const points = !drawable ? null : pixels ? summaryPoints(pixels, range, plotW, TRACK_H)
    : trackPoints(track, a, b, plotW, TRACK_H, range);
  const max = range ? range[1] : points?.max;
  ctx.fillStyle = "#888";
  ctx.font = "9px system-ui, sans-serif";
  ctx.textBaseline = "top";
  if (Number.isFinite(max)) ctx.fillText(formatValue(max), GUTTER + 2, 1);   // the track's top reading
  if (!points) return;
  const { xs, ys, bars = [] } = points;
  if (bars.length) {                                  // one path for every bar: one draw call a track
    ctx.strokeStyle = BAR_COLOR;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const [x, top, bottom] of bars) { ctx.moveTo(GUTTER + x + 0.5, top - 0.5); ctx.lineTo(GUTTER + x + 0.5, bottom + 0.5); }
    ctx.stroke();
  }
  if (!xs.length) return;
  ctx.strokeStyle = LINE_COLOR;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(GUTTER + xs[0], ys[0]);
  for (let k = 1; k < xs.length; k++) ctx.lineTo(GUTTER + xs[k], ys[k]);
  ctx.stroke();
}
