// What a reader (or the host) can do to an Explorer view, as changes of its store: select, step,
// filter, zoom. Free of the DOM: each action reads the view's model and sets the store, and the
// panes redraw what the keys that changed touch. The host hears of the user's changes (`notify`).
import { searchEvents, searchStep, step, stepList } from "./explorer_core.js";
import { measure } from "./explorer_dom.js";
import { baseOf } from "./explorer_long.js";

const NOTIFY_WINDOW_MS = 150;       // a zoom or pan tells the host once it pauses

/**
 * The window [a, b] (time units) kept inside what can be shown: at least 10 ns wide, at most the
 * whole trace plus half of it on each side, and never further than that half outside it.
 * @param {number[]} window  the window asked for
 * @param {number[]} full    the trace's extent [0, end]
 * @param {number} unitNs    nanoseconds per time unit
 * @returns {number[]} the window to show
 */
export function clampWindow([a, b], full, unitNs) {
  const minimum = 10 / Math.max(unitNs, 1);
  if (!(b - a >= minimum)) { const mid = (a + b) / 2; a = mid - minimum / 2; b = mid + minimum / 2; }
  const span = full[1] - full[0], extra = span * 0.5;
  if (b - a > span + 2 * extra) { a = full[0] - extra; b = full[1] + extra; }
  if (a < full[0] - extra) { b += full[0] - extra - a; a = full[0] - extra; }
  if (b > full[1] + extra) { a -= b - full[1] - extra; b = full[1] + extra; }
  return [a, b];
}

/**
 * The window that shows event `i` and the events linked to it (its inputs' producers, its
 * output's consumers), with a margin: 15% of that span, at least 50 ns.
 */
export function selectionWindow(model, i, unitNs) {
  let a = model.start[i], b = a + model.duration[i];
  for (let k = model.inOffsets[i]; k < model.inOffsets[i + 1]; k++) a = Math.min(a, model.start[model.inputs[k]]);
  for (let k = model.outOffsets[i]; k < model.outOffsets[i + 1]; k++) {
    const c = model.outputs[k];
    b = Math.max(b, model.start[c] + model.duration[c]);
  }
  const pad = Math.max((b - a) * 0.15, 50 / Math.max(unitNs, 1));
  return [a - pad, b + pad];
}

/**
 * A function `(changed, state)` that tells the host of a change by the user (a zoom or pan once it
 * pauses); its `cancel()` drops a report still waiting.
 */
function reporter(view, host) {
  let timer = null;
  const notify = (changed, state) => {
    if (!host.onChange) return;
    const what = ["selected", "filter", "skipNotReady", "window"].find((key) => changed.has(key));
    if (!what) return;
    const unitMs = view.model.unitMs;
    const report = () => host.onChange({ selected: view.selectedId(), window: [state.window[0] * unitMs, state.window[1] * unitMs],
      op: state.filter.op, where: state.filter.where, skipNotReady: state.skipNotReady,
      what: { skipNotReady: "skip", selected: "selected", filter: "filter", window: "window" }[what] });
    clearTimeout(timer);
    if (what === "window") timer = setTimeout(report, NOTIFY_WINDOW_MS);
    else report();
  };
  notify.cancel = () => clearTimeout(timer);
  return notify;
}

/**
 * The actions of `view` ({model, meta, store, full}): the panes call them, the host calls some.
 * @param {object} view  the Explorer's shared context
 * @param {object} host  {onChange(state)?}: told of the user's changes of selection, window, filter
 * @returns {object} {select, step, setFilter, setSkipNotReady, zoomToSelection, setHideOthers, setMatches,
 *   setWindow, search, searchStep, forget(changed), notify(changed, state), destroy}
 */
export function createActions(view, host = {}) {
  const { store } = view;
  let steps = null;
  const notify = reporter(view, host);
  const setWindow = (units, info = { from: "user" }) => store.set({ window: clampWindow(units, view.full, view.meta.unit_ns) }, info);

  /**
   * Select the model's event `index` (-1: none); `id` is the trace index selected when the model (a
   * long trace's part) lacks it, which the view keeps (view.selection) to show it once a part holds it; the
   * store's `selectedId` follows it, so one such trace index replacing another is a change the panes see.
   */
  function select(index, { from = "user", center = true, reveal = false, id = null } = {}) {
    const m = view.model;
    const selected = index >= 0 && index < m.n ? index : -1;
    view.selection = id ?? (selected < 0 ? -1 : selected + baseOf(m));
    const patch = { selected, selectedId: view.selection };
    if (selected >= 0 && center) {
      const s = m.start[selected], e = s + m.duration[selected];
      const [a, b] = store.get().window;
      const middle = s + (e - s) / 2;
      if (e < a || s > b) patch.window = clampWindow([middle - (b - a) / 2, middle + (b - a) / 2], view.full, view.meta.unit_ns);
    }
    // a selection that moves the window is not a zoom: tell the host about the selection only
    const changed = store.set(patch, { from: from === "user" ? "select" : from, reveal });
    if (from === "user" && changed.has("selected")) notify(new Set(["selected"]), store.get());
  }

  function doStep(direction) {
    const started = performance.now();
    const state = store.get();
    steps ??= stepList(view.model, state.filter, state.skipNotReady);
    const next = step(view.model, steps, state.selected, direction);
    if (next >= 0) select(next, { reveal: true });          // a step is followed: panes may scroll to it
    measure("rlviz:step", started);
    return next;
  }

  return {
    select, step: doStep, setWindow, notify,
    setFilter: (filter, info = { from: "user" }) => store.set({ filter: { op: filter.op ?? null, where: filter.where ?? null } }, info),
    setSkipNotReady: (on, info = { from: "user" }) => store.set({ skipNotReady: Boolean(on) }, info),
    setHideOthers: (on) => store.set({ hideOthers: Boolean(on) }, { from: "user" }),
    /** Highlight every hit of a search (null: none). */
    setMatches: (hits) => store.set({ matches: hits && hits.length ? hits : null }, { from: "search" }),
    zoomToSelection() {
      const i = store.get().selected;
      if (i >= 0) setWindow(selectionWindow(view.model, i, view.meta.unit_ns), { from: "user" });
    },
    search: (query) => searchEvents(view.model, query, store.get().filter),
    searchStep(hits, direction) {
      const found = searchStep(hits, store.get().selected, direction);     // ranked order, exact op names first
      const target = found >= 0 ? found : hits[direction > 0 ? 0 : hits.length - 1];
      select(target);
      return target;
    },
    /** Forget what `changed` makes stale (the step list after a filter or new data). */
    forget(changed) {
      if (changed.has("filter") || changed.has("skipNotReady") || changed.has("data")) steps = null;
    },
    destroy: () => notify.cancel(),
  };
}
