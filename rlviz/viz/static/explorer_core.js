// The Explorer's data logic, free of the DOM: per-row indexes of the decoded columns (explorer_arrow.js),
// level of detail, hit-testing, completion order and search. Tested with `node --test`.

export const OUTCOMES = ["item", "not_ready", "stop", "error"];
export const ITEM = 0, NOT_READY = 1, STOP = 2, ERROR = 3;
const KIND_INT = 1, KIND_FLOAT = 2, KIND_BOOL = 3, KIND_TEXT = 4, KIND_SIZED = 5;
const NAME_SPAN = 2 ** 24;          // sized items pack length * 2**24 + type-name index
// Rows with more events than this in the window are drawn as per-pixel aggregates.
export const EXACT_PER_PIXEL = 0.5;
// Hit-testing and exact drawing look back at most this many earlier spans of a row.
const LOOK_BACK = 4096;

/**
 * Index the decoded columns: rows (one per node with events), per-row event lists and prefix sums.
 * Row r's events sit at positions [rowStart[r], rowEnd[r]) of rowEvents, ordered by (start, index);
 * a growing model (explorer_live.js) leaves spare room after each row, so positions past rowEnd[r]
 * belong to no row.
 */
export function buildModel(meta, columns) {
  const n = meta.count;
  const nodes = meta.nodes;
  const { rows, nodeRow } = modelRows(meta);
  const start = columns.start, duration = columns.duration, node = columns.node, flags = columns.flags;
  const R = rows.length;
  const rowStart = new Uint32Array(R + 1);
  for (let i = 0; i < n; i++) rowStart[nodeRow[node[i]] + 1]++;
  for (let r = 0; r < R; r++) rowStart[r + 1] += rowStart[r];
  const rowEnd = rowStart.slice(1);
  const rowEvents = new Uint32Array(n);
  const fill = rowStart.slice(0, R);
  for (let i = 0; i < n; i++) rowEvents[fill[nodeRow[node[i]]]++] = i;
  for (let r = 0; r < R; r++) sortRow(rowEvents, start, rowStart[r], rowEnd[r]);
  // row-ordered copy of the starts: binary searches read one contiguous array
  const rowTimes = new Float64Array(n);
  for (let k = 0; k < n; k++) rowTimes[k] = start[rowEvents[k]];
  // prefix sums with one extra slot per row: row r's slot for position k is at k + r
  const busy = new Float64Array(n + R);
  const polls = new Uint32Array(n + R);
  const rowMaxDur = new Float64Array(R);
  const errors = [];
  for (let r = 0; r < R; r++) {
    const rowErrors = [];
    for (let k = rowStart[r]; k < rowEnd[r]; k++) {
      const i = rowEvents[k], outcome = flags[i] & 3, slot = k + r;
      busy[slot + 1] = busy[slot] + (outcome === NOT_READY ? 0 : duration[i]);
      polls[slot + 1] = polls[slot] + (outcome === NOT_READY ? 1 : 0);
      if (duration[i] > rowMaxDur[r]) rowMaxDur[r] = duration[i];
      if (outcome === ERROR) rowErrors.push(i);
    }
    errors.push(rowErrors);
  }
  const inOffsets = new Uint32Array(n + 1);
  const counts = columns.input_count;
  for (let i = 0; i < n; i++) inOffsets[i + 1] = inOffsets[i] + counts[i];
  const inputs = columns.inputs;
  const outOffsets = new Uint32Array(n + 1);
  for (let k = 0; k < inputs.length; k++) outOffsets[inputs[k] + 1]++;
  for (let i = 0; i < n; i++) outOffsets[i + 1] += outOffsets[i];
  const outputs = new Uint32Array(inputs.length);
  const at = outOffsets.slice(0, n);
  for (let c = 0; c < n; c++) {
    for (let k = inOffsets[c]; k < inOffsets[c + 1]; k++) outputs[at[inputs[k]]++] = c;
  }
  let end = 0;
  for (let i = 0; i < n; i++) end = Math.max(end, start[i] + duration[i]);
  return {
    meta, n, nodes, rows, nodeRow, start, duration, node, flags, item: columns.item,
    rowStart, rowEnd, rowEvents, rowTimes, busy, polls, rowMaxDur, errors, inOffsets, inputs, outOffsets, outputs,
    droppedInputs: { base: 0, links: droppedLinks(inOffsets, inputs, columns.input_dropped) },
    end, unitMs: meta.unit_ns / 1e6, byEnd: null, rank: null,
  };
}

/**
 * The inputs a call consumed and dropped (a filter's rejected item, such as a not-ready `None`):
 * consumer -> set of producers, from the payload's `input_dropped` flags (one per input).
 */
export function droppedLinks(inOffsets, inputs, inputDropped) {
  const links = new Map();
  if (!inputDropped) return links;
  for (let c = 0; c + 1 < inOffsets.length; c++) {
    for (let k = inOffsets[c]; k < inOffsets[c + 1]; k++) {
      if (!inputDropped[k]) continue;
      if (!links.has(c)) links.set(c, new Set());
      links.get(c).add(inputs[k]);
    }
  }
  return links;
}

/** Whether `consumer` took the value `producer` made and dropped it (rather than passing it on). */
export function isDroppedInput(model, consumer, producer) {
  const dropped = model.droppedInputs;
  const set = dropped && dropped.links.get(consumer + dropped.base);
  return Boolean(set && set.has(producer + dropped.base));
}

/** The timeline's rows (one per node of each lane, in lane order) and each node's row (-1 for none). */
export function modelRows(meta) {
  const nodes = meta.nodes, rows = [];
  const nodeRow = new Int32Array(nodes.length).fill(-1);
  meta.lanes.forEach((lane, laneIndex) => {
    const seen = {};
    lane.nodes.forEach((node, k) => {
      const op = nodes[node].op;
      seen[op] = (seen[op] || 0) + 1;
      nodeRow[node] = rows.length;
      rows.push({ node, lane: laneIndex, first: k === 0, name: nodes[node].short + (seen[op] > 1 ? ` #${seen[op]}` : "") });
    });
  });
  return { rows, nodeRow };
}

/** Order positions [lo, hi) of `events` by (start, index); a no-op when they already are (a start-sorted trace). */
export function sortRow(events, start, lo, hi) {
  let sorted = true;
  for (let k = lo + 1; k < hi && sorted; k++) sorted = start[events[k - 1]] <= start[events[k]];
  if (sorted) return;
  const part = events.slice(lo, hi).sort((a, b) => start[a] - start[b] || a - b);
  events.set(part, lo);
}

/** First position k in [lo, hi) of row r's events with start >= t (hi when none). */
export function lowerBound(model, r, t, lo = model.rowStart[r], hi = model.rowEnd[r]) {
  const times = model.rowTimes;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Events of row r that start in [t0, t1). */
export function countInWindow(model, r, t0, t1) {
  return lowerBound(model, r, t1) - lowerBound(model, r, t0);
}

/** Whether row r is drawn span by span (true) or as per-pixel aggregates (false). */
export function drawsExact(model, r, t0, t1, width) {
  return countInWindow(model, r, t0, t1) <= width * EXACT_PER_PIXEL;
}

/**
 * The busy fraction of a crowded pixel: `busy`, the summed durations of the items, stops and
 * errors starting in it (not-ready polls have their own marks), over its `time`, at most 1 (nested
 * or overlapping calls may sum to more). The one rule whether a lane's pixel comes from loaded
 * events (aggregateRow) or from a long trace's levels (explorer_levels.js lanePixels).
 */
export function busyFraction(busy, time) {
  return Math.min(1, busy / time);
}

/** Opacity of a crowded pixel kept busy `fraction` of its time: 0.3 + 0.7 * fraction, 0 where nothing kept it busy. */
export function busyAlpha(fraction) {
  return fraction > 0 ? 0.3 + 0.7 * fraction : 0;
}

/**
 * Per-pixel aggregates of row r over [t0, t1) in `width` pixels: the busy fraction
 * (busyFraction) and the not-ready polls starting in the pixel. Two binary searches per
 * pixel, whatever the number of events: O(width log n).
 */
export function aggregateRow(model, r, t0, t1, width) {
  const fraction = new Float32Array(width), polls = new Uint32Array(width);
  const base = r;                   // prefix-sum slot of position k is k + r
  const hi = model.rowEnd[r];
  const step = (t1 - t0) / width;
  let k = lowerBound(model, r, t0);
  for (let px = 0; px < width; px++) {
    const next = lowerBound(model, r, t0 + (px + 1) * step, k, hi);
    if (next > k) {
      fraction[px] = busyFraction(model.busy[base + next] - model.busy[base + k], step);
      polls[px] = model.polls[base + next] - model.polls[base + k];
    }
    k = next;
  }
  return { fraction, polls };
}

/**
 * Opacity of an aggregated pixel's not-ready mark for `count` polls: never below 0.85, so a single
 * poll stays as visible at any zoom as in the exact drawing (0 when there is none).
 */
export function pollAlpha(count) {
  return count > 0 ? Math.min(1, 0.85 + 0.03 * count) : 0;
}

/** Positions [k0, k1) of row r's events that may overlap [t0, t1), looking back at most LOOK_BACK spans. */
export function visibleRange(model, r, t0, t1) {
  const inside = lowerBound(model, r, t0);
  const k0 = Math.max(lowerBound(model, r, t0 - model.rowMaxDur[r]), inside - LOOK_BACK);
  return [k0, lowerBound(model, r, t1, inside)];
}

/**
 * The event of row r under time t (within `tolerance` time units), or -1.
 * A span containing t wins over a near one; among those the shortest (drawn on top).
 */
export function hitTest(model, r, t, tolerance) {
  if (r < 0 || r >= model.rows.length) return -1;
  const { rowEvents, start, duration } = model;
  const lo = model.rowStart[r];
  let k = lowerBound(model, r, t + tolerance + 1e-9) - 1;
  const stopAt = Math.max(lo, k - LOOK_BACK);
  let best = -1, bestDistance = Infinity, bestDuration = Infinity;
  for (; k >= stopAt; k--) {
    const i = rowEvents[k], s = start[i], e = s + duration[i];
    if (s + model.rowMaxDur[r] < t - tolerance) break;       // no earlier span reaches t
    const distance = t < s ? s - t : t > e ? t - e : 0;
    if (distance > tolerance) continue;
    if (distance < bestDistance || (distance === bestDistance && duration[i] < bestDuration)) {
      best = i; bestDistance = distance; bestDuration = duration[i];
    }
  }
  return best;
}

/** Event indices in completion order (end time, then start order), and each event's rank in it. */
export function completionOrder(model) {
  if (model.byEnd) return model.byEnd;
  const { n, start, duration } = model;
  let byEnd;
  if (n < 2 ** 21 && model.end < 2 ** 32) {
    // end * 2**21 + index is exact in a double: one native numeric sort, no comparator
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = (start[i] + duration[i]) * 2097152 + i;
    keys.sort();
    byEnd = new Uint32Array(n);
    for (let k = 0; k < n; k++) byEnd[k] = keys[k] % 2097152;
  } else {
    byEnd = Uint32Array.from({ length: n }, (_, i) => i);
    byEnd.sort((a, b) => (start[a] + duration[a]) - (start[b] + duration[b]) || a - b);
  }
  const rank = new Uint32Array(n);
  for (let k = 0; k < n; k++) rank[byEnd[k]] = k;
  model.byEnd = byEnd;
  model.rank = rank;
  return byEnd;
}

/** Whether node `nodeIndex` passes the op / lane filter ({op, where}, null = any). */
export function nodeMatches(model, nodeIndex, filter) {
  const node = model.nodes[nodeIndex];
  return (filter.op == null || node.op === filter.op) && (filter.where == null || node.where === filter.where);
}

/**
 * The events passing the filter, in completion order; with `skipNotReady`, without the calls
 * that returned "not ready" (so each step made, ended or failed something).
 */
export function stepList(model, filter, skipNotReady = false) {
  const byEnd = completionOrder(model);
  if (filter.op == null && filter.where == null && !skipNotReady) return byEnd;
  const keep = model.nodes.map((_, k) => nodeMatches(model, k, filter));
  const flags = model.flags, node = model.node;
  const kept = (i) => keep[node[i]] && !(skipNotReady && (flags[i] & 3) === NOT_READY);
  let count = 0;
  for (let k = 0; k < byEnd.length; k++) if (kept(byEnd[k])) count++;
  const list = new Uint32Array(count);
  let at = 0;
  for (let k = 0; k < byEnd.length; k++) if (kept(byEnd[k])) list[at++] = byEnd[k];
  return list;
}

/**
 * The event one step from `current` (an event index or -1) in `list` (completion order):
 * direction +1 is the next to complete, -1 the previous; the first / last when nothing
 * is selected; -1 past either end or for an empty list.
 */
export function step(model, list, current, direction) {
  if (list.length === 0) return -1;
  if (current < 0) return direction > 0 ? list[0] : list[list.length - 1];
  completionOrder(model);
  const rank = model.rank, target = rank[current];
  let lo = 0, hi = list.length;                  // first position with rank >= target
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rank[list[mid]] < target) lo = mid + 1; else hi = mid;
  }
  const here = lo < list.length && list[lo] === current;
  const k = direction > 0 ? (here ? lo + 1 : lo) : lo - 1;
  return k >= 0 && k < list.length ? list[k] : -1;
}

/** The item text of event i, as rlviz.trace.items.format_summary writes it (null for none). */
export function itemText(model, i) {
  const kind = model.flags[i] >> 2, number = model.item[i], texts = model.meta.texts;
  if (kind === KIND_INT) return `int ${number}`;
  if (kind === KIND_TEXT) return texts[number];
  if (kind === KIND_SIZED) return `${texts[number % NAME_SPAN]}[${Math.floor(number / NAME_SPAN)}]`;
  if (kind === KIND_FLOAT) return `float ${formatG(number)}`;
  if (kind === KIND_BOOL) return `bool ${number ? "True" : "False"}`;
  return null;
}

/** Python's format(x, ".6g"). */
export function formatG(x) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const exponent = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(6)))));
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, power] = x.toExponential(5).split("e");
    const trimmed = mantissa.includes(".") ? mantissa.replace(/\.?0+$/, "") : mantissa;
    const sign = power[0] === "-" ? "-" : "+";
    const digits = power.replace(/^[+-]/, "").padStart(2, "0");
    return `${trimmed}e${sign}${digits}`;
  }
  const fixed = x.toFixed(Math.max(0, 5 - exponent));
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/** The prefix that limits a search to op names: "op:TrainOneStep". */
export const OP_PREFIX = "op:";

/**
 * Events whose op, label or item text contains `query` (case-insensitive). Events of nodes whose
 * op name is exactly the query come first, then the others, each group in completion order (every
 * long label downstream contains an op's name, so an exact op is what a person looks for). A query
 * starting with "op:" (or `opsOnly`) matches op names only.
 */
export function searchEvents(model, query, filter = { op: null, where: null }, { opsOnly = false } = {}) {
  let needle = query.trim().toLowerCase();
  if (needle.startsWith(OP_PREFIX)) { needle = needle.slice(OP_PREFIX.length).trim(); opsOnly = true; }
  if (!needle) return new Uint32Array(0);
  const exact = model.nodes.map((node) => node.op.toLowerCase() === needle);
  const nodeHit = model.nodes.map((node) => node.op.toLowerCase().includes(needle)
    || (!opsOnly && node.label.toLowerCase().includes(needle)));
  const textHit = model.meta.texts.map((text) => !opsOnly && text.toLowerCase().includes(needle));
  const list = stepList(model, filter);
  const first = [], rest = [];
  for (let k = 0; k < list.length; k++) {
    const i = list[k];
    if (exact[model.node[i]]) { first.push(i); continue; }
    if (nodeHit[model.node[i]]) { rest.push(i); continue; }
    if (opsOnly) continue;
    const kind = model.flags[i] >> 2;
    if (kind === KIND_TEXT ? textHit[model.item[i]] : kind !== 0 && (itemText(model, i) || "").toLowerCase().includes(needle)) {
      rest.push(i);
    }
  }
  return Uint32Array.from(first.concat(rest));
}

/**
 * The search hit one step from `current` in `hits` (searchEvents' ranked order, exact op names first):
 * the next / previous in the list, the first / last when `current` is not a hit; -1 past either end.
 */
export function searchStep(hits, current, direction) {
  if (hits.length === 0) return -1;
  const k = hits.indexOf(current);
  if (k < 0) return direction > 0 ? hits[0] : hits[hits.length - 1];
  const next = k + direction;
  return next >= 0 && next < hits.length ? hits[next] : -1;
}

// ------------------------------------------------------------------ why: the unions' decisions
const STAR_FLAG = 1, CAP_FLAG = 2, DROPPED_FLAG = 8;

/**
 * Event index -> decision row, from the payload's `decisions` (rows as columns). The union's own call
 * maps to the pull it yielded, the child's call to its pull (as rlviz.trace.decisions.Decisions.row_of).
 */
export function decisionIndex(decisions) {
  const index = new Map();
  if (!decisions) return index;
  const rows = decisions.rows;
  rows.union_event.forEach((e, row) => { if (e >= 0) index.set(e, row); });
  rows.event.forEach((e, row) => { if (e >= 0) index.set(e, row); });
  return index;
}

function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 10 && tens <= 20 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
}

/** The "why" sentence of decision `row`, word for word as rlviz.trace.decisions.why_sentence writes it. */
export function whySentence(decisions, row) {
  const r = decisions.rows, spec = decisions.specs[r.union[row]];
  const name = (child) => (child < spec.children.length ? spec.children[child] : `child ${child}`);
  const op = name(r.child[row]), star = (r.flags[row] & STAR_FLAG) !== 0, cap = (r.flags[row] & CAP_FLAG) !== 0;
  const who = star ? `${op} ('*')` : op, round = r.round[row], pull = r.pull[row], allowed = r.allowed[row];
  const following = r.next[row] >= 0 ? name(r.next[row]) : null;
  const outcome = OUTCOMES[r.outcome[row]];
  if (outcome === "not_ready") {
    const done = star && pull > 1 ? ` after ${pull - 1} item${pull === 2 ? "" : "s"}` : "";
    return `round ${round}: ${who} not ready${done}: its turn ends` + (following ? `, ${following} next` : "");
  }
  if (outcome === "stop") return `round ${round}: ${who} is exhausted and leaves the union` + (following ? `, ${following} next` : "");
  let text;
  if (cap) text = `round ${round}: ${who}: ${ordinal(pull)} pull this turn, the cap — it is always ready`;
  else if (star) text = `round ${round}: ${who}, pull ${pull} (up to ${allowed} while ready)`;
  else {
    text = `round ${round}: ${op}, pull ${pull} of ${allowed}`;
    const weight = spec.weights[r.child[row]];
    if (typeof weight === "number" && !Number.isInteger(weight)) text += ` (weight ${formatG(weight)} drew ${allowed} this round)`;
  }
  if (r.flags[row] & DROPPED_FLAG) text += ", its item dropped by output_indexes";
  if (pull === 1 && r.after[row] >= 0) text += `, after ${name(r.after[row])} was not ready`;
  const lastOfTurn = cap || (!star && pull >= allowed);
  if (following && (lastOfTurn || following !== op)) text += `; next ${following}`;
  return text;
}

/** Why event `i` happened (a union's scheduling decision), or null. */
export function whyOf(decisions, index, i) {
  const row = index.get(i);
  return row === undefined ? null : whySentence(decisions, row);
}

/**
 * Events of the order strip's groups (`strip`, the payload's default strip unless given), in completion
 * order. Kept on the model: a grown model (explorer_grow.js) marks from where its completion order
 * changed, and only that part is filtered again; the list returned is valid until the next call.
 */
export function orderEvents(model, strip = model.meta.order) {
  if (!strip) return new Uint32Array(0);
  const group = groupsOf(model, strip);
  const byEnd = completionOrder(model);
  const cache = orderCache(model, `order:${strip.groups.map((g) => g.node).join(",")}`,
    () => ({ list: new Uint32Array(1024) }));
  let size = placedBefore(model, cache.list, cache.size, cache.upTo);
  cache.list = withRoom(cache.list, size + byEnd.length - cache.upTo, size);
  for (let k = cache.upTo; k < byEnd.length; k++) {
    const i = byEnd[k];
    if (group[model.node[i]] >= 0 && (model.flags[i] & 3) === ITEM) cache.list[size++] = i;
  }
  cache.size = size;
  cache.upTo = byEnd.length;
  model.orderGroup = group;
  return cache.list.subarray(0, size);
}

/** Each node's group in `strip` (-1: not in it). */
function groupsOf(model, strip) {
  const group = new Int32Array(model.nodes.length).fill(-1);
  strip.groups.forEach((g, k) => { group[g.node] = k; });
  return group;
}

/**
 * The cache under `key` of a list kept in completion order on `model` (made by `create` the first
 * time): `upTo` is the completion position up to which its `size` entries are right.
 */
function orderCache(model, key, create) {
  const caches = model.orderCaches || (model.orderCaches = new Map());
  let cache = caches.get(key);
  if (!cache) caches.set(key, (cache = { upTo: 0, size: 0, ...create() }));
  return cache;
}

/** The model's lists kept in completion order (orderEvents, mergeEvents) are right only before `position` now. */
export function invalidateOrderFrom(model, position) {
  for (const cache of model.orderCaches?.values() ?? []) cache.upTo = Math.min(cache.upTo, position);
}

/** How many of the first `size` events of `list` (in completion order) come before completion position `position`. */
function placedBefore(model, list, size, position) {
  let lo = 0, hi = size;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (model.rank[list[mid]] < position) lo = mid + 1; else hi = mid; }
  return lo;
}

/**
 * `array` if it holds `size` entries, else a copy of its first `kept` entries with room for at
 * least `size` (twice the old length, so growing by small steps copies rarely).
 */
export function withRoom(array, size, kept = array.length) {
  if (size <= array.length) return array;
  const bigger = new array.constructor(Math.max(size, 2 * array.length, 16));
  bigger.set(array.subarray(0, kept));
  return bigger;
}

/** Error events of row r that overlap [t0, t1] (drawn exactly at every zoom). */
export function errorsInWindow(model, r, t0, t1) {
  const list = model.errors[r], found = [];
  const from = t0 - model.rowMaxDur[r];
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (model.start[list[mid]] < from) lo = mid + 1; else hi = mid;
  }
  for (let k = lo; k < list.length && model.start[list[k]] <= t1; k++) {
    const i = list[k];
    if (model.start[i] + model.duration[i] >= t0) found.push(i);
  }
  return found;
}

/** Positions [k0, k1) of `list` (events in completion order) that completed within [t0, t1]. */
export function completedIn(model, list, t0, t1) {
  const endOf = (k) => model.start[list[k]] + model.duration[list[k]];
  const bound = (t, strict) => {
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (endOf(mid) < t || (strict && endOf(mid) === t)) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  return [bound(t0, false), bound(t1, true)];
}

// ------------------------------------------------------------------ panes' layout and marks

/**
 * The timeline's rows laid out top to bottom: `y[r]` is row r's top (`y[rows]` the height), `shown[r]`
 * whether it is drawn, `first[r]` / `last[r]` whether it opens / closes its lane's block. With `hide`
 * and a filter set, rows the filter rejects take no room (the filter hides instead of dimming).
 * `laneExtra[lane]` pixels are left free under a lane's rows (its gauge tracks go there), and
 * `laneEnd.get(lane)` says where that room starts, for each lane with a row shown.
 */
export function rowLayout(model, filter, hide, { top = 4, rowHeight = 13, laneGap = 7, laneExtra = [] } = {}) {
  const R = model.rows.length, filtered = filter.op != null || filter.where != null;
  const y = new Float64Array(R + 1), shown = new Uint8Array(R), first = new Uint8Array(R), last = new Uint8Array(R);
  const laneEnd = new Map();                     // lane index -> y under its last row shown (its extra room starts)
  let at = top, lane = -1, previous = -1;
  const closeLane = () => { laneEnd.set(lane, at); at += laneExtra[lane] || 0; };
  for (let r = 0; r < R; r++) {
    const row = model.rows[r];
    shown[r] = !(hide && filtered) || nodeMatches(model, row.node, filter) ? 1 : 0;
    y[r] = at;
    if (!shown[r]) continue;
    if (row.lane !== lane) {
      if (previous >= 0) { last[previous] = 1; closeLane(); at += laneGap; y[r] = at; }
      first[r] = 1;
      lane = row.lane;
    }
    at += rowHeight;
    previous = r;
  }
  if (previous >= 0) { last[previous] = 1; closeLane(); }
  y[R] = at + 4;
  return { y, shown, first, last, laneEnd };
}

/**
 * Where the search hits `hits` lie in the window [t0, t1) drawn `width` pixels wide: per row, the pixel
 * ranges [x0, x1) that hold a hit (adjacent pixels merged, so a dense row costs at most `width` marks).
 * Returns a Map row -> flat array [x0, x1, x0, x1, ...] and the number of hits inside the window.
 */
export function matchMarks(model, hits, t0, t1, width) {
  const scale = width / (t1 - t0), pixels = new Map();
  let inside = 0;
  for (let k = 0; k < hits.length; k++) {
    const i = hits[k], s = model.start[i], e = s + model.duration[i];
    if (e < t0 || s >= t1) continue;
    inside++;
    const r = model.nodeRow[model.node[i]];
    let line = pixels.get(r);
    if (!line) { line = new Uint8Array(width); pixels.set(r, line); }
    const x0 = Math.max(0, Math.floor((s - t0) * scale));
    const x1 = Math.min(width, Math.max(x0 + 1, Math.ceil((e - t0) * scale)));
    line.fill(1, x0, x1);
  }
  const marks = new Map();
  for (const [r, line] of pixels) {
    const ranges = [];
    for (let x = 0; x < width; x++) {
      if (!line[x]) continue;
      const from = x;
      while (x < width && line[x]) x++;
      ranges.push(from, x);
    }
    marks.set(r, ranges);
  }
  return { marks, inside };
}

/**
 * The merging node the order pane opens on: the selected event's node when it merges streams, else
 * `fallback` (the payload's default: the merging node nearest the driver's end). Indexes `orders`.
 */
export function defaultMerge(model, orders, selected, fallback) {
  if (!orders || orders.length === 0) return -1;
  if (selected >= 0 && selected < model.n) {
    const k = orders.findIndex((o) => o.node === model.node[selected]);
    if (k >= 0) return k;
  }
  return fallback >= 0 && fallback < orders.length ? fallback : orders.length - 1;
}

/**
 * One row per round of union `union`, from the payload's decisions: each round's polls in order,
 * `{child, notReady, event}` (event: the child's call, or the union's, -1 when neither was recorded).
 * `keep(row)` may leave decision rows out (a window). Also the counts per child over every round:
 * `items` and `notReady`. Stops (an exhausted child) are not polls of a turn and are left out.
 */
export function roundRows(decisions, union, keep = () => true) {
  const rounds = [], items = [], notReady = [];
  if (!decisions || union == null || union < 0) return { rounds, items, notReady };
  const r = decisions.rows, children = decisions.specs[union].children.length;
  for (let c = 0; c < children; c++) { items.push(0); notReady.push(0); }
  let current = null;
  for (let row = 0; row < r.union.length; row++) {
    const outcome = r.outcome[row];
    if (r.union[row] !== union || (outcome !== ITEM && outcome !== NOT_READY)) continue;
    const child = r.child[row], polled = outcome === NOT_READY;
    while (items.length <= child) { items.push(0); notReady.push(0); }
    if (polled) notReady[child]++; else items[child]++;
    if (!keep(row)) continue;
    if (!current || current.round !== r.round[row]) { current = { round: r.round[row], cells: [] }; rounds.push(current); }
    const event = r.event[row] >= 0 ? r.event[row] : r.union_event[row];
    current.cells.push({ child, notReady: polled, event });
  }
  return { rounds, items, notReady };
}

/**
 * What a merging node yielded, in completion order, each item tagged with the stream it came from:
 * `events` are the merge node's own item calls, `group[k]` the index in `strip.groups` of the input
 * linked to events[k] (-1 when none is). This is the order the merge handed items on (a gather's
 * alternation between shards), not the order its inputs finished (their bursts). When no call of the
 * merge links to an input, the inputs' own items stand in (`fromInputs` true).
 */
export function mergeEvents(model, strip) {
  const groupOf = groupsOf(model, strip);
  const byEnd = completionOrder(model);
  const cache = orderCache(model, `merge:${strip.node}:${strip.groups.map((g) => g.node).join(",")}`,
    () => ({ events: new Uint32Array(1024), group: new Int32Array(1024), linked: 0 }));
  const kept = placedBefore(model, cache.events, cache.size, cache.upTo);
  for (let k = kept; k < cache.size; k++) if (cache.group[k] >= 0) cache.linked--;
  const room = kept + byEnd.length - cache.upTo;
  cache.events = withRoom(cache.events, room, kept);
  cache.group = withRoom(cache.group, room, kept);
  let size = kept;
  for (let k = cache.upTo; k < byEnd.length; k++) {
    const i = byEnd[k];
    if (model.node[i] !== strip.node || (model.flags[i] & 3) !== ITEM) continue;
    let found = -1;
    for (let j = model.inOffsets[i]; j < model.inOffsets[i + 1] && found < 0; j++) found = groupOf[model.node[model.inputs[j]]];
    cache.events[size] = i;
    cache.group[size++] = found;
    if (found >= 0) cache.linked++;
  }
  cache.size = size;
  cache.upTo = byEnd.length;
  if (!cache.linked) return inputsInOrder(model, strip, groupOf);
  return { events: cache.events.subarray(0, size), group: cache.group.subarray(0, size), fromInputs: false };
}

/** mergeEvents' stand-in when the merge links no input: the inputs' own items, each tagged with its group. */
function inputsInOrder(model, strip, groupOf) {
  const events = orderEvents(model, strip);
  const cache = orderCache(model, `inputs:${strip.groups.map((g) => g.node).join(",")}`,
    () => ({ group: new Int32Array(1024) }));
  const kept = placedBefore(model, events, Math.min(cache.size, events.length), cache.upTo);
  cache.group = withRoom(cache.group, events.length, kept);
  for (let k = kept; k < events.length; k++) cache.group[k] = groupOf[model.node[events[k]]];
  cache.size = events.length;
  cache.upTo = model.byEnd.length;
  return { events, group: cache.group.subarray(0, events.length), fromInputs: true };
}
