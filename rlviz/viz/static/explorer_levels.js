// Level of detail for traces too long to hold whole in the page (docs/design.md, "Long traces on
// the page"). The page keeps, per lane, buckets over time at several widths (the levels: events
// counted, the busiest node, errors, not-ready calls and busy time per bucket), and exact events (the usual
// growing model) only for the time range its window needs. A lane is drawn from the model where
// that range covers the window, else from the level whose buckets are nearest one pixel wide. A
// gauge track follows the same rule: from its readings in the model, else from the level's
// summary of it per bucket (the last value, the least, the greatest, the readings counted).
// Free of the DOM: tested with node.
import { decodeChunk } from "./explorer_arrow.js";
import { busyFraction } from "./explorer_core.js";

/** Detail chunks a window may need at most before the page draws it from the levels instead. */
export const MAX_DETAIL_CHUNKS = 4;
/**
 * A run of at most this many detail chunks (983,040 events at rlviz's 65,536 a chunk: under a million,
 * where a notebook's view starts asking its kernel for chunks) is held whole: every window is exact.
 */
export const WHOLE_RUN_CHUNKS = 15;
const NO_NODE = -1;

/**
 * The levels of a long trace from its overview (rlviz.viz.explorer_long): per level its bucket width and
 * first bucket's start (time units since the origin), its bucket count and its Arrow tables
 * (rlviz.viz.chunk_tables.LEVEL_TABLES, read as a chunk's are: decodeChunk): `lanes`, per lane and
 * bucket (lanes x buckets rows) the events counted, the busiest node + 1 (0: empty), errors, not-ready
 * calls and busy time (time units: the summed durations of the calls that are not not-ready); and, when
 * the run has gauge tracks, `gauge_summaries`, per track and bucket (tracks x buckets rows) the last,
 * least and greatest reading and the readings counted.
 * @param {object} overview  {lanes, gauges?, levels: [{width, start, n, tables: [{name, rows, bytes}]}]}
 * @param {Uint8Array} bytes  the inflated tables, level after level
 * @returns {object} levels: {lanes, tracks, sets: [{width, start, n, count, busiest, errors, notReady, busy,
 *   gauges: {last, least, greatest, count (bucket k of track r at r * n + k)}}]}, finest first
 */
export function levelsFromOverview(overview, bytes) {
  const lanes = overview.lanes, tracks = overview.gauges ?? 0;
  let at = 0;                              // bytes read
  const sets = overview.levels.map(({ width, start, n, tables = [] }) => {
    const buffers = tables.map((spec) => {
      if (at + spec.bytes > bytes.byteLength) throw new Error(`the overview holds ${bytes.byteLength} bytes where its levels announce more`);
      at += spec.bytes;
      return bytes.subarray(at - spec.bytes, at);
    });
    const columns = decodeChunk({ tables }, buffers);
    const rows = { lanes: lanes * n, gauge_summaries: tracks * n };
    for (const spec of tables) {
      if (spec.rows !== rows[spec.name]) throw new Error(`level table ${spec.name} has ${spec.rows} rows where ${lanes} lanes and ${tracks} gauge tracks of ${n} buckets take ${rows[spec.name]}`);
    }
    if (!columns.count) throw new Error("an overview level lacks its lanes table");
    const busiest = new Int32Array(lanes * n);
    for (let k = 0; k < busiest.length; k++) busiest[k] = columns.busiest[k] - 1;
    const gauges = tracks ? { last: columns.gauge_last, least: columns.gauge_least, greatest: columns.gauge_greatest,
      count: columns.gauge_count } : { last: [], least: [], greatest: [], count: [] };
    if (tracks && !gauges.count) throw new Error(`an overview level lacks the summaries of its ${tracks} gauge tracks`);
    return { width, start, n, count: columns.count, busiest, errors: columns.errors, notReady: columns.not_ready,
      busy: columns.busy, gauges };
  });
  if (at !== bytes.byteLength) {
    throw new Error(`the overview holds ${bytes.byteLength} bytes where its levels announce ${at}`);
  }
  return { lanes, tracks, sets: sets.sort((p, q) => p.width - q.width) };
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
 * in the buckets it meets, the busiest node of its fullest bucket (-1: none), errors, not-ready
 * calls, and the busy fraction (busyFraction, the rule of a row drawn from loaded events) of the
 * time its buckets cover. A bucket narrower than a pixel adds to the pixel of its start, a wider one
 * to every pixel it meets; so a pixel's time is its buckets' (a pixel 1.5 buckets wide holds one or
 * two: over its own time its fraction would flicker from pixel to pixel, striping a steady lane).
 */
export function lanePixels(set, lane, a, b, plotW) {
  const count = new Float64Array(plotW), busiest = new Int32Array(plotW).fill(NO_NODE);
  const errors = new Uint32Array(plotW), notReady = new Uint32Array(plotW), fullest = new Float64Array(plotW);
  const busy = new Float64Array(plotW), covered = new Float64Array(plotW);
  forEachBucket(set, lane, a, b, plotW, (at, c, s, x0, x1) => {
    for (let x = x0; x < x1; x++) {
      count[x] += c;
      if (c > fullest[x]) { fullest[x] = c; busiest[x] = set.busiest[at]; }
      errors[x] += set.errors[at];
      notReady[x] += set.notReady[at];
      busy[x] += set.busy[at];
      covered[x] += set.width;
    }
  }, true);
  const fraction = busy.map((time, x) => (covered[x] > 0 ? busyFraction(time, covered[x]) : 0));
  return { count, busiest, errors, notReady, fraction };
}

/**
 * Visit lane `lane`'s buckets of `set` that count a call (every one with `empty`) within window
 * [a, b] drawn `plotW` pixels wide, in time order: `visit(at, calls, start, x0, x1)`, `at` the
 * bucket's index into the set's tables, [x0, x1) the pixels it covers (at least the pixel of its
 * start). The one rule of which pixels a bucket meets, for drawing and for hover alike.
 */
function forEachBucket(set, lane, a, b, plotW, visit, empty = false) {
  const scale = plotW / (b - a), row = lane * set.n;
  const first = Math.max(0, Math.floor((a - set.start) / set.width));
  const last = Math.min(set.n, Math.ceil((b - set.start) / set.width));
  for (let k = first; k < last; k++) {
    const c = set.count[row + k];
    if (c === 0 && !empty) continue;
    const s = set.start + k * set.width;
    const x0 = Math.max(0, Math.floor((s - a) * scale));
    visit(row + k, c, s, x0, Math.min(plotW, Math.max(x0 + 1, Math.ceil((s + set.width - a) * scale))));
  }
}

/**
 * What lane `lane`'s pixel `x` counts in `set` when window [a, b] is drawn `plotW` pixels wide, by
 * lanePixels' rule (a bucket narrower than a pixel counts at the pixel of its start, a wider one at
 * every pixel it meets): the calls counted, errors and not-ready calls, the time [from, to) its
 * buckets cover, and `busiest` [[node, calls of the buckets it is the busiest node of]], most first
 * (the levels keep each bucket's busiest node only). Null when no bucket counts a call there.
 */
export function levelPixelAt(set, lane, a, b, plotW, x) {
  const byNode = new Map();
  let count = 0, errors = 0, notReady = 0, from = Infinity, to = -Infinity;
  forEachBucket(set, lane, a, b, plotW, (at, c, s, x0, x1) => {
    if (x < x0 || x >= x1) return;
    count += c;
    errors += set.errors[at];
    notReady += set.notReady[at];
    from = Math.min(from, s);
    to = Math.max(to, s + set.width);
    const node = set.busiest[at];
    if (node !== NO_NODE) byNode.set(node, (byNode.get(node) ?? 0) + c);
  });
  if (count === 0) return null;
  const busiest = [...byNode].sort((p, q) => q[1] - p[1] || p[0] - q[0]);
  return { count, errors, notReady, from, to, busiest };
}

/**
 * The detail chunks whose time range meets window [a, b] (`detail[k].time_range`, units since the
 * origin), as [first, last] (inclusive), or null when there are none or more than `most`.
 * Chunks are cut in start order (a growing run's in arrival order, nearly so), so the chunks a window meets
 * are one run of them. A chunk reaches
 * on to the next one's start (it carries the gauge readings taken up to there: a window in the
 * quiet time between two chunks still gets them).
 */
export function chunksFor(detail, a, b, most = MAX_DETAIL_CHUNKS) {
  let first = -1, last = -1;
  for (let k = 0; k < detail.length; k++) {
    if (detail[k].gone) continue;                 // a growing run's chunk that left its window
    const from = detail[k].time_range[0];
    const to = Math.max(detail[k].time_range[1], k + 1 < detail.length ? detail[k + 1].time_range[0] : -Infinity);
    if (from > b || to < a) continue;
    if (first < 0) first = k;
    last = k;
  }
  if (first < 0 || last - first + 1 > most) return null;
  return [first, last];
}

/** Detail chunks a window of a run of `detail` may load: all of a run held whole, else MAX_DETAIL_CHUNKS. */
export function mostChunks(detail) {
  return detail.length <= WHOLE_RUN_CHUNKS ? Math.max(detail.length, MAX_DETAIL_CHUNKS) : MAX_DETAIL_CHUNKS;
}

/** Whether the loaded chunks [first, last] (null: none) hold every event that meets window [a, b]. */
export function covers(detail, loaded, a, b, most = MAX_DETAIL_CHUNKS) {
  const need = loaded && chunksFor(detail, a, b, most);
  return Boolean(need) && need[0] >= loaded[0] && need[1] <= loaded[1];
}

/**
 * Gauge track `track`'s summaries of `set` over window [a, b] as `plotW` pixels: per pixel the
 * readings counted in the buckets it meets (`count`), their least and greatest (`low`, `high`), and
 * `last`, the last value of the latest bucket ending in that pixel (NaN where none does: a bucket
 * wider than a pixel gives its last value where it ends, its range to every pixel it meets);
 * `before` is the value in force at `a` (the last of the latest bucket before the window, NaN if none).
 */
export function gaugePixels(set, track, a, b, plotW) {
  const g = set.gauges, row = track * set.n, scale = plotW / (b - a);
  const count = new Uint32Array(plotW), low = new Float64Array(plotW).fill(NaN);
  const high = new Float64Array(plotW).fill(NaN), last = new Float64Array(plotW).fill(NaN);
  const first = Math.max(0, Math.floor((a - set.start) / set.width));
  const stop = Math.min(set.n, Math.ceil((b - set.start) / set.width));
  let before = NaN;
  for (let k = Math.min(first, set.n) - 1; k >= 0; k--) if (g.count[row + k] > 0) { before = g.last[row + k]; break; }
  for (let k = first; k < stop; k++) {
    const at = row + k;
    if (g.count[at] === 0) continue;
    const s = set.start + k * set.width;
    const x0 = Math.max(0, Math.floor((s - a) * scale));
    const x1 = Math.min(plotW, Math.max(x0 + 1, Math.ceil((s + set.width - a) * scale)));
    for (let x = x0; x < x1; x++) {
      count[x] += g.count[at];
      if (!(low[x] <= g.least[at])) low[x] = g.least[at];
      if (!(high[x] >= g.greatest[at])) high[x] = g.greatest[at];
    }
    last[x1 - 1] = g.last[at];
  }
  return { count, low, high, last, before };
}

/**
 * The summary of gauge track `track` that hovering time `t` reads in `set`: the bucket holding `t`,
 * or, when it has no reading, the latest before it that has; null when none has.
 * @returns {object|null} {from, to (the bucket's time span), count, last, low, high}
 */
export function gaugeBucketAt(set, track, t) {
  const g = set.gauges, row = track * set.n;
  for (let k = Math.min(set.n - 1, Math.floor((t - set.start) / set.width)); k >= 0; k--) {
    if (g.count[row + k] === 0) continue;
    const from = set.start + k * set.width, at = row + k;
    return { from, to: from + set.width, count: g.count[at], last: g.last[at], low: g.least[at], high: g.greatest[at] };
  }
  return null;
}

/** Gauge track `track`'s least and greatest reading over the whole run (from the coarsest level), or null. */
export function gaugeRange(levels, track) {
  if (!levels || !(track < levels.tracks) || levels.sets.length === 0) return null;
  const set = levels.sets[levels.sets.length - 1], g = set.gauges, row = track * set.n;
  let lo = Infinity, hi = -Infinity;
  for (let k = 0; k < set.n; k++) {
    if (g.count[row + k] === 0) continue;
    if (g.least[row + k] < lo) lo = g.least[row + k];
    if (g.greatest[row + k] > hi) hi = g.greatest[row + k];
  }
  return lo <= hi ? [lo, hi] : null;
}
