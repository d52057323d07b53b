// The Explorer: timeline, dataflow graph, order strip and inspector of an rlviz trace, drawn in
// the browser (canvas 2D and SVG). A small store holds the view's state; each pane redraws
// what the keys that changed touch. One module for the notebook widget (anywidget's `render`)
// and the standalone HTML file (`mountSaved`; two linked runs: `mountSavedDiff`), bundled by
// esbuild (js/build.mjs).
import { OUTCOMES, completionOrder, itemText, orderEvents } from "./explorer_core.js";
import { createActions } from "./explorer_actions.js";
import { CSS, make, measure } from "./explorer_dom.js";
import { ExtentGap, FOLLOW_MS, extendMeta, followWindow } from "./explorer_growing.js";
import { createKernelWatch, kernelLostText } from "./explorer_kernel.js";
import { DamagedPage, checkPacked, damagedText, savedJson } from "./explorer_saved.js";
import { chunksFor, levelsFromOverview, mostChunks } from "./explorer_levels.js";
import { baseOf, createLod, inflate, modelOf, partIndex, unpackChunk } from "./explorer_long.js";
import { createStore } from "./explorer_store.js";
import { createGraph } from "./panes/graph.js";
import { createInspector } from "./panes/inspector.js";
import { createLiveBar } from "./panes/livebar.js";
import { createOrder } from "./panes/order.js";
import { createTimeline } from "./panes/timeline.js";
import { createToolbar } from "./panes/toolbar.js";
import { DIFF_CSS, linkRuns } from "./explorer_diff.js";      // last: the bundle keeps its order of modules

/**
 * Whether a change of the store stops a live view's following: any zoom, pan or "zoom to selection"
 * by the user (a window the user set), or a selection the user made; the feed's own moves do not.
 */
export function stopsFollowing(changed, info) {
  return (changed.has("window") && (info.gesture || info.from === "user")) || (changed.has("selected") && info.from === "select");
}

/**
 * Mount the Explorer into `el` over a long trace's start meta (every page is one: mountLong mounts
 * it): no events yet, the models of the chunks its window needs shown as they come (showModel), drawn
 * from the levels of `host.lod` where no model holds the window. A growing run's page (meta.growing)
 * also has the live bar, and follows the run.
 * @param {HTMLElement} el  container (emptied)
 * @param {object} meta     the start meta (detail, overview, span_ms, events)
 * @param {object} host     {lod}: the trace's level of detail (explorer_long.js); {onChange(state)}: called
 *   when the user changes selection, window or filter; for a growing run (meta.growing), {onCommand(name)}:
 *   called with "pause", "resume" or "stop"; for a diff's run, {divergence}: where its op order first
 *   differs from the other run's ({ms, event, index, op}), which its timeline marks
 * @returns {object} {setSelected, setWindow, setFilter, setSkipNotReady, showError, showDamaged, setLive, drawNow,
 *   setKernelNote,
 *   showModel, setEnd, destroy, state, model, root, store}
 */
function mountExplorer(el, meta, host) {
  el.replaceChildren();
  const growing = Boolean(meta.growing);
  const model = modelOf(meta, [], []);
  const root = make("div", "rlviz-explorer", "explorer");
  root.tabIndex = 0;
  root.appendChild(make("style", null, null, CSS));
  el.appendChild(root);
  const end = meta.span_ms / (meta.unit_ns / 1e6);         // the whole run's: its model holds a part of it
  const view = { meta: model.meta, model, root, full: [0, Math.max(end, 1)], describe: (i) => describe(view.model, i, baseOf(view.model)),
    command: (name, extra) => host.onCommand?.(name, extra), lod: host.lod, divergence: host.divergence ?? null,
    selection: -1 };
  /** The selected event's trace index (-1: none), kept while the part loaded lacks it. */
  view.selectedId = () => view.selection;
  view.store = createStore({ window: view.full.slice(), selected: -1, selectedId: -1, hover: -1,
    filter: { op: null, where: null }, skipNotReady: false, hideOthers: false, matches: null, width: 0, orderWidth: 0,
    order: null, error: "", damaged: "", data: 0, rows: 0, follow: growing, followSpan: null, live: null, advanced: null });
  view.actions = createActions(view, host);
  const { panes, timeline, lower } = mountPanes(root, view, growing);
  const unsubscribe = view.store.subscribe((changed, state, info) => {
    view.actions.forget(changed);
    if (state.follow && stopsFollowing(changed, info)) view.store.set({ follow: false }, { from: "follow" });
    for (const pane of panes) pane.update(changed, info);
    if (info.from === "user") view.actions.notify(changed, state);
  });
  const resize = watchWidths(view.store, timeline.element, lower);
  // completion order (a sort of every end time) is ready a moment after the first frame
  const ordering = setTimeout(() => { completionOrder(view.model); view.store.set({ order: orderEvents(view.model) }); }, 0);
  const api = hostApi(view, () => {
    unsubscribe();
    clearTimeout(ordering);
    view.actions.destroy();
    resize?.disconnect();
    for (const pane of panes) pane.destroy();
    el.replaceChildren();
  });
  root.rlvizExplorer = api;      // the mounted Explorer, from its element (for a debugger, and the browser tests)
  return api;
}

/**
 * Mount two runs side by side (rlviz.diff's page): one Explorer per run, each in its own
 * `[data-rlviz=run]` under its name, one above the other, linked by `linkRuns` (explorer_diff.js).
 * @param {HTMLElement} el  container (emptied)
 * @param {Array} runs  [{name, divergence, meta, overview, source}]: each run's long trace, as mountLong takes it
 * @returns {object} {runs: the two mountLong APIs, link: linkRuns', root, destroy, levelsReady: both runs' levels drawn}
 */
export function mountDiff(el, runs) {
  el.replaceChildren();
  const root = make("div", "rlviz-diff", "diff");
  const bar = make("div", "rlviz-diff-bar", "diff-bar");
  root.append(make("style", null, null, DIFF_CSS), bar);
  el.appendChild(root);
  const mounted = runs.map((run, k) => {
    const section = make("section", "rlviz-run", "run");
    section.dataset.rlvizRun = String(k);
    const host = make("div");
    section.append(make("h3", "rlviz-run-name", "run-name", run.name), host);
    root.appendChild(section);
    const api = mountLong(host, run.meta, run.overview, run.source, { divergence: run.divergence });
    return { name: run.name, divergence: run.divergence, spanMs: run.meta.span_ms, api };
  });
  const link = linkRuns(mounted, bar);
  const api = { runs: mounted.map((run) => run.api), link, root,
    levelsReady: Promise.all(mounted.map((run) => run.api.levelsReady)),
    destroy() {
      link.destroy();
      for (const run of mounted) run.api.destroy();
      el.replaceChildren();
    } };
  root.rlvizDiff = api;
  return api;
}

/** The panes, top to bottom: toolbar, timeline, then graph, order and inspector side by side, and a live view's bar. */
function mountPanes(root, view, live) {
  const toolbar = createToolbar(root, view);
  const timeline = createTimeline(root, view);
  const lower = make("div", "rlviz-lower");
  root.appendChild(lower);
  const panes = [toolbar, timeline, createGraph(lower, view), createOrder(lower, view), createInspector(lower, view)];
  if (live) panes.push(createLiveBar(root, timeline.element, view));
  return { panes, timeline, lower };
}

/** Widths are read here only (reading layout inside a draw would force the page to reflow); returns the observer. */
function watchWidths(store, timeline, lower) {
  if (typeof ResizeObserver === "undefined") return null;
  const resize = new ResizeObserver(() => {
    const width = timeline.clientWidth;
    if (width && width !== store.get().width) store.set({ width, orderWidth: lower.children[1].clientWidth }, { from: "layout" });
  });
  resize.observe(timeline);
  return resize;
}

/** What the tooltip and the inspector say of event `i`; `base` is the trace position of the model's first event. */
function describe(m, i, base) {
  return { node: m.nodes[m.node[i]], outcome: OUTCOMES[m.flags[i] & 3], item: itemText(m, i), index: base + i,
    startMs: m.start[i] * m.unitMs, durationMs: m.duration[i] * m.unitMs };
}

/** What the host (the widget, a page's script) holds of a mounted view; its changes are not reported back to it. */
function hostApi(view, destroy) {
  const { store, actions } = view, quiet = { from: "host" }, unitMs = view.model.unitMs;
  return {
    get state() { return store.get(); },
    /** The selected event's trace index, -1 for none (a long trace's page: whether or not its part is loaded). */
    selectedId: () => view.selectedId(),
    /** The model the panes draw (a live view replaces it when the structure changes or the window trims it). */
    get model() { return view.model; },
    root: view.root,
    store,
    /**
     * Select trace index `i` (-1 for none) without telling the host. A long trace's page whose part
     * lacks the event keeps it selected, and shows it once a part holding it is loaded.
     */
    setSelected(i) {
      const id = Number(i) >= 0 ? Number(i) : -1;
      view.lod.hold(id);
      actions.select(partIndex(view.model, id), { from: "host", id });
      if (id >= 0 && partIndex(view.model, id) < 0) view.lod.request(store.get().window);
    },
    /** Show [a, b] ms since the trace start without telling the host. */
    setWindow([a, b]) { actions.setWindow([a / unitMs, b / unitMs], quiet); },
    /** Filter to op / lane (null for any) without telling the host. */
    setFilter(filter) { actions.setFilter(filter, quiet); },
    /** Step over not-ready calls (or not) without telling the host. */
    setSkipNotReady(on) { actions.setSkipNotReady(on, quiet); },
    /** Show an error message in the view (empty to hide it). */
    showError(message) { store.set({ error: message || "" }, quiet); },
    /** Say that a part of a saved page the view loaded is damaged, and what to do ([data-rlviz=damaged]). */
    showDamaged(message) { store.set({ damaged: message || "" }, quiet); },
    /** Live views: show the run's status (count, rate, counters, return curve, running or not). */
    setLive(status) { store.set({ live: status }, { from: "append" }); },
    /** Draw again what is there (a view moved into another output). */
    drawNow() { store.set({ data: store.get().data + 1 }, { from: "append" }); },
    /**
     * A growing run's end moved to `end` (time units): the whole run's range grows, and while the view
     * follows the run its window shows the newest FOLLOW_MS (or what it set by an advance's zoom).
     */
    setEnd(end) {
      view.full[1] = Math.max(end, 1);
      const state = store.get();
      const span = state.followSpan ?? (FOLLOW_MS * 1e6) / view.meta.unit_ns;
      const window = followWindow(state.window, view.full[1], state.follow, span);
      store.set(window === state.window ? { data: state.data + 1 } : { data: state.data + 1, window }, { from: "append" });
    },
    /**
     * Draw `model` from now on (a long trace's part for the window shown); the selection stays on its
     * event (a trace index), shown when the new part holds it. Without a model, draw again what is there
     * (new levels came).
     */
    showModel(model = null) {
      const state = store.get();
      if (!model) { store.set({ data: state.data + 1 }, { from: "append" }); return; }
      view.model = model;
      view.meta = model.meta;
      store.set({ data: state.data + 1, rows: state.rows + 1, hover: -1, order: null,
        selected: partIndex(model, view.selection) }, { from: "append" });
      // completion order (a sort of every end time) a moment after the frame, as at mount
      setTimeout(() => { if (view.model === model) store.set({ order: orderEvents(model) }, { from: "append" }); }, 0);
    },
    /**
     * Say the kernel is gone ([data-rlviz=kernel], over the toolbar), empty to take it back; what the
     * view shows stays, and a live run's bar says it stopped.
     */
    setKernelNote(text) {
      let note = view.root.querySelector(':scope > [data-rlviz="kernel"]');
      if (!text) { note?.remove(); return; }
      if (!note) {
        note = make("div", "rlviz-banner", "kernel");
        view.root.insertBefore(note, view.root.children[1] ?? null);
      }
      note.textContent = text;
      const live = store.get().live;
      if (live?.running) store.set({ live: { ...live, running: false, paused: false } }, quiet);
    },
    destroy,
  };
}

/** Decode base64 text into bytes (as a page's script gets binary data in JSON). */
export function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  return bytes;
}

/** RFC 1924's base85 alphabet with "." for "<" (rlviz.viz.explorer_html.encode_blob). */
const BASE85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;.=>?@^_`{|}~";
/** Each ASCII character's base85 digit, 255 for a character outside the alphabet. */
const BASE85_DIGIT = new Uint8Array(128).fill(255);
for (let k = 0; k < 85; k++) BASE85_DIGIT[BASE85.charCodeAt(k)] = k;

/**
 * Decode the standalone file's base85 text (rlviz.viz.explorer_html.encode_blob) into bytes. One
 * table look-up per character and no per-character branch on the group: about half the CPU time of a
 * character loop (0.2 s for 22 MB of text in node).
 */
export function base85Bytes(text) {
  const length = text.length, full = Math.floor(length / 5), tail = length % 5;
  const bytes = new Uint8Array((full + (tail ? 1 : 0)) * 4);
  const digit = (k) => {
    const code = k < length ? text.charCodeAt(k) : 126;                 // the last group is padded with "~"
    const value = code < 128 ? BASE85_DIGIT[code] : 255;
    if (value === 255) throw new Error(`the embedded data has ${JSON.stringify(text[k])} at ${k}: not base85`);
    return value;
  };
  for (let g = 0; g < full + (tail ? 1 : 0); g++) {
    const k = 5 * g, v = (((digit(k) * 85 + digit(k + 1)) * 85 + digit(k + 2)) * 85 + digit(k + 3)) * 85 + digit(k + 4);
    const at = 4 * g;
    bytes[at] = v >>> 24;
    bytes[at + 1] = (v >>> 16) & 255;
    bytes[at + 2] = (v >>> 8) & 255;
    bytes[at + 3] = v & 255;
  }
  return tail ? bytes.subarray(0, bytes.length - (5 - tail)) : bytes;
}

/**
 * Mount a saved page (rlviz.viz.write_html) into `host` from the document's #rlviz-meta, #rlviz-view,
 * #rlviz-overview and #rlviz-detail-K elements (a long trace's page: mountLong, whatever the trace's
 * length), checked first (explorer_saved.js): the overview, and the detail chunks when the whole run
 * needs few enough to be drawn exactly; the others when the window first needs them. A damaged file
 * (cut short, changed after it was written) shows what is wrong and what to do ([data-rlviz=damaged])
 * instead of the view, and returns null.
 * @param {HTMLElement} host  the page's root element
 * @param {Document} doc
 * @returns {object|null} the mounted Explorer (see mountLong), or null
 */
export function mountSaved(host, doc = document) {
  let run, view;
  try {
    run = savedRun(doc, "");
    view = savedJson(doc.getElementById("rlviz-view")?.textContent ?? "{}", "view");
  } catch (error) {
    return showDamaged(host, error);
  }
  const explorer = mountLong(host, run.meta, run.overview, run.source);
  if (view.op != null || view.where != null) explorer.setFilter({ op: view.op, where: view.where });
  if (view.skip_not_ready) explorer.setSkipNotReady(true);
  if (view.window && view.window[1] > view.window[0]) explorer.setWindow(view.window);
  if (view.selected != null && view.selected >= 0) explorer.setSelected(view.selected);
  return explorer;
}

/**
 * One long trace of a saved page, checked (a DamagedPage if not): its meta (#rlviz-meta + `suffix`),
 * its packed overview, and its detail chunks when the run is held whole; `source` gives the others,
 * checked when first needed. A single run's page has the suffix "", a diff's runs "-0" and "-1".
 * @returns {{meta: object, overview: Uint8Array, source: object}} what mountLong takes
 */
function savedRun(doc, suffix) {
  const meta = savedJson(doc.getElementById(`rlviz-meta${suffix}`)?.textContent);
  if (!Array.isArray(meta.detail)) throw new DamagedPage(`the trace's description (#rlviz-meta${suffix}) lists no detail chunks`);
  const overview = packedOverview(meta, doc, suffix);
  return { meta, overview, source: savedChunks(meta, doc, suffix, wholeRunChunks(meta, doc, suffix)) };
}

/**
 * A long trace's overview, checked: its element's bytes (base85 of deflate) are as many as the meta
 * announces and match their Adler-32; the last detail chunk's element is there (a file cut short
 * lacks it). Each detail chunk is checked the same way when the page first needs it.
 */
function packedOverview(meta, doc, suffix) {
  const last = meta.detail.length - 1;
  if (last >= 0) {
    const id = `rlviz-detail${suffix}-${last}`, element = doc.getElementById(id);
    if (!element) throw new DamagedPage(`its last detail chunk (#${id}) is missing: the file was cut short`);
    const length = element.textContent.trim().length, expected = base85Length(meta.detail[last].packed.bytes);
    if (length !== expected) {
      throw new DamagedPage(`its last detail chunk (#${id}) holds ${length.toLocaleString("en-US")} `
        + `characters where ${expected.toLocaleString("en-US")} were written: the file was `
        + `${length < expected ? "cut short" : "changed after it was written"}`);
    }
  }
  return packedBytes(doc, `rlviz-overview${suffix}`, meta.overview.packed, "its overview");
}

/**
 * Mount a saved diff page (rlviz.viz.diff_html) into `host`: each run a long trace (#rlviz-meta-K,
 * #rlviz-overview-K, #rlviz-detail-K-J), checked as a saved page's is (savedRun). A damaged run shows
 * what is wrong, naming the run, and what to do ([data-rlviz=damaged]) instead of both runs, and
 * returns null; a chunk of a run too long to be held whole is checked when its window first needs it,
 * and its own Explorer says so if it is damaged.
 * @param {HTMLElement} host  the page's root element
 * @param {Document} doc
 * @returns {object|null} the mounted diff (see mountDiff), or null
 */
export function mountSavedDiff(host, doc = document) {
  let runs;
  try {
    runs = savedJson(doc.getElementById("rlviz-runs")?.textContent, "runs").map((run, k) => {
      try {
        return { ...run, ...savedRun(doc, `-${k}`) };
      } catch (error) {
        throw error instanceof DamagedPage ? new DamagedPage(`run ${k + 1} (${run.name}): ${error.message}`) : error;
      }
    });
  } catch (error) {
    return showDamaged(host, error);
  }
  return mountDiff(host, runs);
}

/** Show a DamagedPage's words in `host` ([data-rlviz=damaged]) and return null; any other error goes on up. */
function showDamaged(host, error) {
  if (!(error instanceof DamagedPage)) throw error;
  const box = make("div", null, "damaged", damagedText(error.message));
  Object.assign(box.style, { background: "#fdecea", borderLeft: "4px solid #d62728", padding: "6px 10px", margin: "4px 0" });
  host.replaceChildren(box);
  return null;
}

/** Characters of the base85 text of `bytes` bytes (five per four, a last partial group one more than its bytes). */
export function base85Length(bytes) {
  return 5 * Math.floor(bytes / 4) + (bytes % 4 ? (bytes % 4) + 1 : 0);
}

/** The packed bytes of element `id`, checked against their announced size and Adler-32 (a DamagedPage if not). */
function packedBytes(doc, id, size, what) {
  const element = doc.getElementById(id);
  if (!element) throw new DamagedPage(`${what} (#${id}) is missing: the file was cut short`);
  let bytes;
  try { bytes = base85Bytes(element.textContent.trim()); } catch (error) { throw new DamagedPage(`${what}: ${error.message}`); }
  checkPacked(bytes, size, Number(element.dataset.adler32), what);
  return bytes;
}

/** A detail chunk's packed bytes from its element, checked. */
function detailBytes(meta, doc, suffix, k) {
  return packedBytes(doc, `rlviz-detail${suffix}-${k}`, meta.detail[k].packed.bytes, `its detail chunk ${k}`);
}

/**
 * The packed bytes of every detail chunk, checked, when the run is held whole (mostChunks: it opens
 * on all its events); else none yet.
 */
function wholeRunChunks(meta, doc, suffix) {
  const checked = new Map(), all = chunksFor(meta.detail, -Infinity, Infinity, mostChunks(meta.detail));
  for (let k = all ? all[0] : 0; all && k <= all[1]; k++) checked.set(k, detailBytes(meta, doc, suffix, k));
  return checked;
}

/**
 * A long trace's saved chunks: chunk k decoded from its own element when first needed (or taken from
 * those `checked` at mount), checked, inflated.
 */
function savedChunks(meta, doc, suffix, checked) {
  return {
    async chunk(k) {
      const bytes = checked.get(k) ?? detailBytes(meta, doc, suffix, k);
      checked.delete(k);
      return { chunk: meta.detail[k], buffers: unpackChunk(meta.detail[k], await inflate(bytes)) };
    },
  };
}

/**
 * Mount a trace: what every page calls (saved, notebook, diff, growing). The Explorer over no events
 * yet, its levels once the packed `overview` is inflated, and the detail chunks its window needs,
 * asked of `source` (a saved page's elements, or a notebook's kernel) after the window rests
 * `delayMs` (explorer_long.js). A chunk that cannot be had says so in the view.
 * @param {HTMLElement} el  container (emptied)
 * @param {object} meta  the start meta (detail, overview)
 * @param {Uint8Array} overview  the packed overview
 * @param {object} source  {chunk(k): Promise<{chunk, buffers}>}
 * @param {object} host  as mountExplorer's, less its `lod` (made here); for a growing run also
 *   {onStreamGap(error)}: an extent did not follow what the page holds
 * @param {number} delayMs  how long the window rests before its chunks are asked for
 * @returns {object} the mounted Explorer's API (mountExplorer), with `lod` and `levelsReady` (a promise: the
 *   levels are drawn, and for a run held whole its events too)
 */
export function mountLong(el, meta, overview, source, host = {}, delayMs = 0) {
  let explorer = null, waiting = 0;
  const lod = createLod(meta, source, {
    onModel: (model) => explorer.showModel(model),
    onError: (error) => (error instanceof DamagedPage ? explorer.showDamaged(damagedText(error.message))
      : explorer.showError(`The Explorer failed: ${error && error.message ? error.message : error}`)),
  });
  explorer = mountExplorer(el, meta, { ...host, lod });
  explorer.lod = lod;
  explorer.store.subscribe((changed, state) => {
    if (!changed.has("window")) return;
    if (!delayMs) { lod.request(state.window); return; }
    clearTimeout(waiting);
    waiting = setTimeout(() => lod.request(explorer.state.window), delayMs);
  });
  lod.request(explorer.state.window);          // the first window's chunks, as any window's (none past a few chunks)
  const overviewMeta = meta.overview;
  const levels = inflate(overview).then((bytes) => {
    if (!lod.levels) lod.setLevels(levelsFromOverview(overviewMeta, bytes));     // a growing run's newer ones may be in
    if (!lod.holding()) explorer.showModel();  // a run held whole is drawn once, with its events, not from its levels first
  }).catch((error) => {
    lod.failed = true;
    explorer.showError(`The Explorer failed: its overview does not inflate: ${error.message}`);
  });
  explorer.levelsReady = lod.whole ? Promise.all([levels, lod.pending]) : levels;
  if (meta.growing) explorer.extend = extendWith(explorer, meta, lod, host);
  measure("rlviz:mount", performance.now(), { events: meta.events ?? meta.count });   // each start a page took
  return explorer;
}

/**
 * What a growing run's page does with each extent (explorer_growing.js) and its buffers (the levels
 * again, packed, when they changed): the meta brought up to date, the chunks that changed forgotten,
 * the levels replaced, the end moved (the window follows it), and the window's chunks asked for again.
 * An extent that does not follow what the page holds asks the host for the run again (onStreamGap), or
 * says so in the view when there is no host to ask.
 */
function extendWith(explorer, meta, lod, host) {
  let levels = 0;                      // the levels last sent: their number
  return (extent, buffers = []) => {
    let changed;
    try {
      changed = extendMeta(meta, extent);
    } catch (error) {
      if (!(error instanceof ExtentGap)) throw error;
      if (host.onStreamGap) host.onStreamGap(error);
      else explorer.showError(`The Explorer failed: ${error.message}`);
      return;
    }
    if (changed.repeated) return;
    if (changed.restructured || changed.changedFrom < meta.detail.length) lod.grown(changed.changedFrom, changed.restructured);
    if (changed.restructured) explorer.showModel(modelOf(meta, [], []));
    if (buffers.length) {
      const overview = extent.overview, mine = ++levels;     // the latest levels win: an older one may inflate later
      inflate(bytesOf(buffers[0])).then((bytes) => {
        if (mine !== levels) return;
        lod.setLevels(levelsFromOverview(overview, bytes));
        explorer.showModel();
      }).catch((error) => explorer.showError(`The Explorer failed: the run's levels do not inflate: ${error.message}`));
    }
    explorer.setEnd(extent.end);
    lod.request(explorer.state.window);
  };
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

/** The widget's traits a view follows when Python changes them: [event, handler] pairs. */
function followedTraits(model, current) {
  const setFilter = () => current()?.setFilter({ op: model.get("op"), where: model.get("where") });
  return [
    ["change:selected", () => { const view = current(); if (view && view.selectedId() !== model.get("selected")) view.setSelected(model.get("selected")); }],
    ["change:window", () => {
      const w = model.get("window");
      if (current() && w && w.length === 2 && w[1] > w[0]) current().setWindow(w);
    }],
    ["change:op", setFilter],
    ["change:where", setFilter],
    ["change:skip_not_ready", () => current()?.setSkipNotReady(model.get("skip_not_ready"))],
  ];
}

/** A saved trace's view starts where the widget's traits say (window, filter, selection), or tells Python its first window. */
function startFromTraits(view, model, meta) {
  const w = model.get("window");
  if (w && w.length === 2 && w[1] > w[0]) {
    view.setWindow(w);
  } else if (meta.count > 0) {        // tell Python the range shown at first
    model.set("window", [0, meta.span_ms]);
    model.save_changes();
  }
  view.setFilter({ op: model.get("op"), where: model.get("where") });
  view.setSkipNotReady(model.get("skip_not_ready"));
  if (model.get("selected") >= 0) view.setSelected(model.get("selected"));
}

/**
 * What a widget's view tells the kernel: commands, a saved trace's selection, window and filter as
 * traits, and "ready" again when a chunk went missing (once, until the stream starts over).
 */
function kernelHost(currentModel, token, meta, asking) {
  return {
    onCommand(name, extra) { currentModel().send({ ...extra, type: "command", command: name, view: token }); },
    onChange(state) {
      if (meta.growing) return;     // a watched run's selection stays in the page (a LiveView has no traits)
      const model = currentModel();
      model.set("selected", state.selected);
      model.set("window", state.window);
      model.set("op", state.op);
      model.set("where", state.where);
      model.set("skip_not_ready", state.skipNotReady);
      model.save_changes();
    },
    onStreamGap() {
      if (asking.now) return;
      asking.now = true;
      currentModel().send({ type: "ready", view: token });
    },
  };
}

/** A long trace's view asks its kernel for the chunks its window needs once the window rests this long. */
const KERNEL_DELAY_MS = 60;

/** The bytes of a message buffer (a DataView or ArrayBuffer) as a Uint8Array. */
function bytesOf(buffer) {
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * A long trace's chunks asked of the kernel (a "detail" message naming the chunk, and for a growing run's
 * tail the part the page holds its pieces up to: `from_part`), each answered by a "detail" message with
 * its meta and buffers (rlviz.widgets.TraceView, rlviz.widgets.LiveView).
 */
function askKernel(currentModel, token) {
  const waiting = new Map();         // "chunk:from_part" -> the resolve functions of those who asked
  return {
    chunk(k, after = null) {
      const from = after?.parts ? after.parts[1] : null;
      const key = `${k}:${from}`;
      return new Promise((resolve) => {
        if (!waiting.has(key)) {
          waiting.set(key, []);
          currentModel().send({ type: "detail", view: token, chunk: k, from_part: from });
        }
        waiting.get(key).push(resolve);
      });
    },
    answer(message, buffers) {
      const key = `${message.chunk}:${message.from_part ?? null}`;
      for (const resolve of waiting.get(key) ?? []) resolve({ chunk: message.meta, buffers });
      waiting.delete(key);
    },
  };
}

/**
 * Tell the kernel once `view`'s first frame is on screen (a long trace's: its levels drawn), by calling
 * `send`: the kernel draws the widget's saved picture only then, so that it never delays the page.
 */
function reportDrawn(view, send) {
  const drawn = view.levelsReady ?? Promise.resolve();
  drawn.then(() => requestAnimationFrame(() => { try { send(); } catch { /* the kernel is gone: nothing to draw */ } }));
}

/**
 * The Explorer of a widget's first message: a long trace's, whatever its length, its chunks asked of the
 * kernel as a saved page's are read from its file; a watched run's (meta.growing) grows with each extent.
 */
function mountShown(box, meta, buffers, kernelChunks, host) {
  return mountLong(box, meta, bytesOf(buffers[0]), kernelChunks, host, KERNEL_DELAY_MS);
}

/**
 * The views shown, by the widget's `_view_key`: when JupyterLab re-renders an output of the same
 * widget (the kernel's `update_display` once a watched run ended puts its picture in the saved
 * notebook), the new view takes over the old one, whose element just left the page: the Explorer
 * moves, with its data, zoom and selection, and the kernel sends nothing again.
 */
const SHOWN = new Map();

/** anywidget entry point: the Python side sends the payload when the view says it is ready. */
function render({ model, el }) {
  const key = model.get("_view_key");
  const orphan = key ? SHOWN.get(key) : undefined;
  const shown = orphan && !orphan.box.isConnected ? orphan : createShown(model, key);
  shown.attach(model, el);
  return () => shown.release(model);
}

/**
 * One Explorer of a widget, in its own box: the view, its name for the kernel (token) and the
 * handlers of the widget's messages and traits, attached to the model of the view that shows it.
 */
function createShown(model, key) {
  let view = null, freePicture = () => {}, current = model, handlers = [], renders = 0;
  const box = make("div", "rlviz-shown", "shown");
  const token = Math.random().toString(36).slice(2);   // custom messages reach every view: name ours
  const asking = { now: false };                       // a "ready" sent after a gap, not answered yet
  const showFailure = (error) => {
    const banner = make("div", "rlviz-banner", "error", `The Explorer failed: ${error && error.message ? error.message : error}`);
    if (view) view.showError(banner.textContent); else box.replaceChildren(banner);
  };
  const kernelChunks = askKernel(() => current, token);
  const messages = {
    payload(message, buffers) {
      if (message.view !== token) return;       // the answer to another view of the same widget
      view?.destroy();
      asking.now = false;
      const host = kernelHost(() => current, token, message.meta, asking);
      view = mountShown(box, message.meta, buffers, kernelChunks, host);
      if (!message.meta.growing) startFromTraits(view, current, message.meta);   // a LiveView has no traits
      reportDrawn(view, () => current.send({ type: "drawn", view: token }));
    },
    detail(message, buffers) { if (message.view === token) kernelChunks.answer(message, buffers); },
    extent(message, buffers) { if (message.view === token && view) view.extend(message.extent, buffers); },
    status(message) {
      view?.setLive(message.status);
      if (view && message.status.error) view.showError(message.status.error);
    },
    error(message) { if (view) view.showError(message.message); else showFailure(message.message); },
  };
  const kernel = createKernelWatch({
    ping: () => current.send({ type: "ping", view: token }),
    lost: () => {
      const text = kernelLostText(view ? view.model.n : 0, Boolean(view?.state.live));
      if (view) view.setKernelNote(text);
      else box.append(make("div", "rlviz-banner", "kernel", text));
    },
    found: () => view?.setKernelNote(""),
  });
  const onMessage = (message, buffers) => {
    kernel.heard();
    try { messages[message.type]?.(message, buffers); } catch (error) { showFailure(error); }
  };
  const onConnection = () => kernel.disconnected();     // ipywidgets: the kernel restarted, or died and restarted
  const waiting = setTimeout(() => { if (!view) freePicture = showSavedPicture(box, current); }, PICTURE_DELAY_MS);
  const shown = {
    box,
    /** Show in `el`, listening through `next` (the model of the view that shows it now). */
    attach(next, el) {
      const first = handlers.length === 0;
      for (const [event, handler] of handlers) current.off(event, handler);
      current = next;
      handlers = [["msg:custom", onMessage], ["comm_live_update", onConnection], ...followedTraits(current, () => view)];
      for (const [event, handler] of handlers) current.on(event, handler);
      el.replaceChildren(box);
      box.dataset.rlvizRenders = String(++renders);     // outputs that showed it: 2 once an output was re-rendered
      if (first) {
        if (key) SHOWN.set(key, shown);
        current.send({ type: "ready", view: token });
      } else {
        view?.drawNow();
      }
    },
    /** The view showing it is gone: free everything, unless another view took it over. */
    release(from) {
      if (from !== current) return;
      clearTimeout(waiting);
      kernel.destroy();
      freePicture();
      for (const [event, handler] of handlers) current.off(event, handler);
      handlers = [];
      view?.destroy();
      if (SHOWN.get(key) === shown) SHOWN.delete(key);
    },
  };
  return shown;
}

export default { render };
