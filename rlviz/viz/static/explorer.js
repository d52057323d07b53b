// The Explorer: timeline, dataflow graph, order strip and inspector of an rlviz trace, drawn in
// the browser (canvas 2D and SVG). A small store holds the view's state; each pane redraws
// what the keys that changed touch. One module for the notebook widget (anywidget's `render`)
// and the standalone HTML file (`mountExplorer`), bundled by esbuild (js/build.mjs).
import {
  OUTCOMES, completionOrder, itemText, orderEvents, searchEvents, searchStep, step, stepList,
} from "./explorer_core.js";
import { CSS, make, measure } from "./explorer_dom.js";
import { appendChunk, followWindow, keptSelection, liveModel, openStream } from "./explorer_live.js";
import { createStore } from "./explorer_store.js";
import { createGraph } from "./panes/graph.js";
import { createInspector } from "./panes/inspector.js";
import { createLiveBar } from "./panes/livebar.js";
import { createOrder } from "./panes/order.js";
import { createTimeline } from "./panes/timeline.js";
import { createToolbar } from "./panes/toolbar.js";

const NOTIFY_WINDOW_MS = 150;       // a zoom or pan tells the host once it pauses
const FOLLOW_MS = 30_000;           // following, a live view shows the newest 30 s (all of a shorter run)
const MAX_QUEUED = 8;               // chunks a live view queues undrawn before taking them into its data

/**
 * Mount the Explorer into `el`: the start of a stream (rlviz.viz.explorer_stream), then its chunks.
 * A saved trace brings all of its chunks along (meta.chunks, their buffers in `buffers`) and is
 * replayed at once; a live run (meta.live) sends its chunks later, through `append`. Both go
 * through the same decoder into the same growing model.
 * @param {HTMLElement} el  container (emptied)
 * @param {object} meta     the stream's start meta (with `chunks` for a saved trace)
 * @param {Array} buffers   the saved chunks' buffers, chunk after chunk (ArrayBuffer / DataView / typed arrays)
 * @param {object} host     {onChange(state)}: called when the user changes selection, window or filter;
 *   in a live view (meta.live), {onCommand(name)}: called with "pause", "resume" or "stop"
 * @returns {object} {setSelected, setWindow, setFilter, setSkipNotReady, showError, append, setLive, drawNow, destroy,
 *   state, model, root, store}
 */
export function mountExplorer(el, meta, buffers = [], host = {}) {
  el.replaceChildren();
  const data = openStream(meta, buffers);
  const live = meta.live ? data : null;
  const model = liveModel(data);
  meta = model.meta;
  const root = make("div", "rlviz-explorer", "explorer");
  root.tabIndex = 0;
  root.appendChild(make("style", null, null, CSS));
  el.appendChild(root);
  const full = [0, Math.max(model.end, 1)];
  const store = createStore({ window: full.slice(), selected: -1, hover: -1, filter: { op: null, where: null },
    skipNotReady: false, hideOthers: false, matches: null, width: 0, orderWidth: 0, order: null, error: "", data: 0, rows: 0,
    follow: Boolean(live), followSpan: null, live: null });
  let steps = null, windowTimer = null, ordering = null;
  const view = { meta, model, store, root, full, describe, actions: {}, command: (name, extra) => host.onCommand?.(name, extra) };
  Object.assign(view.actions, {
    select, step: doStep, setFilter, setSkipNotReady, zoomToSelection,
    setHideOthers: (on) => store.set({ hideOthers: Boolean(on) }, { from: "user" }),
    /** Highlight every hit of a search (null: none). */
    setMatches: (hits) => store.set({ matches: hits && hits.length ? hits : null }, { from: "search" }),
    setWindow: (units, info = { from: "user" }) => setWindowUnits(units, info),
    search: (query) => searchEvents(view.model, query, store.get().filter),
    searchStep(hits, direction) {
      const found = searchStep(hits, store.get().selected, direction);     // ranked order, exact op names first
      const target = found >= 0 ? found : hits[direction > 0 ? 0 : hits.length - 1];
      select(target);
      return target;
    },
  });
  const toolbar = createToolbar(root, view);
  const timeline = createTimeline(root, view);
  const lower = make("div", "rlviz-lower");
  root.appendChild(lower);
  const panes = [toolbar, timeline, createGraph(lower, view), createOrder(lower, view), createInspector(lower, view)];
  if (live) panes.push(createLiveBar(root, timeline.element, view));
  const unsubscribe = store.subscribe((changed, state, info) => {
    if (changed.has("filter") || changed.has("skipNotReady") || changed.has("data")) steps = null;
    // a zoom or pan by hand stops following the newest events
    if (changed.has("window") && info.gesture && state.follow) store.set({ follow: false }, { from: "follow" });
    for (const pane of panes) pane.update(changed, info);
    if (info.from === "user") notify(changed, state);
  });
  // widths are read here only: reading layout inside a draw would force the page to reflow
  const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
    const width = timeline.element.clientWidth;
    if (width && width !== store.get().width) store.set({ width, orderWidth: lower.children[1].clientWidth }, { from: "layout" });
  });
  if (resize) resize.observe(timeline.element);
  // completion order (a sort of every end time) is ready a moment after the first frame
  orderSoon();

  function orderSoon() {
    clearTimeout(ordering);
    ordering = setTimeout(() => { completionOrder(view.model); store.set({ order: orderEvents(view.model) }); }, 0);
  }

  // A live view takes what arrives (chunks, status) at once but draws it once per frame: two
  // messages a refresh, or several queued behind a busy page, cost one pass of the panes. A hidden
  // page draws no frames, so past MAX_QUEUED chunks go into the data (trimmed to the window) undrawn.
  let queued = [], taken = null, queuedStatus = null, frame = 0;
  const nextFrame = globalThis.requestAnimationFrame ?? ((draw) => setTimeout(draw, 16));
  const cancelFrame = globalThis.cancelAnimationFrame ?? clearTimeout;

  /** Queue one appended chunk (see rlviz.viz.explorer_stream); it is drawn at the next frame. */
  function append(message, chunkBuffers) {
    queued.push([message, chunkBuffers]);
    if (queued.length >= MAX_QUEUED) take();
    drawSoon();
  }

  /** Queue the run's status; it is drawn at the next frame, with any chunks queued. */
  function setLive(status) {
    queuedStatus = status;
    drawSoon();
  }

  function drawSoon() {
    if (!frame) frame = nextFrame(() => { frame = 0; drawQueued(); });
  }

  /** Move the queued chunks into the live data; what they changed waits in `taken` for the next draw. */
  function take() {
    for (const [message, chunkBuffers] of queued) {
      const { trimmed, structure } = appendChunk(live, message, chunkBuffers);
      taken ??= { trimmed: 0, structure: false, first: message.first_id, count: 0 };
      taken.trimmed += trimmed;
      taken.structure ||= structure;
      taken.count += message.count;
    }
    queued = [];
  }

  /** Draw what was queued: the model grows, the window follows the tail, the selection stays on its event. */
  function drawQueued() {
    const started = performance.now();
    try {
      take();
      const patch = taken ? patchFor(taken) : {};
      if (queuedStatus) patch.live = queuedStatus;
      queuedStatus = null;
      store.set(patch, { from: "append" });
      // which events were drawn when: a profiler (or benchmarks/bench_live_lab.py) times event -> page from it
      if (taken) measure("rlviz:append", started, { first_id: taken.first, count: taken.count });
    } catch (error) {
      queued = [];
      store.set({ error: `The Explorer failed: ${error && error.message ? error.message : error}` }, { from: "append" });
    } finally {
      taken = null;
    }
  }

  /** The model brought up to the live data; the patch that shows what `changes` brought. */
  function patchFor(changes) {
    view.model = liveModel(live);
    view.meta = view.model.meta;
    full[1] = Math.max(view.model.end, 1);
    const state = store.get();
    const span = state.followSpan ?? FOLLOW_MS * 1e6 / meta.unit_ns;
    const patch = { data: state.data + 1, selected: keptSelection(state.selected, changes.trimmed), hover: -1,
      order: orderEvents(view.model),
      window: state.follow ? followWindow(state.window, full[1], true, span) : state.window };
    if (changes.structure) patch.rows = state.rows + 1;
    return patch;
  }

  function describe(i) {
    const m = view.model;
    return { node: m.nodes[m.node[i]], outcome: OUTCOMES[m.flags[i] & 3], item: itemText(m, i),
      startMs: m.start[i] * m.unitMs, durationMs: m.duration[i] * m.unitMs };
  }

  function notify(changed, state) {
    if (!host.onChange) return;
    const what = ["selected", "filter", "skipNotReady", "window"].find((key) => changed.has(key));
    if (!what) return;
    const report = () => host.onChange({ selected: state.selected,
      window: [state.window[0] * model.unitMs, state.window[1] * model.unitMs],
      op: state.filter.op, where: state.filter.where, skipNotReady: state.skipNotReady,
      what: { skipNotReady: "skip", selected: "selected", filter: "filter", window: "window" }[what] });
    clearTimeout(windowTimer);
    if (what === "window") windowTimer = setTimeout(report, NOTIFY_WINDOW_MS);
    else report();
  }

  function select(index, { from = "user", center = true, reveal = false } = {}) {
    const m = view.model;
    const selected = index >= 0 && index < m.n ? index : -1;
    const patch = { selected };
    if (selected >= 0 && center) {
      const s = m.start[selected], e = s + m.duration[selected];
      const [a, b] = store.get().window;
      if (e < a || s > b) patch.window = clampWindow([s + (e - s) / 2 - (b - a) / 2, s + (e - s) / 2 + (b - a) / 2]);
    }
    // a selection that moves the window is not a zoom: tell the host about the selection only
    const changed = store.set(patch, { from: from === "user" ? "select" : from, reveal });
    if (from === "user" && changed.has("selected")) notify(new Set(["selected"]), store.get());
  }

  function clampWindow([a, b]) {
    const minimum = 10 / Math.max(meta.unit_ns, 1);
    if (!(b - a >= minimum)) { const mid = (a + b) / 2; a = mid - minimum / 2; b = mid + minimum / 2; }
    const span = full[1] - full[0], extra = span * 0.5;
    if (b - a > span + 2 * extra) { a = full[0] - extra; b = full[1] + extra; }
    if (a < full[0] - extra) { b += full[0] - extra - a; a = full[0] - extra; }
    if (b > full[1] + extra) { a -= b - full[1] - extra; b = full[1] + extra; }
    return [a, b];
  }

  function setWindowUnits(units, info) {
    store.set({ window: clampWindow(units) }, info);
  }

  function setFilter(filter, info = { from: "user" }) {
    store.set({ filter: { op: filter.op ?? null, where: filter.where ?? null } }, info);
  }

  function setSkipNotReady(on, info = { from: "user" }) {
    store.set({ skipNotReady: Boolean(on) }, info);
  }

  function doStep(direction) {
    const started = performance.now();
    const state = store.get();
    if (!steps) steps = stepList(view.model, state.filter, state.skipNotReady);
    const next = step(view.model, steps, state.selected, direction);
    if (next >= 0) select(next, { reveal: true });          // a step is followed: panes may scroll to it
    measure("rlviz:step", started);
    return next;
  }

  function zoomToSelection() {
    const m = view.model, i = store.get().selected;
    if (i < 0) return;
    let a = m.start[i], b = a + m.duration[i];
    for (let k = m.inOffsets[i]; k < m.inOffsets[i + 1]; k++) a = Math.min(a, m.start[m.inputs[k]]);
    for (let k = m.outOffsets[i]; k < m.outOffsets[i + 1]; k++) {
      const c = m.outputs[k];
      b = Math.max(b, m.start[c] + m.duration[c]);
    }
    const pad = Math.max((b - a) * 0.15, 50 / Math.max(meta.unit_ns, 1));
    setWindowUnits([a - pad, b + pad], { from: "user" });
  }

  const host_ = { from: "host" };
  return {
    get state() { return store.get(); },
    /** The model the panes draw (a live view replaces it when the structure changes or the window trims it). */
    get model() { return view.model; },
    root,
    store,
    /** Select trace index `i` (-1 for none) without telling the host. */
    setSelected(i) { select(Number(i), { from: "host" }); },
    /** Show [a, b] ms since the trace start without telling the host. */
    setWindow([a, b]) { setWindowUnits([a / model.unitMs, b / model.unitMs], host_); },
    /** Filter to op / lane (null for any) without telling the host. */
    setFilter(filter) { setFilter(filter, host_); },
    /** Step over not-ready calls (or not) without telling the host. */
    setSkipNotReady(on) { setSkipNotReady(on, host_); },
    /** Show an error message in the view (empty to hide it). */
    showError(message) { store.set({ error: message || "" }, host_); },
    /** Live views: append one chunk of new events (see rlviz.viz.explorer_stream). */
    append(message, chunkBuffers) {
      if (!live) throw new Error("append() needs a live view (a payload whose meta says live)");
      append(message, chunkBuffers);
    },
    /** Live views: show the run's status (count, rate, counters, return curve, running or not) at the next frame. */
    setLive,
    /** Live views: draw what was appended (and the status) now rather than at the next frame. */
    drawNow() {
      cancelFrame(frame);
      frame = 0;
      drawQueued();
    },
    destroy() {
      unsubscribe();
      clearTimeout(ordering);
      clearTimeout(windowTimer);
      cancelFrame(frame);
      if (resize) resize.disconnect();
      for (const pane of panes) pane.destroy();
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

/** Split one blob into the stream's buffers: each chunk's columns, in order. */
export function splitChunks(meta, bytes) {
  const buffers = [];
  let at = 0;
  for (const chunk of meta.chunks || []) {
    for (const spec of chunk.columns) {
      for (const size of spec.chunks) { buffers.push(bytes.subarray(at, at + size)); at += size; }
    }
  }
  return buffers;
}

/** How long a view waits for its data before it shows the picture saved with the widget instead. */
export const PICTURE_DELAY_MS = 1000;

/**
 * Show the widget's saved picture (its `_picture` trait, PNG bytes) in `el`, if it has one: what a
 * notebook reopened from its saved widget state shows, where no kernel answers the view's "ready".
 * Returns a function that frees the picture's URL.
 */
function showSavedPicture(el, model) {
  const picture = model.get("_picture");
  if (!picture || !picture.byteLength) return () => {};
  const bytes = new Uint8Array(picture.buffer, picture.byteOffset, picture.byteLength);
  const url = URL.createObjectURL(new Blob([bytes], { type: "image/png" }));
  const box = make("div", "rlviz-picture", "picture");
  const note = make("div", "rlviz-picture-note", null,
    "A picture of this view, saved with the notebook: run the cell in a kernel to explore it.");
  Object.assign(note.style, { color: "#555", fontStyle: "italic", fontSize: "12px", margin: "4px 0" });
  const image = make("img");
  image.style.maxWidth = "100%";
  image.src = url;
  image.alt = "the view's timeline";
  box.append(note, image);
  el.replaceChildren(box);
  return () => URL.revokeObjectURL(url);
}

/** anywidget entry point: the Python side sends the payload when the view says it is ready. */
function render({ model, el }) {
  let view = null, freePicture = () => {};
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
          onCommand(name, extra) { model.send({ ...extra, type: "command", command: name, view: token }); },
          onChange(state) {
            if (message.meta.live) return;        // a live view's selection stays in the page
            model.set("selected", state.selected);
            model.set("window", state.window);
            model.set("op", state.op);
            model.set("where", state.where);
            model.set("skip_not_ready", state.skipNotReady);
            model.save_changes();
          },
        });
        if (message.meta.live) return;            // the events follow as appends addressed to this view
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
      } else if (message.type === "append") {
        if (message.view === token && view) view.append(message.meta, buffers);
      } else if (message.type === "status") {
        if (view && view.setLive) view.setLive(message.status);
        if (view && message.status.error) view.showError(message.status.error);
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
  const waiting = setTimeout(() => { if (!view) freePicture = showSavedPicture(el, model); }, PICTURE_DELAY_MS);
  return () => {
    clearTimeout(waiting);
    freePicture();
    model.off("msg:custom", onMessage);
    for (const [event, handler] of Object.entries(follow)) model.off(event, handler);
    if (view) view.destroy();
  };
}

export default { render };
