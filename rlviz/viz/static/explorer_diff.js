// Two runs side by side (rlviz.diff, the page of rlviz.viz.explorer_html.diff_html): what links two
// mounted Explorers. Zoom, pan, selection and filter of one run move the other, in ms since each
// run's own start (shifted by an offset once the runs are brought to their first divergence); the
// first divergence is marked in each run's timeline (its divergence track, panes/divergence.js),
// and a button brings both runs to it. Each run is a long trace (mountLong): its model holds the part
// its window needs, so a selection crosses over as a trace index.
import { RULER_H, make } from "./explorer_dom.js";
import { baseOf, partIndex } from "./explorer_long.js";

/** The window the "first divergence" button opens: this share of the shorter run's span, at least. */
export const DIVERGENCE_SHARE = 0.04;

export const DIFF_CSS = `
.rlviz-diff-bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 4px 0 8px 0;
  font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; }
.rlviz-diff-bar button { font: inherit; padding: 1px 8px; cursor: pointer; }
.rlviz-diff-note { color: #555; }
.rlviz-run { margin: 0 0 10px 0; }
.rlviz-run-name { font: 600 13px system-ui, -apple-system, "Segoe UI", sans-serif; margin: 6px 0 3px 0; }
.rlviz-divergence { position: absolute; top: 0; bottom: 0; width: 0; border-left: 2px dashed #d62728;
  pointer-events: none; z-index: 2; }
.rlviz-divergence span { position: absolute; top: ${RULER_H + 2}px; left: 3px; background: #fdecea; color: #a31515;
  font: 10px system-ui, sans-serif; padding: 0 3px; white-space: nowrap; }
`;

/**
 * The node of `others` that stands for node `n` of `nodes`: the same op on the same lane (the
 * same one of several such nodes), else the same op on any lane.
 * @returns {number} index into `others`, -1 when no node there runs that op
 */
export function matchingNode(nodes, n, others) {
  const { op, where } = nodes[n];
  let nth = 0;
  for (let m = 0; m < n; m++) if (nodes[m].op === op && nodes[m].where === where) nth++;
  const same = [], sameOp = [];
  others.forEach((other, m) => {
    if (other.op !== op) return;
    sameOp.push(m);
    if (other.where === where) same.push(m);
  });
  const pool = same.length ? same : sameOp;
  return pool.length ? pool[Math.min(nth, pool.length - 1)] : -1;
}

/**
 * Which call of its node trace event `id` of `run` is, counted over the whole run: the calls of that node in
 * the detail chunks before the event's (their metas' `calls`), then those of its own chunk that start before
 * it (ties: the earlier trace index). A saved trace is in start order, so this is its rank in start order.
 * @param {object} run  {model, detail}: the model the page holds (a long trace's part, or the whole run) and the
 *   run's detail chunks (each {first_id, count, calls}); without `detail` the model is the whole run
 * @param {number} id  a trace index
 * @returns {{node: number, k: number}|null} its node and rank (from 0), null when `id` is none or not in the model
 */
export function callRank(run, id) {
  const { model, detail } = run;
  const i = partIndex(model, id);
  if (i < 0) return null;
  const node = model.node[i], base = baseOf(model);
  let lo = base, hi = base + model.n, before = 0;
  if (detail && detail.length) {
    const c = chunkIndexOf(detail, id);
    if (c < 0) return null;
    lo = detail[c].first_id;
    hi = lo + detail[c].count;
    for (let j = 0; j < c; j++) before += detail[j].calls?.[node] ?? 0;
  }
  const r = model.nodeRow[node];
  let within = 0;
  for (let p = model.rowStart[r]; p < model.rowEnd[r] && model.rowEvents[p] !== i; p++) {
    const e = base + model.rowEvents[p];
    if (e >= lo && e < hi) within++;
  }
  return { node, k: before + within };
}

/**
 * The `nth` call (from 0, in start order) of node `node` among `model`'s events with trace indices in [lo, hi).
 * @returns {number} its trace index, -1 when there are fewer
 */
export function nthCallIn(model, node, lo, hi, nth) {
  const r = node < model.nodeRow.length ? model.nodeRow[node] : -1;
  if (r < 0) return -1;
  const base = baseOf(model);
  let seen = 0;
  for (let p = model.rowStart[r]; p < model.rowEnd[r]; p++) {
    const e = base + model.rowEvents[p];
    if (e < lo || e >= hi) continue;
    if (seen === nth) return e;
    seen++;
  }
  return -1;
}

/**
 * The `k`-th call (from 0, as `callRank` counts) of node `node` over the whole `run` ({model, detail} as
 * `callRank`'s), or its last call when it makes fewer: a trace index when the model holds the chunk it is in,
 * else where to find it once that chunk is loaded (`nthCallIn(chunk's model, node, lo, hi, nth)`).
 * @returns {number|{chunk: number, node: number, lo: number, hi: number, nth: number}} -1 when it makes no call
 */
export function kthCall(run, node, k) {
  const { model, detail } = run;
  if (!detail || !detail.length) {
    const r = node < model.nodeRow.length ? model.nodeRow[node] : -1;
    if (r < 0 || model.rowEnd[r] === model.rowStart[r]) return -1;
    return baseOf(model) + model.rowEvents[Math.min(model.rowStart[r] + k, model.rowEnd[r] - 1)];
  }
  const calls = detail.map((chunk) => chunk.calls?.[node] ?? 0);
  const total = calls.reduce((sum, c) => sum + c, 0);
  if (!total) return -1;
  let nth = Math.min(k, total - 1), c = 0;
  while (nth >= calls[c]) nth -= calls[c++];
  const lo = detail[c].first_id, hi = lo + detail[c].count, base = baseOf(model);
  if (lo >= base && hi <= base + model.n) return nthCallIn(model, node, lo, hi, nth);
  return { chunk: c, node, lo, hi, nth };
}

/**
 * The event of run `other` that stands for trace event `id` of run `run` (each {model, detail} as `callRank`'s):
 * when `id` is the k-th call of its node over its whole run, the k-th call of the matching node
 * (`matchingNode`) over the other's whole run, or its last; exact whatever part of each run its page holds.
 * @returns {number|object} a trace index in `other`'s run (-1 for none: `id` is none or not in the model, or
 *   `other` ran no call of that op), or, when `other`'s model lacks the chunk it is in, where to find it (`kthCall`)
 */
export function counterpart(run, id, other) {
  const rank = callRank(run, id);
  if (!rank) return -1;
  const target = matchingNode(run.model.nodes, rank.node, other.model.nodes);
  return target < 0 ? -1 : kthCall(other, target, rank.k);
}

/** The detail chunk holding trace index `id` (chunks are consecutive by `first_id`), -1 for none. */
function chunkIndexOf(detail, id) {
  let lo = 0, hi = detail.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (detail[mid].first_id <= id) lo = mid; else hi = mid - 1;
  }
  const chunk = detail[lo];
  return id >= chunk.first_id && id < chunk.first_id + chunk.count ? lo : -1;
}

/**
 * The windows that bring both runs to their first divergence, one width for both (so they stay
 * linked at the same scale): centred on each run's time of it.
 * @param {number[]} times   ms since each run's start at which its divergence item was made
 * @param {number[]} widths  ms each run needs to show its divergence call with its producers and consumers
 * @param {number[]} spans   each run's span in ms
 * @returns {{windows: number[][], offsetMs: number}} the window of each run, and the second's
 *   time minus the first's (what linking adds to go from the first run to the second)
 */
export function divergenceView(times, widths, spans, share = DIVERGENCE_SHARE) {
  const width = Math.max(...widths, Math.min(...spans) * share, 1e-3);
  return { windows: times.map((t) => [t - width / 2, t + width / 2]), offsetMs: times[1] - times[0] };
}

/** What the diff bar says of the divergence: `runs` [{name, divergence}] (divergence null when the order never differs). */
export function divergenceText(runs) {
  const [a, b] = runs;
  if (!a.divergence) return "The two runs made their items in the same op order (as far as the shorter one went).";
  return `The op order diverges at item ${a.divergence.index}: ${a.name} made ${a.divergence.op}, `
    + `${b.name} made ${b.divergence.op}.`;
}

/** What the diff bar says of how the runs are linked (`offsetMs`: second run's time minus the first's). */
export function alignmentText(runs, offsetMs) {
  if (offsetMs === 0) return "Zoom, pan and selection are linked, in ms since each run's start.";
  const sign = offsetMs > 0 ? "+" : "−";
  return `Zoom, pan and selection are linked, ${runs[1].name} shifted by ${sign}${Math.abs(offsetMs).toPrecision(4)} ms `
    + "to line up the first divergence.";
}

/**
 * Link two mounted Explorers and fill the diff bar: the button that brings
 * both runs to it, and a button that lines up the runs' starts again.
 * @param {Array} runs  [{name, divergence, spanMs, api}] where `api` is mountLong's and `spanMs` the run's span
 * @param {HTMLElement} bar  the bar over the runs
 * @returns {{goToDivergence: function(): void, alignStarts: function(): void, offsetMs: number, destroy: function(): void,
 *   selecting: number, passed: Promise}} `selecting` numbers the selections passed on (the latest wins), `passed`
 *   resolves once the latest is selected in the other run (to its trace index, or null when dropped)
 */
export function linkRuns(runs, bar) {
  const link = { offsetMs: 0, selecting: 0, passed: Promise.resolve(null) };
  const note = make("span", "rlviz-diff-note", "alignment");
  const toDivergence = make("button", null, "to-divergence", "Go to the first divergence");
  const alignStarts = make("button", null, "align-starts", "Line up the starts");
  toDivergence.disabled = !runs[0].divergence;
  bar.append(make("span", "rlviz-diff-note", "divergence-text", divergenceText(runs)), toDivergence, alignStarts, note);
  const showAlignment = () => { note.textContent = alignmentText(runs, link.offsetMs); };
  showAlignment();
  const unsubscribe = runs.map((run, k) => run.api.store.subscribe((changed, state, info) => {
    // set by this link or the page, or a long trace's part arriving (its selection found in it): not passed on
    if (info.from === "host" || info.from === "append") return;
    passOn(run.api, runs[1 - k].api, changed, state, k === 0 ? link.offsetMs : -link.offsetMs, link);
  }));
  link.goToDivergence = () => {
    if (!runs[0].divergence) return;
    const view = divergenceView(runs.map((run) => run.divergence.ms), runs.map((run) => callWidthMs(run)),
      runs.map((run) => run.spanMs));
    link.offsetMs = view.offsetMs;
    link.selecting++;                        // a selection still being found in the other run is dropped
    runs.forEach((run, k) => {
      run.api.setWindow(view.windows[k]);
      run.api.setSelected(run.divergence.event);
    });
    showAlignment();
  };
  link.alignStarts = () => {
    link.offsetMs = 0;
    const first = runs[0].api, unitMs = first.model.unitMs;
    runs[1].api.setWindow(first.state.window.map((t) => t * unitMs));
    showAlignment();
  };
  toDivergence.addEventListener("click", link.goToDivergence);
  alignStarts.addEventListener("click", link.alignStarts);
  link.destroy = () => { for (const stop of unsubscribe) stop(); };
  return link;
}

/**
 * Pass a change of run `from` by the user on to run `to`: window (shifted by `offsetMs`), filter, selection
 * (`passSelection`).
 */
function passOn(from, to, changed, state, offsetMs, link) {
  if (changed.has("window")) to.setWindow(state.window.map((t) => t * from.model.unitMs + offsetMs));
  if (changed.has("filter")) to.setFilter(state.filter);
  if (changed.has("selected")) link.passed = passSelection(from, to, link);
}

/**
 * Select in run `to` the event that stands for `from`'s selected one (`counterpart`). When `to` lacks the chunk
 * it is in, that chunk is loaded first; an answer that comes after another selection (in either run, or by the
 * divergence button) is dropped. Resolves to the trace index selected, or null when dropped.
 */
export function passSelection(from, to, link) {
  const mine = ++link.selecting;
  const found = counterpart(runOf(from), from.selectedId(), runOf(to));
  if (typeof found === "number") {
    to.setSelected(found);
    return Promise.resolve(found);
  }
  return to.lod.chunkModel(found.chunk).then((model) => {
    if (mine !== link.selecting) return null;
    const id = nthCallIn(model, found.node, found.lo, found.hi, found.nth);
    to.setSelected(id);
    return id;
  }, (error) => {
    if (mine !== link.selecting) return null;
    const why = error && error.message ? error.message : error;
    to.showError(`The Explorer failed to find the call matching the other run's: ${why}`);
    return null;
  });
}

/** A mounted long Explorer's run as `counterpart` reads it: the model it holds and the run's detail chunks. */
function runOf(api) {
  return { model: api.model, detail: api.lod ? api.lod.detail : null };
}

/** How wide (ms) a window must be to show run `run`'s divergence call whole, with a margin. */
function callWidthMs({ api, divergence }) {
  const m = api.model, i = partIndex(m, divergence.event);
  return i >= 0 ? 3 * m.duration[i] * m.unitMs : 0;
}
