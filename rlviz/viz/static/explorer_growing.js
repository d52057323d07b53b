// A watched run's page is the long page of every trace whose source grows (rlviz.viz.growing_chunks):
// each refresh brings an extent, which says what changed since the last one: the chunks from
// `detail_from` on (the tail grew, chunks closed), those before `first_chunk` (they left the run's
// window), the new texts, the
// node counts and order strips of the whole run, and now and then the levels again. The page keeps
// its meta up to date with it (extendMeta), forgets the chunks that changed, and, while it follows the
// run, moves its window to the newest `FOLLOW_MS` (followWindow): the window's chunks are asked for as
// any long page's are. Free of the DOM: tested with node.

/** Following, a live page shows the newest 30 s (all of a shorter run). */
export const FOLLOW_MS = 30_000;

/** The extent does not follow what the page holds (one went missing): the page asks for the run again. */
export class ExtentGap extends Error {}

/**
 * Bring a growing run's start meta up to `extent` (rlviz.viz.growing_chunks.GrowingChunks.extent), in
 * place: the chunks' list (the same array the level of detail reads), the texts, the structure (new
 * nodes or lanes), each node's counts (the same node objects every model's meta shares), the order
 * strips, the notes, the gauge tracks, the dropped events and their gaps, the run's length.
 * Extents are numbered (`seq`; the start meta holds the start's): one the page has had already is
 * skipped, one past the next means one went missing (an ExtentGap: the page asks for the run again).
 * @returns {{restructured: boolean, repeated: boolean, changedFrom: number}} whether nodes or lanes changed
 *   (every model must be built again), whether the extent was one the page had already (nothing changed), and
 *   the first chunk that changed (the list's length when none did)
 */
export function extendMeta(meta, extent) {
  if (extent.seq <= meta.seq) return { restructured: false, repeated: true, changedFrom: meta.detail.length };
  if (extent.seq !== meta.seq + 1 || extent.detail_from > meta.detail.length || extent.texts_from !== meta.texts.length) {
    throw new ExtentGap(`extent ${extent.seq} (from chunk ${extent.detail_from} and text ${extent.texts_from}) cannot `
      + `follow extent ${meta.seq} (${meta.detail.length} chunks and ${meta.texts.length} texts): one went missing`);
  }
  meta.seq = extent.seq;
  const changedFrom = firstChanged(meta.detail, extent.detail_from, extent.detail);
  meta.detail.splice(extent.detail_from, meta.detail.length - extent.detail_from, ...extent.detail);
  for (let k = 0; k < Math.min(extent.first_chunk ?? 0, meta.detail.length); k++) meta.detail[k].gone = true;   // left the run's window
  for (const text of extent.texts) meta.texts.push(text);      // a spread of 150k texts overflows the stack
  const restructured = Boolean(extent.structure);
  if (restructured) Object.assign(meta, extent.structure);
  setCounts(meta.nodes, extent.counts);
  for (const key of ["orders", "order", "notes", "gauge_tracks", "overview", "dropped", "gaps", "events", "count",
    "span_ms"]) {
    if (key in extent) meta[key] = extent[key];
  }
  return { restructured, repeated: false, changedFrom };
}

/** The first chunk from `from` on whose entry in `fresh` (entries from `from`) differs from the one held (a
 * refresh that brought nothing changes none: the page keeps what it loaded). */
function firstChanged(detail, from, fresh) {
  for (let k = from; k < from + fresh.length; k++) {
    const old = detail[k], now = fresh[k - from];
    if (!old || old.count !== now.count || old.first_id !== now.first_id || old.time_range[0] !== now.time_range[0]
      || old.time_range[1] !== now.time_range[1] || Boolean(now.gone) !== Boolean(old.gone)) return k;
  }
  return from + fresh.length;
}

/** Each node's counts of the whole run (calls, items, not-ready calls, errors, busy time), written in place. */
function setCounts(nodes, counts) {
  for (let k = 0; k < nodes.length; k++) {
    const node = nodes[k];
    node.calls = counts.calls[k] ?? 0;
    node.items = counts.items[k] ?? 0;
    node.not_ready = counts.not_ready[k] ?? 0;
    node.errors = counts.errors[k] ?? 0;
    node.busy_ms = counts.busy_ms[k] ?? 0;
  }
}

/**
 * The window to show after an extent: while following, the newest `span` units (all of the run while
 * it is shorter, or when `span` is null); otherwise `window` unchanged.
 */
export function followWindow(window, end, follow, span) {
  if (!follow) return window;
  if (span == null || end <= span) return [0, Math.max(end, 1)];
  return [end - span, end];
}
