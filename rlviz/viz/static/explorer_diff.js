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
 * The event of model `other` that stands for trace event `id` of `model`: when `id` is the k-th call
 * (in start order) of its node in `model`, the k-th call of the matching node (`matchingNode`) in
 * `other`, or its last. Both are trace indices; a model may be a part of its run (a long trace's
 * chunks for the window shown), where k counts from the part's first call.
 * @returns {number} trace index in `other`'s run, -1 for none (`id` < 0 or not in `model`, or no call of that op in `other`)
 */
export function counterpart(model, id, other) {
  const i = partIndex(model, id);
  if (i < 0) return -1;
  const target = matchingNode(model.nodes, model.node[i], other.nodes);
  const row = target < 0 ? -1 : other.nodeRow[target];
  if (row < 0 || other.rowEnd[row] === other.rowStart[row]) return -1;
  const r = model.nodeRow[model.node[i]];
  let k = 0;
  while (model.rowStart[r] + k < model.rowEnd[r] && model.rowEvents[model.rowStart[r] + k] !== i) k++;
  return baseOf(other) + other.rowEvents[Math.min(other.rowStart[row] + k, other.rowEnd[row] - 1)];
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
 * @returns {{goToDivergence: function(): void, alignStarts: function(): void, offsetMs: number, destroy: function(): void}}
 */
export function linkRuns(runs, bar) {
  const link = { offsetMs: 0 };
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
    passOn(run.api, runs[1 - k].api, changed, state, k === 0 ? link.offsetMs : -link.offsetMs);
  }));
  link.goToDivergence = () => {
    if (!runs[0].divergence) return;
    const view = divergenceView(runs.map((run) => run.divergence.ms), runs.map((run) => callWidthMs(run)),
      runs.map((run) => run.spanMs));
    link.offsetMs = view.offsetMs;
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

/** Pass a change of run `from` by the user on to run `to`: window (shifted by `offsetMs`), filter, selection (a trace index). */
function passOn(from, to, changed, state, offsetMs) {
  if (changed.has("window")) to.setWindow(state.window.map((t) => t * from.model.unitMs + offsetMs));
  if (changed.has("filter")) to.setFilter(state.filter);
  if (changed.has("selected")) to.setSelected(counterpart(from.model, from.selectedId(), to.model));
}

/** How wide (ms) a window must be to show run `run`'s divergence call whole, with a margin. */
function callWidthMs({ api, divergence }) {
  const m = api.model, i = partIndex(m, divergence.event);
  return i >= 0 ? 3 * m.duration[i] * m.unitMs : 0;
}
