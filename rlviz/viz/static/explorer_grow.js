// Growing a built model (explorer_core.buildModel) by the events appended after it, in time
// proportional to them: each row keeps spare room (doubled when full), new events are merged
// into the tail of their row from the first position they reach (an actor's increment that lands
// before a tail already shown re-sorts only that tail), links and the completion order likewise.
import { NOT_READY, ERROR, invalidateOrderFrom, sortRow, withRoom } from "./explorer_core.js";

const COLUMNS = ["start", "duration", "node", "flags", "item"];
const MIN_ROOM = 16;

/**
 * Grow `model` by the events of `live` from `live.indexed.n` to `live.n` and by the links
 * appended since `live.indexed.pairs`; the result equals a model built at once from all of them.
 * @param {object} model  a model of live's held events (from buildModel), grown in place
 * @param {object} live   live data (explorer_live.createLive) holding the new events
 * @param {object} meta   the meta the panes read now (explorer_live.liveMeta)
 */
export function growModel(model, live, meta) {
  const from = live.indexed.n, to = live.n;
  for (const name of COLUMNS) model[name] = live.columns[name].subarray(0, to);
  Object.assign(model, { meta, nodes: meta.nodes, n: to, end: live.end });
  growRows(model, from, to);
  const relinked = growLinks(model, live, from, to);
  if (model.byEnd) {
    growOrder(model, from, to);
    for (const i of relinked) invalidateOrderFrom(model, model.rank[i]);   // a late input changes its consumer's tag
  }
  live.indexed.n = to;
  live.indexed.pairs = live.pairs.n;
}

// ------------------------------------------------------------------ rows
function growRows(model, from, to) {
  if (from === to) return;
  const { node, start, nodeRow } = model, R = model.rows.length;
  const offsets = new Uint32Array(R + 1);
  for (let i = from; i < to; i++) if (nodeRow[node[i]] >= 0) offsets[nodeRow[node[i]] + 1]++;
  const counts = offsets.slice(1);
  for (let r = 0; r < R; r++) offsets[r + 1] += offsets[r];
  makeRoom(model, counts);
  const bucket = new Uint32Array(offsets[R]), fill = offsets.slice(0, R);
  for (let i = from; i < to; i++) if (nodeRow[node[i]] >= 0) bucket[fill[nodeRow[node[i]]]++] = i;
  for (let r = 0; r < R; r++) {
    if (counts[r] === 0) continue;
    sortRow(bucket, start, offsets[r], offsets[r + 1]);
    mergeRow(model, r, bucket.subarray(offsets[r], offsets[r + 1]));
  }
}

/**
 * Make room for `counts[r]` more events in each row r. When one row is full every row is laid out
 * again with twice the room it needs, so the copy (proportional to all held) comes back only when
 * the held events have about doubled, not once per row that fills.
 */
function makeRoom(model, counts) {
  const { rowStart, rowEnd } = model, R = model.rows.length;
  let fits = true;
  for (let r = 0; r < R && fits; r++) fits = rowEnd[r] + counts[r] <= rowStart[r + 1];
  if (fits) return;
  const start = new Uint32Array(R + 1);
  for (let r = 0; r < R; r++) {
    const need = rowEnd[r] - rowStart[r] + counts[r];
    start[r + 1] = start[r] + Math.max(MIN_ROOM, 2 * need);
  }
  const total = start[R];
  const events = new Uint32Array(total), times = new Float64Array(total);
  const busy = new Float64Array(total + R), polls = new Uint32Array(total + R);
  const end = new Uint32Array(R);
  for (let r = 0; r < R; r++) {
    const a = rowStart[r], b = rowEnd[r];
    events.set(model.rowEvents.subarray(a, b), start[r]);
    times.set(model.rowTimes.subarray(a, b), start[r]);
    busy.set(model.busy.subarray(a + r, b + r + 1), start[r] + r);
    polls.set(model.polls.subarray(a + r, b + r + 1), start[r] + r);
    end[r] = start[r] + (b - a);
  }
  Object.assign(model, { rowStart: start, rowEnd: end, rowEvents: events, rowTimes: times, busy, polls });
}

/** Merge row r's new events `part` (ordered by start, index) from the first position they reach. */
function mergeRow(model, r, part) {
  const { rowEvents: events, rowTimes: times, start, duration, flags, busy, polls } = model;
  const lo = model.rowStart[r], end = model.rowEnd[r], first = start[part[0]];
  let p = end;                                   // first old position starting after `first`
  if (end > lo && times[end - 1] > first) {
    let a = lo, b = end;
    while (a < b) { const mid = (a + b) >>> 1; if (times[mid] <= first) a = mid + 1; else b = mid; }
    p = a;
  }
  const tail = events.slice(p, end);
  let a = 0, b = 0, k = p;
  while (a < tail.length || b < part.length) {
    const old = b >= part.length || (a < tail.length && start[tail[a]] <= start[part[b]]);
    const i = old ? tail[a++] : part[b++];
    events[k] = i;
    times[k++] = start[i];
  }
  model.rowEnd[r] = k;
  const errors = model.errors[r];
  while (errors.length && start[errors[errors.length - 1]] > first) errors.pop();
  for (let q = p; q < k; q++) {
    const i = events[q], outcome = flags[i] & 3, slot = q + r;
    busy[slot + 1] = busy[slot] + (outcome === NOT_READY ? 0 : duration[i]);
    polls[slot + 1] = polls[slot] + (outcome === NOT_READY ? 1 : 0);
    if (duration[i] > model.rowMaxDur[r]) model.rowMaxDur[r] = duration[i];
    if (outcome === ERROR) errors.push(i);
  }
}

// ------------------------------------------------------------------ links
/** Merge the links that arrived into the model's link lists; returns the events held before that got an input. */
function growLinks(model, live, from, to) {
  const links = model.links || (model.links = linkState(model));
  const pairs = live.pairs, base = live.base;
  const consumers = [], producers = [], pending = [];
  const take = (c, p) => {
    if (c < to && p < to) { consumers.push(c); producers.push(p); } else pending.push([c, p]);
  };
  for (const [c, p] of live.indexed.pending || []) take(c, p);
  for (let k = live.indexed.pairs; k < pairs.n; k++) take(pairs.consumer[k] - base, pairs.producer[k] - base);
  live.indexed.pending = pending;
  mergeSide(links.in, consumers, producers, false, from, to);
  mergeSide(links.out, producers, consumers, true, from, to);
  Object.assign(model, {
    inOffsets: links.in.offsets.subarray(0, to + 1), inputs: links.in.values.subarray(0, links.in.size),
    outOffsets: links.out.offsets.subarray(0, to + 1), outputs: links.out.values.subarray(0, links.out.size),
  });
  return consumers.filter((c) => c < from);
}

/** Growable copies of a built model's link lists, with each position's key (its consumer / producer). */
function linkState(model) {
  const side = (offsets, values) => {
    const keys = new Uint32Array(values.length);
    for (let i = 0; i + 1 < offsets.length; i++) keys.fill(i, offsets[i], offsets[i + 1]);
    return { offsets: offsets.slice(), values: values.slice(), keys, size: values.length };
  };
  return { in: side(model.inOffsets, model.inputs), out: side(model.outOffsets, model.outputs) };
}

/**
 * Merge links (keys[j] -> values[j]) into one side, kept ordered by key, then by value (`byValue`)
 * or by arrival; offsets are rewritten from the smallest new key (or the old end) to `to`.
 */
function mergeSide(side, keys, values, byValue, from, to) {
  const m = keys.length;
  const order = Array.from({ length: m }, (_, j) => j)
    .sort((a, b) => keys[a] - keys[b] || (byValue ? values[a] - values[b] : a - b));
  let k0 = from;
  for (let j = 0; j < m; j++) k0 = Math.min(k0, keys[j]);
  const pos = side.offsets[k0];
  const tailKeys = side.keys.slice(pos, side.size), tailValues = side.values.slice(pos, side.size);
  side.keys = withRoom(side.keys, side.size + m);
  side.values = withRoom(side.values, side.size + m);
  side.offsets = withRoom(side.offsets, to + 1);
  let a = 0, b = 0, k = pos;
  while (a < tailKeys.length || b < m) {
    const j = order[b];
    const old = b >= m || (a < tailKeys.length && (tailKeys[a] < keys[j]
      || (tailKeys[a] === keys[j] && (!byValue || tailValues[a] <= values[j]))));
    side.keys[k] = old ? tailKeys[a] : keys[j];
    side.values[k++] = old ? tailValues[a++] : values[order[b++]];
  }
  side.size = k;
  for (let c = k0, q = pos; c <= to; c++) {
    while (q < k && side.keys[q] < c) q++;
    side.offsets[c] = q;
  }
}

// ------------------------------------------------------------------ completion order
function growOrder(model, from, to) {
  const { start, duration } = model;
  const endOf = (i) => start[i] + duration[i];
  const fresh = Array.from({ length: to - from }, (_, j) => from + j).sort((a, b) => endOf(a) - endOf(b) || a - b);
  const state = model.completion || (model.completion = { byEnd: model.byEnd.slice(), rank: model.rank.slice() });
  const size = from;
  let pos = size;
  if (fresh.length) {
    const first = endOf(fresh[0]);
    let a = 0, b = size;
    while (a < b) { const mid = (a + b) >>> 1; if (endOf(state.byEnd[mid]) <= first) a = mid + 1; else b = mid; }
    pos = a;
  }
  const tail = state.byEnd.slice(pos, size);
  state.byEnd = withRoom(state.byEnd, to);
  state.rank = withRoom(state.rank, to);
  let a = 0, b = 0, k = pos;
  while (a < tail.length || b < fresh.length) {
    const old = b >= fresh.length || (a < tail.length && endOf(tail[a]) <= endOf(fresh[b]));
    const i = old ? tail[a++] : fresh[b++];
    state.byEnd[k] = i;
    state.rank[i] = k++;
  }
  invalidateOrderFrom(model, pos);
  model.byEnd = state.byEnd.subarray(0, to);
  model.rank = state.rank.subarray(0, to);
}
