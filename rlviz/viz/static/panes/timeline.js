// The timeline pane: a ruler over the timeline's tracks, all drawn from the store's window
// (Perfetto's model: each track has its own renderer). The tracks are one registry, TRACKS: each
// declares the room it needs, and the timeline lays them out from those declarations (adding a
// track is one entry). Wheel zooms, drag pans, hover shows a tooltip, click selects; hover and
// click ask the track under the pointer. The element's data-rlviz-level says whether the lanes
// drew exact events or a long trace's levels.
import { GUTTER, RULER_H, make, measure, sized } from "../explorer_dom.js";
import { durationText, rulerTicks, startText } from "../explorer_time.js";
import { createDivergenceMark } from "./divergence.js";
import { createGapMarks } from "./gaps.js";
import { createGaugeTracks } from "./gauges.js";
import { createSpanTrack } from "./spans.js";

const DRAWN_BY = ["window", "hover", "filter", "width", "data", "matches", "advanced"];

/**
 * The room a track can declare, and so how the timeline places it:
 * - `rows`: the lanes of rows, on the lanes canvas (one such track; it lays out the lanes the others follow);
 * - `band`: a band of its own `height(frame)`, on the canvas under the rows;
 * - `under-lane`: `laneRoom(frame)` px under each lane's rows (by lane index), which the rows leave free;
 * - `over-lanes`: an element over the lanes, taking no room;
 * - `over-timeline`: an element over the whole timeline, ruler included, taking no room.
 * Canvas tracks (`rows`, `band`) are `{height(frame), draw(ctx, frame), hit?(frame, x, y), label?(frame, x, y)}`,
 * coordinates relative to the track's top. Element tracks are `{element, draw(frame, lanes), destroy()}`, where
 * `lanes` is `{end(lane), span(lane), height}` of the rows (see `lanePlaces`). Any track may have
 * `update(changed, state)` and `summary(frame, x, y)` (hover text where no single event is under the pointer).
 */
export const ROOMS = ["rows", "band", "under-lane", "over-lanes", "over-timeline"];

/**
 * The timeline's tracks, back to front: `{name, room, create(view, hosts)}`, `hosts` being
 * `{scroll, timeline, newCanvas}` (the scroll area over the lanes, the timeline element, an offscreen canvas maker).
 */
export const TRACKS = [
  { name: "spans", room: "rows", create: createSpanTrack },
  { name: "gauges", room: "under-lane", create: createGaugeTracks },
  { name: "gaps", room: "over-lanes", create: createGapMarks },
  { name: "divergence", room: "over-timeline", create: createDivergenceMark },
];

const ON_CANVAS = new Set(["rows", "band"]);

/**
 * Make the tracks of `registry` for `view`, each with its entry's name and room; refuses a room it does not know
 * and a registry without exactly one `rows` track (the lanes everything else is placed by).
 */
export function makeTracks(registry, view, hosts) {
  const rows = registry.filter((entry) => entry.room === "rows").length;
  if (rows !== 1) throw new Error(`a timeline needs exactly one track whose room is "rows" (the lanes); this one has ${rows}`);
  return registry.map((entry) => {
    if (!ROOMS.includes(entry.room)) {
      throw new Error(`track ${entry.name}: room "${entry.room}" is not one of ${ROOMS.join(", ")}`);
    }
    return Object.assign(entry.create(view, hosts), { name: entry.name, room: entry.room });
  });
}

/** The tracks drawn on the lanes canvas (rows, then bands), top to bottom. */
export function canvasTracks(tracks) {
  return tracks.filter((track) => ON_CANVAS.has(track.room));
}

/** The px each lane leaves under its rows: the sum of every `under-lane` track's `laneRoom(frame)`, by lane index. */
export function laneRoom(tracks, frame) {
  const room = [];
  for (const track of tracks) {
    if (track.room !== "under-lane") continue;
    track.laneRoom(frame).forEach((px, lane) => { room[lane] = (room[lane] ?? 0) + px; });
  }
  return room;
}

/**
 * Where the rows track placed each lane, for the element tracks: `end(lane)` the px its free room starts (lane -1,
 * one the timeline has no rows for: under all rows; undefined when a filter hid it), `span(lane)` its rows as
 * [top, bottom] px, `height` all rows'.
 */
export function lanePlaces(rows, frame) {
  const height = rows.height(frame);
  return { end: (lane) => (lane < 0 ? height : rows.laneEnd(lane)), span: (lane) => rows.laneSpan(lane), height };
}

/**
 * What every track draws from: the model and state now, the plot's width, the maps between
 * time units and x pixels (the plot starts after the gutter), and the room each lane leaves under its rows.
 * @param {object} model  the model the panes draw
 * @param {object} meta   the stream's meta (lanes, nodes)
 * @param {object} state  the store's state (window, width, filter, ...)
 * @param {object} lod  the page's level of detail (explorer_long.js `createLod`): which lanes are exact, the levels
 * @param {number[]} room  px to leave under each lane's rows, by lane index (`laneRoom`)
 * @returns {object} the frame
 */
export function frameOf(model, meta, state, lod, room = []) {
  const plotW = Math.floor(Math.max(50, state.width - GUTTER - 8));
  const [a, b] = state.window;
  return { model, meta, state, width: state.width, plotW, lod, laneRoom: room,
    xOf: (t) => GUTTER + ((t - a) / (b - a)) * plotW, tOf: (x) => a + ((x - GUTTER) / plotW) * (b - a) };
}

/** Where each track starts (px from the canvas top) and the height of them all: [tops, height]. */
export function stackTracks(tracks, frame) {
  const tops = [];
  let height = 0;
  for (const track of tracks) { tops.push(height); height += track.height(frame); }
  return [tops, height];
}

/** The stacked track at y px from the canvas top, with y from its own top: [track, y], or null below them all. */
export function trackAt(tracks, frame, y) {
  const [tops, height] = stackTracks(tracks, frame);
  const k = tops.findLastIndex((top) => top <= y);
  return k < 0 || y >= height ? null : [tracks[k], y - tops[k]];
}

/** The event at (x, y) of the stacked tracks (y from the canvas top), asked of the track there: -1 for none. */
export function trackHit(tracks, frame, x, y) {
  const [track, within] = trackAt(tracks, frame, y) ?? [];
  return track?.hit ? track.hit(frame, x, within) : -1;
}

/** The hover text at (x, y) px of the stacked tracks: a track's full name for what it labels there ("" for none). */
export function trackLabel(tracks, frame, x, y) {
  const [track, within] = trackAt(tracks, frame, y) ?? [];
  return track?.label ? track.label(frame, x, within) : "";
}

/** What the track at (x, y) says is there when no one event is (a long trace's levels): its text, or "" for nothing. */
export function trackSummary(tracks, frame, x, y) {
  const [track, within] = trackAt(tracks, frame, y) ?? [];
  return track?.summary ? track.summary(frame, x, within) : "";
}

/** Draw the tracks one under the other, each with the context moved to its top. */
export function drawTracks(ctx, tracks, frame) {
  const [tops] = stackTracks(tracks, frame);
  tracks.forEach((track, k) => {
    ctx.save();
    ctx.translate(0, tops[k]);
    track.draw(ctx, frame);
    ctx.restore();
  });
}

/**
 * The ruler: a tick with its label about every 90 px, read as people read time at this zoom
 * (explorer_time.js: h:mm:ss over hours down to µs after a stated anchor); the gutter says which.
 */
export function drawRuler(ctx, { model, state, width, plotW, xOf }) {
  const [a, b] = state.window;
  const ruler = rulerTicks(a * model.unitMs, b * model.unitMs, plotW);
  ctx.fillStyle = "#444";
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillText(ruler.caption, 4, 6);
  ctx.strokeStyle = "#999";
  ctx.beginPath();
  for (const tick of ruler.ticks) {
    const x = xOf(tick.ms / model.unitMs);
    if (x < GUTTER) continue;
    ctx.moveTo(x + 0.5, RULER_H - 8);
    ctx.lineTo(x + 0.5, RULER_H);
    if (x + 2 + ctx.measureText(tick.label).width <= width) ctx.fillText(tick.label, x + 2, 3);   // whole, or not at all
  }
  ctx.stroke();
}

/**
 * Mount the timeline into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context (model, meta, store, actions, describe; a diff's run: divergence)
 * @param {object[]} registry  the tracks to lay out (TRACKS)
 * @returns {{update: function(Set<string>): void, destroy: function(): void, element: HTMLElement}}
 */
export function createTimeline(host, view, registry = TRACKS) {
  const { store } = view;
  const element = make("div", "rlviz-timeline", "timeline");
  const ruler = make("canvas", null, "ruler");
  const scroll = make("div", "rlviz-scroll");
  const canvas = make("canvas", null, "lanes");
  const tooltip = make("div", "rlviz-tooltip", "tooltip");
  const band = make("div", "rlviz-advance-band", "advance-band");
  band.title = "what the last advance ran";
  band.style.display = "none";
  element.append(ruler, scroll);
  host.append(element);
  view.root.appendChild(tooltip);
  const tracks = makeTracks(registry, view, { scroll, timeline: element, newCanvas: () => document.createElement("canvas") });
  const onCanvas = canvasTracks(tracks), rows = tracks.find((track) => track.room === "rows");
  const elements = tracks.filter((track) => !ON_CANVAS.has(track.room));
  const painter = { frame: 0, first: false };
  const frame = () => {
    const f = frameOf(view.model, view.meta, store.get(), view.lod);
    f.laneRoom = laneRoom(tracks, f);
    return f;
  };
  // the lanes canvas and what lies over it: the element tracks (those over the whole timeline go in
  // themselves) and the advance band
  const over = elements.filter((track) => track.room !== "over-timeline").map((track) => track.element);
  scroll.replaceChildren(canvas, ...over, band);
  const listeners = pointerListeners(view, canvas, tooltip, { frame, eventAt, labelAt, summaryAt });
  for (const [target, name, handler, options] of listeners) target.addEventListener(name, handler, options);
  drawNow();

  /** (clientX, clientY) as px from the lanes canvas's top-left. */
  function local(clientX, clientY) {
    const box = canvas.getBoundingClientRect();
    return [clientX - box.left, clientY - box.top];
  }

  /** The event under the pointer at (clientX, clientY) (-1 for none). */
  function eventAt(clientX, clientY) {
    return trackHit(onCanvas, frame(), ...local(clientX, clientY));
  }

  /** The full name of the label under the pointer at (clientX, clientY) ("" for none). */
  function labelAt(clientX, clientY) {
    return trackLabel(onCanvas, frame(), ...local(clientX, clientY));
  }

  /** What the track under the pointer summarizes there when no one event is under it ("" for nothing). */
  function summaryAt(clientX, clientY) {
    return trackSummary(onCanvas, frame(), ...local(clientX, clientY));
  }

  function drawNow() {
    const started = performance.now();
    if (!store.get().width) store.set({ width: element.clientWidth || 960 }, { from: "layout" });
    const f = frame();
    if (!painter.first && f.lod.holding()) return;          // a run held whole: its first frame has its events
    drawRuler(sized(ruler, f.width, RULER_H), f);
    drawTracks(sized(canvas, f.width, stackTracks(onCanvas, f)[1]), onCanvas, f);
    element.dataset.rlvizLevel = levelName(rows.drawn);
    const lanes = lanePlaces(rows, f);
    for (const track of elements) track.draw(f, lanes);
    placeBand(f);
    measure("rlviz:draw", started);
    if (!painter.first && f.lod.settled()) {    // the first frame: its levels, its first window's chunks
      painter.first = true;
      performance.mark("rlviz:first-frame");
      view.root.dataset.rlvizReady = "1";
    }
  }

  /** The band over the stretch the last advance ran (store key `advanced`: [from, to] in time units), or none. */
  function placeBand(f) {
    const stretch = store.get().advanced, place = stretch && bandPlace(stretch, f);
    band.style.display = place ? "" : "none";
    if (!place) return;
    band.style.left = `${place.left}px`;
    band.style.width = `${place.width}px`;
    band.dataset.from = String(stretch[0]);
    band.dataset.to = String(stretch[1]);
  }

  return {
    element,
    update(changed, info = {}) {
      for (const track of tracks) track.update?.(changed, store.get());
      const hiding = changed.has("hideOthers") || (changed.has("filter") && store.get().hideOthers);
      // a step draws at once; so does a live append, which the feed already draws inside an animation
      // frame (one frame per refresh, not one for the feed and one more for the timeline)
      const now = info.from === "append" && DRAWN_BY.some((key) => changed.has(key));
      if (changed.has("selected") || changed.has("rows") || hiding || now) {
        if (painter.frame) cancelAnimationFrame(painter.frame);
        painter.frame = 0;
        drawNow();
      } else if (DRAWN_BY.some((key) => changed.has(key)) && !painter.frame) {
        painter.frame = requestAnimationFrame(() => { painter.frame = 0; drawNow(); });
      }
    },
    destroy() {
      if (painter.frame) cancelAnimationFrame(painter.frame);
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      tooltip.remove();
      for (const track of elements) track.destroy();
      element.remove();
    },
  };
}

/**
 * Where the band over `stretch` ([from, to] time units) lies in `frame`, clipped to the plot:
 * {left, width} in px from the canvas's left, or null when none of it is in view.
 */
export function bandPlace([from, to], frame) {
  const left = Math.max(GUTTER, frame.xOf(from)), right = Math.min(GUTTER + frame.plotW, frame.xOf(to));
  return right - left >= 0 && right > GUTTER ? { left, width: Math.max(2, right - left) } : null;
}

/**
 * What the lanes drew, as the timeline's `data-rlviz-level` says it: "exact" (every lane from the
 * model's events), "levels" (every lane from a long trace's levels), "mixed".
 */
export function levelName({ exact, levels }) {
  return levels === 0 ? "exact" : exact === 0 ? "levels" : "mixed";
}

/** The canvas's listeners as [target, name, handler, options]: wheel zooms, drag pans, hover, click selects. */
function pointerListeners(view, canvas, tooltip, { frame, eventAt, labelAt, summaryAt }) {
  const { store } = view;
  let drag = null;
  const zoom = (e) => {
    e.preventDefault();
    const f = frame(), box = canvas.getBoundingClientRect();
    const t = f.tOf(Math.max(GUTTER, e.clientX - box.left));
    const factor = Math.exp((e.deltaY || 0) * 0.002);
    const [a, b] = f.state.window;
    view.actions.setWindow([t - (t - a) * factor, t + (b - t) * factor], { from: "user", gesture: true });
  };
  const move = (e) => {
    if (drag) {
      const dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (!drag.moved) return;
      const shift = (dx / frame().plotW) * (drag.window[1] - drag.window[0]);
      view.actions.setWindow([drag.window[0] - shift, drag.window[1] - shift], { from: "user", gesture: true });
      return;
    }
    const started = performance.now();
    const i = eventAt(e.clientX, e.clientY);
    measure("rlviz:hit", started);
    store.set({ hover: i }, { from: "pointer" });
    showTooltip(view, tooltip, i < 0 ? summaryAt(e.clientX, e.clientY) : eventText(view, i), e.clientX, e.clientY);
    canvas.title = i < 0 ? labelAt(e.clientX, e.clientY) : "";     // a lane name the gutter cut, in full
  };
  return [
    [canvas, "wheel", zoom, { passive: false }],
    [canvas, "pointerdown", (e) => {
      drag = { x: e.clientX, window: store.get().window.slice(), moved: false };
      canvas.setPointerCapture?.(e.pointerId);
    }],
    [canvas, "pointermove", move],
    [canvas, "pointerup", (e) => {
      if (drag && !drag.moved) view.actions.select(eventAt(e.clientX, e.clientY), { center: false });
      drag = null;
    }],
    [canvas, "pointerleave", () => {
      tooltip.style.display = "none";
      store.set({ hover: -1 }, { from: "pointer" });
    }],
  ];
}

/** What the tooltip says of event `i`: its op and where, its label, outcome and item, start, length and index. */
function eventText(view, i) {
  const d = view.describe(i);
  return [
    `${d.node.op} @ ${d.node.where}`,
    d.node.label.length > 90 ? `${d.node.label.slice(0, 89)}…` : d.node.label,
    `${d.outcome}${d.item != null ? `: ${d.item}` : ""}`,
    `start ${startText(d.startMs)} · ${durationText(d.durationMs)} long · #${d.index ?? i}`,
  ].join("\n");
}

/** The tooltip saying `text` next to the pointer (hidden when empty); it flips left near the right edge. */
function showTooltip(view, tooltip, text, clientX, clientY) {
  if (!text) { tooltip.style.display = "none"; return; }
  tooltip.textContent = text;
  const box = view.root.getBoundingClientRect();
  const x = clientX - box.left + 14, flip = x > box.width - 330;
  tooltip.style.display = "block";
  tooltip.style.left = flip ? "" : `${x}px`;
  tooltip.style.right = flip ? `${box.width - x + 28}px` : "";
  tooltip.style.top = `${clientY - box.top + 16}px`;
}
