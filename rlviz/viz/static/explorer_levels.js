// Level of detail for traces too long to hold whole in the page (docs/design.md, "Long traces on
// the page"). The page keeps, per lane, buckets over time at several widths (the levels: events
// counted, the busiest node, errors and not-ready calls per bucket), and exact events (the usual
// growing model) only for the time range its window needs. A lane is drawn from the model where
// that range covers the window, else from the level whose buckets are nearest one pixel wide.
// Free of the DOM: tested with node.

/** Detail chunks a window may need at most before the page draws it from the levels instead. */
export const MAX_DETAIL_CHUNKS = 4;
const NO_NODE = -1;

/**
 * The levels of a saved long trace from its overview (rlviz.viz.explorer_long): per level its bucket
 * width and first bucket's start (time units since the origin) and its bucket count; the bytes hold,
 * level after level, four uint32 tables of lanes x buckets: count, busiest node + 1 (0: empty),
 * errors, not-ready calls.
 * @param {object} overview  {lanes, levels: [{width, start, n}]}
 * @param {Uint8Array} bytes  the inflated tables
 * @returns {object} levels: {lanes, sets: [{width, start, n, count, busiest, errors, notReady}]}, finest first
 */
export function levelsFromOverview(overview, bytes) {
  const lanes = overview.lanes;
  const words = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  let at = 0;
  const take = (size) => { const part = words.subarray(at, at + size); at += size; return part; };
  const sets = overview.levels.map(({ width, start, n }) => {
    const size = lanes * n;
    const count = take(size), busiestPlusOne = take(size), errors = take(size), notReady = take(size);
    const busiest = new Int32Array(size);
    for (let k = 0; k < size; k++) busiest[k] = busiestPlusOne[k] - 1;
    return { width, start, n, count, busiest, errors, notReady };
  });
  if (at !== words.length) {
    throw new Error(`the overview holds ${words.length} values where its levels announce ${at}`);
  }
  return { lanes, sets: sets.sort((p, q) => p.width - q.width) };
}

/**
 * The level to draw window [a, b] at `plotW` pixels from: the coarsest whose buckets are no wider
 * than a pixel, else the finest (null when there is none).
 */
export function pickLevel(levels, a, b, plotW) {
  if (!levels || levels.sets.length === 0) return null;
  const pixel = (b - a) / plotW;
  let best = levels.sets[0];
  for (const set of levels.sets) if (set.width <= pixel) best = set;
  return best;
}

/**
 * Lane `lane`'s buckets of `set` over window [a, b] as `plotW` pixels: per pixel the events counted
 * in the buckets it meets, the busiest node of its fullest bucket (-1: none), errors and not-ready
 * calls; `top` is the largest count. A bucket narrower than a pixel adds to the pixel of its start,
 * a wider one covers every pixel it meets.
 */
export function lanePixels(set, lane, a, b, plotW) {
  const count = new Float64Array(plotW), busiest = new Int32Array(plotW).fill(NO_NODE);
  const errors = new Uint32Array(plotW), notReady = new Uint32Array(plotW), fullest = new Float64Array(plotW);
  const scale = plotW / (b - a), row = lane * set.n;
  const first = Math.max(0, Math.floor((a - set.start) / set.width));
  const last = Math.min(set.n, Math.ceil((b - set.start) / set.width));
  let top = 0;
  for (let k = first; k < last; k++) {
    const c = set.count[row + k];
    if (c === 0) continue;
    const s = set.start + k * set.width;
    const x0 = Math.max(0, Math.floor((s - a) * scale));
    const x1 = Math.min(plotW, Math.max(x0 + 1, Math.ceil((s + set.width - a) * scale)));
    for (let x = x0; x < x1; x++) {
      count[x] += c;
      if (c > fullest[x]) { fullest[x] = c; busiest[x] = set.busiest[row + k]; }
      errors[x] += set.errors[row + k];
      notReady[x] += set.notReady[row + k];
      if (count[x] > top) top = count[x];
    }
  }
  return { count, busiest, errors, notReady, top };
}

/**
 * The detail chunks whose time range meets window [a, b] (`detail[k].time_range`, units since the
 * origin), as [first, last] (inclusive), or null when there are none or more than `most`.
 * Chunks are cut in start order, so the chunks a window meets are one run of them.
 */
export function chunksFor(detail, a, b, most = MAX_DETAIL_CHUNKS) {
  let first = -1, last = -1;
  for (let k = 0; k < detail.length; k++) {
    const [from, to] = detail[k].time_range;
    if (from > b || to < a) continue;
    if (first < 0) first = k;
    last = k;
  }
  if (first < 0 || last - first + 1 > most) return null;
  return [first, last];
}

/** Whether the loaded chunks [first, last] (null: none) hold every event that meets window [a, b]. */
export function covers(detail, loaded, a, b, most = MAX_DETAIL_CHUNKS) {
  const need = loaded && chunksFor(detail, a, b, most);
  return Boolean(need) && need[0] >= loaded[0] && need[1] <= loaded[1];
}

/**
 * Undo the delta coding of a detail chunk's columns: each value of the named uint32 columns was
 * stored as its difference from the one before (modulo 2**32), which deflate packs far better.
 * @param {object} columns  name -> typed array, changed in place
 * @param {string[]} names  the delta-coded columns
 */
export function undoDelta(columns, names) {
  for (const name of names) {
    const values = columns[name];
    if (!(values instanceof Uint32Array)) throw new Error(`column ${name} is delta-coded but is not uint32`);
    for (let k = 1; k < values.length; k++) values[k] += values[k - 1];      // a Uint32Array wraps modulo 2**32
  }
}
