// Built by js/build.mjs (esbuild) from rlviz/viz/static/*.js and panes/*.js: edit those, then `make bundle`.
var __defProp = Object.defineProperty;
var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

// rlviz/viz/static/explorer_core.js
var OUTCOMES = ["item", "not_ready", "stop", "error"];
var ITEM = 0;
var NOT_READY = 1;
var STOP = 2;
var ERROR = 3;
var KIND_INT = 1;
var KIND_FLOAT = 2;
var KIND_BOOL = 3;
var KIND_TEXT = 4;
var KIND_SIZED = 5;
var NAME_SPAN = 2 ** 24;
var EXACT_PER_PIXEL = 0.5;
var LOOK_BACK = 4096;
function buildModel(meta, columns) {
  const n = meta.count;
  const nodes = meta.nodes;
  const { rows, nodeRow } = modelRows(meta);
  const start = columns.start, duration2 = columns.duration, node = columns.node, flags = columns.flags;
  const R = rows.length;
  const rowStart = new Uint32Array(R + 1);
  for (let i = 0; i < n; i++) rowStart[nodeRow[node[i]] + 1]++;
  for (let r = 0; r < R; r++) rowStart[r + 1] += rowStart[r];
  const rowEnd = rowStart.slice(1);
  const rowEvents = new Uint32Array(n);
  const fill = rowStart.slice(0, R);
  for (let i = 0; i < n; i++) rowEvents[fill[nodeRow[node[i]]]++] = i;
  for (let r = 0; r < R; r++) sortRow(rowEvents, start, rowStart[r], rowEnd[r]);
  const rowTimes = new Float64Array(n);
  for (let k = 0; k < n; k++) rowTimes[k] = start[rowEvents[k]];
  const busy = new Float64Array(n + R);
  const polls = new Uint32Array(n + R);
  const rowMaxDur = new Float64Array(R);
  const errors = [];
  for (let r = 0; r < R; r++) {
    const rowErrors = [];
    for (let k = rowStart[r]; k < rowEnd[r]; k++) {
      const i = rowEvents[k], outcome = flags[i] & 3, slot = k + r;
      busy[slot + 1] = busy[slot] + (outcome === NOT_READY ? 0 : duration2[i]);
      polls[slot + 1] = polls[slot] + (outcome === NOT_READY ? 1 : 0);
      if (duration2[i] > rowMaxDur[r]) rowMaxDur[r] = duration2[i];
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
  for (let i = 0; i < n; i++) end = Math.max(end, start[i] + duration2[i]);
  return {
    meta,
    n,
    nodes,
    rows,
    nodeRow,
    start,
    duration: duration2,
    node,
    flags,
    item: columns.item,
    rowStart,
    rowEnd,
    rowEvents,
    rowTimes,
    busy,
    polls,
    rowMaxDur,
    errors,
    inOffsets,
    inputs,
    outOffsets,
    outputs,
    droppedInputs: { base: 0, links: droppedLinks(inOffsets, inputs, columns.input_dropped) },
    end,
    unitMs: meta.unit_ns / 1e6,
    byEnd: null,
    rank: null
  };
}
function droppedLinks(inOffsets, inputs, inputDropped) {
  const links = /* @__PURE__ */ new Map();
  if (!inputDropped) return links;
  for (let c = 0; c + 1 < inOffsets.length; c++) {
    for (let k = inOffsets[c]; k < inOffsets[c + 1]; k++) {
      if (!inputDropped[k]) continue;
      if (!links.has(c)) links.set(c, /* @__PURE__ */ new Set());
      links.get(c).add(inputs[k]);
    }
  }
  return links;
}
function isDroppedInput(model, consumer, producer) {
  const dropped = model.droppedInputs;
  const set = dropped && dropped.links.get(consumer + dropped.base);
  return Boolean(set && set.has(producer + dropped.base));
}
function modelRows(meta) {
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
function sortRow(events, start, lo, hi) {
  let sorted = true;
  for (let k = lo + 1; k < hi && sorted; k++) sorted = start[events[k - 1]] <= start[events[k]];
  if (sorted) return;
  const part = events.slice(lo, hi).sort((a, b) => start[a] - start[b] || a - b);
  events.set(part, lo);
}
function lowerBound(model, r, t, lo = model.rowStart[r], hi = model.rowEnd[r]) {
  const times = model.rowTimes;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
function countInWindow(model, r, t0, t1) {
  return lowerBound(model, r, t1) - lowerBound(model, r, t0);
}
function drawsExact(model, r, t0, t1, width) {
  return countInWindow(model, r, t0, t1) <= width * EXACT_PER_PIXEL;
}
function busyFraction(busy, time2) {
  return Math.min(1, busy / time2);
}
function busyAlpha(fraction) {
  return fraction > 0 ? 0.3 + 0.7 * fraction : 0;
}
function aggregateRow(model, r, t0, t1, width) {
  const fraction = new Float32Array(width), polls = new Uint32Array(width);
  const base = r;
  const hi = model.rowEnd[r];
  const step2 = (t1 - t0) / width;
  let k = lowerBound(model, r, t0);
  for (let px = 0; px < width; px++) {
    const next = lowerBound(model, r, t0 + (px + 1) * step2, k, hi);
    if (next > k) {
      fraction[px] = busyFraction(model.busy[base + next] - model.busy[base + k], step2);
      polls[px] = model.polls[base + next] - model.polls[base + k];
    }
    k = next;
  }
  return { fraction, polls };
}
function pollAlpha(count) {
  return count > 0 ? Math.min(1, 0.85 + 0.03 * count) : 0;
}
function visibleRange(model, r, t0, t1) {
  const inside = lowerBound(model, r, t0);
  const k0 = Math.max(lowerBound(model, r, t0 - model.rowMaxDur[r]), inside - LOOK_BACK);
  return [k0, lowerBound(model, r, t1, inside)];
}
function hitTest(model, r, t, tolerance) {
  if (r < 0 || r >= model.rows.length) return -1;
  const { rowEvents, start, duration: duration2 } = model;
  const lo = model.rowStart[r];
  let k = lowerBound(model, r, t + tolerance + 1e-9) - 1;
  const stopAt = Math.max(lo, k - LOOK_BACK);
  let best = -1, bestDistance = Infinity, bestDuration = Infinity;
  for (; k >= stopAt; k--) {
    const i = rowEvents[k], s = start[i], e = s + duration2[i];
    if (s + model.rowMaxDur[r] < t - tolerance) break;
    const distance = t < s ? s - t : t > e ? t - e : 0;
    if (distance > tolerance) continue;
    if (distance < bestDistance || distance === bestDistance && duration2[i] < bestDuration) {
      best = i;
      bestDistance = distance;
      bestDuration = duration2[i];
    }
  }
  return best;
}
function completionOrder(model) {
  if (model.byEnd) return model.byEnd;
  const { n, start, duration: duration2 } = model;
  let byEnd;
  if (n < 2 ** 21 && model.end < 2 ** 32) {
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = (start[i] + duration2[i]) * 2097152 + i;
    keys.sort();
    byEnd = new Uint32Array(n);
    for (let k = 0; k < n; k++) byEnd[k] = keys[k] % 2097152;
  } else {
    byEnd = Uint32Array.from({ length: n }, (_, i) => i);
    byEnd.sort((a, b) => start[a] + duration2[a] - (start[b] + duration2[b]) || a - b);
  }
  const rank = new Uint32Array(n);
  for (let k = 0; k < n; k++) rank[byEnd[k]] = k;
  model.byEnd = byEnd;
  model.rank = rank;
  return byEnd;
}
function nodeMatches(model, nodeIndex, filter) {
  const node = model.nodes[nodeIndex];
  return (filter.op == null || node.op === filter.op) && (filter.where == null || node.where === filter.where);
}
function stepList(model, filter, skipNotReady = false) {
  const byEnd = completionOrder(model);
  if (filter.op == null && filter.where == null && !skipNotReady) return byEnd;
  const keep = model.nodes.map((_, k) => nodeMatches(model, k, filter));
  const flags = model.flags, node = model.node;
  const kept = (i) => keep[node[i]] && !(skipNotReady && (flags[i] & 3) === NOT_READY);
  let count = 0;
  for (let k = 0; k < byEnd.length; k++) if (kept(byEnd[k])) count++;
  const list2 = new Uint32Array(count);
  let at = 0;
  for (let k = 0; k < byEnd.length; k++) if (kept(byEnd[k])) list2[at++] = byEnd[k];
  return list2;
}
function step(model, list2, current, direction) {
  if (list2.length === 0) return -1;
  if (current < 0) return direction > 0 ? list2[0] : list2[list2.length - 1];
  completionOrder(model);
  const rank = model.rank, target = rank[current];
  let lo = 0, hi = list2.length;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (rank[list2[mid]] < target) lo = mid + 1;
    else hi = mid;
  }
  const here = lo < list2.length && list2[lo] === current;
  const k = direction > 0 ? here ? lo + 1 : lo : lo - 1;
  return k >= 0 && k < list2.length ? list2[k] : -1;
}
function itemText(model, i) {
  const kind = model.flags[i] >> 2, number = model.item[i], texts = model.meta.texts;
  if (kind === KIND_INT) return `int ${number}`;
  if (kind === KIND_TEXT) return texts[number];
  if (kind === KIND_SIZED) return `${texts[number % NAME_SPAN]}[${Math.floor(number / NAME_SPAN)}]`;
  if (kind === KIND_FLOAT) return `float ${formatG(number)}`;
  if (kind === KIND_BOOL) return `bool ${number ? "True" : "False"}`;
  return null;
}
function formatG(x) {
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
var OP_PREFIX = "op:";
function searchEvents(model, query, filter = { op: null, where: null }, { opsOnly = false } = {}) {
  let needle = query.trim().toLowerCase();
  if (needle.startsWith(OP_PREFIX)) {
    needle = needle.slice(OP_PREFIX.length).trim();
    opsOnly = true;
  }
  if (!needle) return new Uint32Array(0);
  const exact = model.nodes.map((node) => node.op.toLowerCase() === needle);
  const nodeHit = model.nodes.map((node) => node.op.toLowerCase().includes(needle) || !opsOnly && node.label.toLowerCase().includes(needle));
  const textHit = model.meta.texts.map((text) => !opsOnly && text.toLowerCase().includes(needle));
  const list2 = stepList(model, filter);
  const first = [], rest = [];
  for (let k = 0; k < list2.length; k++) {
    const i = list2[k];
    if (exact[model.node[i]]) {
      first.push(i);
      continue;
    }
    if (nodeHit[model.node[i]]) {
      rest.push(i);
      continue;
    }
    if (opsOnly) continue;
    const kind = model.flags[i] >> 2;
    if (kind === KIND_TEXT ? textHit[model.item[i]] : kind !== 0 && (itemText(model, i) || "").toLowerCase().includes(needle)) {
      rest.push(i);
    }
  }
  return Uint32Array.from(first.concat(rest));
}
function searchStep(hits, current, direction) {
  if (hits.length === 0) return -1;
  const k = hits.indexOf(current);
  if (k < 0) return direction > 0 ? hits[0] : hits[hits.length - 1];
  const next = k + direction;
  return next >= 0 && next < hits.length ? hits[next] : -1;
}
var STAR_FLAG = 1;
var CAP_FLAG = 2;
var DROPPED_FLAG = 8;
function decisionIndex(decisions) {
  const index = /* @__PURE__ */ new Map();
  if (!decisions) return index;
  const rows = decisions.rows;
  rows.union_event.forEach((e, row) => {
    if (e >= 0) index.set(e, row);
  });
  rows.event.forEach((e, row) => {
    if (e >= 0) index.set(e, row);
  });
  return index;
}
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 10 && tens <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}
function whySentence(decisions, row) {
  const r = decisions.rows, spec = decisions.specs[r.union[row]];
  const name = (child) => child < spec.children.length ? spec.children[child] : `child ${child}`;
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
  const lastOfTurn = cap || !star && pull >= allowed;
  if (following && (lastOfTurn || following !== op)) text += `; next ${following}`;
  return text;
}
function whyOf(decisions, index, i) {
  const row = index.get(i);
  return row === void 0 ? null : whySentence(decisions, row);
}
function orderEvents(model, strip = model.meta.order) {
  if (!strip) return new Uint32Array(0);
  const group = groupsOf(model, strip);
  const byEnd = completionOrder(model);
  const cache = orderCache(
    model,
    `order:${strip.groups.map((g) => g.node).join(",")}`,
    () => ({ list: new Uint32Array(1024) })
  );
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
function groupsOf(model, strip) {
  const group = new Int32Array(model.nodes.length).fill(-1);
  strip.groups.forEach((g, k) => {
    group[g.node] = k;
  });
  return group;
}
function orderCache(model, key, create) {
  const caches = model.orderCaches || (model.orderCaches = /* @__PURE__ */ new Map());
  let cache = caches.get(key);
  if (!cache) caches.set(key, cache = { upTo: 0, size: 0, ...create() });
  return cache;
}
function placedBefore(model, list2, size, position) {
  let lo = 0, hi = size;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (model.rank[list2[mid]] < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
function withRoom(array, size, kept = array.length) {
  if (size <= array.length) return array;
  const bigger = new array.constructor(Math.max(size, 2 * array.length, 16));
  bigger.set(array.subarray(0, kept));
  return bigger;
}
function errorsInWindow(model, r, t0, t1) {
  const list2 = model.errors[r], found = [];
  const from = t0 - model.rowMaxDur[r];
  let lo = 0, hi = list2.length;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (model.start[list2[mid]] < from) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < list2.length && model.start[list2[k]] <= t1; k++) {
    const i = list2[k];
    if (model.start[i] + model.duration[i] >= t0) found.push(i);
  }
  return found;
}
function completedIn(model, list2, t0, t1) {
  const endOf = (k) => model.start[list2[k]] + model.duration[list2[k]];
  const bound = (t, strict) => {
    let lo = 0, hi = list2.length;
    while (lo < hi) {
      const mid = lo + hi >>> 1;
      if (endOf(mid) < t || strict && endOf(mid) === t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [bound(t0, false), bound(t1, true)];
}
function rowLayout(model, filter, hide, { top = 4, rowHeight = 13, laneGap = 7, laneExtra: laneExtra2 = [] } = {}) {
  const R = model.rows.length, filtered = filter.op != null || filter.where != null;
  const y = new Float64Array(R + 1), shown = new Uint8Array(R), first = new Uint8Array(R), last = new Uint8Array(R);
  const laneEnd = /* @__PURE__ */ new Map();
  let at = top, lane = -1, previous = -1;
  const closeLane = () => {
    laneEnd.set(lane, at);
    at += laneExtra2[lane] || 0;
  };
  for (let r = 0; r < R; r++) {
    const row = model.rows[r];
    shown[r] = !(hide && filtered) || nodeMatches(model, row.node, filter) ? 1 : 0;
    y[r] = at;
    if (!shown[r]) continue;
    if (row.lane !== lane) {
      if (previous >= 0) {
        last[previous] = 1;
        closeLane();
        at += laneGap;
        y[r] = at;
      }
      first[r] = 1;
      lane = row.lane;
    }
    at += rowHeight;
    previous = r;
  }
  if (previous >= 0) {
    last[previous] = 1;
    closeLane();
  }
  y[R] = at + 4;
  return { y, shown, first, last, laneEnd };
}
function matchMarks(model, hits, t0, t1, width) {
  const scale = width / (t1 - t0), pixels = /* @__PURE__ */ new Map();
  let inside = 0;
  for (let k = 0; k < hits.length; k++) {
    const i = hits[k], s = model.start[i], e = s + model.duration[i];
    if (e < t0 || s >= t1) continue;
    inside++;
    const r = model.nodeRow[model.node[i]];
    let line = pixels.get(r);
    if (!line) {
      line = new Uint8Array(width);
      pixels.set(r, line);
    }
    const x0 = Math.max(0, Math.floor((s - t0) * scale));
    const x1 = Math.min(width, Math.max(x0 + 1, Math.ceil((e - t0) * scale)));
    line.fill(1, x0, x1);
  }
  const marks = /* @__PURE__ */ new Map();
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
function defaultMerge(model, orders, selected, fallback) {
  if (!orders || orders.length === 0) return -1;
  if (selected >= 0 && selected < model.n) {
    const k = orders.findIndex((o) => o.node === model.node[selected]);
    if (k >= 0) return k;
  }
  return fallback >= 0 && fallback < orders.length ? fallback : orders.length - 1;
}
function roundRows(decisions, union2, keep = () => true) {
  const rounds = [], items = [], notReady = [];
  if (!decisions || union2 == null || union2 < 0) return { rounds, items, notReady };
  const r = decisions.rows, children = decisions.specs[union2].children.length;
  for (let c = 0; c < children; c++) {
    items.push(0);
    notReady.push(0);
  }
  let current = null;
  for (let row = 0; row < r.union.length; row++) {
    const outcome = r.outcome[row];
    if (r.union[row] !== union2 || outcome !== ITEM && outcome !== NOT_READY) continue;
    const child = r.child[row], polled = outcome === NOT_READY;
    while (items.length <= child) {
      items.push(0);
      notReady.push(0);
    }
    if (polled) notReady[child]++;
    else items[child]++;
    if (!keep(row)) continue;
    if (!current || current.round !== r.round[row]) {
      current = { round: r.round[row], cells: [] };
      rounds.push(current);
    }
    const event = r.event[row] >= 0 ? r.event[row] : r.union_event[row];
    current.cells.push({ child, notReady: polled, event });
  }
  return { rounds, items, notReady };
}
function mergeEvents(model, strip) {
  const groupOf = groupsOf(model, strip);
  const byEnd = completionOrder(model);
  const cache = orderCache(
    model,
    `merge:${strip.node}:${strip.groups.map((g) => g.node).join(",")}`,
    () => ({ events: new Uint32Array(1024), group: new Int32Array(1024), linked: 0 })
  );
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
function inputsInOrder(model, strip, groupOf) {
  const events = orderEvents(model, strip);
  const cache = orderCache(
    model,
    `inputs:${strip.groups.map((g) => g.node).join(",")}`,
    () => ({ group: new Int32Array(1024) })
  );
  const kept = placedBefore(model, events, Math.min(cache.size, events.length), cache.upTo);
  cache.group = withRoom(cache.group, events.length, kept);
  for (let k = kept; k < events.length; k++) cache.group[k] = groupOf[model.node[events[k]]];
  cache.size = events.length;
  cache.upTo = model.byEnd.length;
  return { events, group: cache.group.subarray(0, events.length), fromInputs: true };
}

// rlviz/viz/static/explorer_dom.js
var GUTTER = 190;
var ROW_H = 13;
var LANE_GAP = 7;
var RULER_H = 24;
var NOT_READY_COLOR = "#b8b8b8";
var ERROR_COLOR = "#d62728";
var STOP_COLOR = "#333333";
var PRODUCER_COLOR = "#e67e22";
var CONSUMER_COLOR = "#2471a3";
var RESTART_COLOR = "#c0392b";
var MATCH_COLOR = "#f1c40f";
var DROPPED_LINK_COLOR = "#8c8c8c";
var GROUP_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
var MAX_ARROWS = 200;
var MAX_LINKS_LISTED = 40;
var PLAY_MS = 250;
var CSS = `
.rlviz-explorer { position: relative; font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
  border: 1px solid #ddd; border-radius: 4px; padding: 6px; background: #fff; outline: none; }
.rlviz-explorer:focus-visible { box-shadow: 0 0 0 2px #9cc3e6; }
.rlviz-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 4px; }
.rlviz-bar button { font: inherit; padding: 1px 8px; cursor: pointer; }
.rlviz-bar input[type="search"] { font: inherit; width: 16em; }
.rlviz-bar label { display: inline-flex; align-items: center; gap: 3px; white-space: nowrap; cursor: pointer; }
.rlviz-bar label input { margin: 0; }
.rlviz-title { font-weight: 600; margin-right: 8px; }
.rlviz-status { color: #555; }
.rlviz-notes { margin: 4px 0; padding-left: 16px; color: #7a4b00; font-size: 11px; }
.rlviz-notes:empty { display: none; }
.rlviz-chip { background: #eef4fb; border: 1px solid #9cc3e6; border-radius: 9px; padding: 0 6px; }
.rlviz-banner { background: #fdecea; border-left: 4px solid #d62728; padding: 4px 8px; margin: 4px 0; white-space: pre-wrap; }
.rlviz-note { background: #fff4e0; border-left: 4px solid #e69500; padding: 3px 8px; margin: 4px 0; }
.rlviz-scroll { position: relative; max-height: 62vh; overflow-y: auto; overflow-x: hidden; }
.rlviz-timeline canvas { display: block; cursor: crosshair; }
.rlviz-lower { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 4fr) minmax(0, 3fr); gap: 8px; margin-top: 6px; }
.rlviz-pane { border: 1px solid #eee; border-radius: 3px; padding: 4px; min-height: 120px; overflow: auto; max-height: 360px; }
.rlviz-pane h4 { margin: 0 0 4px 0; font-size: 12px; color: #444; position: sticky; top: -4px; left: 0; background: #fff; z-index: 1; padding: 2px 0; }
.rlviz-pane select { font: inherit; max-width: 100%; }
.rlviz-graph svg { display: block; height: auto; max-width: none; }
.rlviz-graph g.rlviz-node { cursor: pointer; }
.rlviz-pane.rlviz-graph-fitted { max-height: none; }
.rlviz-lower > .rlviz-graph-wide { grid-column: 1 / -1; }
.rlviz-lower:has(> .rlviz-graph-wide) { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
.rlviz-graph h4 button { font: inherit; font-weight: normal; padding: 0 6px; margin-left: 6px; cursor: pointer; }
.rlviz-order canvas { display: block; cursor: pointer; }
.rlviz-legend .entry { display: inline-block; white-space: nowrap; margin-right: 10px; }
.rlviz-legend span.sw { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 0; vertical-align: -1px; }
.rlviz-legend span.sw.hatch { background: repeating-linear-gradient(45deg, #555 0 1px, #fff 1px 4px); border: 1px solid #555; box-sizing: border-box; }
.rlviz-inspector dl { display: grid; grid-template-columns: auto 1fr; gap: 1px 8px; margin: 0; }
.rlviz-inspector dt { color: #666; } .rlviz-inspector dd { margin: 0; overflow-wrap: anywhere; }
.rlviz-inspector button { font: inherit; display: block; text-align: left; border: none; background: none;
  color: #1f5f99; cursor: pointer; padding: 0; } .rlviz-inspector button:hover { text-decoration: underline; }
.rlviz-inspector button.rlviz-dropped { color: #888; font-style: italic; }
.rlviz-inspector button[data-rlviz="break"] svg { fill: #d62728; }
.rlviz-tooltip { position: absolute; pointer-events: none; background: rgba(30,30,30,0.92); color: #fff;
  padding: 4px 7px; border-radius: 3px; font-size: 11px; white-space: pre-wrap; overflow-wrap: anywhere; display: none; z-index: 10; max-width: 480px; }
.rlviz-live { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 4px; }
.rlviz-live button { font: inherit; padding: 1px 8px; cursor: pointer; }
.rlviz-live .rlviz-count { font-weight: 600; }
.rlviz-live .rlviz-round { font-weight: 600; color: #1f5f99; }
button svg.rlviz-icon { width: 10px; height: 10px; vertical-align: -1px; margin-right: 4px; fill: currentColor; }
button svg.rlviz-icon:last-child { margin-right: 0; }
.rlviz-advance-band { position: absolute; top: 0; bottom: 0; pointer-events: none; background: rgba(31, 95, 153, 0.08);
  border-left: 2px solid #1f5f99; border-right: 2px solid #1f5f99; box-sizing: border-box; }
`;
function rgbOf(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [v >> 16 & 255, v >> 8 & 255, v & 255];
}
var GREY = rgbOf(NOT_READY_COLOR);
var DARK = rgbOf(STOP_COLOR);
function pack([r, g, b], alpha) {
  return (Math.round(alpha * 255) << 24 | b << 16 | g << 8 | r) >>> 0;
}
var FITTED = /* @__PURE__ */ new Map();
var FITTED_MAX = 4096;
function fitText(ctx, text, room) {
  const key = `${ctx.font}|${room}|${text}`;
  let fitted = FITTED.get(key);
  if (fitted === void 0) {
    if (FITTED.size >= FITTED_MAX) FITTED.clear();
    fitted = cutToFit(ctx, text, room);
    FITTED.set(key, fitted);
  }
  return fitted;
}
function cutToFit(ctx, text, room) {
  if (ctx.measureText(text).width <= room) return text;
  let lo = 1, hi = text.length - 1;
  while (lo < hi) {
    const mid = lo + hi + 1 >>> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= room) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}
function make(tag, className, part, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (part) node.dataset.rlviz = part;
  if (text != null) node.textContent = text;
  return node;
}
var ICONS = {
  play: "M1,0 L9,5 L1,10 z",
  pause: "M1,0 h3 v10 h-3 z M6,0 h3 v10 h-3 z",
  stop: "M1,1 h8 v8 h-8 z",
  advance: "M0,0 L6,5 L0,10 z M6,0 h3 v10 h-3 z",
  prev: "M9,0 L1,5 L9,10 z",
  next: "M0,0 L6,5 L0,10 z M7,0 h2 v10 h-2 z",
  dot: "M5,0 A5,5 0 1 1 4.99,0 z",
  close: "M1,2 L2,1 L5,4 L8,1 L9,2 L6,5 L9,8 L8,9 L5,6 L2,9 L1,8 L4,5 z"
};
function setIconLabel(button, icon, text = "") {
  if (button.dataset.icon === icon && button.dataset.label === text) return;
  const drawing = svg("svg", { viewBox: "0 0 10 10", class: "rlviz-icon", "aria-hidden": "true" });
  drawing.appendChild(svg("path", { d: ICONS[icon] }));
  drawing.dataset.rlviz = "icon";
  button.replaceChildren(drawing, ...text ? [document.createTextNode(text)] : []);
  button.dataset.icon = icon;
  button.dataset.label = text;
}
function iconButton(part, icon, text = "") {
  const button = make("button", null, part);
  setIconLabel(button, icon, text);
  return button;
}
function svg(tag, attributes) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
  return node;
}
function formatMs(value) {
  const a = Math.abs(value);
  return a >= 1e3 ? value.toFixed(1) : a >= 1 ? value.toFixed(3) : value.toFixed(4);
}
var WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
function formatBusy(ms) {
  return ms >= 1e3 ? WHOLE.format(Math.round(ms)) : ms.toPrecision(3);
}
function counted(count, noun, shown = (n) => WHOLE.format(n)) {
  return `${shown(count)} ${count === 1 ? noun : pluralOf(noun)}`;
}
function pluralOf(noun) {
  return /(s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
}
function compact(value) {
  if (value >= 1e7) return `${Math.round(value / 1e6)}M`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${Math.round(value / 1e3)}k`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}
function measure(name, started, detail = null) {
  if (typeof performance !== "undefined" && performance.measure) {
    performance.measure(name, { start: started, end: performance.now(), detail });
  }
}
function sized(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}
function revealInPane(pane, element, header = null) {
  const box = element.getBoundingClientRect(), view = pane.getBoundingClientRect();
  const top = view.top + (header ? header.getBoundingClientRect().height : 0);
  if (box.left < view.left) pane.scrollLeft -= view.left - box.left + 8;
  else if (box.right > view.right) pane.scrollLeft += box.right - view.right + 8;
  if (box.top < top) pane.scrollTop -= top - box.top + 8;
  else if (box.bottom > view.bottom) pane.scrollTop += box.bottom - view.bottom + 8;
}

// rlviz/viz/static/explorer_levels.js
var MAX_DETAIL_CHUNKS = 4;
var WHOLE_RUN_CHUNKS = 15;
var NO_NODE = -1;
function levelsFromOverview(overview, bytes) {
  const lanes = overview.lanes, tracks = overview.gauges ?? 0;
  const Float = overview.gauge_dtype === "<f4" ? Float32Array : Float64Array;
  const own = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  let at = 0;
  const take = (Type2, size) => {
    const end = at + size * Type2.BYTES_PER_ELEMENT;
    if (end > own.byteLength) throw new Error(`the overview holds ${own.byteLength} bytes where its levels announce more`);
    const part = at % Type2.BYTES_PER_ELEMENT ? new Type2(own.slice(at, end)) : new Type2(own, at, size);
    at = end;
    return part;
  };
  const sets = overview.levels.map(({ width, start, n }) => {
    const size = lanes * n;
    const count = take(Uint32Array, size), busiestPlusOne = take(Uint32Array, size);
    const errors = take(Uint32Array, size), notReady = take(Uint32Array, size), busy = take(Float32Array, size);
    const busiest = new Int32Array(size);
    for (let k = 0; k < size; k++) busiest[k] = busiestPlusOne[k] - 1;
    const gauges = { values: take(Float, 3 * tracks * n), count: take(Uint32Array, tracks * n) };
    return { width, start, n, count, busiest, errors, notReady, busy, gauges };
  });
  if (at !== own.byteLength) {
    throw new Error(`the overview holds ${own.byteLength / 4} values where its levels announce ${at / 4}`);
  }
  return { lanes, tracks, sets: sets.sort((p, q) => p.width - q.width) };
}
function pickLevel(levels, a, b, plotW) {
  if (!levels || levels.sets.length === 0) return null;
  const pixel = (b - a) / plotW;
  let best = levels.sets[0];
  for (const set of levels.sets) if (set.width <= pixel) best = set;
  return best;
}
function lanePixels(set, lane, a, b, plotW) {
  const count = new Float64Array(plotW), busiest = new Int32Array(plotW).fill(NO_NODE);
  const errors = new Uint32Array(plotW), notReady = new Uint32Array(plotW), fullest = new Float64Array(plotW);
  const busy = new Float64Array(plotW), covered = new Float64Array(plotW);
  forEachBucket(set, lane, a, b, plotW, (at, c, s, x0, x1) => {
    for (let x = x0; x < x1; x++) {
      count[x] += c;
      if (c > fullest[x]) {
        fullest[x] = c;
        busiest[x] = set.busiest[at];
      }
      errors[x] += set.errors[at];
      notReady[x] += set.notReady[at];
      busy[x] += set.busy[at];
      covered[x] += set.width;
    }
  }, true);
  const fraction = busy.map((time2, x) => covered[x] > 0 ? busyFraction(time2, covered[x]) : 0);
  return { count, busiest, errors, notReady, fraction };
}
function forEachBucket(set, lane, a, b, plotW, visit2, empty = false) {
  const scale = plotW / (b - a), row = lane * set.n;
  const first = Math.max(0, Math.floor((a - set.start) / set.width));
  const last = Math.min(set.n, Math.ceil((b - set.start) / set.width));
  for (let k = first; k < last; k++) {
    const c = set.count[row + k];
    if (c === 0 && !empty) continue;
    const s = set.start + k * set.width;
    const x0 = Math.max(0, Math.floor((s - a) * scale));
    visit2(row + k, c, s, x0, Math.min(plotW, Math.max(x0 + 1, Math.ceil((s + set.width - a) * scale))));
  }
}
function levelPixelAt(set, lane, a, b, plotW, x) {
  const byNode = /* @__PURE__ */ new Map();
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
function chunksFor(detail, a, b, most = MAX_DETAIL_CHUNKS) {
  let first = -1, last = -1;
  for (let k = 0; k < detail.length; k++) {
    if (detail[k].gone) continue;
    const from = detail[k].time_range[0];
    const to = Math.max(detail[k].time_range[1], k + 1 < detail.length ? detail[k + 1].time_range[0] : -Infinity);
    if (from > b || to < a) continue;
    if (first < 0) first = k;
    last = k;
  }
  if (first < 0 || last - first + 1 > most) return null;
  return [first, last];
}
function mostChunks(detail) {
  return detail.length <= WHOLE_RUN_CHUNKS ? Math.max(detail.length, MAX_DETAIL_CHUNKS) : MAX_DETAIL_CHUNKS;
}
function covers(detail, loaded, a, b, most = MAX_DETAIL_CHUNKS) {
  const need = loaded && chunksFor(detail, a, b, most);
  return Boolean(need) && need[0] >= loaded[0] && need[1] <= loaded[1];
}
function gaugePixels(set, track, a, b, plotW) {
  const g = set.gauges, row = track * set.n, scale = plotW / (b - a);
  const count = new Uint32Array(plotW), low = new Float64Array(plotW).fill(NaN);
  const high = new Float64Array(plotW).fill(NaN), last = new Float64Array(plotW).fill(NaN);
  const first = Math.max(0, Math.floor((a - set.start) / set.width));
  const stop = Math.min(set.n, Math.ceil((b - set.start) / set.width));
  let before = NaN;
  for (let k = Math.min(first, set.n) - 1; k >= 0; k--) if (g.count[row + k] > 0) {
    before = g.values[3 * (row + k)];
    break;
  }
  for (let k = first; k < stop; k++) {
    if (g.count[row + k] === 0) continue;
    const s = set.start + k * set.width, at = 3 * (row + k);
    const x0 = Math.max(0, Math.floor((s - a) * scale));
    const x1 = Math.min(plotW, Math.max(x0 + 1, Math.ceil((s + set.width - a) * scale)));
    for (let x = x0; x < x1; x++) {
      count[x] += g.count[row + k];
      if (!(low[x] <= g.values[at + 1])) low[x] = g.values[at + 1];
      if (!(high[x] >= g.values[at + 2])) high[x] = g.values[at + 2];
    }
    last[x1 - 1] = g.values[at];
  }
  return { count, low, high, last, before };
}
function gaugeBucketAt(set, track, t) {
  const g = set.gauges, row = track * set.n;
  for (let k = Math.min(set.n - 1, Math.floor((t - set.start) / set.width)); k >= 0; k--) {
    if (g.count[row + k] === 0) continue;
    const from = set.start + k * set.width;
    const at = 3 * (row + k);
    return {
      from,
      to: from + set.width,
      count: g.count[row + k],
      last: g.values[at],
      low: g.values[at + 1],
      high: g.values[at + 2]
    };
  }
  return null;
}
function gaugeRange(levels, track) {
  if (!levels || !(track < levels.tracks) || levels.sets.length === 0) return null;
  const set = levels.sets[levels.sets.length - 1], g = set.gauges, row = track * set.n;
  let lo = Infinity, hi = -Infinity;
  for (let k = 0; k < set.n; k++) {
    if (g.count[row + k] === 0) continue;
    if (g.values[3 * (row + k) + 1] < lo) lo = g.values[3 * (row + k) + 1];
    if (g.values[3 * (row + k) + 2] > hi) hi = g.values[3 * (row + k) + 2];
  }
  return lo <= hi ? [lo, hi] : null;
}

// ../../main/js/node_modules/@uwdata/flechette/src/constants.js
var MAGIC = Uint8Array.of(65, 82, 82, 79, 87, 49);
var EOS = Uint8Array.of(255, 255, 255, 255, 0, 0, 0, 0);
var Version = (
  /** @type {const} */
  {
    /** 0.1.0 (October 2016). */
    V1: 0,
    /** 0.2.0 (February 2017). Non-backwards compatible with V1. */
    V2: 1,
    /** 0.3.0 -> 0.7.1 (May - December 2017). Non-backwards compatible with V2. */
    V3: 2,
    /** >= 0.8.0 (December 2017). Non-backwards compatible with V3. */
    V4: 3,
    /**
     * >= 1.0.0 (July 2020). Backwards compatible with V4 (V5 readers can read V4
     * metadata and IPC messages). Implementations are recommended to provide a
     * V4 compatibility mode with V5 format changes disabled.
     *
     * Incompatible changes between V4 and V5:
     * - Union buffer layout has changed.
     *   In V5, Unions don't have a validity bitmap buffer.
     */
    V5: 4
  }
);
var MessageHeader = (
  /** @type {const} */
  {
    NONE: 0,
    /**
     * A Schema describes the columns in a record batch.
     */
    Schema: 1,
    /**
     * For sending dictionary encoding information. Any Field can be
     * dictionary-encoded, but in this case none of its children may be
     * dictionary-encoded.
     * There is one vector / column per dictionary, but that vector / column
     * may be spread across multiple dictionary batches by using the isDelta
     * flag.
     */
    DictionaryBatch: 2,
    /**
     * A data header describing the shared memory layout of a "record" or "row"
     * batch. Some systems call this a "row batch" internally and others a "record
     * batch".
     */
    RecordBatch: 3,
    /**
     * EXPERIMENTAL: Metadata for n-dimensional arrays, aka "tensors" or
     * "ndarrays". Arrow implementations in general are not required to implement
     * this type.
     *
     * Not currently supported by Flechette.
     */
    Tensor: 4,
    /**
     * EXPERIMENTAL: Metadata for n-dimensional sparse arrays, aka "sparse
     * tensors". Arrow implementations in general are not required to implement
     * this type.
     *
     * Not currently supported by Flechette.
     */
    SparseTensor: 5
  }
);
var Type = (
  /** @type {const} */
  {
    /**
     * Dictionary types compress data by using a set of integer indices to
     * lookup potentially repeated vales in a separate dictionary of values.
     *
     * This type entry is provided for API convenience, it does not occur
     * in actual Arrow IPC binary data.
     */
    Dictionary: -1,
    /** No data type. Included for flatbuffer compatibility. */
    NONE: 0,
    /** Null values only. */
    Null: 1,
    /** Integers, either signed or unsigned, with 8, 16, 32, or 64 bit widths. */
    Int: 2,
    /** Floating point numbers with 16, 32, or 64 bit precision. */
    Float: 3,
    /** Opaque binary data. */
    Binary: 4,
    /** Unicode with UTF-8 encoding. */
    Utf8: 5,
    /** Booleans represented as 8 bit bytes. */
    Bool: 6,
    /**
     * Exact decimal value represented as an integer value in two's complement.
     * Currently only 128-bit (16-byte) and 256-bit (32-byte) integers are used.
     * The representation uses the endianness indicated in the schema.
     */
    Decimal: 7,
    /**
     * Date is either a 32-bit or 64-bit signed integer type representing an
     * elapsed time since UNIX epoch (1970-01-01), stored in either of two units:
     * - Milliseconds (64 bits) indicating UNIX time elapsed since the epoch (no
     * leap seconds), where the values are evenly divisible by 86400000
     * - Days (32 bits) since the UNIX epoch
     */
    Date: 8,
    /**
     * Time is either a 32-bit or 64-bit signed integer type representing an
     * elapsed time since midnight, stored in either of four units: seconds,
     * milliseconds, microseconds or nanoseconds.
     *
     * The integer `bitWidth` depends on the `unit` and must be one of the following:
     * - SECOND and MILLISECOND: 32 bits
     * - MICROSECOND and NANOSECOND: 64 bits
     *
     * The allowed values are between 0 (inclusive) and 86400 (=24*60*60) seconds
     * (exclusive), adjusted for the time unit (for example, up to 86400000
     * exclusive for the MILLISECOND unit).
     * This definition doesn't allow for leap seconds. Time values from
     * measurements with leap seconds will need to be corrected when ingesting
     * into Arrow (for example by replacing the value 86400 with 86399).
     */
    Time: 9,
    /**
     * Timestamp is a 64-bit signed integer representing an elapsed time since a
     * fixed epoch, stored in either of four units: seconds, milliseconds,
     * microseconds or nanoseconds, and is optionally annotated with a timezone.
     *
     * Timestamp values do not include any leap seconds (in other words, all
     * days are considered 86400 seconds long).
     *
     * The timezone is an optional string for the name of a timezone, one of:
     *
     *  - As used in the Olson timezone database (the "tz database" or
     *    "tzdata"), such as "America/New_York".
     *  - An absolute timezone offset of the form "+XX:XX" or "-XX:XX",
     *    such as "+07:30".
     *
     * Whether a timezone string is present indicates different semantics about
     * the data.
     */
    Timestamp: 10,
    /**
     * A "calendar" interval which models types that don't necessarily
     * have a precise duration without the context of a base timestamp (e.g.
     * days can differ in length during day light savings time transitions).
     * All integers in the units below are stored in the endianness indicated
     * by the schema.
     *
     *  - YEAR_MONTH - Indicates the number of elapsed whole months, stored as
     *    4-byte signed integers.
     *  - DAY_TIME - Indicates the number of elapsed days and milliseconds (no
     *    leap seconds), stored as 2 contiguous 32-bit signed integers (8-bytes
     *    in total). Support of this IntervalUnit is not required for full arrow
     *    compatibility.
     *  - MONTH_DAY_NANO - A triple of the number of elapsed months, days, and
     *    nanoseconds. The values are stored contiguously in 16-byte blocks.
     *    Months and days are encoded as 32-bit signed integers and nanoseconds
     *    is encoded as a 64-bit signed integer. Nanoseconds does not allow for
     *    leap seconds. Each field is independent (e.g. there is no constraint
     *    that nanoseconds have the same sign as days or that the quantity of
     *    nanoseconds represents less than a day's worth of time).
     */
    Interval: 11,
    /**
     * List (vector) data supporting variably-sized lists.
     * A list has a single child data type for list entries.
     */
    List: 12,
    /**
     * A struct consisting of multiple named child data types.
     */
    Struct: 13,
    /**
     * A union is a complex type with parallel child data types. By default ids
     * in the type vector refer to the offsets in the children. Optionally
     * typeIds provides an indirection between the child offset and the type id.
     * For each child `typeIds[offset]` is the id used in the type vector.
     */
    Union: 14,
    /**
     * Binary data where each entry has the same fixed size.
     */
    FixedSizeBinary: 15,
    /**
     * List (vector) data where every list has the same fixed size.
     * A list has a single child data type for list entries.
     */
    FixedSizeList: 16,
    /**
     * A Map is a logical nested type that is represented as
     * List<entries: Struct<key: K, value: V>>
     *
     * In this layout, the keys and values are each respectively contiguous. We do
     * not constrain the key and value types, so the application is responsible
     * for ensuring that the keys are hashable and unique. Whether the keys are sorted
     * may be set in the metadata for this field.
     *
     * In a field with Map type, the field has a child Struct field, which then
     * has two children: key type and the second the value type. The names of the
     * child fields may be respectively "entries", "key", and "value", but this is
     * not enforced.
     *
     * Map
     * ```text
     *   - child[0] entries: Struct
     *   - child[0] key: K
     *   - child[1] value: V
     *  ```
     * Neither the "entries" field nor the "key" field may be nullable.
     *
     * The metadata is structured so that Arrow systems without special handling
     * for Map can make Map an alias for List. The "layout" attribute for the Map
     * field must have the same contents as a List.
     */
    Map: 17,
    /**
     * An absolute length of time unrelated to any calendar artifacts. For the
     * purposes of Arrow implementations, adding this value to a Timestamp
     * ("t1") naively (i.e. simply summing the two numbers) is acceptable even
     * though in some cases the resulting Timestamp (t2) would not account for
     * leap-seconds during the elapsed time between "t1" and "t2". Similarly,
     * representing the difference between two Unix timestamp is acceptable, but
     * would yield a value that is possibly a few seconds off from the true
     * elapsed time.
     *
     * The resolution defaults to millisecond, but can be any of the other
     * supported TimeUnit values as with Timestamp and Time types. This type is
     * always represented as an 8-byte integer.
     */
    Duration: 18,
    /**
     * Same as Binary, but with 64-bit offsets, allowing representation of
     * extremely large data values.
     */
    LargeBinary: 19,
    /**
     * Same as Utf8, but with 64-bit offsets, allowing representation of
     * extremely large data values.
     */
    LargeUtf8: 20,
    /**
     * Same as List, but with 64-bit offsets, allowing representation of
     * extremely large data values.
     */
    LargeList: 21,
    /**
     * Contains two child arrays, run_ends and values. The run_ends child array
     * must be a 16/32/64-bit integer array which encodes the indices at which
     * the run with the value in each corresponding index in the values child
     * array ends. Like list/struct types, the value array can be of any type.
     */
    RunEndEncoded: 22,
    /**
     * Logically the same as Binary, but the internal representation uses a view
     * struct that contains the string length and either the string's entire data
     * inline (for small strings) or an inlined prefix, an index of another buffer,
     * and an offset pointing to a slice in that buffer (for non-small strings).
     *
     * Since it uses a variable number of data buffers, each Field with this type
     * must have a corresponding entry in `variadicBufferCounts`.
     */
    BinaryView: 23,
    /**
     * Logically the same as Utf8, but the internal representation uses a view
     * struct that contains the string length and either the string's entire data
     * inline (for small strings) or an inlined prefix, an index of another buffer,
     * and an offset pointing to a slice in that buffer (for non-small strings).
     *
     * Since it uses a variable number of data buffers, each Field with this type
     * must have a corresponding entry in `variadicBufferCounts`.
     */
    Utf8View: 24,
    /**
     * Represents the same logical types that List can, but contains offsets and
     * sizes allowing for writes in any order and sharing of child values among
     * list values.
     */
    ListView: 25,
    /**
     * Same as ListView, but with 64-bit offsets and sizes, allowing to represent
     * extremely large data values.
     */
    LargeListView: 26
  }
);
var Precision = (
  /** @type {const} */
  {
    /** 16-bit floating point number. */
    HALF: 0,
    /** 32-bit floating point number. */
    SINGLE: 1,
    /** 64-bit floating point number. */
    DOUBLE: 2
  }
);
var DateUnit = (
  /** @type {const} */
  {
    /* Days (as 32 bit int) since the UNIX epoch. */
    DAY: 0,
    /**
     * Milliseconds (as 64 bit int) indicating UNIX time elapsed since the epoch
     * (no leap seconds), with values evenly divisible by 86400000.
     */
    MILLISECOND: 1
  }
);
var TimeUnit = (
  /** @type {const} */
  {
    /** Seconds. */
    SECOND: 0,
    /** Milliseconds. */
    MILLISECOND: 1,
    /** Microseconds. */
    MICROSECOND: 2,
    /** Nanoseconds. */
    NANOSECOND: 3
  }
);
var IntervalUnit = (
  /** @type {const} */
  {
    /**
     * Indicates the number of elapsed whole months, stored as 4-byte signed
     * integers.
     */
    YEAR_MONTH: 0,
    /**
     * Indicates the number of elapsed days and milliseconds (no leap seconds),
     * stored as 2 contiguous 32-bit signed integers (8-bytes in total). Support
     * of this IntervalUnit is not required for full arrow compatibility.
     */
    DAY_TIME: 1,
    /**
     * A triple of the number of elapsed months, days, and nanoseconds.
     * The values are stored contiguously in 16-byte blocks. Months and days are
     * encoded as 32-bit signed integers and nanoseconds is encoded as a 64-bit
     * signed integer. Nanoseconds does not allow for leap seconds. Each field is
     * independent (e.g. there is no constraint that nanoseconds have the same
     * sign as days or that the quantity of nanoseconds represents less than a
     * day's worth of time).
     */
    MONTH_DAY_NANO: 2
  }
);
var UnionMode = (
  /** @type {const} */
  {
    /** Sparse union layout with full arrays for each sub-type. */
    Sparse: 0,
    /** Dense union layout with offsets into value arrays. */
    Dense: 1
  }
);
var CompressionType = (
  /** @type {const} */
  {
    /**
     * LZ4 frame compression.
     * Not to be confused with "raw" (also called "block") format.
     */
    LZ4_FRAME: 0,
    /** Zstandard compression. */
    ZSTD: 1
  }
);
var BodyCompressionMethod = (
  /** @type {const} */
  {
    /**
     * Each constituent buffer is first compressed with the indicated
     * compressor, and then written with the uncompressed length in the first 8
     * bytes as a 64-bit little-endian signed integer followed by the compressed
     * buffer bytes (and then padding as required by the protocol). The
     * uncompressed length may be set to -1 to indicate that the data that
     * follows is not compressed, which can be useful for cases where
     * compression does not yield appreciable savings.
     */
    BUFFER: 0
  }
);

// ../../main/js/node_modules/@uwdata/flechette/src/util/arrays.js
var uint8Array = Uint8Array;
var uint16Array = Uint16Array;
var uint32Array = Uint32Array;
var uint64Array = BigUint64Array;
var int8Array = Int8Array;
var int16Array = Int16Array;
var int32Array = Int32Array;
var int64Array = BigInt64Array;
var float32Array = Float32Array;
var float64Array = Float64Array;
function objectToString(value) {
  return Object.prototype.toString.call(value);
}
function isArrayBufferLike(data) {
  return objectToString(data) === "[object ArrayBuffer]" || objectToString(data) === "[object SharedArrayBuffer]";
}
function isUint8Array(value) {
  return objectToString(value) === "[object Uint8Array]";
}
function intArrayType(bitWidth, signed) {
  const i = Math.log2(bitWidth) - 3;
  return (signed ? [int8Array, int16Array, int32Array, int64Array] : [uint8Array, uint16Array, uint32Array, uint64Array])[i];
}
function bisect(offsets, index) {
  let a = 0;
  let b = offsets.length;
  if (b <= 2147483648) {
    do {
      const mid = a + b >>> 1;
      if (offsets[mid] <= index) a = mid + 1;
      else b = mid;
    } while (a < b);
  } else {
    do {
      const mid = Math.trunc((a + b) / 2);
      if (offsets[mid] <= index) a = mid + 1;
      else b = mid;
    } while (a < b);
  }
  return a;
}

// ../../main/js/node_modules/@uwdata/flechette/src/util/objects.js
function check(value, test, message) {
  if (test(value)) return value;
  throw new Error(message(value));
}
function checkOneOf(value, set, message) {
  set = Array.isArray(set) ? set : Object.values(set);
  return check(
    value,
    (value2) => set.includes(value2),
    message ?? (() => `${value} must be one of ${set}`)
  );
}
function keyFor(object, value) {
  for (const [key, val] of Object.entries(object)) {
    if (val === value) return key;
  }
  return "<Unknown>";
}

// ../../main/js/node_modules/@uwdata/flechette/src/data-types.js
var invalidDataType = (typeId) => `Unsupported data type: "${keyFor(Type, typeId)}" (id ${typeId})`;
var field = (name, type, nullable = true, metadata = null) => ({
  name,
  type,
  nullable,
  metadata
});
function isField(value) {
  return Object.hasOwn(value, "name") && isDataType(value.type);
}
function isDataType(value) {
  return typeof value?.typeId === "number";
}
function asField(value, defaultName = "", defaultNullable = true) {
  return isField(value) ? value : field(
    defaultName,
    check(value, isDataType, () => `Data type expected.`),
    defaultNullable
  );
}
var dictionary = (type, indexType, ordered = false, id = -1) => ({
  typeId: Type.Dictionary,
  id,
  dictionary: type,
  indices: indexType || int32(),
  ordered
});
var int = (bitWidth = 32, signed = true) => ({
  typeId: Type.Int,
  bitWidth: checkOneOf(bitWidth, [8, 16, 32, 64]),
  signed,
  values: intArrayType(bitWidth, signed)
});
var int32 = () => int(32);
var float = (precision = 2) => ({
  typeId: Type.Float,
  precision: checkOneOf(precision, Precision),
  values: [uint16Array, float32Array, float64Array][precision]
});
var binary = () => ({
  typeId: Type.Binary,
  offsets: int32Array
});
var utf8 = () => ({
  typeId: Type.Utf8,
  offsets: int32Array
});
var decimal = (precision, scale, bitWidth = 128) => ({
  typeId: Type.Decimal,
  precision,
  scale,
  bitWidth: checkOneOf(bitWidth, [32, 64, 128, 256]),
  values: bitWidth === 32 ? int32Array : uint64Array
});
var date = (unit) => ({
  typeId: Type.Date,
  unit: checkOneOf(unit, DateUnit),
  values: unit === DateUnit.DAY ? int32Array : int64Array
});
var time = (unit = TimeUnit.MILLISECOND) => {
  unit = checkOneOf(unit, TimeUnit);
  const bitWidth = unit === TimeUnit.SECOND || unit === TimeUnit.MILLISECOND ? 32 : 64;
  return {
    typeId: Type.Time,
    unit,
    bitWidth,
    values: bitWidth === 32 ? int32Array : int64Array
  };
};
var timestamp = (unit = TimeUnit.MILLISECOND, timezone = null) => ({
  typeId: Type.Timestamp,
  unit: checkOneOf(unit, TimeUnit),
  timezone,
  values: int64Array
});
var interval = (unit = IntervalUnit.MONTH_DAY_NANO) => ({
  typeId: Type.Interval,
  unit: checkOneOf(unit, IntervalUnit),
  values: unit === IntervalUnit.MONTH_DAY_NANO ? void 0 : int32Array
});
var list = (child) => ({
  typeId: Type.List,
  children: [asField(child)],
  offsets: int32Array
});
var struct = (children) => ({
  typeId: Type.Struct,
  children: Array.isArray(children) && children.length > 0 && isField(children[0]) ? (
    /** @type {Field[]} */
    children
  ) : Object.entries(children).map(([name, type]) => field(name, type))
});
var union = (mode, children, typeIds, typeIdForValue) => {
  typeIds ?? (typeIds = children.map((v, i) => i));
  return {
    typeId: Type.Union,
    mode: checkOneOf(mode, UnionMode),
    typeIds,
    typeMap: typeIds.reduce((m, id, i) => (m[id] = i, m), {}),
    children: children.map((v, i) => asField(v, `_${i}`)),
    typeIdForValue,
    offsets: int32Array
  };
};
var fixedSizeBinary = (stride) => ({
  typeId: Type.FixedSizeBinary,
  stride
});
var fixedSizeList = (child, stride) => ({
  typeId: Type.FixedSizeList,
  stride,
  children: [asField(child)]
});
var mapType = (keysSorted, child) => ({
  typeId: Type.Map,
  keysSorted,
  children: [child],
  offsets: int32Array
});
var duration = (unit = TimeUnit.MILLISECOND) => ({
  typeId: Type.Duration,
  unit: checkOneOf(unit, TimeUnit),
  values: int64Array
});
var largeBinary = () => ({
  typeId: Type.LargeBinary,
  offsets: int64Array
});
var largeUtf8 = () => ({
  typeId: Type.LargeUtf8,
  offsets: int64Array
});
var largeList = (child) => ({
  typeId: Type.LargeList,
  children: [asField(child)],
  offsets: int64Array
});
var runEndEncoded = (runsField, valuesField) => ({
  typeId: Type.RunEndEncoded,
  children: [
    check(
      asField(runsField, "run_ends"),
      (field2) => field2.type.typeId === Type.Int,
      () => "Run-ends must have an integer type."
    ),
    asField(valuesField, "values")
  ]
});
var listView = (child) => ({
  typeId: Type.ListView,
  children: [asField(child, "value")],
  offsets: int32Array
});
var largeListView = (child) => ({
  typeId: Type.LargeListView,
  children: [asField(child, "value")],
  offsets: int64Array
});

// ../../main/js/node_modules/@uwdata/flechette/src/util/numbers.js
var f64 = new float64Array(2);
var buf = f64.buffer;
var i64 = new int64Array(buf);
var u32 = new uint32Array(buf);
var i32 = new int32Array(buf);
var u8 = new uint8Array(buf);
function toNumber(value) {
  if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) {
    throw Error(`BigInt exceeds integer number representation: ${value}`);
  }
  return Number(value);
}
function divide(num, div) {
  return Number(num / div) + Number(num % div) / Number(div);
}
var asUint64 = (v) => BigInt.asUintN(64, v);
function fromDecimal64(buf2, offset) {
  return BigInt.asIntN(64, buf2[offset]);
}
function fromDecimal128(buf2, offset) {
  const i = offset << 1;
  let x;
  if (BigInt.asIntN(64, buf2[i + 1]) < 0) {
    x = asUint64(~buf2[i]) | asUint64(~buf2[i + 1]) << 64n;
    x = -(x + 1n);
  } else {
    x = buf2[i] | buf2[i + 1] << 64n;
  }
  return x;
}
function fromDecimal256(buf2, offset) {
  const i = offset << 2;
  let x;
  if (BigInt.asIntN(64, buf2[i + 3]) < 0) {
    x = asUint64(~buf2[i]) | asUint64(~buf2[i + 1]) << 64n | asUint64(~buf2[i + 2]) << 128n | asUint64(~buf2[i + 3]) << 192n;
    x = -(x + 1n);
  } else {
    x = buf2[i] | buf2[i + 1] << 64n | buf2[i + 2] << 128n | buf2[i + 3] << 192n;
  }
  return x;
}

// ../../main/js/node_modules/@uwdata/flechette/src/util/strings.js
var textDecoder = new TextDecoder("utf-8");
var textEncoder = new TextEncoder();
function decodeUtf8(buf2) {
  return textDecoder.decode(buf2);
}

// ../../main/js/node_modules/@uwdata/flechette/src/util/read.js
var SIZEOF_INT = 4;
function decodeBit(bitmap2, index) {
  return (bitmap2[index >> 3] & 1 << index % 8) !== 0;
}
function readObject(buf2, index) {
  const pos = index + readInt32(buf2, index);
  const vtable = pos - readInt32(buf2, pos);
  const size = readInt16(buf2, vtable);
  return (index2, read, fallback = null) => {
    if (index2 < size) {
      const off = readInt16(buf2, vtable + index2);
      if (off) return read(buf2, pos + off);
    }
    return fallback;
  };
}
function readOffset(buf2, offset) {
  return offset;
}
function readBoolean(buf2, offset) {
  return !!readInt8(buf2, offset);
}
function readInt8(buf2, offset) {
  return readUint8(buf2, offset) << 24 >> 24;
}
function readUint8(buf2, offset) {
  return buf2[offset];
}
function readInt16(buf2, offset) {
  return readUint16(buf2, offset) << 16 >> 16;
}
function readUint16(buf2, offset) {
  return buf2[offset] | buf2[offset + 1] << 8;
}
function readInt32(buf2, offset) {
  return buf2[offset] | buf2[offset + 1] << 8 | buf2[offset + 2] << 16 | buf2[offset + 3] << 24;
}
function readUint32(buf2, offset) {
  return readInt32(buf2, offset) >>> 0;
}
function readInt64(buf2, offset) {
  return toNumber(BigInt.asIntN(
    64,
    BigInt(readUint32(buf2, offset)) + (BigInt(readUint32(buf2, offset + SIZEOF_INT)) << 32n)
  ));
}
function readString(buf2, index) {
  let offset = index + readInt32(buf2, index);
  const length = readInt32(buf2, offset);
  offset += SIZEOF_INT;
  return decodeUtf8(buf2.subarray(offset, offset + length));
}
function readVector(buf2, offset, stride, extract) {
  if (!offset) return [];
  const base = offset + readInt32(buf2, offset);
  return Array.from(
    { length: readInt32(buf2, base) },
    (_, i) => extract(buf2, base + SIZEOF_INT + i * stride)
  );
}

// ../../main/js/node_modules/@uwdata/flechette/src/util/struct.js
var RowIndex = /* @__PURE__ */ Symbol("rowIndex");
function proxyFactory(names, batches) {
  class RowObject {
    /**
     * Create a new proxy row object representing a struct or table row.
     * @param {number} index The record batch row index.
     */
    constructor(index) {
      this[RowIndex] = index;
    }
    /**
     * Return a JSON-compatible object representation.
     */
    toJSON() {
      return structObject(names, batches, this[RowIndex]);
    }
  }
  ;
  const proto = RowObject.prototype;
  for (let i = 0; i < names.length; ++i) {
    if (Object.hasOwn(proto, names[i])) continue;
    const batch = batches[i];
    Object.defineProperty(proto, names[i], {
      get() {
        return batch.at(this[RowIndex]);
      },
      enumerable: true
    });
  }
  return (index) => new RowObject(index);
}
function objectFactory(names, batches) {
  return (index) => structObject(names, batches, index);
}
function structObject(names, batches, index) {
  const obj = {};
  for (let i = 0; i < names.length; ++i) {
    obj[names[i]] = batches[i].at(index);
  }
  return obj;
}

// ../../main/js/node_modules/@uwdata/flechette/src/batch.js
function isDirectBatch(batch) {
  return batch instanceof DirectBatch;
}
var Batch = class {
  /**
   * Create a new column batch.
   * @param {object} options
   * @param {number} options.length The length of the batch
   * @param {number} options.nullCount The null value count
   * @param {DataType} options.type The data type.
   * @param {Uint8Array} [options.validity] Validity bitmap buffer
   * @param {TypedArray} [options.values] Values buffer
   * @param {OffsetArray} [options.offsets] Offsets buffer
   * @param {OffsetArray} [options.sizes] Sizes buffer
   * @param {Batch[]} [options.children] Children batches
   */
  constructor({
    length,
    nullCount,
    type,
    validity,
    values,
    offsets,
    sizes,
    children
  }) {
    this.length = length;
    this.nullCount = nullCount;
    this.type = type;
    this.validity = validity;
    this.values = values;
    this.offsets = offsets;
    this.sizes = sizes;
    this.children = children;
    if (!nullCount || !this.validity) {
      this.at = (index) => this.value(index);
    }
  }
  /**
   * Provide an informative object string tag.
   */
  get [Symbol.toStringTag]() {
    return "Batch";
  }
  /**
   * Return the value at the given index.
   * @param {number} index The value index.
   * @returns {T | null} The value.
   */
  at(index) {
    return this.isValid(index) ? this.value(index) : null;
  }
  /**
   * Check if a value at the given index is valid (non-null).
   * @param {number} index The value index.
   * @returns {boolean} True if valid, false otherwise.
   */
  isValid(index) {
    return decodeBit(this.validity, index);
  }
  /**
   * Return the value at the given index. This method does not check the
   * validity bitmap and is intended primarily for internal use. In most
   * cases, callers should use the `at()` method instead.
   * @param {number} index The value index
   * @returns {T} The value, ignoring the validity bitmap.
   */
  value(index) {
    return (
      /** @type {T} */
      this.values[index]
    );
  }
  /**
   * Extract an array of values within the given index range. Unlike
   * Array.slice, all arguments are required and may not be negative indices.
   * @param {number} start The starting index, inclusive
   * @param {number} end The ending index, exclusive
   * @returns {ValueArray<T?>} The slice of values
   */
  slice(start, end) {
    const n = end - start;
    const values = Array(n);
    for (let i = 0; i < n; ++i) {
      values[i] = this.at(start + i);
    }
    return values;
  }
  /**
   * Return an iterator over the values in this batch.
   * @returns {Iterator<T?>}
   */
  *[Symbol.iterator]() {
    for (let i = 0; i < this.length; ++i) {
      yield this.at(i);
    }
  }
};
/**
 * The array type to use when extracting data from the batch.
 * A null value indicates that the array type should match
 * the type of the batch's values array.
 * @type {ArrayConstructor | TypedArrayConstructor | null}
 */
__publicField(Batch, "ArrayType", null);
var DirectBatch = class extends Batch {
  /**
   * Create a new column batch with direct value array access.
   * @param {object} options
   * @param {number} options.length The length of the batch
   * @param {number} options.nullCount The null value count
   * @param {DataType} options.type The data type.
   * @param {Uint8Array} [options.validity] Validity bitmap buffer
   * @param {TypedArray} options.values Values buffer
   */
  constructor(options) {
    super(options);
    const { length, values } = this;
    this.values = values.subarray(0, length);
  }
  /**
   * Extract an array of values within the given index range. Unlike
   * Array.slice, all arguments are required and may not be negative indices.
   * When feasible, a zero-copy subarray of a typed array is returned.
   * @param {number} start The starting index, inclusive
   * @param {number} end The ending index, exclusive
   * @returns {ValueArray<T?>} The slice of values
   */
  slice(start, end) {
    return this.nullCount ? super.slice(start, end) : this.values.subarray(start, end);
  }
  /**
   * Return an iterator over the values in this batch.
   * @returns {Iterator<T?>}
   */
  [Symbol.iterator]() {
    return this.nullCount ? super[Symbol.iterator]() : (
      /** @type {Iterator<T?>} */
      this.values[Symbol.iterator]()
    );
  }
};
var NumberBatch = class extends Batch {
};
__publicField(NumberBatch, "ArrayType", float64Array);
var ArrayBatch = class extends Batch {
};
__publicField(ArrayBatch, "ArrayType", Array);
var NullBatch = class extends ArrayBatch {
  /**
   * @param {number} index The value index
   * @returns {null}
   */
  value(index) {
    return null;
  }
};
var Int64Batch = class extends NumberBatch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return toNumber(
      /** @type {bigint} */
      this.values[index]
    );
  }
};
var Float16Batch = class extends NumberBatch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    const v = (
      /** @type {number} */
      this.values[index]
    );
    const expo = (v & 31744) >> 10;
    const sigf = (v & 1023) / 1024;
    const sign = (-1) ** ((v & 32768) >> 15);
    switch (expo) {
      case 31:
        return sign * (sigf ? Number.NaN : 1 / 0);
      case 0:
        return sign * (sigf ? 6103515625e-14 * sigf : 0);
    }
    return sign * 2 ** (expo - 15) * (1 + sigf);
  }
};
var BoolBatch = class extends ArrayBatch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return decodeBit(
      /** @type {Uint8Array} */
      this.values,
      index
    );
  }
};
var Decimal32NumberBatch = class extends NumberBatch {
  constructor(options) {
    super(options);
    const { scale } = (
      /** @type {DecimalType} */
      this.type
    );
    this.scale = 10 ** scale;
  }
  /**
   * @param {number} index The value index
   */
  value(index) {
    return (
      /** @type {number} */
      this.values[index] / this.scale
    );
  }
};
var DecimalBatch = class extends Batch {
  constructor(options) {
    super(options);
    const { bitWidth, scale } = (
      /** @type {DecimalType} */
      this.type
    );
    this.decimal = bitWidth === 64 ? fromDecimal64 : bitWidth === 128 ? fromDecimal128 : fromDecimal256;
    this.scale = 10n ** BigInt(scale);
  }
};
var DecimalNumberBatch = class extends DecimalBatch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return divide(
      this.decimal(
        /** @type {BigUint64Array} */
        this.values,
        index
      ),
      this.scale
    );
  }
};
__publicField(DecimalNumberBatch, "ArrayType", float64Array);
var DecimalBigIntBatch = class extends DecimalBatch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return this.decimal(
      /** @type {BigUint64Array} */
      this.values,
      index
    );
  }
};
__publicField(DecimalBigIntBatch, "ArrayType", Array);
var DateBatch = class extends ArrayBatch {
  /**
   * Create a new date batch.
   * @param {Batch<number>} batch A batch of timestamp values.
   */
  constructor(batch) {
    super(batch);
    this.source = batch;
  }
  /**
   * @param {number} index The value index
   */
  value(index) {
    return new Date(this.source.value(index));
  }
};
var DateDayBatch = class extends NumberBatch {
  /**
   * @param {number} index The value index
   * @returns {number}
   */
  value(index) {
    return 864e5 * /** @type {number} */
    this.values[index];
  }
};
var DateDayMillisecondBatch = Int64Batch;
var TimestampSecondBatch = class extends Int64Batch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return super.value(index) * 1e3;
  }
};
var TimestampMillisecondBatch = Int64Batch;
var TimestampMicrosecondBatch = class extends Int64Batch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return divide(
      /** @type {bigint} */
      this.values[index],
      1000n
    );
  }
};
var TimestampNanosecondBatch = class extends Int64Batch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    return divide(
      /** @type {bigint} */
      this.values[index],
      1000000n
    );
  }
};
var IntervalDayTimeBatch = class extends ArrayBatch {
  /**
   * @param {number} index The value index
   * @returns {Int32Array}
   */
  value(index) {
    const values = (
      /** @type {Int32Array} */
      this.values
    );
    return values.subarray(index << 1, index + 1 << 1);
  }
};
var IntervalMonthDayNanoBatch = class extends ArrayBatch {
  /**
   * @param {number} index The value index
   */
  value(index) {
    const values = (
      /** @type {Uint8Array} */
      this.values
    );
    const base = index << 4;
    return Float64Array.of(
      readInt32(values, base),
      readInt32(values, base + 4),
      readInt64(values, base + 8)
    );
  }
};
var offset32 = ({ values, offsets }, index) => values.subarray(offsets[index], offsets[index + 1]);
var offset64 = ({ values, offsets }, index) => values.subarray(toNumber(offsets[index]), toNumber(offsets[index + 1]));
var BinaryBatch = class extends ArrayBatch {
  /**
   * @param {number} index
   * @returns {Uint8Array}
   */
  value(index) {
    return offset32(this, index);
  }
};
var LargeBinaryBatch = class extends ArrayBatch {
  /**
   * @param {number} index
   * @returns {Uint8Array}
   */
  value(index) {
    return offset64(this, index);
  }
};
var Utf8Batch = class extends ArrayBatch {
  /**
   * @param {number} index
   */
  value(index) {
    return decodeUtf8(offset32(this, index));
  }
};
var LargeUtf8Batch = class extends ArrayBatch {
  /**
   * @param {number} index
   */
  value(index) {
    return decodeUtf8(offset64(this, index));
  }
};
var ListBatch = class extends ArrayBatch {
  /**
   * @param {number} index
   * @returns {ValueArray<V>}
   */
  value(index) {
    const offsets = (
      /** @type {Int32Array} */
      this.offsets
    );
    return this.children[0].slice(offsets[index], offsets[index + 1]);
  }
};
var LargeListBatch = class extends ArrayBatch {
  /**
   * @param {number} index
   * @returns {ValueArray<V>}
   */
  value(index) {
    const offsets = (
      /** @type {BigInt64Array} */
      this.offsets
    );
    return this.children[0].slice(toNumber(offsets[index]), toNumber(offsets[index + 1]));
  }
};
var ListViewBatch = class extends ArrayBatch {
  /**
   * @param {number} index
   * @returns {ValueArray<V>}
   */
  value(index) {
    const a = (
      /** @type {number} */
      this.offsets[index]
    );
    const b = a + /** @type {number} */
    this.sizes[index];
    return this.children[0].slice(a, b);
  }
};
var LargeListViewBatch = class extends ArrayBatch {
  /**
   * @param {number} index
   * @returns {ValueArray<V>}
   */
  value(index) {
    const a = (
      /** @type {bigint} */
      this.offsets[index]
    );
    const b = a + /** @type {bigint} */
    this.sizes[index];
    return this.children[0].slice(toNumber(a), toNumber(b));
  }
};
var FixedBatch = class extends ArrayBatch {
  constructor(options) {
    super(options);
    this.stride = this.type.stride;
  }
};
var FixedBinaryBatch = class extends FixedBatch {
  /**
   * @param {number} index
   * @returns {Uint8Array}
   */
  value(index) {
    const { stride, values } = this;
    return (
      /** @type {Uint8Array} */
      values.subarray(index * stride, (index + 1) * stride)
    );
  }
};
var FixedListBatch = class extends FixedBatch {
  /**
   * @param {number} index
   * @returns {ValueArray<V>}
   */
  value(index) {
    const { children, stride } = this;
    return children[0].slice(index * stride, (index + 1) * stride);
  }
};
function pairs({ children, offsets }, index) {
  const [keys, vals] = children[0].children;
  const start = offsets[index];
  const end = offsets[index + 1];
  const entries = [];
  for (let i = start; i < end; ++i) {
    entries.push([keys.at(i), vals.at(i)]);
  }
  return entries;
}
var MapEntryBatch = class extends ArrayBatch {
  /**
   * Return the value at the given index.
   * @param {number} index The value index.
   * @returns {[K, V][]} The map entries as an array of [key, value] arrays.
   */
  value(index) {
    return (
      /** @type {[K, V][]} */
      pairs(this, index)
    );
  }
};
var MapBatch = class extends ArrayBatch {
  /**
   * Return the value at the given index.
   * @param {number} index The value index.
   * @returns {Map<K, V>} The map value.
   */
  value(index) {
    return new Map(
      /** @type {[K, V][]} */
      pairs(this, index)
    );
  }
};
var SparseUnionBatch = class extends ArrayBatch {
  /**
   * Create a new column batch.
   * @param {object} options
   * @param {number} options.length The length of the batch
   * @param {number} options.nullCount The null value count
   * @param {DataType} options.type The data type.
   * @param {Uint8Array} [options.validity] Validity bitmap buffer
   * @param {Int32Array} [options.offsets] Offsets buffer
   * @param {Batch[]} options.children Children batches
   * @param {Int8Array} options.typeIds Union type ids buffer
   * @param {Record<string, number>} options.map A typeId to children index map
   */
  constructor({ typeIds, ...options }) {
    super(options);
    this.typeIds = typeIds;
    this.typeMap = this.type.typeMap;
  }
  /**
   * @param {number} index The value index.
   */
  value(index, offset = index) {
    const { typeIds, children, typeMap } = this;
    return children[typeMap[typeIds[index]]].at(offset);
  }
};
var DenseUnionBatch = class extends SparseUnionBatch {
  /**
   * @param {number} index The value index.
   */
  value(index) {
    return super.value(
      index,
      /** @type {number} */
      this.offsets[index]
    );
  }
};
var StructBatch = class extends ArrayBatch {
  constructor(options, factory = objectFactory) {
    super(options);
    this.names = this.type.children.map((child) => child.name);
    this.factory = factory(this.names, this.children);
  }
  /**
   * @param {number} index The value index.
   * @returns {Record<string, any>}
   */
  value(index) {
    return this.factory(index);
  }
};
var StructProxyBatch = class extends StructBatch {
  constructor(options) {
    super(options, proxyFactory);
  }
};
var RunEndEncodedBatch = class extends ArrayBatch {
  /**
   * @param {number} index The value index.
   */
  value(index) {
    const [{ values: runs }, vals] = this.children;
    return vals.at(
      bisect(
        /** @type {IntegerArray} */
        runs,
        index
      )
    );
  }
};
var DictionaryBatch = class extends ArrayBatch {
  /**
   * Register the backing dictionary. Dictionaries are added
   * after batch creation as the complete dictionary may not
   * be finished across multiple record batches.
   * @param {Column<T>} dictionary
   * The dictionary of column values.
   */
  setDictionary(dictionary2) {
    this.dictionary = dictionary2;
    this.cache = dictionary2.cache();
    return this;
  }
  /**
   * @param {number} index The value index.
   */
  value(index) {
    return this.cache[this.key(index)];
  }
  /**
   * @param {number} index The value index.
   * @returns {number} The dictionary key
   */
  key(index) {
    return (
      /** @type {number} */
      this.values[index]
    );
  }
};
var ViewBatch = class extends ArrayBatch {
  /**
   * Create a new view batch.
   * @param {object} options Batch options.
   * @param {number} options.length The length of the batch
   * @param {number} options.nullCount The null value count
   * @param {DataType} options.type The data type.
   * @param {Uint8Array} [options.validity] Validity bitmap buffer
   * @param {Uint8Array} options.values Values buffer
   * @param {Uint8Array[]} options.data View data buffers
   */
  constructor({ data, ...options }) {
    super(options);
    this.data = data;
  }
  /**
   * Get the binary data at the provided index.
   * @param {number} index The value index.
   * @returns {Uint8Array}
   */
  view(index) {
    const { values, data } = this;
    const offset = index << 4;
    let start = offset + 4;
    let buf2 = (
      /** @type {Uint8Array} */
      values
    );
    const length = readInt32(buf2, offset);
    if (length > 12) {
      start = readInt32(buf2, offset + 12);
      buf2 = data[readInt32(buf2, offset + 8)];
    }
    return buf2.subarray(start, start + length);
  }
};
var BinaryViewBatch = class extends ViewBatch {
  /**
   * @param {number} index The value index.
   */
  value(index) {
    return this.view(index);
  }
};
var Utf8ViewBatch = class extends ViewBatch {
  /**
   * @param {number} index The value index.
   */
  value(index) {
    return decodeUtf8(this.view(index));
  }
};

// ../../main/js/node_modules/@uwdata/flechette/src/column.js
function columnBuilder(type) {
  let data = [];
  return {
    add(batch) {
      data.push(batch);
      return this;
    },
    clear: () => data = [],
    done: () => new Column(data, type)
  };
}
var Column = class {
  /**
   * Create a new column instance.
   * @param {Batch<T>[]} data The value batches.
   * @param {DataType} [type] The column data type.
   *  If not specified, the type is extracted from the batches.
   */
  constructor(data, type = data[0]?.type) {
    this.type = type;
    this.length = data.reduce((m, c) => m + c.length, 0);
    this.nullCount = data.reduce((m, c) => m + c.nullCount, 0);
    this.data = data;
    const n = data.length;
    const offsets = new Int32Array(n + 1);
    if (n === 1) {
      const [batch] = data;
      offsets[1] = batch.length;
      this.at = (index) => batch.at(index);
    } else {
      for (let i = 0, s = 0; i < n; ++i) {
        offsets[i + 1] = s += data[i].length;
      }
    }
    this.offsets = offsets;
  }
  /**
   * Provide an informative object string tag.
   */
  get [Symbol.toStringTag]() {
    return "Column";
  }
  /**
   * Return an iterator over the values in this column.
   * @returns {Iterator<T?>}
   */
  [Symbol.iterator]() {
    const data = this.data;
    return data.length === 1 ? data[0][Symbol.iterator]() : batchedIterator(data);
  }
  /**
   * Return the column value at the given index. If a column has multiple
   * batches, this method performs binary search over the batch lengths to
   * determine the batch from which to retrieve the value. The search makes
   * lookup less efficient than a standard array access. If making a full
   * scan of a column, consider extracting arrays via `toArray()` or using an
   * iterator (`for (const value of column) {...}`).
   * @param {number} index The row index.
   * @returns {T | null} The value.
   */
  at(index) {
    const { data, offsets } = this;
    const i = bisect(offsets, index) - 1;
    return data[i]?.at(index - offsets[i]);
  }
  /**
   * Return the column value at the given index. This method is the same as
   * `at()` and is provided for better compatibility with Apache Arrow JS.
   * @param {number} index The row index.
   * @returns {T | null} The value.
   */
  get(index) {
    return this.at(index);
  }
  /**
   * Extract column values into a single array instance. When possible,
   * a zero-copy subarray of the input Arrow data is returned.
   * @returns {ValueArray<T?>}
   */
  toArray() {
    const { length, nullCount, data } = this;
    const copy = !nullCount && isDirectBatch(data[0]);
    const n = data.length;
    if (copy && n === 1) {
      return data[0].values;
    }
    const ArrayType = !n || nullCount > 0 ? Array : data[0].constructor.ArrayType ?? data[0].values.constructor;
    const array = new ArrayType(length);
    return copy ? copyArray(array, data) : extractArray(array, data);
  }
  /**
   * Return an array of cached column values.
   * Used internally to accelerate dictionary types.
   */
  cache() {
    return this._cache ?? (this._cache = this.toArray());
  }
};
function* batchedIterator(data) {
  for (let i = 0; i < data.length; ++i) {
    const iter = data[i][Symbol.iterator]();
    for (let next = iter.next(); !next.done; next = iter.next()) {
      yield next.value;
    }
  }
}
function copyArray(array, data) {
  for (let i = 0, offset = 0; i < data.length; ++i) {
    const { values } = data[i];
    array.set(values, offset);
    offset += values.length;
  }
  return array;
}
function extractArray(array, data) {
  let index = -1;
  for (let i = 0; i < data.length; ++i) {
    const batch = data[i];
    for (let j = 0; j < batch.length; ++j) {
      array[++index] = batch.at(j);
    }
  }
  return array;
}

// ../../main/js/node_modules/@uwdata/flechette/src/table.js
var Table = class _Table {
  /**
   * Create a new table with the given schema and columns (children).
   * @param {Schema} schema The table schema.
   * @param {Column[]} children The table columns.
   * @param {boolean} [useProxy=false] Flag indicating if row proxy
   *  objects should be used to represent table rows (default `false`).
   */
  constructor(schema, children, useProxy = false) {
    const names = schema.fields.map((f) => f.name);
    this.schema = schema;
    this.names = names;
    this.children = children;
    this.factory = useProxy ? proxyFactory : objectFactory;
    const gen = [];
    this.getFactory = (b) => gen[b] ?? (gen[b] = this.factory(names, children.map((c) => c.data[b])));
  }
  /**
   * Provide an informative object string tag.
   */
  get [Symbol.toStringTag]() {
    return "Table";
  }
  /**
   * The number of columns in this table.
   * @return {number} The number of columns.
   */
  get numCols() {
    return this.names.length;
  }
  /**
   * The number of rows in this table.
   * @return {number} The number of rows.
   */
  get numRows() {
    return this.children[0]?.length ?? 0;
  }
  /**
   * Return the child column at the given index position.
   * @template {T[keyof T]} R
   * @param {number} index The column index.
   * @returns {Column<R>}
   */
  getChildAt(index) {
    return this.children[index];
  }
  /**
   * Return the first child column with the given name.
   * @template {keyof T} P
   * @param {P} name The column name.
   * @returns {Column<T[P]>}
   */
  getChild(name) {
    const i = this.names.findIndex((x) => x === name);
    return i > -1 ? this.children[i] : void 0;
  }
  /**
   * Construct a new table containing only columns at the specified indices.
   * The order of columns in the new table matches the order of input indices.
   * @template {T[keyof T]} V
   * @param {number[]} indices The indices of columns to keep.
   * @param {string[]} [as] Optional new names for selected columns.
   * @returns {Table<{ [key: string]: V }>} A new table with selected columns.
   */
  selectAt(indices, as = []) {
    const { children, factory, schema } = this;
    const { fields } = schema;
    return new _Table(
      {
        ...schema,
        fields: indices.map((i, j) => renameField(fields[i], as[j]))
      },
      indices.map((i) => children[i]),
      factory === proxyFactory
    );
  }
  /**
   * Construct a new table containing only columns with the specified names.
   * If columns have duplicate names, the first (with lowest index) is used.
   * The order of columns in the new table matches the order of input names.
   * @template {keyof T} K
   * @param {K[]} names Names of columns to keep.
   * @param {string[]} [as] Optional new names for selected columns.
   * @returns A new table with columns matching the specified names.
   */
  select(names, as) {
    const all = (
      /** @type {K[]} */
      this.names
    );
    const indices = names.map((name) => all.indexOf(name));
    return this.selectAt(indices, as);
  }
  /**
   * Return an object mapping column names to extracted value arrays.
   * @returns {{ [P in keyof T]: ValueArray<T[P]> }}
   */
  toColumns() {
    const { children, names } = this;
    const cols = {};
    names.forEach((name, i) => cols[name] = children[i]?.toArray() ?? []);
    return cols;
  }
  /**
   * Return an array of objects representing the rows of this table.
   * @returns {{ [P in keyof T]: T[P] }[]}
   */
  toArray() {
    const { children, getFactory, numRows } = this;
    const data = children[0]?.data ?? [];
    const output = Array(numRows);
    for (let b = 0, row = -1; b < data.length; ++b) {
      const f = getFactory(b);
      for (let i = 0; i < data[b].length; ++i) {
        output[++row] = f(i);
      }
    }
    return output;
  }
  /**
   * Return an iterator over objects representing the rows of this table.
   * @returns {Generator<{ [P in keyof T]: T[P] }, any, any>}
   */
  *[Symbol.iterator]() {
    const { children, getFactory } = this;
    const data = children[0]?.data ?? [];
    for (let b = 0; b < data.length; ++b) {
      const f = getFactory(b);
      for (let i = 0; i < data[b].length; ++i) {
        yield f(i);
      }
    }
  }
  /**
   * Return a row object for the given index.
   * @param {number} index The row index.
   * @returns {{ [P in keyof T]: T[P] }} The row object.
   */
  at(index) {
    const { children, getFactory, numRows } = this;
    if (index < 0 || index >= numRows) return null;
    const [{ offsets }] = children;
    const b = bisect(offsets, index) - 1;
    return getFactory(b)(index - offsets[b]);
  }
  /**
   * Return a row object for the given index. This method is the same as
   * `at()` and is provided for better compatibility with Apache Arrow JS.
   * @param {number} index The row index.
   * @returns {{ [P in keyof T]: T[P] }} The row object.
   */
  get(index) {
    return this.at(index);
  }
};
function renameField(field2, name) {
  return name != null && name !== field2.name ? { ...field2, name } : field2;
}

// ../../main/js/node_modules/@uwdata/flechette/src/batch-type.js
function batchType(type, options = {}) {
  const { typeId, bitWidth, mode, precision, unit } = (
    /** @type {any} */
    type
  );
  const { useBigInt, useBigIntTimestamp, useDate, useDecimalInt, useMap, useProxy } = options;
  switch (typeId) {
    case Type.Null:
      return NullBatch;
    case Type.Bool:
      return BoolBatch;
    case Type.Int:
    case Type.Time:
    case Type.Duration:
      return useBigInt || bitWidth < 64 ? DirectBatch : Int64Batch;
    case Type.Float:
      return precision ? DirectBatch : Float16Batch;
    case Type.Date:
      return wrap(
        unit === DateUnit.DAY ? DateDayBatch : DateDayMillisecondBatch,
        useDate && DateBatch
      );
    case Type.Timestamp:
      return useBigIntTimestamp ? DirectBatch : wrap(
        unit === TimeUnit.SECOND ? TimestampSecondBatch : unit === TimeUnit.MILLISECOND ? TimestampMillisecondBatch : unit === TimeUnit.MICROSECOND ? TimestampMicrosecondBatch : TimestampNanosecondBatch,
        useDate && DateBatch
      );
    case Type.Decimal:
      return bitWidth === 32 ? useDecimalInt ? DirectBatch : Decimal32NumberBatch : useDecimalInt ? DecimalBigIntBatch : DecimalNumberBatch;
    case Type.Interval:
      return unit === IntervalUnit.DAY_TIME ? IntervalDayTimeBatch : unit === IntervalUnit.YEAR_MONTH ? DirectBatch : IntervalMonthDayNanoBatch;
    case Type.FixedSizeBinary:
      return FixedBinaryBatch;
    case Type.Utf8:
      return Utf8Batch;
    case Type.LargeUtf8:
      return LargeUtf8Batch;
    case Type.Binary:
      return BinaryBatch;
    case Type.LargeBinary:
      return LargeBinaryBatch;
    case Type.BinaryView:
      return BinaryViewBatch;
    case Type.Utf8View:
      return Utf8ViewBatch;
    case Type.List:
      return ListBatch;
    case Type.LargeList:
      return LargeListBatch;
    case Type.Map:
      return useMap ? MapBatch : MapEntryBatch;
    case Type.ListView:
      return ListViewBatch;
    case Type.LargeListView:
      return LargeListViewBatch;
    case Type.FixedSizeList:
      return FixedListBatch;
    case Type.Struct:
      return useProxy ? StructProxyBatch : StructBatch;
    case Type.RunEndEncoded:
      return RunEndEncodedBatch;
    case Type.Dictionary:
      return DictionaryBatch;
    case Type.Union:
      return mode ? DenseUnionBatch : SparseUnionBatch;
  }
  throw new Error(invalidDataType(typeId));
}
function wrap(BaseClass, WrapperClass) {
  return WrapperClass ? class WrapBatch extends WrapperClass {
    constructor(options) {
      super(new BaseClass(options));
    }
  } : BaseClass;
}

// ../../main/js/node_modules/@uwdata/flechette/src/compression.js
var LENGTH_NO_COMPRESSED_DATA = -1;
var COMPRESS_LENGTH_PREFIX = 8;
function missingCodec(type) {
  return `Missing compression codec "${keyFor(CompressionType, type)}" (id ${type})`;
}
var codecs = /* @__PURE__ */ new Map();
function getCompressionCodec(type) {
  return type != null && codecs.get(type) || null;
}
function decompressBuffer(body, { offset, length }, codec) {
  if (length === 0) {
    return { bytes: new Uint8Array(0), offset: 0, length: 0 };
  }
  const ulen = readInt64(body, offset);
  const buf2 = body.subarray(offset + COMPRESS_LENGTH_PREFIX, offset + length);
  const bytes = ulen === LENGTH_NO_COMPRESSED_DATA ? buf2 : codec.decode(buf2, ulen);
  return { bytes, offset: 0, length: bytes.length };
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/block.js
function decodeBlock(buf2, index) {
  return {
    offset: readInt64(buf2, index),
    metadataLength: readInt32(buf2, index + 8),
    bodyLength: readInt64(buf2, index + 16)
  };
}
function decodeBlocks(buf2, index) {
  return readVector(buf2, index, 24, decodeBlock);
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/body-compression.js
function decodeBodyCompression(buf2, index) {
  const get = readObject(buf2, index);
  return {
    codec: (
      /** @type {CompressionType_} */
      get(4, readInt8, CompressionType.LZ4_FRAME)
    ),
    method: (
      /** @type {BodyCompressionMethod_} */
      get(6, readInt8, BodyCompressionMethod.BUFFER)
    )
  };
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/record-batch.js
function decodeRecordBatch(buf2, index, version) {
  const get = readObject(buf2, index);
  const offset = version < Version.V4 ? 8 : 0;
  return {
    length: get(4, readInt64, 0),
    nodes: readVector(buf2, get(6, readOffset), 16, (buf3, pos) => ({
      length: readInt64(buf3, pos),
      nullCount: readInt64(buf3, pos + 8)
    })),
    regions: readVector(buf2, get(8, readOffset), 16 + offset, (buf3, pos) => ({
      offset: readInt64(buf3, pos + offset),
      length: readInt64(buf3, pos + offset + 8)
    })),
    compression: get(10, decodeBodyCompression),
    variadic: readVector(buf2, get(12, readOffset), 8, readInt64)
  };
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/dictionary-batch.js
function decodeDictionaryBatch(buf2, index, version) {
  const get = readObject(buf2, index);
  return {
    id: get(4, readInt64, 0),
    data: get(6, (buf3, off) => decodeRecordBatch(buf3, off, version)),
    /**
     * If isDelta is true the values in the dictionary are to be appended to a
     * dictionary with the indicated id. If isDelta is false this dictionary
     * should replace the existing dictionary.
     */
    isDelta: get(8, readBoolean, false)
  };
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/data-type.js
function decodeDataType(buf2, index, typeId, children) {
  checkOneOf(typeId, Type, invalidDataType);
  const get = readObject(buf2, index);
  switch (typeId) {
    // types without flatbuffer objects
    case Type.Binary:
      return binary();
    case Type.Utf8:
      return utf8();
    case Type.LargeBinary:
      return largeBinary();
    case Type.LargeUtf8:
      return largeUtf8();
    case Type.List:
      return list(children[0]);
    case Type.ListView:
      return listView(children[0]);
    case Type.LargeList:
      return largeList(children[0]);
    case Type.LargeListView:
      return largeListView(children[0]);
    case Type.Struct:
      return struct(children);
    case Type.RunEndEncoded:
      return runEndEncoded(children[0], children[1]);
    // types with flatbuffer objects
    case Type.Int:
      return int(
        // @ts-ignore
        get(4, readInt32, 0),
        // bitwidth
        get(6, readBoolean, false)
        // signed
      );
    case Type.Float:
      return float(
        // @ts-ignore
        get(4, readInt16, Precision.HALF)
        // precision
      );
    case Type.Decimal:
      return decimal(
        get(4, readInt32, 0),
        // precision
        get(6, readInt32, 0),
        // scale
        // @ts-ignore
        get(8, readInt32, 128)
        // bitwidth
      );
    case Type.Date:
      return date(
        // @ts-ignore
        get(4, readInt16, DateUnit.MILLISECOND)
        // unit
      );
    case Type.Time:
      return time(
        // @ts-ignore
        get(4, readInt16, TimeUnit.MILLISECOND)
        // unit
      );
    case Type.Timestamp:
      return timestamp(
        // @ts-ignore
        get(4, readInt16, TimeUnit.SECOND),
        // unit
        get(6, readString)
        // timezone
      );
    case Type.Interval:
      return interval(
        // @ts-ignore
        get(4, readInt16, IntervalUnit.YEAR_MONTH)
        // unit
      );
    case Type.Duration:
      return duration(
        // @ts-ignore
        get(4, readInt16, TimeUnit.MILLISECOND)
        // unit
      );
    case Type.FixedSizeBinary:
      return fixedSizeBinary(
        get(4, readInt32, 0)
        // stride
      );
    case Type.FixedSizeList:
      return fixedSizeList(
        children[0],
        get(4, readInt32, 0)
        // stride
      );
    case Type.Map:
      return mapType(
        get(4, readBoolean, false),
        // keysSorted
        children[0]
      );
    case Type.Union:
      return union(
        // @ts-ignore
        get(4, readInt16, UnionMode.Sparse),
        // mode
        children,
        readVector(buf2, get(6, readOffset), 4, readInt32)
        // type ids
      );
  }
  return { typeId };
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/metadata.js
function decodeMetadata(buf2, index) {
  const entries = readVector(buf2, index, 4, (buf3, pos) => {
    const get = readObject(buf3, pos);
    return (
      /** @type {[string, string]} */
      [
        get(4, readString),
        // 4: key (string)
        get(6, readString)
        // 6: key (string)
      ]
    );
  });
  return entries.length ? new Map(entries) : null;
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/schema.js
function decodeSchema(buf2, index, version) {
  const get = readObject(buf2, index);
  return {
    version,
    endianness: (
      /** @type {Endianness_} */
      get(4, readInt16, 0)
    ),
    fields: get(6, decodeSchemaFields, []),
    metadata: get(8, decodeMetadata)
  };
}
function decodeSchemaFields(buf2, fieldsOffset) {
  return readVector(buf2, fieldsOffset, 4, decodeField);
}
function decodeField(buf2, index) {
  const get = readObject(buf2, index);
  const typeId = get(8, readUint8, Type.NONE);
  const typeOffset = get(10, readOffset, 0);
  const dict = get(12, decodeDictionary);
  const children = get(14, decodeFieldChildren, []);
  let type = decodeDataType(buf2, typeOffset, typeId, children);
  if (dict) {
    dict.dictionary = type;
    type = dict;
  }
  return {
    name: get(4, readString),
    type,
    nullable: get(6, readBoolean, false),
    metadata: get(16, decodeMetadata)
  };
}
function decodeFieldChildren(buf2, fieldOffset) {
  return readVector(buf2, fieldOffset, 4, decodeField);
}
function decodeDictionary(buf2, index) {
  if (!index) return null;
  const get = readObject(buf2, index);
  return dictionary(
    null,
    // data type will be populated by caller
    get(6, decodeInt, int32()),
    // index type
    get(8, readBoolean, false),
    // ordered
    get(4, readInt64, 0)
    // id
  );
}
function decodeInt(buf2, index) {
  return (
    /** @type {IntType} */
    decodeDataType(buf2, index, Type.Int)
  );
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/message.js
var invalidMessageMetadata = (expected, actual) => `Expected to read ${expected} metadata bytes, but only read ${actual}.`;
var invalidMessageBodyLength = (expected, actual) => `Expected to read ${expected} bytes for message body, but only read ${actual}.`;
var invalidMessageType = (type) => `Unsupported message type: ${type} (${keyFor(MessageHeader, type)})`;
function decodeMessage(buf2, index) {
  let metadataLength = readInt32(buf2, index) || 0;
  index += SIZEOF_INT;
  if (metadataLength === -1) {
    metadataLength = readInt32(buf2, index) || 0;
    index += SIZEOF_INT;
  }
  if (metadataLength === 0) return null;
  const head = buf2.subarray(index, index += metadataLength);
  if (head.byteLength < metadataLength) {
    throw new Error(invalidMessageMetadata(metadataLength, head.byteLength));
  }
  const get = readObject(head, 0);
  const version = (
    /** @type {Version_} */
    get(4, readInt16, Version.V1)
  );
  const type = (
    /** @type {MessageHeader_} */
    get(6, readUint8, MessageHeader.NONE)
  );
  const offset = get(8, readOffset, 0);
  const bodyLength = get(10, readInt64, 0);
  let content;
  if (offset) {
    const decoder = type === MessageHeader.Schema ? decodeSchema : type === MessageHeader.DictionaryBatch ? decodeDictionaryBatch : type === MessageHeader.RecordBatch ? decodeRecordBatch : null;
    if (!decoder) throw new Error(invalidMessageType(type));
    content = decoder(head, offset, version);
    if (bodyLength > 0) {
      const body = buf2.subarray(index, index += bodyLength);
      if (body.byteLength < bodyLength) {
        throw new Error(invalidMessageBodyLength(bodyLength, body.byteLength));
      }
      content.body = body;
    } else if (type !== MessageHeader.Schema) {
      content.body = new Uint8Array(0);
    }
  }
  return { version, type, index, content };
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/decode-ipc.js
function decodeIPC(data) {
  const source = isArrayBufferLike(data) ? new Uint8Array(data) : data;
  return isUint8Array(source) && isArrowFileFormat(source) ? decodeIPCFile(source) : decodeIPCStream(source);
}
function isArrowFileFormat(buf2) {
  if (!buf2 || buf2.length < 4) return false;
  for (let i = 0; i < 6; ++i) {
    if (MAGIC[i] !== buf2[i]) return false;
  }
  return true;
}
function decodeIPCStream(data) {
  const stream = [data].flat();
  let schema;
  const records = [];
  const dictionaries = [];
  const dictsBeforeRecord = [];
  for (const buf2 of stream) {
    if (!isUint8Array(buf2)) {
      throw new Error(`IPC data batch was not a Uint8Array.`);
    }
    let offset = 0;
    while (true) {
      const m = decodeMessage(buf2, offset);
      if (m === null) break;
      offset = m.index;
      if (!m.content) continue;
      switch (m.type) {
        case MessageHeader.Schema:
          if (!schema) schema = m.content;
          break;
        case MessageHeader.RecordBatch:
          records.push(m.content);
          dictsBeforeRecord.push(dictionaries.length);
          break;
        case MessageHeader.DictionaryBatch:
          dictionaries.push(m.content);
          break;
      }
    }
  }
  return (
    /** @type {ArrowData} */
    { schema, dictionaries, records, dictsBeforeRecord, metadata: null }
  );
}
function decodeIPCFile(data) {
  const offset = data.byteLength - (MAGIC.length + 4);
  const length = readInt32(data, offset);
  const get = readObject(data, offset - length);
  const version = (
    /** @type {Version_} */
    get(4, readInt16, Version.V1)
  );
  const dicts = get(8, decodeBlocks, []);
  const recs = get(10, decodeBlocks, []);
  const dictsBeforeRecord = recs.map(
    (rec) => dicts.filter((d) => d.offset < rec.offset).length
  );
  return (
    /** @type {ArrowData} */
    {
      schema: get(6, (buf2, index) => decodeSchema(buf2, index, version)),
      dictionaries: dicts.map(({ offset: offset2 }) => decodeMessage(data, offset2).content),
      records: recs.map(({ offset: offset2 }) => decodeMessage(data, offset2).content),
      dictsBeforeRecord,
      metadata: get(12, decodeMetadata)
    }
  );
}

// ../../main/js/node_modules/@uwdata/flechette/src/decode/table-from-ipc.js
function tableFromIPC(data, options) {
  return createTable(decodeIPC(data), options);
}
function createTable(data, options = {}) {
  const { schema = { fields: [] }, dictionaries, records, dictsBeforeRecord } = data;
  const { version, fields } = schema;
  const dictionaryMap = /* @__PURE__ */ new Map();
  const context = contextGenerator(options, version, dictionaryMap);
  const dictionaryTypes = /* @__PURE__ */ new Map();
  visitSchemaFields(schema, (field2) => {
    const type = field2.type;
    if (type.typeId === Type.Dictionary) {
      dictionaryTypes.set(type.id, type.dictionary);
    }
  });
  const processDict = (dict) => {
    const { id, data: dictData, isDelta, body } = dict;
    const type = dictionaryTypes.get(id);
    const batch = visit(type, context({ ...dictData, body }));
    const existing = dictionaryMap.get(id);
    if (!existing) {
      if (isDelta) {
        throw new Error("Delta update can not be first dictionary batch.");
      }
      dictionaryMap.set(id, new Column([batch], type));
    } else if (isDelta) {
      dictionaryMap.set(id, new Column([...existing.data, batch], type));
    } else {
      dictionaryMap.set(id, new Column([batch], type));
    }
  };
  const cols = fields.map((f) => columnBuilder(f.type));
  let dictIdx = 0;
  for (let i = 0; i < records.length; i++) {
    const target = dictsBeforeRecord ? dictsBeforeRecord[i] : dictionaries.length;
    while (dictIdx < target) {
      processDict(dictionaries[dictIdx++]);
    }
    const ctx = context(records[i]);
    fields.forEach((f, idx) => cols[idx].add(visit(f.type, ctx)));
  }
  while (dictIdx < dictionaries.length) {
    processDict(dictionaries[dictIdx++]);
  }
  return new Table(schema, cols.map((c) => c.done()), options.useProxy);
}
function visitSchemaFields(schema, visitor) {
  schema.fields.forEach(function visitField(field2) {
    visitor(field2);
    field2.type.dictionary?.children?.forEach(visitField);
    field2.type.children?.forEach(visitField);
  });
}
function contextGenerator(options, version, dictionaryMap) {
  const base = {
    version,
    options,
    dictionary: (id) => dictionaryMap.get(id)
  };
  return (batch) => {
    const { length, nodes, regions, compression, variadic, body } = batch;
    let nodeIndex = -1;
    let bufferIndex = -1;
    let variadicIndex = -1;
    return {
      ...base,
      length,
      node: () => nodes[++nodeIndex],
      buffer: (ArrayType) => {
        const { bytes, length: length2, offset } = maybeDecompress(body, regions[++bufferIndex], compression);
        return ArrayType ? new ArrayType(bytes.buffer, bytes.byteOffset + offset, length2 / ArrayType.BYTES_PER_ELEMENT) : bytes.subarray(offset, offset + length2);
      },
      variadic: () => variadic[++variadicIndex],
      visit(children) {
        return children.map((f) => visit(f.type, this));
      }
    };
  };
}
function maybeDecompress(body, region, compression) {
  if (!compression) {
    return { bytes: body, ...region };
  } else if (compression.method !== BodyCompressionMethod.BUFFER) {
    throw new Error(`Unknown compression method (${compression.method})`);
  } else {
    const id = compression.codec;
    const codec = getCompressionCodec(id);
    if (!codec) throw new Error(missingCodec(id));
    return decompressBuffer(body, region, codec);
  }
}
function visit(type, ctx) {
  const { typeId } = type;
  const { options, node, buffer: buffer2, variadic, version } = ctx;
  const BatchType = batchType(type, options);
  const base = { ...node(), type };
  if (typeId === Type.Null) {
    return new BatchType({ ...base, nullCount: base.length });
  }
  switch (typeId) {
    // validity and data value buffers
    case Type.Bool:
    case Type.Int:
    case Type.Time:
    case Type.Duration:
    case Type.Float:
    case Type.Decimal:
    case Type.Date:
    case Type.Timestamp:
    case Type.Interval:
    case Type.FixedSizeBinary:
      return new BatchType({
        ...base,
        validity: buffer2(),
        values: buffer2(type.values)
      });
    // validity, offset, and value buffers
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary:
      return new BatchType({
        ...base,
        validity: buffer2(),
        offsets: buffer2(type.offsets),
        values: buffer2()
      });
    // views with variadic buffers
    case Type.BinaryView:
    case Type.Utf8View:
      return new BatchType({
        ...base,
        validity: buffer2(),
        values: buffer2(),
        // views buffer
        data: Array.from({ length: variadic() }, () => buffer2())
        // data buffers
      });
    // validity, offset, and list child
    case Type.List:
    case Type.LargeList:
    case Type.Map:
      return new BatchType({
        ...base,
        validity: buffer2(),
        offsets: buffer2(type.offsets),
        children: ctx.visit(type.children)
      });
    // validity, offset, size, and list child
    case Type.ListView:
    case Type.LargeListView:
      return new BatchType({
        ...base,
        validity: buffer2(),
        offsets: buffer2(type.offsets),
        sizes: buffer2(type.offsets),
        children: ctx.visit(type.children)
      });
    // validity and children
    case Type.FixedSizeList:
    case Type.Struct:
      return new BatchType({
        ...base,
        validity: buffer2(),
        children: ctx.visit(type.children)
      });
    // children only
    case Type.RunEndEncoded:
      return new BatchType({
        ...base,
        children: ctx.visit(type.children)
      });
    // dictionary
    case Type.Dictionary: {
      const { id, indices } = type;
      return new BatchType({
        ...base,
        validity: buffer2(),
        values: buffer2(indices.values)
      }).setDictionary(ctx.dictionary(id));
    }
    // union
    case Type.Union: {
      if (version < Version.V5) {
        buffer2();
      }
      return new BatchType({
        ...base,
        typeIds: buffer2(int8Array),
        offsets: type.mode === UnionMode.Sparse ? null : buffer2(type.offsets),
        children: ctx.visit(type.children)
      });
    }
    // unsupported type
    default:
      throw new Error(invalidDataType(typeId));
  }
}

// ../../main/js/node_modules/@uwdata/flechette/src/encode/schema.js
var isLittleEndian = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;

// rlviz/viz/static/explorer_arrow.js
var DELTA_KEY = "rlviz.delta";
function alignedBytes(buffer2) {
  const bytes = buffer2 instanceof ArrayBuffer ? new Uint8Array(buffer2) : new Uint8Array(buffer2.buffer, buffer2.byteOffset, buffer2.byteLength);
  return bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
}
function summed(values, name) {
  if (!(values instanceof Uint32Array)) throw new Error(`column ${name} is delta-coded but is not uint32`);
  const out = values.slice();
  for (let k = 1; k < out.length; k++) out[k] += out[k - 1];
  return out;
}
function decodeChunk(meta, buffers) {
  const tables = meta.tables || [];
  if (buffers.length !== tables.length) throw new Error(`a chunk announces ${tables.length} tables but brings ${buffers.length} buffers`);
  const columns = {};
  tables.forEach((spec, k) => {
    const bytes = alignedBytes(buffers[k]);
    if (bytes.byteLength !== spec.bytes) throw new Error(`table ${spec.name}: got ${bytes.byteLength} bytes, expected ${spec.bytes}`);
    const table = tableFromIPC(bytes);
    if (table.numRows !== spec.rows) throw new Error(`table ${spec.name}: ${table.numRows} rows, expected ${spec.rows}`);
    for (const field2 of table.schema.fields) {
      const values = table.getChild(field2.name).toArray();
      columns[field2.name] = field2.metadata?.has(DELTA_KEY) ? summed(values, field2.name) : values;
    }
  });
  return columns;
}

// rlviz/viz/static/explorer_decisions.js
var FIELDS = ["event", "union", "round", "child", "pull", "allowed", "flags"];
var ITEM2 = 0;
var NOT_READY2 = 1;
function createDecisions() {
  const held = { n: 0, version: 0, table: null, sorted: new Int32Array(0), sortedN: 0 };
  for (const name of FIELDS) held[name] = new Float64Array(64);
  return held;
}
function appendDecisions(held, decoded) {
  const events = decoded.decision_event;
  if (!events || events.length === 0) return;
  for (const name of FIELDS) {
    held[name] = withRoom(held[name], held.n + events.length);
    held[name].set(decoded[`decision_${name}`], held.n);
  }
  held.n += events.length;
  held.version++;
}
function decisionTable(held, model, base, nodes) {
  const key = `${held.version}:${model.n}:${base}`;
  if (held.table && held.table.key === key) return held.table.value;
  const value = buildTable(held, model, base, nodes);
  held.table = { key, value };
  return value;
}
function timeOrder(held, model, base) {
  const at = (k2) => held.event[k2] - base;
  const before = (a2, b2) => model.start[at(a2)] - model.start[at(b2)] || at(a2) - at(b2);
  const fresh = [];
  for (let k2 = held.sortedN; k2 < held.n; k2++) fresh.push(k2);
  if (fresh.some((k2) => at(k2) >= model.n)) {
    const arrived = [];
    for (let k2 = 0; k2 < held.n; k2++) if (at(k2) < model.n) arrived.push(k2);
    held.sortedN = 0;
    return Int32Array.from(arrived.sort(before));
  }
  fresh.sort(before);
  const old = held.sorted.subarray(0, held.sortedN), merged = new Int32Array(held.sortedN + fresh.length);
  let a = 0, b = 0, k = 0;
  while (a < old.length || b < fresh.length) {
    merged[k++] = b >= fresh.length || a < old.length && before(old[a], fresh[b]) <= 0 ? old[a++] : fresh[b++];
  }
  held.sorted = merged;
  held.sortedN = merged.length;
  return merged;
}
function buildTable(held, model, base, nodes) {
  const order = Array.from(timeOrder(held, model, base));
  const at = (k) => held.event[k] - base;
  const unionNodes = [...new Set(order.map((k) => held.union[k]))].sort((a, b) => a - b);
  const specs = unionNodes.map((node) => ({
    op: nodes[node]?.op ?? "union",
    node,
    ...nodes[node]?.union ?? { children: [], weights: [], output_indexes: null }
  }));
  const specOf = new Map(unionNodes.map((node, s) => [node, s]));
  const m = order.length, rows = {
    event: new Int32Array(m),
    union_event: new Int32Array(m).fill(-1),
    union: new Int32Array(m),
    round: new Float64Array(m),
    child: new Int32Array(m),
    pull: new Int32Array(m),
    allowed: new Float64Array(m),
    outcome: new Uint8Array(m),
    flags: new Uint8Array(m),
    next: new Int32Array(m).fill(-1),
    after: new Int32Array(m).fill(-1)
  };
  const lastOf = /* @__PURE__ */ new Map();
  order.forEach((k, row) => {
    const event = at(k), spec = specOf.get(held.union[k]);
    rows.event[row] = event;
    rows.union[row] = spec;
    rows.round[row] = held.round[k];
    rows.child[row] = held.child[k];
    rows.pull[row] = held.pull[k];
    rows.allowed[row] = held.allowed[k];
    rows.outcome[row] = model.flags[event] & 3;
    rows.flags[row] = held.flags[k] | droppedFlag(specs[spec], held.child[k], rows.outcome[row]);
    if (lastOf.has(spec)) {
      const before = lastOf.get(spec);
      rows.next[before] = rows.child[row];
      if (rows.outcome[before] === NOT_READY2) rows.after[row] = rows.child[before];
    }
    lastOf.set(spec, row);
  });
  tieUnionCalls(rows, specs, model);
  return { specs, rows };
}
function droppedFlag(spec, child, outcome) {
  const keep = spec.output_indexes;
  return keep && outcome === ITEM2 && !keep.includes(child) ? 8 : 0;
}
function tieUnionCalls(rows, specs, model) {
  const m = rows.event.length, named = /* @__PURE__ */ new Map();
  for (let row = 0; row < m; row++) {
    const union2 = specs[rows.union[row]].node, event = rows.event[row];
    let call = -1;
    if (rows.outcome[row] === ITEM2) {
      for (let k = model.outOffsets[event]; k < model.outOffsets[event + 1]; k++) {
        if (model.node[model.outputs[k]] === union2) {
          call = model.outputs[k];
          break;
        }
      }
    } else if (rows.outcome[row] === NOT_READY2) {
      call = enclosingNotReady(model, union2, event);
    }
    if (call >= 0) {
      if (named.has(call)) rows.union_event[named.get(call)] = -1;
      rows.union_event[row] = call;
      named.set(call, row);
    }
  }
}
function enclosingNotReady(model, union2, event) {
  const r = model.nodeRow[union2];
  if (r === void 0 || r < 0) return -1;
  const times = model.rowTimes, s = model.start[event], e = s + model.duration[event];
  let a = model.rowStart[r], b = model.rowEnd[r];
  while (a < b) {
    const mid = a + b >>> 1;
    if (times[mid] <= s) a = mid + 1;
    else b = mid;
  }
  const candidate = a - 1 >= model.rowStart[r] ? model.rowEvents[a - 1] : -1;
  if (candidate < 0 || (model.flags[candidate] & 3) !== NOT_READY2) return -1;
  return model.start[candidate] + model.duration[candidate] >= e ? candidate : -1;
}

// rlviz/viz/static/explorer_gauges.js
var NOT_READY3 = 1;
function grouped(v) {
  return String(Math.trunc(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
var CAUSES = [
  [
    ["learning_starts", "replay rows added"],
    (needed, added) => `replay buffer has ${grouped(added)} of the ${grouped(needed)} rows learning_starts needs`
  ],
  [["Enqueue queue capacity", "Enqueue queue held"], (capacity, held) => `its queue is full: ${grouped(held)} of ${grouped(capacity)} items`],
  [["Dequeue queue held"], () => "its queue is empty"]
];
function createGauges(tracks = []) {
  return { tracks: tracks.map(([name, where]) => ({ name, where, time: [], value: [] })), version: 0 };
}
function appendGauges(held, message, decoded) {
  for (const [name, where] of message.gauge_tracks || []) held.tracks.push({ name, where, time: [], value: [] });
  const before = decoded.gauge_before_track ?? [];
  for (let k = 0; k < before.length; k++) {
    const t = held.tracks[before[k]];
    if (!t || t.time.length > 0) continue;
    t.time.push(decoded.gauge_before_time[k]);
    t.value.push(decoded.gauge_before_value[k]);
  }
  const track = decoded.gauge_track;
  if (!track || track.length === 0) {
    if (before.length) held.version++;
    return;
  }
  for (let k = 0; k < track.length; k++) {
    const t = held.tracks[track[k]], time2 = decoded.gauge_time[k];
    if (!t) continue;
    let at = t.time.length;
    while (at > 0 && t.time[at - 1] > time2) at--;
    t.time.splice(at, 0, time2);
    t.value.splice(at, 0, decoded.gauge_value[k]);
  }
  held.version++;
}
function readingAt(track, t) {
  let a = 0, b = track.time.length;
  while (a < b) {
    const mid = a + b >>> 1;
    if (track.time[mid] <= t) a = mid + 1;
    else b = mid;
  }
  return a - 1;
}
function trackOf(held, name, where) {
  return held.tracks.find((t) => t.name === name && t.where === where);
}
function within(track, s, e) {
  const k = readingAt(track, e);
  return k >= 0 && track.time[k] >= s ? track.value[k] : null;
}
function stateCause(held, model, i) {
  const where = model.nodes[model.node[i]].where, s = model.start[i], e = s + model.duration[i];
  for (const [names, sentence] of CAUSES) {
    const tracks = names.map((name) => trackOf(held, name, where));
    if (tracks.some((t) => !t)) continue;
    const values = tracks.map((t) => within(t, s, e));
    if (values.every((v) => v !== null)) return sentence(...values);
  }
  return null;
}
function causeOf(held, model, i) {
  if (!held || held.tracks.length === 0) return null;
  if ((model.flags[i] & 3) === NOT_READY3) {
    const text = stateCause(held, model, i);
    if (text !== null) return { text, notReady: true };
  }
  for (let k = model.inOffsets[i + 1] - 1; k >= model.inOffsets[i]; k--) {
    const p = model.inputs[k];
    if (!isDroppedInput(model, i, p)) continue;
    const text = stateCause(held, model, p);
    if (text !== null) return { text: `dropped an input: ${text}`, notReady: false };
  }
  return null;
}
function withCause(decision, cause, notReady = true) {
  if (cause == null) return decision;
  if (decision != null) return `${decision} (${cause})`;
  return notReady ? `not ready: ${cause}` : cause;
}
function eventWhy(model, decisions, index, i) {
  const cause = causeOf(model.gauges, model, i);
  return withCause(whyOf(decisions, index, i), cause && cause.text, cause ? cause.notReady : true);
}

// rlviz/viz/static/explorer_live.js
var COLUMNS = ["start", "duration", "node", "flags", "item"];
var NARROW = { start: Uint32Array, duration: Uint32Array, node: Uint16Array, flags: Uint8Array, item: Int32Array };
function createLive(meta) {
  const live = {
    meta: { ...meta, count: 0, texts: [...meta.texts || []], dropped: meta.dropped || 0, gaps: meta.gaps || [] },
    n: 0,
    base: 0,
    columns: {},
    pairs: { consumer: new Uint32Array(1024), producer: new Uint32Array(1024), n: 0 },
    droppedLinks: /* @__PURE__ */ new Map(),
    model: null,
    decisions: createDecisions(),
    gauges: createGauges(meta.gauge_tracks)
  };
  for (const name of COLUMNS) live.columns[name] = new NARROW[name](1024);
  return live;
}
function openStream(meta, buffers = []) {
  const live = createLive(meta);
  let next = 0;
  for (const chunk of meta.chunks || []) {
    const count = chunk.tables.length;
    appendChunk(live, chunk, buffers.slice(next, next + count));
    next += count;
  }
  return live;
}
function appendChunk(live, message, buffers) {
  if (live.settled) throw new Error("this stream was replayed whole: no chunk can follow");
  if (live.n > 0 && message.first_id !== live.base + live.n) {
    throw new Error(`a chunk starting at event ${message.first_id} cannot follow event ${live.base + live.n - 1}`);
  }
  const decoded = decodeChunk(message, buffers);
  for (const text of message.texts || []) live.meta.texts.push(text);
  if (message.notes) live.meta.notes = message.notes;
  live.meta.dropped = message.dropped || 0;
  if (message.gaps) live.meta.gaps = message.gaps;
  if (live.n === 0) live.base = message.first_id;
  const count = message.count, at = live.n, timeBase = message.time_base || 0;
  for (const name of COLUMNS) {
    const column = wideEnough(live.columns[name], decoded[name], name === "start" ? timeBase : 0, at);
    live.columns[name] = withRoom(column, at + count, at);
    live.columns[name].set(decoded[name], at);
  }
  addTimeBase(live.columns.start, at, at + count, timeBase);
  live.n += count;
  const links = chunkLinks(message, decoded);
  addPairs(live, links.consumer, links.producer);
  rememberDropped(live.droppedLinks, links);
  appendDecisions(live.decisions, decoded);
  appendGauges(live.gauges, message, decoded);
  live.model = null;
  return count;
}
function chunkLinks(message, decoded) {
  const counts = decoded.input_count, inputs = decoded.inputs;
  const late = decoded.late_consumer ? decoded.late_consumer.length : 0;
  const consumer = new Uint32Array(inputs.length + late), producer = new Uint32Array(inputs.length + late);
  const dropped = new Uint8Array(inputs.length + late);
  let k = 0;
  for (let i = 0; i < counts.length; i++) for (let c = 0; c < counts[i]; c++) consumer[k++] = message.first_id + i;
  producer.set(inputs);
  if (decoded.input_dropped) dropped.set(decoded.input_dropped);
  if (late) {
    consumer.set(decoded.late_consumer, inputs.length);
    producer.set(decoded.late_producer, inputs.length);
    dropped.set(decoded.late_dropped, inputs.length);
  }
  return { consumer, producer, dropped };
}
function wideEnough(column, values, base, kept) {
  if (column instanceof Float64Array || values.length === 0) return column;
  const top = () => values.reduce((a, b) => Math.max(a, b), 0);
  let Wider = null;
  if (values instanceof Float64Array || base > 0 && base + top() > 4294967295) Wider = Float64Array;
  else if (column instanceof Uint16Array && values.BYTES_PER_ELEMENT > 2 && top() > 65535) Wider = Uint32Array;
  else if (column instanceof Int32Array && !(values instanceof Int32Array)) Wider = Float64Array;
  if (!Wider) return column;
  const wider = new Wider(column.length);
  wider.set(column.subarray(0, kept));
  return wider;
}
function settle(live) {
  liveModel(live);
  live.pairs = { consumer: new Uint32Array(0), producer: new Uint32Array(0), n: 0 };
  live.settled = true;
}
function addTimeBase(start, from, to, timeBase) {
  if (timeBase === 0) return;
  for (let i = from; i < to; i++) start[i] += timeBase;
}
function addPairs(live, consumers, producers) {
  const pairs2 = live.pairs;
  pairs2.consumer = withRoom(pairs2.consumer, pairs2.n + consumers.length);
  pairs2.producer = withRoom(pairs2.producer, pairs2.n + consumers.length);
  for (let k = 0; k < consumers.length; k++) {
    if (consumers[k] < live.base || producers[k] < live.base) continue;
    pairs2.consumer[pairs2.n] = consumers[k];
    pairs2.producer[pairs2.n++] = producers[k];
  }
}
function rememberDropped(dropped, links) {
  const flags = links.dropped;
  for (let k = 0; k < flags.length; k++) {
    if (!flags[k]) continue;
    const consumer = links.consumer[k];
    if (!dropped.has(consumer)) dropped.set(consumer, /* @__PURE__ */ new Set());
    dropped.get(consumer).add(links.producer[k]);
  }
}
function liveMeta(live) {
  return { ...live.meta, count: live.n, item_mode: "f64" };
}
function liveModel(live) {
  if (!live.model) {
    live.model = heldModel(live);
    live.model.meta.decisions = decisionTable(live.decisions, live.model, live.base, live.meta.nodes);
    live.model.gauges = live.gauges;
  }
  return live.model;
}
function heldModel(live) {
  const n = live.n, base = live.base, pairs2 = live.pairs;
  const inputCount = new Uint32Array(n);
  let links = 0;
  for (let k = 0; k < pairs2.n; k++) {
    const consumer = pairs2.consumer[k] - base, producer = pairs2.producer[k] - base;
    if (consumer < n && producer < n) {
      inputCount[consumer]++;
      links++;
    }
  }
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + inputCount[i];
  const inputs = new Uint32Array(links), fill = offsets.slice(0, n);
  for (let k = 0; k < pairs2.n; k++) {
    const consumer = pairs2.consumer[k] - base, producer = pairs2.producer[k] - base;
    if (consumer < n && producer < n) inputs[fill[consumer]++] = producer;
  }
  const columns = { input_count: inputCount, inputs };
  for (const name of COLUMNS) columns[name] = live.columns[name].subarray(0, n);
  const model = buildModel(liveMeta(live), columns);
  model.droppedInputs = { base, links: live.droppedLinks };
  return model;
}

// rlviz/viz/static/explorer_long.js
var KEPT_CHUNKS = 8;
async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
function unpackChunk(chunk, bytes) {
  const buffers = [];
  let at = 0;
  for (const spec of chunk.tables) {
    if (at + spec.bytes > bytes.length) throw new Error(`detail chunk ${chunk.first_id}: its bytes stop inside table ${spec.name}`);
    buffers.push(bytes.subarray(at, at + spec.bytes));
    at += spec.bytes;
  }
  if (at !== bytes.length) throw new Error(`detail chunk ${chunk.first_id}: ${bytes.length - at} bytes past its tables`);
  return buffers;
}
function createLod(meta, source, host, fixedMost = null) {
  const detail = meta.detail;
  let most = fixedMost ?? mostChunks(detail);
  const kept = /* @__PURE__ */ new Map();
  const grew = /* @__PURE__ */ new Map();
  let asked = 0;
  let held = -1;
  let grownTimes = 0;
  let loadingNeed = null, latest = null;
  const lod = {
    levels: null,
    loaded: null,
    // [first, last] chunks in the model, or null
    pending: null,
    // the promise of the latest load (tests and benchmarks await it)
    loading: false,
    // whether the latest load is still under way
    whole: detail.length > 0 && most >= detail.length,
    // a run held whole: its first window loads all of it
    failed: false,
    // whether a load (or the levels) failed: the view shows why
    /** Whether a run held whole lacks its events or its levels yet (and nothing failed): its first frame waits for both. */
    holding: () => lod.whole && !(lod.loaded && lod.levels) && !lod.failed,
    /** Whether the page has what its window needs: the levels, and no load under way. */
    settled: () => lod.levels != null && !lod.loading,
    /** Whether lane `lane`'s events in window [a, b] are all in the model. */
    exact: (lane, a, b) => covers(detail, lod.loaded, a, b, most),
    /** Lane `lane` over [a, b] at `plotW` pixels from its levels (lanePixels), or null without levels. */
    pixels(lane, a, b, plotW) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && lane < lod.levels.lanes ? lanePixels(set, lane, a, b, plotW) : null;
    },
    /** What lane `lane`'s pixel `x` of [a, b] drawn `plotW` wide counts in its levels (levelPixelAt), or null. */
    pixelAt(lane, a, b, plotW, x) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && lane < lod.levels.lanes ? levelPixelAt(set, lane, a, b, plotW, x) : null;
    },
    /** Gauge track `track` over [a, b] at `plotW` pixels from its summaries (gaugePixels), or null without levels. */
    gaugePixels(track, a, b, plotW) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && track < lod.levels.tracks ? gaugePixels(set, track, a, b, plotW) : null;
    },
    /** The summary hovering time `t` reads on gauge track `track`, at the level window [a, b] is drawn from. */
    gaugeAt(track, t, a, b, plotW) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && track < lod.levels.tracks ? gaugeBucketAt(set, track, t) : null;
    },
    /** Gauge track `track`'s least and greatest reading over the run, or null (no levels yet, or no reading). */
    gaugeRange: (track) => gaugeRange(lod.levels, track),
    setLevels(levels) {
      lod.levels = levels;
    },
    /**
     * A growing run's chunks from `from` on changed (the tail grew, chunks closed: `detail` holds their new
     * entries), or with `restructured` every chunk's model must be built again (new nodes or lanes): drop
     * what is kept of them, so that the next request asks for them again.
     */
    grown(from, restructured = false) {
      most = fixedMost ?? mostChunks(detail);
      for (const [k, pieces] of [...kept]) {
        if (!restructured && k < from) continue;
        kept.delete(k);
        if (!restructured) grew.set(k, pieces);
      }
      if (lod.loaded && (restructured || lod.loaded[1] >= from)) lod.loaded = null;
      grownTimes++;
    },
    /**
     * Keep trace event `id` (-1: none) at hand: a window drawn from the levels (it needs more than
     * `most` chunks) loads the chunk holding it, so the selection has its event, its inspector and its why.
     */
    hold(id) {
      held = id;
    },
    /**
     * The window moved to [a, b]: load the chunks it needs (when it needs more than `most`, the chunk
     * of the event held, if any), unless the model holds them already. Resolves to true when a new
     * model was handed to the host.
     */
    request([a, b]) {
      latest = [a, b];
      const need = chunksFor(detail, a, b, most) ?? chunkHolding(detail, held);
      if (!need || lod.loaded && need[0] >= lod.loaded[0] && need[1] <= lod.loaded[1]) return Promise.resolve(false);
      if (lod.loading && loadingNeed && need[0] === loadingNeed[0] && need[1] === loadingNeed[1]) return lod.pending;
      const mine = ++asked, since = grownTimes;
      lod.loading = true;
      loadingNeed = need;
      const load = Promise.all(range(need).map(chunk)).then((parts) => {
        if (mine !== asked) return false;
        lod.loaded = since === grownTimes ? need : null;
        lod.loading = false;
        loadingNeed = null;
        const started = performance.now();
        const pieces = parts.flat();
        const model = modelOf(meta, pieces.map((piece) => piece.chunk), pieces.map((piece) => piece.buffers));
        host.onModel(model, need);
        measure("rlviz:append", started, { first_id: baseOf(model), count: model.n });
        if (!lod.loaded) lod.request(latest);
        return true;
      }, (error) => {
        if (mine !== asked) return false;
        lod.loading = false;
        loadingNeed = null;
        lod.failed = true;
        host.onError(error);
        return false;
      });
      lod.pending = load;
      return load;
    }
  };
  function chunk(k) {
    if (kept.has(k)) {
      const known = kept.get(k);
      kept.delete(k);
      kept.set(k, known);
      return known;
    }
    const before = grew.get(k);
    grew.delete(k);
    const loading = before ? before.then((pieces) => rest(k, pieces), () => whole(k)) : whole(k);
    kept.set(k, loading);
    loading.catch(() => kept.delete(k));
    while (kept.size > Math.max(KEPT_CHUNKS, most)) kept.delete(kept.keys().next().value);
    return loading;
  }
  function whole(k) {
    return source.chunk(k, null).then((piece) => [piece]);
  }
  async function rest(k, pieces) {
    const piece = await source.chunk(k, pieces[pieces.length - 1].chunk);
    return piece.chunk.parts && piece.chunk.parts[0] > 0 ? [...pieces, piece] : [piece];
  }
  return lod;
}
function chunkHolding(detail, id) {
  const k = id < 0 ? -1 : detail.findIndex((chunk) => id >= chunk.first_id && id < chunk.first_id + chunk.count);
  return k < 0 ? null : [k, k];
}
function baseOf(model) {
  return model.droppedInputs?.base ?? 0;
}
function partIndex(model, id) {
  const i = id - baseOf(model);
  return id >= 0 && i >= 0 && i < model.n ? i : -1;
}
function range([first, last]) {
  return Array.from({ length: last - first + 1 }, (_, k) => first + k);
}
function modelOf(meta, chunks, buffers) {
  const { detail, overview, ...start } = meta;
  const metas = chunks.map(({ seq, packed, ...chunk }) => chunk);
  const data = openStream({ ...start, chunks: metas }, buffers.flat());
  const model = liveModel(data);
  settle(data);
  return model;
}

// rlviz/viz/static/explorer_actions.js
var NOTIFY_WINDOW_MS = 150;
function clampWindow([a, b], full, unitNs) {
  const minimum = 10 / Math.max(unitNs, 1);
  if (!(b - a >= minimum)) {
    const mid = (a + b) / 2;
    a = mid - minimum / 2;
    b = mid + minimum / 2;
  }
  const span = full[1] - full[0], extra = span * 0.5;
  if (b - a > span + 2 * extra) {
    a = full[0] - extra;
    b = full[1] + extra;
  }
  if (a < full[0] - extra) {
    b += full[0] - extra - a;
    a = full[0] - extra;
  }
  if (b > full[1] + extra) {
    a -= b - full[1] - extra;
    b = full[1] + extra;
  }
  return [a, b];
}
function selectionWindow(model, i, unitNs) {
  let a = model.start[i], b = a + model.duration[i];
  for (let k = model.inOffsets[i]; k < model.inOffsets[i + 1]; k++) a = Math.min(a, model.start[model.inputs[k]]);
  for (let k = model.outOffsets[i]; k < model.outOffsets[i + 1]; k++) {
    const c = model.outputs[k];
    b = Math.max(b, model.start[c] + model.duration[c]);
  }
  const pad = Math.max((b - a) * 0.15, 50 / Math.max(unitNs, 1));
  return [a - pad, b + pad];
}
function reporter(view, host) {
  let timer = null;
  const notify = (changed, state) => {
    if (!host.onChange) return;
    const what = ["selected", "filter", "skipNotReady", "window"].find((key) => changed.has(key));
    if (!what) return;
    const unitMs = view.model.unitMs;
    const report = () => host.onChange({
      selected: view.selectedId(),
      window: [state.window[0] * unitMs, state.window[1] * unitMs],
      op: state.filter.op,
      where: state.filter.where,
      skipNotReady: state.skipNotReady,
      what: { skipNotReady: "skip", selected: "selected", filter: "filter", window: "window" }[what]
    });
    clearTimeout(timer);
    if (what === "window") timer = setTimeout(report, NOTIFY_WINDOW_MS);
    else report();
  };
  notify.cancel = () => clearTimeout(timer);
  return notify;
}
function createActions(view, host = {}) {
  const { store } = view;
  let steps = null;
  const notify = reporter(view, host);
  const setWindow = (units, info = { from: "user" }) => store.set({ window: clampWindow(units, view.full, view.meta.unit_ns) }, info);
  function select(index, { from = "user", center = true, reveal = false, id = null } = {}) {
    const m = view.model;
    const selected = index >= 0 && index < m.n ? index : -1;
    view.selection = id ?? (selected < 0 ? -1 : selected + baseOf(m));
    const patch = { selected };
    if (selected >= 0 && center) {
      const s = m.start[selected], e = s + m.duration[selected];
      const [a, b] = store.get().window;
      const middle = s + (e - s) / 2;
      if (e < a || s > b) patch.window = clampWindow([middle - (b - a) / 2, middle + (b - a) / 2], view.full, view.meta.unit_ns);
    }
    const changed = store.set(patch, { from: from === "user" ? "select" : from, reveal });
    if (from === "user" && changed.has("selected")) notify(/* @__PURE__ */ new Set(["selected"]), store.get());
  }
  function doStep(direction) {
    const started = performance.now();
    const state = store.get();
    steps ?? (steps = stepList(view.model, state.filter, state.skipNotReady));
    const next = step(view.model, steps, state.selected, direction);
    if (next >= 0) select(next, { reveal: true });
    measure("rlviz:step", started);
    return next;
  }
  return {
    select,
    step: doStep,
    setWindow,
    notify,
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
      const found = searchStep(hits, store.get().selected, direction);
      const target = found >= 0 ? found : hits[direction > 0 ? 0 : hits.length - 1];
      select(target);
      return target;
    },
    /** Forget what `changed` makes stale (the step list after a filter or new data). */
    forget(changed) {
      if (changed.has("filter") || changed.has("skipNotReady") || changed.has("data")) steps = null;
    },
    destroy: () => notify.cancel()
  };
}

// rlviz/viz/static/explorer_growing.js
var FOLLOW_MS = 3e4;
var ExtentGap = class extends Error {
};
function extendMeta(meta, extent) {
  if (extent.seq <= meta.seq) return { restructured: false, repeated: true, changedFrom: meta.detail.length };
  if (extent.seq !== meta.seq + 1 || extent.detail_from > meta.detail.length || extent.texts_from !== meta.texts.length) {
    throw new ExtentGap(`extent ${extent.seq} (from chunk ${extent.detail_from} and text ${extent.texts_from}) cannot follow extent ${meta.seq} (${meta.detail.length} chunks and ${meta.texts.length} texts): one went missing`);
  }
  meta.seq = extent.seq;
  const changedFrom = firstChanged(meta.detail, extent.detail_from, extent.detail);
  meta.detail.splice(extent.detail_from, meta.detail.length - extent.detail_from, ...extent.detail);
  for (let k = 0; k < Math.min(extent.first_chunk ?? 0, meta.detail.length); k++) meta.detail[k].gone = true;
  for (const text of extent.texts) meta.texts.push(text);
  const restructured = Boolean(extent.structure);
  if (restructured) Object.assign(meta, extent.structure);
  setCounts(meta.nodes, extent.counts);
  for (const key of [
    "orders",
    "order",
    "notes",
    "gauge_tracks",
    "overview",
    "dropped",
    "gaps",
    "events",
    "count",
    "span_ms"
  ]) {
    if (key in extent) meta[key] = extent[key];
  }
  return { restructured, repeated: false, changedFrom };
}
function firstChanged(detail, from, fresh) {
  for (let k = from; k < from + fresh.length; k++) {
    const old = detail[k], now = fresh[k - from];
    if (!old || old.count !== now.count || old.first_id !== now.first_id || old.time_range[0] !== now.time_range[0] || old.time_range[1] !== now.time_range[1] || Boolean(now.gone) !== Boolean(old.gone)) return k;
  }
  return from + fresh.length;
}
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
function followWindow(window2, end, follow, span) {
  if (!follow) return window2;
  if (span == null || end <= span) return [0, Math.max(end, 1)];
  return [end - span, end];
}

// rlviz/viz/static/explorer_kernel.js
var PING_MS = 3e3;
function kernelLostText(events, live) {
  const kept = `it keeps the ${events.toLocaleString("en-US")} event${events === 1 ? "" : "s"} it shows`;
  return `The kernel restarted or stopped, so this view lost its connection: ${kept}` + (live ? ", but the watched run ended with the kernel and its buttons do nothing" : "") + ". Run the cell again in the new kernel to record and show a new trace.";
}
function createKernelWatch({ ping, lost, found }, timers = globalThis) {
  let waiting = 0, gone = false;
  const markLost = () => {
    waiting = 0;
    if (!gone) {
      gone = true;
      lost();
    }
  };
  return {
    /** The widget's connection changed: ask the kernel whether it is still there. */
    disconnected() {
      if (waiting || gone) return;
      try {
        ping();
      } catch {
        markLost();
        return;
      }
      waiting = timers.setTimeout(markLost, PING_MS);
    },
    /** A message came from the kernel: it is there. */
    heard() {
      if (waiting) {
        timers.clearTimeout(waiting);
        waiting = 0;
      }
      if (gone) {
        gone = false;
        found();
      }
    },
    get lost() {
      return gone;
    },
    destroy() {
      if (waiting) timers.clearTimeout(waiting);
      waiting = 0;
    }
  };
}

// rlviz/viz/static/explorer_saved.js
var DamagedPage = class extends Error {
};
function adler32(bytes) {
  let a = 1, b = 0;
  for (let at = 0; at < bytes.length; ) {
    const end = Math.min(at + 5552, bytes.length);
    for (; at < end; at++) {
      a += bytes[at];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return (b << 16 | a) >>> 0;
}
var SAVED_PARTS = {
  meta: "the trace's description (#rlviz-meta)",
  view: "what the page opens on (#rlviz-view)",
  runs: "the list of compared runs (#rlviz-runs)"
};
function savedJson(text, part = "meta") {
  const what = SAVED_PARTS[part];
  if (text == null) throw new DamagedPage(`${what} is missing`);
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DamagedPage(`${what} does not parse: ${error.message}`);
  }
  if (part === "meta" && !(value && Array.isArray(value.chunks))) throw new DamagedPage(`${what} lists no chunks`);
  if (part === "runs" && !Array.isArray(value)) throw new DamagedPage(`${what} is not a list`);
  return value;
}
function checkPacked(bytes, size, checksum, what) {
  if (bytes.length !== size) {
    throw new DamagedPage(`${what} holds ${bytes.length.toLocaleString("en-US")} bytes where it announces ${size.toLocaleString("en-US")}: the file was ${bytes.length < size ? "cut short" : "changed after it was written"}`);
  }
  if (Number.isFinite(checksum) && adler32(bytes) !== checksum) {
    throw new DamagedPage(`${what} does not match the checksum it was written with: the file was changed after it was written`);
  }
}
function damagedText(reason) {
  return `This saved rlviz page is damaged, so its trace cannot be shown: ${reason}. Write it again with rlviz.viz.write_html(trace, path), or open a complete copy of the file.`;
}

// rlviz/viz/static/explorer_store.js
function createStore(initial) {
  let state = { ...initial };
  const listeners = /* @__PURE__ */ new Set();
  return {
    /** The current state (a fresh object after every change: never mutate it). */
    get() {
      return state;
    },
    /**
     * Apply `patch`; keys whose value is unchanged (Object.is) are ignored.
     * @param {object} patch
     * @param {object} info  passed to subscribers, e.g. {from: "user"} or {from: "host"}
     * @returns {Set<string>} the keys that changed
     */
    set(patch, info = {}) {
      const changed = /* @__PURE__ */ new Set();
      for (const key of Object.keys(patch)) if (!Object.is(state[key], patch[key])) changed.add(key);
      if (changed.size === 0) return changed;
      state = { ...state, ...patch };
      for (const listener of [...listeners]) listener(changed, state, info);
      return changed;
    },
    /** Call `listener(changed, state, info)` after every change; returns the function that stops it. */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }
  };
}

// rlviz/viz/static/panes/graph.js
var PAD = 4;
var TEXT_PAD = 6;
var MIN_TEXT_PX = 10;
var NAME_PX = 11;
var COUNTER_PX = 10;
var LINES_MAX = 12.5;
var NAME_MAX = 24;
var FIT_HEIGHT = 0.7;
function fitGraph(width, height, room, tall) {
  const scale = Math.min(1, room / width, tall > 40 ? tall / height : 1);
  const needed = MIN_TEXT_PX / scale;
  const counters = needed <= LINES_MAX;
  return {
    scale,
    name: counters ? Math.max(NAME_PX, needed) : Math.min(NAME_MAX, needed),
    counter: Math.max(COUNTER_PX, needed),
    counters,
    wide: NAME_PX * scale < MIN_TEXT_PX
  };
}
function edgeShape(from, to, count, back) {
  const [x1, y1] = [from.x + from.w, from.y + from.h / 2];
  const [x2, y2] = [to.x, to.y + to.h / 2];
  const bend = Math.max(30, Math.abs(x2 - x1) / 2);
  return {
    d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
    width: 1 + Math.log10(1 + count) / 2,
    dashed: Boolean(back),
    title: `${from.op} → ${to.op}: ${counted(count, "value")}`
  };
}
function nodeCounterLines(n) {
  return [
    `${counted(n.calls, "call", compact)} · ${counted(n.items, "item", compact)}`,
    [
      `${formatBusy(n.busy_ms)} ms busy`,
      n.not_ready ? `${compact(n.not_ready)} not ready` : "",
      n.errors ? counted(n.errors, "error", compact) : ""
    ].filter(Boolean).join(" · ")
  ];
}
function graphMarks(model, selected, filter, nodes) {
  const role = /* @__PURE__ */ new Map();
  if (selected >= 0) {
    for (let k = model.inOffsets[selected]; k < model.inOffsets[selected + 1]; k++) role.set(model.node[model.inputs[k]], "producer");
    for (let k = model.outOffsets[selected]; k < model.outOffsets[selected + 1]; k++) role.set(model.node[model.outputs[k]], "consumer");
    role.set(model.node[selected], "selected");
  }
  const filtered = filter.op != null || filter.where != null;
  return new Map(nodes.map((k) => [k, { role: role.get(k) ?? null, dim: filtered && !nodeMatches(model, k, filter) }]));
}
function sameLook(a, b) {
  return Boolean(a) && a.width === b.width && a.fill === b.fill && a.stroke === b.stroke && a.opacity === b.opacity && a.selected === b.selected;
}
var ROLE_COLOR = { producer: PRODUCER_COLOR, consumer: CONSUMER_COLOR, selected: "#000" };
function createGraph(host, view) {
  const pane = make("div", "rlviz-pane rlviz-graph", "graph");
  host.appendChild(pane);
  let drawing = null, boxes = /* @__PURE__ */ new Map(), fit = true;
  let measurer = null, family = null;
  build();
  function header() {
    const title = make("h4", null, null, "Dataflow graph (click a node to filter the timeline) ");
    const button = make("button", "rlviz-fit", "graph-fit", fit ? "actual size" : "fit");
    button.type = "button";
    button.title = "Shrink the whole graph into the pane, or show it at its size (the pane scrolls)";
    button.setAttribute("aria-pressed", String(fit));
    button.addEventListener("click", () => {
      fit = !fit;
      build();
    });
    title.appendChild(button);
    return title;
  }
  function build() {
    const { meta } = view;
    pane.replaceChildren(header());
    drawing = null;
    boxes = /* @__PURE__ */ new Map();
    const drawn = meta.nodes.map((n, k) => k).filter((k) => !meta.nodes[k].hidden);
    if (!drawn.length) {
      pane.appendChild(make("p", null, null, "No dataflow nodes."));
      return;
    }
    const { width, height, groups } = meta.graph;
    const root = svg("svg", { viewBox: `${-PAD} ${-PAD} ${width + 2 * PAD} ${height + 2 * PAD}`, role: "img" });
    root.dataset.rlviz = "graph-drawing";
    pane.appendChild(root);
    const sizes = placement(width + 2 * PAD, height + 2 * PAD);
    root.style.width = `${(width + 2 * PAD) * sizes.scale}px`;
    root.dataset.scale = String(sizes.scale);
    const defs = svg("defs");
    const marker = svg("marker", { id: "rlviz-head", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#888" }));
    defs.appendChild(marker);
    root.appendChild(defs);
    for (const group of groups) root.appendChild(groupBox(group));
    for (const [u, v, count, back] of meta.edges) root.appendChild(edge(meta.nodes[u], meta.nodes[v], count, back));
    const lanes = Object.fromEntries(meta.lanes.map((l) => [l.name, l.color]));
    for (const k of drawn) {
      const n = meta.nodes[k];
      const g = svg("g", { class: "rlviz-node", transform: `translate(${n.x},${n.y})` });
      g.dataset.node = String(k);
      g.dataset.op = n.op;
      g.dataset.rlviz = "node";
      g.dataset.where = n.where;
      const rect = svg("rect", { width: n.w, height: n.h, rx: 5, fill: "#fff", stroke: lanes[n.where] || "#5b6770", "stroke-width": 1.6 });
      const title = svg("title");
      title.textContent = `${n.label}
@ ${n.where}`;
      const nameY = sizes.counters ? 14 : n.h / 2 + sizes.name * 0.35;
      const name = svg("text", { x: n.w / 2, y: nameY, "text-anchor": "middle", "font-size": sizes.name, "font-weight": 600 });
      name.textContent = n.short;
      const stats = svg("text", { x: n.w / 2, y: 27, "text-anchor": "middle", "font-size": sizes.counter, fill: "#444" });
      const more = svg("text", { x: n.w / 2, y: 39, "text-anchor": "middle", "font-size": sizes.counter, fill: "#444" });
      if (!sizes.counters) stats.style.display = more.style.display = "none";
      const dot = svg("circle", { cx: 0, cy: 0, r: 5, fill: "#d62728", stroke: "#fff", "stroke-width": 1.5 });
      dot.style.display = "none";
      const dotTitle = svg("title");
      dotTitle.textContent = "breakpoint: the run pauses after each call of this op";
      dot.appendChild(dotTitle);
      g.append(title, rect, name, stats, more, dot);
      g.addEventListener("click", () => {
        const { filter } = view.store.get();
        const same = filter.op === n.op && filter.where === n.where;
        view.actions.setFilter(same ? {} : { op: n.op, where: n.where });
      });
      root.appendChild(g);
      boxes.set(k, { g, rect, name, stats, more, dot, title, width: n.w });
      squeeze(name, n.w);
    }
    drawing = root;
    counters();
    mark();
    breakpoint();
  }
  function breakpoint() {
    const live = view.store.get().live, op = live ? live.break_op ?? null : null;
    for (const [k, { g, dot }] of boxes) {
      const n = view.meta.nodes[k], on = op != null && n.op === op && n.where === "driver";
      dot.style.display = on ? "" : "none";
      if (on) g.dataset.break = "1";
      else delete g.dataset.break;
    }
  }
  function placement(width, height) {
    if (!fit) {
      pane.classList.remove("rlviz-graph-wide", "rlviz-graph-fitted");
      return { scale: 1, name: NAME_PX, counter: COUNTER_PX, counters: true };
    }
    pane.classList.add("rlviz-graph-fitted");
    pane.classList.remove("rlviz-graph-wide");
    let sizes = fitGraph(width, height, room(), tall());
    if (sizes.wide) {
      pane.classList.add("rlviz-graph-wide");
      sizes = fitGraph(width, height, room(), tall());
    }
    return sizes;
  }
  function room() {
    const share = pane.classList.contains("rlviz-graph-wide") ? 1 : 5 / 12;
    return (pane.clientWidth || (view.store.get().width || 960) * share) - 2 * PAD;
  }
  function tall() {
    const header2 = pane.firstElementChild ? pane.firstElementChild.offsetHeight + 4 : 24;
    return (globalThis.innerHeight || 800) * FIT_HEIGHT - header2 - 2 * PAD;
  }
  function groupBox({ where, color, x, y, w, h }) {
    const g = svg("g", { class: "rlviz-group" });
    g.dataset.rlviz = "graph-group";
    g.dataset.where = where;
    const box = svg("rect", { x, y, width: w, height: h, rx: 6, fill: color, "fill-opacity": 0.08, stroke: color, "stroke-width": 1 });
    const name = svg("text", { x: x + 5, y: y + 11, "font-size": 10, "font-weight": 600, fill: color });
    name.textContent = where;
    const title = svg("title");
    title.textContent = where;
    g.append(title, box, name);
    return g;
  }
  function edge(from, to, count, back) {
    const shape = edgeShape(from, to, count, back);
    const path = svg("path", { d: shape.d, fill: "none", stroke: "#888", "stroke-width": shape.width, "marker-end": "url(#rlviz-head)" });
    if (shape.dashed) path.setAttribute("stroke-dasharray", "4 3");
    const title = svg("title");
    title.textContent = shape.title;
    path.appendChild(title);
    return path;
  }
  function textWidth(text) {
    const canvas = measurer || (measurer = document.createElement("canvas").getContext?.("2d"));
    if (!canvas) return text.getComputedTextLength ? text.getComputedTextLength() : 0;
    family ?? (family = getComputedStyle(pane).fontFamily || "sans-serif");
    canvas.font = `${text.getAttribute("font-weight") || 400} ${text.getAttribute("font-size")}px ${family}`;
    return canvas.measureText(text.textContent).width;
  }
  function squeeze(text, width) {
    const wide = textWidth(text) > width - 2 * TEXT_PAD;
    if (wide) {
      text.setAttribute("textLength", width - 2 * TEXT_PAD);
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    } else if (text.hasAttribute("textLength")) {
      text.removeAttribute("textLength");
      text.removeAttribute("lengthAdjust");
    }
  }
  function counters() {
    view.meta.nodes.forEach((n, k) => {
      const box = boxes.get(k);
      if (!box) return;
      const [stats, more] = nodeCounterLines(n);
      if (box.stats.textContent !== stats) {
        box.stats.textContent = stats;
        squeeze(box.stats, box.width);
      }
      if (box.more.textContent !== more) {
        box.more.textContent = more;
        squeeze(box.more, box.width);
      }
      const hover = [`${n.label}`, `@ ${n.where}`, stats, more].filter(Boolean).join("\n");
      if (box.title.textContent !== hover) box.title.textContent = hover;
    });
  }
  function mark(reveal = false) {
    if (!drawing) return;
    const { model, meta } = view, { selected, filter } = view.store.get();
    const marks = graphMarks(model, selected, filter, [...boxes.keys()]);
    for (const [k, box] of boxes) {
      const { role, dim } = marks.get(k), color = role && ROLE_COLOR[role];
      const laneColor = (meta.lanes.find((l) => l.name === model.nodes[k].where) || {}).color || "#5b6770";
      const look = {
        width: color ? 3.2 : 1.6,
        fill: color === "#000" ? "#fff6d5" : "#fff",
        stroke: color || laneColor,
        opacity: dim ? 0.35 : 1,
        selected: color === "#000"
      };
      if (!sameLook(box.look, look)) paintBox(box, look);
      if (look.selected && reveal) revealInPane(pane, box.g, pane.firstElementChild);
    }
  }
  function paintBox(box, look) {
    box.rect.setAttribute("stroke-width", look.width);
    box.rect.setAttribute("fill", look.fill);
    box.rect.setAttribute("stroke", look.stroke);
    box.g.setAttribute("opacity", look.opacity);
    if (look.selected) box.g.dataset.selected = "1";
    else delete box.g.dataset.selected;
    box.look = look;
  }
  return {
    update(changed, info = {}) {
      if (changed.has("rows") || changed.has("width") && fit) build();
      else if (changed.has("data")) counters();
      if (changed.has("selected") || changed.has("filter") || changed.has("data")) mark(Boolean(info.reveal) && changed.has("selected"));
      if (changed.has("live") || changed.has("rows")) breakpoint();
    },
    destroy() {
      pane.remove();
    }
  };
}

// rlviz/viz/static/explorer_time.js
var SECOND = 1e3;
var MINUTE = 60 * SECOND;
var HOUR = 60 * MINUTE;
var DAY = 24 * HOUR;
var TICK_STEPS_MS = [
  1e-3,
  2e-3,
  5e-3,
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  20,
  50,
  100,
  200,
  500,
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY
];
function timeStep(spanMs, target) {
  const raw = spanMs / Math.max(1, target);
  const step2 = TICK_STEPS_MS.find((s) => s >= raw * (1 - 1e-9));
  if (step2 !== void 0) return step2;
  const days = raw / DAY, power = 10 ** Math.floor(Math.log10(days));
  for (const m of [1, 2, 5, 10]) if (m * power >= days * (1 - 1e-9)) return m * power * DAY;
  return 10 * power * DAY;
}
function secondDecimals(stepMs) {
  if (stepMs >= SECOND) return 0;
  return Math.min(3, Math.max(0, Math.ceil(-Math.log10(stepMs / SECOND) - 1e-9)));
}
function clockText(ms, decimals = 0, hours = false) {
  const sign = ms < 0 ? "-" : "";
  const scale = 10 ** decimals;
  let units = Math.round(Math.abs(ms) / SECOND * scale);
  const fraction = units % scale;
  units = (units - fraction) / scale;
  const s = units % 60, m = Math.floor(units / 60) % 60, h = Math.floor(units / 3600);
  const secs = String(s).padStart(2, "0") + (decimals ? `.${String(fraction).padStart(decimals, "0")}` : "");
  return h > 0 || hours ? `${sign}${h}:${String(m).padStart(2, "0")}:${secs}` : `${sign}${m}:${secs}`;
}
function grouped2(value) {
  return value.toLocaleString("en-US");
}
function rulerTicks(a, b, width, spacing = 90) {
  const step2 = timeStep(b - a, width / spacing), ticks = [];
  const hours = Math.max(Math.abs(a), Math.abs(b)) >= HOUR;
  const first = Math.ceil(a / step2 - 1e-3), last = Math.floor(b / step2 + 1e-3);
  if (step2 >= 1) {
    const decimals = secondDecimals(step2);
    for (let k = first; k <= last; k++) ticks.push({ ms: k * step2, label: clockText(k * step2, decimals, hours) });
    const format = (hours ? "h:mm:ss" : "m:ss") + (decimals ? `.${"s".repeat(decimals)}` : "");
    return { step: step2, caption: `time since start (${format})`, ticks };
  }
  const anchor = Math.floor(a);
  for (let k = first; k <= last; k++) {
    const us = Math.round((k * step2 - anchor) * 1e3) || 0;
    ticks.push({ ms: k * step2, label: `+${grouped2(us)} µs` });
  }
  return { step: step2, caption: `from ${clockText(anchor, 3, hours)}`, ticks };
}
function startText(ms) {
  return clockText(ms, 6, true);
}
function durationText(ms) {
  const a = Math.abs(ms);
  const three = (v) => v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  if (a === 0) return "0 µs";
  if (a < 1e-3) return `${three(ms * 1e6)} ns`;
  if (a < 1) return `${three(ms * 1e3)} µs`;
  if (a < SECOND) return `${three(ms)} ms`;
  if (a < MINUTE) return `${three(ms / SECOND)} s`;
  if (a < HOUR) {
    const m2 = Math.floor(a / MINUTE);
    return `${ms < 0 ? "-" : ""}${m2} min ${((a - m2 * MINUTE) / SECOND).toFixed(1)} s`;
  }
  const h = Math.floor(a / HOUR), m = Math.floor((a - h * HOUR) / MINUTE);
  return `${ms < 0 ? "-" : ""}${h} h ${String(m).padStart(2, "0")} min`;
}

// rlviz/viz/static/panes/inspector.js
function inspectorFields(view, i, whyRows) {
  const { model } = view, d = view.describe(i);
  const rank = completionOrder(model) && model.rank[i];
  const details = Object.entries(d.node.details || {}).map(([key, value]) => [key, Array.isArray(value) ? value.join(" : ") : String(value)]);
  const fields = [
    ["op", d.node.op],
    ["label", d.node.label],
    ...details,
    ["lane", d.node.where],
    ["outcome", d.outcome],
    ["item", d.item ?? "(none)"],
    ["start", startText(d.startMs)],
    ["duration", durationText(d.durationMs)],
    ["event", `#${d.index} · completed ${(rank + 1).toLocaleString("en-US")} of ${model.n.toLocaleString("en-US")}`]
  ];
  const why = eventWhy(model, view.meta.decisions, whyRows, i);
  if (why) fields.push(["why", why]);
  return fields;
}
function linkLists(model, i, button) {
  const droppedNote = {
    producers: (p) => isDroppedInput(model, i, p) && "dropped by this call",
    consumers: (c) => isDroppedInput(model, c, i) && "dropped there"
  };
  return [
    ["its inputs came from", model.inOffsets, model.inputs, "producers"],
    ["its output went to", model.outOffsets, model.outputs, "consumers"]
  ].map(([title, offsets, values, part]) => {
    const box = make("div", null, part);
    const count = offsets[i + 1] - offsets[i];
    box.appendChild(make("h4", null, null, `${title} (${count})`));
    for (let k = offsets[i]; k < Math.min(offsets[i + 1], offsets[i] + MAX_LINKS_LISTED); k++) {
      box.appendChild(button(values[k], droppedNote[part](values[k])));
    }
    if (count > MAX_LINKS_LISTED) box.appendChild(make("span", null, null, `… and ${count - MAX_LINKS_LISTED} more`));
    return box;
  });
}
function createInspector(host, view) {
  const pane = make("div", "rlviz-pane rlviz-inspector", "inspector");
  host.appendChild(pane);
  let drawnEmpty = true;
  let whyRows = null, whyFor = null;
  let drawnBreak = null;
  draw();
  function eventButton(i, dropped) {
    const d = view.describe(i);
    const button = make(
      "button",
      dropped ? "rlviz-dropped" : null,
      "link",
      `#${d.index} ${d.node.op} @ ${d.node.where}${d.item != null ? ` · ${d.item}` : ""} · ${startText(d.startMs)}` + (dropped ? ` · ${dropped}` : "")
    );
    button.dataset.event = String(d.index);
    button.addEventListener("click", () => view.actions.select(i));
    return button;
  }
  function draw() {
    const { model } = view, i = view.store.get().selected;
    drawnEmpty = model.n === 0;
    pane.replaceChildren(make("h4", null, null, "Inspector"));
    if (i < 0) {
      const away = view.selectedId() >= 0;
      pane.appendChild(make("p", null, away ? "away" : null, away ? `Call #${view.selectedId()} is selected, away from the calls loaded for this window: zoom out to bring it back.` : model.n ? "Click a span, or press → (or Play) to step through the calls in the order they completed." : view.meta.events ? "This long trace is drawn from its overview here: zoom in (a few minutes or less) to inspect its calls." : "Nothing to inspect: the trace is empty."));
      return;
    }
    if (whyFor !== view.meta.decisions) {
      whyFor = view.meta.decisions;
      whyRows = decisionIndex(whyFor);
    }
    const list2 = make("dl");
    for (const [key, value] of inspectorFields(view, i, whyRows)) list2.append(make("dt", null, null, key), make("dd", null, key, value));
    pane.appendChild(list2);
    breakButton(view.describe(i).node);
    pane.append(...linkLists(model, i, eventButton));
  }
  function breakButton(node) {
    const live = view.store.get().live;
    drawnBreak = live ? live.break_op ?? null : null;
    if (!live || !live.running || live.gated === false || node.where !== "driver") return;
    const set = drawnBreak === node.op;
    const button = make("button", set ? "rlviz-break-set" : null, "break");
    setIconLabel(button, "dot", set ? "remove breakpoint" : "Break here");
    button.title = set ? `stop pausing after each call of ${node.op}` : `pause the run after each call of ${node.op}`;
    button.addEventListener("click", () => view.command("break", { op: set ? null : node.op }));
    pane.appendChild(button);
  }
  return {
    update(changed) {
      const live = view.store.get().live;
      if (changed.has("live") && live && (live.break_op ?? null) !== drawnBreak) draw();
      else if (changed.has("selected")) draw();
      else if (changed.has("data") && (view.store.get().selected >= 0 || drawnEmpty)) draw();
    },
    destroy() {
      pane.remove();
    }
  };
}

// rlviz/viz/static/panes/livebar.js
var CURVE_W = 260;
var CURVE_H = 64;
var OUTCOME_WORDS = { not_ready: "not ready", error: "failed", stop: "ended" };
var NAMED_OP = /^[A-Z]/;
function callText([op, outcome, count]) {
  const times = count > 1 || outcome === "item" ? ` ×${count.toLocaleString("en-US")}` : "";
  return outcome === "item" ? `${op}${times}` : `${op} ${OUTCOME_WORDS[outcome] || outcome}${times}`;
}
function roundCalls(ran) {
  const named = ran.some(([op]) => NAMED_OP.test(op)) ? ran.filter(([op]) => NAMED_OP.test(op)) : ran;
  return named.filter((entry, k) => entry[1] !== "not_ready" || k === 0 || named[k - 1][1] !== "not_ready");
}
function roundText(advanced, full = false) {
  if (!advanced || !advanced.ran) return "";
  const calls = (full ? advanced.ran : roundCalls(advanced.ran)).map(callText);
  const head = advanced.round != null ? `round ${advanced.round.toLocaleString("en-US")}` : "advanced";
  return `${head}: ${calls.length ? calls.join(", ") : "no driver call"}`;
}
function roundWindow(since, end, full) {
  const span = Math.max(end - since, 1), margin = span * 0.15;
  return [Math.max(full[0], since - margin), Math.min(Math.max(full[1], end), end + margin)];
}
function advanceStretch(model, since, end) {
  const ran = [];
  let first = end;
  for (let i = 0; i < model.n; i++) {
    const ended = model.start[i] + model.duration[i];
    if (ended <= since || ended > end) continue;
    ran.push(i);
    first = Math.min(first, model.start[i] >= since ? model.start[i] : ended);
  }
  return { ran, first };
}
function liveBarTexts(live) {
  const at = live.paused_at, c = live.counters || {};
  const counters = [`iteration ${live.iterations}`];
  if (c.sampled != null) counters.push(`sampled ${c.sampled.toLocaleString("en-US")}`);
  if (c.trained != null) counters.push(`trained ${c.trained.toLocaleString("en-US")}`);
  if (c.sampled) counters.push(`trained/sampled ${(c.trained / c.sampled).toFixed(2)}` + (live.target_ratio != null ? ` (target ${live.target_ratio})` : ""));
  return {
    count: live.events.toLocaleString("en-US"),
    rate: `${Math.round(live.events_per_s).toLocaleString("en-US")} events/s`,
    state: live.error ? "stopped by an error" : live.running ? live.paused ? "paused" : "running" : "stopped",
    pause: live.paused ? "resume" : "pause",
    pauseIcon: live.paused ? "play" : "pause",
    round: roundText(live.advanced),
    where: live.break_error ? `⚠ ${live.break_error}` : at ? `paused after ${at.op} (${at.outcome}${at.item ? `: ${at.item}` : ""})` : live.break_on ? `break on ${live.break_on}` : "",
    counters: counters.join(" · ")
  };
}
function createLiveBar(host, before, view) {
  const { store } = view;
  const bar = make("div", "rlviz-live", "live");
  const state = make("span", null, "live-state", "starting");
  const count = make("span", "rlviz-count", "live-count", "0");
  const rate = make("span", null, "live-rate", "");
  const pause = iconButton("pause", "pause", "pause");
  const advance = iconButton("advance", "advance", "advance");
  advance.title = "run one round of the outermost union (or one call of the last op), then pause again (key N)";
  pause.title = "pause at the next op boundary, or go on (key Space)";
  const round = make("span", "rlviz-round", "round", "");
  const where = make("span", null, "paused-at", "");
  const stop = iconButton("stop", "stop", "stop");
  const follow = make("label", null, "follow");
  const followBox = make("input", null, "follow-box");
  followBox.type = "checkbox";
  followBox.checked = true;
  follow.title = "keep the newest events in view (a zoom, pan or selection turns it off)";
  follow.append(followBox, document.createTextNode(" follow"));
  const counters = make("span", null, "live-counters", "");
  const curve = make("canvas", null, "return-curve");
  curve.title = "episode_reward_mean against sampled steps";
  bar.append(state, count, make("span", null, null, "events"), rate, pause, advance, stop, round, where, follow, counters, curve);
  host.insertBefore(bar, before);
  const listeners = [
    [pause, "click", () => view.command(store.get().live?.paused ? "resume" : "pause")],
    [advance, "click", () => view.command("advance")],
    [view.root, "keydown", onKey],
    [stop, "click", () => view.command("stop")],
    [followBox, "change", () => store.set({ follow: followBox.checked, followSpan: null }, { from: "user" })]
  ];
  for (const [target, name, handler] of listeners) target.addEventListener(name, handler);
  drawCurve([]);
  let drawnCurve = "";
  let pausedAt = null, focus = null;
  function onKey(e) {
    if (e.target && e.target.tagName === "INPUT") return;
    const live = store.get().live;
    if (!live || !live.running) return;
    if (e.key === " ") {
      e.preventDefault();
      view.command(live.paused ? "resume" : "pause");
    } else if (e.key === "n" || e.key === "N") {
      e.preventDefault();
      if (live.paused_at) view.command("advance");
    }
  }
  function noticePause(live) {
    const at = live.paused_at;
    if (!at || pausedAt && at.end_ns === pausedAt.end_ns && at.op === pausedAt.op) return;
    focus = { at, since: pausedAt ? pausedAt.end_unit : null, advanced: Boolean(live.advanced) };
    pausedAt = at;
  }
  function focusPause() {
    if (!focus) return;
    const { model } = view;
    const end = focus.at.end_unit;
    const ofOp = (i) => {
      const n = model.nodes[model.node[i]];
      return n.op === focus.at.op && n.where === focus.at.where;
    };
    let found = -1;
    for (let i = model.n - 1; i >= 0 && found < 0; i--) {
      if (Math.abs(model.start[i] + model.duration[i] - end) <= 1 && ofOp(i)) found = i;
    }
    if (found < 0) return;
    const since = focus.since, advanced = focus.advanced;
    focus = null;
    if (since != null) {
      const stretch = advanceStretch(model, since, end);
      view.actions.setMatches(stretch.ran);
      if (advanced) showRound(stretch.first, end);
    }
    view.actions.select(found, { from: "pause" });
  }
  function showRound(since, end) {
    view.store.set({ follow: false, advanced: [since, end], window: roundWindow(since, end, view.full) }, { from: "pause" });
  }
  function show(live) {
    const texts = liveBarTexts(live);
    setText(count, texts.count);
    count.dataset.count = String(live.events);
    setText(rate, texts.rate);
    setText(state, texts.state);
    bar.dataset.running = String(Boolean(live.running));
    setIconLabel(pause, texts.pauseIcon, texts.pause);
    pause.disabled = stop.disabled = !live.running;
    advance.disabled = !live.running || !live.paused_at;
    advance.style.display = live.gated === false ? "none" : "";
    setText(round, texts.round);
    round.title = texts.round ? `${roundText(live.advanced, true)} (every driver call of the advance)` : "";
    round.style.display = texts.round ? "" : "none";
    setText(where, texts.where);
    where.dataset.outcome = live.paused_at ? live.paused_at.outcome : "";
    if (live.running) noticePause(live);
    if (!live.paused && view.store.get().advanced) view.store.set({ advanced: null }, { from: "pause" });
    setText(counters, texts.counters);
    curve.style.display = live.curve ? "" : "none";
    const points = live.curve || [];
    const key = `${points.length}:${points.length ? points[points.length - 1].join(",") : ""}`;
    if (live.curve && key !== drawnCurve) {
      drawCurve(points);
      drawnCurve = key;
    }
    curve.dataset.points = String(points.length);
  }
  function drawCurve(points) {
    const ctx = sized(curve, CURVE_W, CURVE_H);
    ctx.strokeStyle = "#ccc";
    ctx.strokeRect(0.5, 0.5, CURVE_W - 1, CURVE_H - 1);
    ctx.fillStyle = "#555";
    ctx.font = "9px system-ui, sans-serif";
    if (points.length === 0) {
      ctx.fillText("return curve: no episode finished yet", 6, CURVE_H / 2);
      return;
    }
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1), y0 = Math.min(...ys, 0), y1 = Math.max(...ys, y0 + 1);
    const px = (x) => 4 + (x - x0) / (x1 - x0) * (CURVE_W - 8), py = (y) => CURVE_H - 4 - (y - y0) / (y1 - y0) * (CURVE_H - 14);
    ctx.strokeStyle = "#1f77b4";
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    points.forEach(([x, y], k) => k ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y)));
    ctx.stroke();
    ctx.fillText(`return ${ys[ys.length - 1].toFixed(1)} at ${xs[xs.length - 1].toLocaleString("en-US")} steps`, 6, 10);
  }
  function setText(element, text) {
    if (element.textContent !== text) element.textContent = text;
  }
  return {
    update(changed) {
      if (changed.has("live") && store.get().live) show(store.get().live);
      if (changed.has("live") || changed.has("data")) focusPause();
      if (changed.has("follow")) followBox.checked = store.get().follow;
    },
    destroy() {
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      bar.remove();
    }
  };
}

// rlviz/viz/static/panes/order.js
var WINDOW_SETTLE_MS = 120;
var RUNNING_DRAW_MS = 1e3;
var MAX_ROUNDS = 24;
var ROUND_GUTTER = 34;
var ROW_CELL = 11;
var ITEM_ROWS = 8;
function createOrder(host, view) {
  const pane = make("div", "rlviz-pane rlviz-order", "order");
  host.appendChild(pane);
  let timer = null, picked = null, drawnAt = -Infinity;
  const cache = { strip: null, order: null, events: null };
  draw();
  function draw() {
    drawnAt = performance.now();
    const { meta, model } = view;
    pane.replaceChildren(make("h4", null, null, "Completion order"));
    announce(pane, []);
    const strips = stripsOf(meta);
    if (!strips.length) {
      pane.appendChild(make("p", null, null, "No Concurrently or union here: the order pane shows the items of the streams a node merges, and no node of this trace merges several streams."));
      return;
    }
    const k = picked != null && picked < strips.length ? picked : defaultMerge(model, strips, view.store.get().selected, meta.order_default ?? strips.length - 1);
    pane.appendChild(picker(strips, k, (j) => {
      picked = j;
      draw();
    }));
    const strip = strips[k];
    const union2 = (meta.decisions?.specs || []).findIndex((spec) => spec.node === strip.node);
    const colors = groupColors(meta, strip);
    const items = strip.groups.map((g) => meta.nodes[g.node]?.items ?? g.items);
    pane.append(
      make("p", null, "order-title", `${strip.merge} pulls from ${strip.groups.map((g) => g.name).join(" : ")}`),
      make("p", null, "order-ratio", ratioText(strip, items)),
      notesList(meta.notes || [])
    );
    if (union2 >= 0) drawRounds(pane, view, roundsPlan(view, strip, union2, colors));
    else drawItems(pane, view, strip, colors, items, cache);
  }
  function drawIn(ms) {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      draw();
    }, ms);
  }
  function drawAtMostEvery(ms) {
    const due = drawnAt + ms - performance.now();
    if (due <= 0) drawNow();
    else if (!timer) timer = setTimeout(() => {
      timer = null;
      draw();
    }, due + ms / 2);
  }
  function drawNow() {
    clearTimeout(timer);
    timer = null;
    draw();
  }
  return {
    update(changed, info = {}) {
      const running = Boolean(view.store.get().live?.running);
      const appended = changed.has("data") || changed.has("order");
      if (["selected", "orderWidth", "rows"].some((key) => changed.has(key))) drawNow();
      else if (appended && running) drawAtMostEvery(RUNNING_DRAW_MS);
      else if (appended) drawNow();
      else if (changed.has("window") && info.gesture) drawIn(WINDOW_SETTLE_MS);
      else if (changed.has("window")) drawNow();
    },
    destroy() {
      clearTimeout(timer);
      pane.remove();
    }
  };
}
function ratioText(strip, items) {
  const weights = strip.groups.every((g) => g.weight != null) ? `weights ${strip.groups.map((g) => g.weight).join(" : ")} · ` : "";
  const first = items[0];
  return `${weights}measured ${items.map((v) => v.toLocaleString("en-US")).join(" : ")}` + (first ? ` = ${items.map((v) => (v / first).toFixed(2)).join(" : ")}` : "");
}
function roundsPlan(view, strip, union2, colors) {
  const { meta, model } = view, state = view.store.get();
  const spec = meta.decisions.specs[union2], rows = meta.decisions.rows;
  const groupOf = spec.children.map((name, c) => {
    const k = strip.groups.findIndex((g) => g.name === name || g.name.startsWith(`${name} @ `));
    return k >= 0 ? k : c < strip.groups.length ? c : -1;
  });
  const [t0, t1] = state.window;
  const inWindow = (row) => {
    const i = rows.event[row] >= 0 ? rows.event[row] : rows.union_event[row];
    if (i < 0 || i >= model.n) return true;
    const end = model.start[i] + model.duration[i];
    return end >= t0 && end <= t1;
  };
  const { rounds, items, notReady } = roundRows(meta.decisions, union2, inWindow);
  const shown = state.follow ? rounds.slice(-MAX_ROUNDS) : rounds.slice(0, MAX_ROUNDS);
  const longest = Math.max(1, ...shown.map((r) => r.cells.length));
  const width = Math.max(120, (state.orderWidth || 320) - 12) - ROUND_GUTTER;
  const cell = Math.max(2, Math.min(ROW_CELL, Math.floor(width / longest)));
  return {
    spec,
    rounds,
    shown,
    items,
    notReady,
    cell,
    longest,
    follow: state.follow,
    colorOf: (c) => groupOf[c] >= 0 ? colors[groupOf[c]] : GROUP_COLORS[c % GROUP_COLORS.length]
  };
}
function paintRounds(ctx, { shown, cell, colorOf }, selected) {
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  let hatched = 0;
  const gap = cell > 4 ? 1 : 0;
  shown.forEach((round, y) => {
    ctx.fillStyle = "#666";
    ctx.fillText(String(round.round), 2, y * ROW_CELL + ROW_CELL / 2);
    round.cells.forEach((c, x) => {
      const left = ROUND_GUTTER + x * cell, top = y * ROW_CELL;
      if (c.notReady) {
        hatch(ctx, left + gap, top + 1, Math.max(2, cell - 2 * gap), ROW_CELL - 2, colorOf(c.child));
        hatched++;
      } else {
        ctx.fillStyle = colorOf(c.child);
        ctx.fillRect(left + gap, top + 1, cell - 2 * gap, ROW_CELL - 2);
      }
      if (c.event >= 0 && c.event === selected) {
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 2;
        ctx.strokeRect(left, top, cell, ROW_CELL);
      }
    });
  });
  return hatched;
}
function drawRounds(pane, view, plan) {
  const { spec, rounds, shown, items, notReady, colorOf, cell, longest, follow } = plan;
  legend(pane, [
    ...spec.children.map((name, c) => [
      colorOf(c),
      `${name} (${counted(items[c], "item")}, ${notReady[c].toLocaleString("en-US")} not ready)`,
      false
    ]),
    [NOT_READY_COLOR, "not ready (turn ends)", true]
  ]);
  const canvas = make("canvas", null, "order-rounds");
  const note = make("p", "rlviz-status", "order-note");
  pane.append(canvas, note);
  const ctx = sized(canvas, ROUND_GUTTER + longest * cell, Math.max(1, shown.length) * ROW_CELL);
  const hatched = paintRounds(ctx, plan, view.store.get().selected);
  canvas.dataset.rlvizRounds = String(shown.length);
  canvas.dataset.rlvizNotReady = String(hatched);
  announce(pane, shown);
  note.textContent = rounds.length > shown.length ? `${follow ? "newest" : "first"} ${shown.length} of ${rounds.length.toLocaleString("en-US")} rounds in the visible window (${follow ? "following the run" : "zoom in for the rest"})` : `${rounds.length.toLocaleString("en-US")} round${rounds.length === 1 ? "" : "s"} in the visible window, one per row`;
  canvas.addEventListener("click", (e) => {
    const box = canvas.getBoundingClientRect();
    const round = shown[Math.floor((e.clientY - box.top) / ROW_CELL)];
    const x = Math.floor((e.clientX - box.left - ROUND_GUTTER) / cell);
    const c = round && x >= 0 ? round.cells[x] : null;
    if (c && c.event >= 0) view.actions.select(c.event);
  });
}
function itemsPlan(model, strip, state, cache) {
  const width = Math.max(120, (state.orderWidth || 320) - 12), cell = 11;
  const perRow = Math.floor(width / cell);
  if (cache.strip !== strip || cache.order !== state.order) {
    Object.assign(cache, { strip, order: state.order, ...mergeEvents(model, strip) });
  }
  const [k0, k1] = completedIn(model, cache.events, state.window[0], state.window[1]);
  const shown = Array.from(cache.events.subarray(k0, Math.min(k1, k0 + perRow * ITEM_ROWS)));
  return { shown, group: (k) => cache.group[k0 + k], total: k1 - k0, perRow, cell, fromInputs: cache.fromInputs };
}
function paintItems(ctx, { shown, group, perRow, cell }, colors, selected) {
  shown.forEach((i, k) => {
    const g = group(k), x = k % perRow * cell, y = Math.floor(k / perRow) * cell;
    ctx.fillStyle = g >= 0 ? colors[g] : NOT_READY_COLOR;
    ctx.fillRect(x + 1, y + 1, cell - 2, cell - 2);
    if (i === selected) {
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.strokeRect(x, y, cell, cell);
    }
  });
}
function drawItems(pane, view, strip, colors, items, cache) {
  const state = view.store.get();
  legend(pane, strip.groups.map((g, k) => [colors[k], `${g.name} (${items[k].toLocaleString("en-US")})`, false]));
  const canvas = make("canvas", null, "order-items");
  const note = make("p", "rlviz-status", "order-note");
  pane.append(canvas, note);
  if (!state.order) {
    note.textContent = "ordering the calls…";
    return;
  }
  const plan = itemsPlan(view.model, strip, state, cache);
  const { shown, total, perRow, cell } = plan;
  paintItems(sized(canvas, perRow * cell, Math.max(1, Math.ceil(shown.length / perRow)) * cell), plan, colors, state.selected);
  note.textContent = total > shown.length ? `first ${shown.length.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} items completed in the visible window (zoom in for the rest)` : `${total.toLocaleString("en-US")} items ${plan.fromInputs ? "completed" : `${strip.merge} handed on`} in the visible window, left to right`;
  canvas.addEventListener("click", (e) => {
    const box = canvas.getBoundingClientRect();
    const k = Math.floor((e.clientY - box.top) / cell) * perRow + Math.floor((e.clientX - box.left) / cell);
    if (k >= 0 && k < shown.length) view.actions.select(shown[k]);
  });
}
function announce(pane, shown) {
  pane.dataset.rlvizRounds = String(shown.length);
  pane.dataset.rlvizLastRound = String(shown.reduce((top, round) => Math.max(top, round.round), 0));
}
function picker(strips, k, onPick) {
  const select = make("select", null, "order-node");
  select.setAttribute("aria-label", "merging node whose order is shown");
  const seen = strips.map((s) => s.merge);
  strips.forEach((s, j) => {
    const option = make("option", null, null, seen.filter((m) => m === s.merge).length > 1 || s.where !== "driver" ? `${s.merge} @ ${s.where}` : s.merge);
    option.value = String(j);
    select.appendChild(option);
  });
  select.value = String(k);
  select.addEventListener("change", () => onPick(Number(select.value)));
  return select;
}
function groupColors(meta, strip) {
  const given = strip.groups.map((g) => g.color || meta.nodes[g.node].color);
  return new Set(given).size === given.length ? given : strip.groups.map((_, k) => GROUP_COLORS[k % GROUP_COLORS.length]);
}
function legend(pane, entries) {
  const box = make("div", "rlviz-legend", "order-legend");
  for (const [color, text, hatched] of entries) {
    const entry = make("span", "entry");
    const swatch = make("span", hatched ? "sw hatch" : "sw");
    if (!hatched) swatch.style.background = color;
    entry.append(swatch, make("span", null, null, text));
    box.appendChild(entry);
  }
  pane.appendChild(box);
}
function notesList(notes) {
  const list2 = make("ul", "rlviz-notes", "notes");
  list2.dataset.rlvizCount = String(notes.length);
  for (const note of notes) list2.appendChild(make("li", null, null, note));
  return list2;
}
function stripsOf(meta) {
  return meta.orders || (meta.order ? [meta.order] : []);
}
function hatch(ctx, x, y, w, h, color) {
  ctx.save();
  ctx.fillStyle = "#fff";
  ctx.fillRect(x, y, w, h);
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let d = -h; d < w; d += 3) {
    ctx.moveTo(x + d, y + h);
    ctx.lineTo(x + d + h, y);
  }
  ctx.stroke();
  ctx.strokeStyle = "#555";
  ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
  ctx.restore();
}

// rlviz/viz/static/panes/divergence.js
function markerLeft(frame, t) {
  const x = frame.xOf(t);
  return x >= GUTTER && x <= GUTTER + frame.plotW ? x : null;
}
function createDivergenceMark(view, { timeline }) {
  const divergence = view.divergence;
  if (!divergence) return { element: null, draw() {
  }, destroy() {
  } };
  timeline.style.position = "relative";
  const element = make("div", "rlviz-divergence", "divergence");
  Object.assign(element.dataset, {
    rlvizMs: String(divergence.ms),
    rlvizEvent: String(divergence.event),
    rlvizIndex: String(divergence.index)
  });
  element.appendChild(make("span", null, null, `first divergence: item ${divergence.index}, ${divergence.op}`));
  timeline.appendChild(element);
  return {
    element,
    draw(frame) {
      const left = markerLeft(frame, divergence.ms / frame.model.unitMs);
      element.style.display = left == null ? "none" : "block";
      if (left != null) element.style.left = `${left}px`;
    },
    destroy() {
      element.remove();
    }
  };
}

// rlviz/viz/static/panes/gaps.js
var MIN_W = 3;
function gapTitle(gap, unitMs) {
  const from = gap.from * unitMs, to = gap.to * unitMs;
  return `${counted(gap.dropped, "event")} of ${gap.where} dropped here, between ${startText(from)} and ${startText(to)} (${durationText(to - from)}): its bounded buffer evicted its oldest events past its capacity. Raise rlviz.record(capacity=...) to keep them.`;
}
function gapBoxes(gaps, lanes, laneSpan, [a, b], plotW, height) {
  const scale = plotW / (b - a), boxes = [];
  for (const gap of gaps) {
    if (gap.to < a || gap.from > b) continue;
    const k = lanes.indexOf(gap.where);
    const span = k < 0 ? [0, height] : laneSpan(k);
    if (!span) continue;
    const x0 = Math.max(0, (gap.from - a) * scale), x1 = Math.min(plotW, (gap.to - a) * scale);
    const width = Math.max(MIN_W, x1 - x0), left = Math.min(GUTTER + x0, GUTTER + plotW - width);
    boxes.push({ gap, left, width, top: span[0], height: span[1] - span[0] });
  }
  return boxes;
}
function createGapMarks(view, { scroll: host }) {
  const box = make("div", "rlviz-gaps", "gaps");
  Object.assign(box.style, {
    position: "absolute",
    left: "0",
    top: "0",
    width: "100%",
    height: "0",
    overflow: "visible",
    pointerEvents: "none"
  });
  host.appendChild(box);
  function mark({ gap, left, width, top, height: tall }) {
    const el = make("div", "rlviz-gap", "gap");
    el.dataset.rlvizWhere = gap.where;
    el.dataset.rlvizDropped = String(gap.dropped);
    el.title = gapTitle(gap, view.model.unitMs);
    Object.assign(el.style, {
      position: "absolute",
      left: `${left}px`,
      width: `${width}px`,
      top: `${top}px`,
      height: `${tall}px`,
      pointerEvents: "auto",
      boxSizing: "border-box",
      borderLeft: "1px solid #d62728",
      borderRight: "1px solid #d62728",
      background: "repeating-linear-gradient(135deg, rgba(214,39,40,0.28) 0 3px, rgba(255,255,255,0.55) 3px 7px)"
    });
    return el;
  }
  function draw(placed) {
    const gaps = view.meta.gaps || [], state = view.store.get();
    const lanes = (view.meta.lanes || []).map((lane) => lane.name);
    const plotW = Math.floor(Math.max(50, (state.width || 960) - GUTTER - 8));
    const boxes = gaps.length && view.model.n > 0 ? gapBoxes(gaps, lanes, placed.span, state.window, plotW, placed.height) : [];
    box.replaceChildren(...boxes.map(mark));
  }
  return { draw: (frame, placed) => draw(placed), element: box, destroy() {
    box.remove();
  } };
}

// rlviz/viz/static/panes/gauges.js
var TRACK_H = 30;
var LINE_COLOR = "#2471a3";
var BAR_COLOR = "rgba(36, 113, 163, 0.35)";
var BAR_MIN = 2;
function yScale(lo, hi, height) {
  if (!(hi > lo)) {
    lo -= 1;
    hi += 1;
  }
  return { lo, hi, yOf: (v) => height - 3 - (v - lo) / (hi - lo) * (height - 6) };
}
function trackPoints(track, a, b, width, height, range2 = null) {
  const xs = [], ys = [], n = track.time.length;
  let [least, max] = range2 ?? [Infinity, -Infinity];
  if (!range2) for (const v of track.value) {
    if (v < least) least = v;
    if (v > max) max = v;
  }
  const { lo, hi, yOf } = yScale(least, max, height);
  const scale = width / (b - a);
  const xOf = (t) => Math.min(width, Math.max(0, (t - a) * scale));
  const first = Math.max(0, readingAt(track, a)), last = readingAt(track, b);
  for (let k = first; k <= last && k < n; k++) {
    const x = xOf(track.time[k]), y = yOf(track.value[k]);
    if (xs.length) {
      xs.push(x);
      ys.push(ys[ys.length - 1]);
    }
    xs.push(x);
    ys.push(y);
  }
  if (xs.length) {
    xs.push(width);
    ys.push(ys[ys.length - 1]);
  }
  return { xs, ys, lo, hi, max };
}
function summaryPoints(pixels, range2, width, height) {
  const { yOf } = yScale(range2[0], range2[1], height);
  const xs = [], ys = [], bars = [];
  let y = Number.isNaN(pixels.before) ? null : yOf(pixels.before);
  if (y !== null) {
    xs.push(0);
    ys.push(y);
  }
  for (let x = 0; x < width; x++) {
    if (pixels.count[x] > 0 && yOf(pixels.low[x]) - yOf(pixels.high[x]) > BAR_MIN) bars.push([x, yOf(pixels.high[x]), yOf(pixels.low[x])]);
    if (Number.isNaN(pixels.last[x])) continue;
    if (y !== null) {
      xs.push(x + 1);
      ys.push(y);
    }
    y = yOf(pixels.last[x]);
    xs.push(x + 1);
    ys.push(y);
  }
  if (y !== null) {
    xs.push(width);
    ys.push(y);
  }
  return { xs, ys, bars };
}
function summaryText(track, bucket, unitMs) {
  const head = `${track.name} @ ${track.where}`;
  if (!bucket) return `${head}: no reading yet`;
  const count = bucket.count === 1 ? "1 reading" : `${bucket.count.toLocaleString("en-US")} readings`;
  return `${head}: last ${formatValue(bucket.last)}, min ${formatValue(bucket.low)}, max ${formatValue(bucket.high)} (a summary of ${count}, ${startText(bucket.from * unitMs)} to ${startText(bucket.to * unitMs)})`;
}
function hoverText(track, t, unitMs) {
  const k = readingAt(track, t);
  const head = `${track.name} @ ${track.where}`;
  if (k < 0) return `${head}: no reading yet`;
  return `${head}: ${formatValue(track.value[k])} (since ${startText(track.time[k] * unitMs)})`;
}
function formatValue(v) {
  return Number.isInteger(v) ? v.toLocaleString("en-US") : Number(v.toPrecision(4)).toString();
}
function laneExtra(tracks, lanes) {
  const extra = lanes.map(() => 0);
  for (const track of tracks) {
    const k = lanes.indexOf(track.where);
    if (k >= 0) extra[k] += TRACK_H;
  }
  return extra;
}
function orderedTracks(tracks, lanes) {
  const rank = (where) => {
    const k = lanes.indexOf(where);
    return k < 0 ? lanes.length : k;
  };
  return [...tracks].sort((p, q) => rank(p.where) - rank(q.where) || p.where.localeCompare(q.where) || p.name.localeCompare(q.name));
}
function createGaugeTracks(view, { scroll: host }) {
  const box = make("div", "rlviz-gauges", "gauges");
  Object.assign(box.style, {
    position: "absolute",
    left: "0",
    top: "0",
    width: "100%",
    height: "0",
    overflow: "visible",
    pointerEvents: "none"
  });
  host.appendChild(box);
  const drawn = /* @__PURE__ */ new Map();
  let scrolled = 0, pending = 0, placed = null;
  const onScroll = () => {
    scrolled = host.scrollTop;
    if (!pending) pending = requestAnimationFrame(() => {
      pending = 0;
      if (placed) draw(placed);
    });
  };
  host.addEventListener("scroll", onScroll, { passive: true });
  const inSight = (y) => y + TRACK_H > scrolled && y < scrolled + (window.innerHeight || Infinity);
  function element(track) {
    const key = `${track.name}\0${track.where}`;
    let entry = drawn.get(key);
    if (entry) return entry;
    const el = make("div", "rlviz-gauge", "gauge");
    el.dataset.rlvizName = track.name;
    el.dataset.rlvizWhere = track.where;
    Object.assign(el.style, { position: "absolute", left: "0", right: "0", pointerEvents: "auto" });
    const canvas = make("canvas");
    const value = make("span", "rlviz-gauge-value", "gauge-value");
    Object.assign(value.style, {
      position: "absolute",
      top: "0",
      right: "4px",
      font: "10px system-ui, sans-serif",
      color: "#333",
      background: "rgba(255,255,255,0.85)",
      pointerEvents: "none"
    });
    el.append(canvas, value);
    canvas.addEventListener("pointermove", (e) => hover(entry, e));
    canvas.addEventListener("pointerleave", () => {
      value.textContent = "";
    });
    entry = { el, canvas, value, track };
    drawn.set(key, entry);
    return entry;
  }
  function timeAt(clientX, canvas) {
    const [a, b] = view.store.get().window, width = plotWidth();
    const x = clientX - canvas.getBoundingClientRect().left - GUTTER;
    return a + Math.max(0, x) / width * (b - a);
  }
  function hover(entry, e) {
    const t = timeAt(e.clientX, entry.canvas), unitMs = view.model.unitMs;
    const [a, b] = view.store.get().window;
    const text = entry.summaries ? summaryText(entry.track, view.lod.gaugeAt(entry.index, t, a, b, plotWidth()), unitMs) : hoverText(entry.track, t, unitMs);
    entry.value.textContent = text;
    entry.el.title = text;
  }
  const plotWidth = () => Math.max(50, view.store.get().width - GUTTER - 8);
  function draw(where) {
    placed = where;
    const held = view.model.gauges, lanes = (view.meta.lanes || []).map((lane) => lane.name);
    const colors = new Map((view.meta.lanes || []).map((lane) => [lane.name, lane.color]));
    const tracks = held ? orderedTracks(held.tracks, lanes) : [];
    box.style.display = tracks.length ? "" : "none";
    const wanted = tracks.map((track) => element(track).el);
    if (wanted.length !== box.children.length || wanted.some((el, k) => box.children[k] !== el)) box.replaceChildren(...wanted);
    const [a, b] = view.store.get().window, width = view.store.get().width || 960;
    const summaries = !view.lod.exact(-1, a, b);
    const below = /* @__PURE__ */ new Map();
    for (const track of tracks) {
      const entry = element(track), lane = lanes.indexOf(track.where), k = below.get(lane) ?? 0;
      const top = where.end(lane);
      below.set(lane, k + 1);
      entry.track = track;
      entry.index = held.tracks.indexOf(track);
      entry.summaries = summaries;
      entry.el.dataset.rlvizLevel = summaries ? "levels" : "exact";
      entry.el.style.display = top === void 0 ? "none" : "";
      entry.el.style.top = `${(top ?? 0) + k * TRACK_H}px`;
      if (top === void 0 || !inSight(top + k * TRACK_H)) continue;
      const range2 = view.lod.gaugeRange(entry.index);
      const pixels = summaries ? view.lod.gaugePixels(entry.index, a, b, plotWidth()) : null;
      drawTrack(
        sized(entry.canvas, width, TRACK_H),
        track,
        a,
        b,
        plotWidth(),
        colors.get(track.where),
        { range: range2, pixels: summaries ? pixels ?? "none" : null }
      );
    }
  }
  const laneNames = () => (view.meta.lanes || []).map((lane) => lane.name);
  return {
    laneRoom: () => laneExtra(view.model.gauges?.tracks ?? [], laneNames()),
    draw: (frame, lanes) => draw(lanes),
    element: box,
    destroy() {
      host.removeEventListener("scroll", onScroll);
      if (pending) cancelAnimationFrame(pending);
      box.remove();
    }
  };
}
function drawTrack(ctx, track, a, b, plotW, laneColor = "#5b6770", { range: range2 = null, pixels = null } = {}) {
  ctx.fillStyle = "#f4f7fb";
  ctx.fillRect(0, 1, GUTTER + plotW, TRACK_H - 2);
  ctx.fillStyle = laneColor;
  ctx.fillRect(0, 1, 4, TRACK_H - 2);
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.fillStyle = "#333";
  ctx.fillText(fitText(ctx, `${track.where} · ${track.name}`, GUTTER - 12), 8, TRACK_H / 2);
  const drawable = !pixels || pixels !== "none" && range2;
  const points = !drawable ? null : pixels ? summaryPoints(pixels, range2, plotW, TRACK_H) : trackPoints(track, a, b, plotW, TRACK_H, range2);
  const max = range2 ? range2[1] : points?.max;
  ctx.fillStyle = "#888";
  ctx.font = "9px system-ui, sans-serif";
  ctx.textBaseline = "top";
  if (Number.isFinite(max)) ctx.fillText(formatValue(max), GUTTER + 2, 1);
  if (!points) return;
  const { xs, ys, bars = [] } = points;
  if (bars.length) {
    ctx.strokeStyle = BAR_COLOR;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const [x, top, bottom] of bars) {
      ctx.moveTo(GUTTER + x + 0.5, top - 0.5);
      ctx.lineTo(GUTTER + x + 0.5, bottom + 0.5);
    }
    ctx.stroke();
  }
  if (!xs.length) return;
  ctx.strokeStyle = LINE_COLOR;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(GUTTER + xs[0], ys[0]);
  for (let k = 1; k < xs.length; k++) ctx.lineTo(GUTTER + xs[k], ys[k]);
  ctx.stroke();
}

// rlviz/viz/static/panes/spans.js
var DIMMED = 0.12;
var POLL_BAND = 0.55;
function createSpanTrack(view, { newCanvas = () => document.createElement("canvas") } = {}) {
  let layout = null, raster = null, roomKey = "", room = [];
  const laidOut = (frame = null) => {
    if (frame) room = frame.laneRoom ?? [];
    const state = view.store.get(), key = room.join(",");
    if (key !== roomKey) {
      layout = null;
      roomKey = key;
    }
    layout ?? (layout = rowLayout(view.model, state.filter, state.hideOthers, { rowHeight: ROW_H, laneGap: LANE_GAP, laneExtra: room }));
    return layout;
  };
  return {
    /** Forget the row layout when the rows or the rows shown change. */
    update(changed, state) {
      if (changed.has("rows") || changed.has("hideOthers") || changed.has("filter") && state.hideOthers) layout = null;
    },
    height: (frame) => frame.model.n > 0 || frame.lod ? laidOut(frame).y[frame.model.rows.length] : 0,
    draw(ctx, frame) {
      raster ?? (raster = { canvas: newCanvas() });
      this.drawn = drawSpanTrack(ctx, frame, laidOut(frame), raster);
    },
    /** What the last draw drew: lanes from the model (`exact`) and from a long trace's levels (`levels`). */
    drawn: { exact: 0, levels: 0 },
    hit: (frame, x, y) => spanAt(frame, laidOut(frame), x, y),
    /** The full "lane · row" name under (x, y) in the gutter, which may cut it ("" elsewhere). */
    label: (frame, x, y) => gutterLabelAt(frame, laidOut(frame), x, y),
    /** Where a lane is drawn from a long trace's levels, what they count at (x, y) ("" elsewhere). */
    summary: (frame, x, y) => levelSummaryAt(frame, laidOut(frame), x, y),
    /** Whether event `i` is on a row shown. */
    shows: (i) => laidOut().shown[view.model.nodeRow[view.model.node[i]]] === 1,
    /** Where lane `lane`'s free room under its rows starts (px from the track's top; undefined if not shown). */
    laneEnd: (lane) => laidOut().laneEnd.get(lane),
    /** Lane `lane`'s rows as [top, bottom] px from the track's top (undefined if none is shown). */
    laneSpan(lane) {
      const l = laidOut(), r = view.model.rows.findIndex((row, k) => row.lane === lane && l.shown[k]);
      return r < 0 ? void 0 : [l.y[r], l.laneEnd.get(lane)];
    }
  };
}
function drawSpanTrack(ctx, frame, layout, raster) {
  const { model, state, plotW } = frame;
  const height = layout.y[model.rows.length];
  drawRowLabels(ctx, frame, layout);
  const key = [
    state.window[0],
    state.window[1],
    plotW,
    height,
    state.filter.op,
    state.filter.where,
    state.hideOthers,
    state.data,
    frame.lod?.levels ? 1 : 0,
    frame.lod?.loaded ?? ""
  ].join("|");
  if (raster.key !== key) {
    paintRaster(raster, frame, layout, height);
    raster.key = key;
  }
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(raster.canvas, 0, 0, plotW, height, GUTTER, 0, plotW, height);
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER, 0, plotW, height);
  ctx.clip();
  drawOverlays(ctx, frame, layout, height);
  ctx.restore();
  return raster.drawn;
}
function paintRaster(raster, frame, layout, height) {
  const { plotW } = frame;
  if (!raster.image || raster.image.width !== plotW || raster.image.height !== height) {
    raster.canvas.width = plotW;
    raster.canvas.height = height;
    raster.ctx ?? (raster.ctx = raster.canvas.getContext("2d"));
    raster.image = raster.ctx.createImageData(plotW, height);
    raster.pixels = new Uint32Array(raster.image.data.buffer);
  }
  raster.drawn = rasterizeSpans(raster.pixels, frame, layout);
  raster.ctx.putImageData(raster.image, 0, 0);
}
function rasterizeSpans(pixels, { model, state, plotW, lod }, layout) {
  pixels.fill(0);
  const upper = new Uint32Array(plotW), lower = new Uint32Array(plotW);
  const [a, b] = state.window;
  const fromLevels = /* @__PURE__ */ new Map();
  const laneLevels = (lane) => {
    if (!fromLevels.has(lane)) fromLevels.set(lane, lod && !lod.exact(lane, a, b) ? lod.pixels(lane, a, b, plotW) : false);
    return fromLevels.get(lane);
  };
  const drawn = { exact: /* @__PURE__ */ new Set(), levels: /* @__PURE__ */ new Set() };
  let painted = "";
  model.rows.forEach((row, r) => {
    if (!layout.shown[r]) return;
    const dim = nodeMatches(model, row.node, state.filter) ? 1 : DIMMED;
    const levels = laneLevels(row.lane);
    if (levels === false) {
      rowScanlines(model, r, state.window, plotW, { color: rgbOf(model.nodes[row.node].color), dim }, upper, lower);
      painted = "";
    } else if (painted !== `${row.lane}:${dim}`) {
      if (levels) levelScanlines(model, levels, dim, upper, lower);
      else {
        upper.fill(0);
        lower.fill(0);
      }
      painted = `${row.lane}:${dim}`;
    }
    (levels === false ? drawn.exact : drawn.levels).add(row.lane);
    const top = Math.round(layout.y[r]) + 1, split = Math.round(layout.y[r] + ROW_H * POLL_BAND);
    const bottom = Math.round(layout.y[r]) + ROW_H - 1;
    for (let y = top; y < bottom; y++) pixels.set(y < split ? upper : lower, y * plotW);
    if (levels && layout.first[r]) markErrors(pixels, levels.errors, top, plotW, dim);
  });
  return { exact: drawn.exact.size, levels: drawn.levels.size };
}
function levelScanlines(model, { fraction, busiest, notReady }, dim, upper, lower) {
  upper.fill(0);
  lower.fill(0);
  const colors = /* @__PURE__ */ new Map();
  for (let x = 0; x < upper.length; x++) {
    if (fraction[x] > 0 && busiest[x] >= 0) {
      if (!colors.has(busiest[x])) colors.set(busiest[x], rgbOf(model.nodes[busiest[x]].color));
      upper[x] = pack(colors.get(busiest[x]), dim * busyAlpha(fraction[x]));
    }
    lower[x] = notReady[x] > 0 ? pack(GREY, dim * pollAlpha(notReady[x])) : upper[x];
  }
}
function markErrors(pixels, errors, top, plotW, dim) {
  const red = pack(rgbOf(ERROR_COLOR), dim);
  for (let x = 0; x < plotW; x++) {
    if (errors[x] > 0) for (let y = top; y < top + 2; y++) pixels[y * plotW + x] = red;
  }
}
function rowScanlines(model, r, [a, b], plotW, { color, dim }, upper, lower) {
  upper.fill(0);
  lower.fill(0);
  if (drawsExact(model, r, a, b, plotW)) {
    const [k0, k1] = visibleRange(model, r, a, b), scale = plotW / (b - a);
    const item = pack(color, dim), poll = pack(GREY, dim), stop = pack(DARK, dim);
    for (let k = k0; k < k1; k++) {
      const i = model.rowEvents[k], outcome = model.flags[i] & 3;
      const s = (model.start[i] - a) * scale;
      const x0 = Math.max(0, Math.floor(s));
      const x1 = Math.min(plotW, Math.max(x0 + 1, Math.ceil(s + model.duration[i] * scale)));
      if (x1 <= 0 || x0 >= plotW) continue;
      if (outcome === NOT_READY) lower.fill(poll, x0, x1);
      else upper.fill(outcome === STOP ? stop : item, x0, x1);
    }
  } else {
    const { fraction, polls } = aggregateRow(model, r, a, b, plotW);
    for (let x = 0; x < plotW; x++) {
      if (fraction[x] > 0) upper[x] = pack(color, dim * busyAlpha(fraction[x]));
      if (polls[x] > 0) lower[x] = pack(GREY, dim * pollAlpha(polls[x]));
    }
  }
  for (let x = 0; x < plotW; x++) if (lower[x] === 0) lower[x] = upper[x];
}
function drawRowLabels(ctx, { model, meta, width }, layout) {
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  model.rows.forEach((row, r) => {
    if (!layout.shown[r]) return;
    const lane = meta.lanes[row.lane], y = layout.y[r];
    if (layout.first[r]) {
      let end = r;
      while (!layout.last[end]) end++;
      const laneEnd = layout.y[end] + ROW_H;
      ctx.fillStyle = r % 2 ? "#fafafa" : "#f6f8fa";
      ctx.fillRect(0, y - 2, width, laneEnd - y + 4);
      ctx.fillStyle = lane.color;
      ctx.fillRect(0, y - 2, 4, laneEnd - y + 4);
      const room = GUTTER - 22 - ctx.measureText(row.name).width;
      ctx.font = "bold 11px system-ui, sans-serif";
      ctx.fillText(fitText(ctx, lane.label ?? lane.name, room), 8, y + ROW_H / 2);
      ctx.font = "11px system-ui, sans-serif";
    }
    ctx.fillStyle = "#333";
    ctx.textAlign = "right";
    ctx.fillText(row.name, GUTTER - 6, y + ROW_H / 2);
    ctx.textAlign = "left";
  });
}
function drawOverlays(ctx, frame, layout, height) {
  const { model, state } = frame;
  const shown = (i) => layout.shown[model.nodeRow[model.node[i]]] === 1;
  model.rows.forEach((row, r) => {
    if (!layout.shown[r]) return;
    ctx.globalAlpha = nodeMatches(model, row.node, state.filter) ? 1 : DIMMED;
    drawErrors(ctx, frame, layout, r);
  });
  ctx.globalAlpha = 1;
  if (state.matches) drawMatches(ctx, frame, layout, state.matches);
  drawRestarts(ctx, frame, height);
  if (state.selected >= 0 && shown(state.selected)) drawSelection(ctx, frame, layout, state.selected, shown);
  if (state.hover >= 0 && state.hover !== state.selected) outline(ctx, spanBox(frame, layout, state.hover), "#000", 1);
}
function spanBox({ model, xOf }, layout, i) {
  const r = model.nodeRow[model.node[i]], s = model.start[i];
  const x0 = xOf(s), x1 = Math.max(xOf(s + model.duration[i]), x0 + 1);
  const y = layout.y[r];
  if ((model.flags[i] & 3) === NOT_READY) return [x0, y + ROW_H * POLL_BAND, x1 - x0, ROW_H * (1 - POLL_BAND) - 1];
  return [x0, y + 1, x1 - x0, ROW_H - 2];
}
function drawMatches(ctx, { model, state, plotW }, layout, hits) {
  const [a, b] = state.window;
  const { marks } = matchMarks(model, hits, a, b, plotW);
  ctx.strokeStyle = MATCH_COLOR;
  ctx.lineWidth = 2;
  for (const [r, ranges] of marks) {
    if (!layout.shown[r]) continue;
    for (let k = 0; k < ranges.length; k += 2) {
      ctx.strokeRect(GUTTER + ranges[k] - 1, layout.y[r], ranges[k + 1] - ranges[k] + 2, ROW_H);
    }
  }
}
function drawErrors(ctx, frame, layout, r) {
  const [a, b] = frame.state.window;
  ctx.fillStyle = ERROR_COLOR;
  for (const i of errorsInWindow(frame.model, r, a, b)) {
    const [x, y, w, h] = spanBox(frame, layout, i);
    ctx.fillRect(x - 0.5, y - 1, Math.max(w, 2), h + 2);
  }
}
function drawRestarts(ctx, { model, state, plotW, xOf }, height) {
  const [a, b] = state.window;
  const restarts = /* @__PURE__ */ new Set();
  model.rows.forEach((row, r) => {
    if (!model.nodes[row.node].restart || !drawsExact(model, r, a, b, plotW)) return;
    const [k0, k1] = visibleRange(model, r, a, b);
    for (let k = k0; k < k1; k++) restarts.add(model.rowEvents[k]);
  });
  ctx.strokeStyle = RESTART_COLOR;
  ctx.setLineDash([5, 3]);
  ctx.lineWidth = 1.2;
  ctx.beginPath();
  for (const i of restarts) {
    const x = xOf(model.start[i]);
    ctx.moveTo(x, 0);
    ctx.lineTo(x, height);
  }
  ctx.stroke();
  ctx.setLineDash([]);
}
function outline(ctx, [x, y, w, h], color, width) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.strokeRect(x - 1, y - 1, Math.max(w, 1) + 2, h + 2);
}
function arrow(ctx, [fromX, fromY], [toX, toY], color) {
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 1.4;
  ctx.beginPath();
  if (color === DROPPED_LINK_COLOR) ctx.setLineDash([4, 3]);
  ctx.moveTo(fromX, fromY);
  ctx.bezierCurveTo((fromX + toX) / 2, fromY, (fromX + toX) / 2, toY, toX, toY);
  ctx.stroke();
  ctx.setLineDash([]);
  const angle = Math.atan2(0, toX - (fromX + toX) / 2) || 0;
  ctx.beginPath();
  ctx.moveTo(toX, toY);
  ctx.lineTo(toX - 6 * Math.cos(angle - 0.45), toY - 6 * Math.sin(angle - 0.45));
  ctx.lineTo(toX - 6 * Math.cos(angle + 0.45), toY - 6 * Math.sin(angle + 0.45));
  ctx.fill();
}
function drawSelection(ctx, frame, layout, i, shown) {
  const { model, xOf } = frame;
  const box = (k) => spanBox(frame, layout, k);
  const middle = (k) => {
    const [, y2, , h2] = box(k);
    return y2 + h2 / 2;
  };
  const [x, y, w, h] = box(i);
  for (let k = model.inOffsets[i]; k < Math.min(model.inOffsets[i + 1], model.inOffsets[i] + MAX_ARROWS); k++) {
    const p = model.inputs[k];
    if (!shown(p)) continue;
    const color = isDroppedInput(model, i, p) ? DROPPED_LINK_COLOR : PRODUCER_COLOR;
    outline(ctx, box(p), color, 2);
    arrow(ctx, [xOf(model.start[p] + model.duration[p]), middle(p)], [x, y + h / 2], color);
  }
  for (let k = model.outOffsets[i]; k < Math.min(model.outOffsets[i + 1], model.outOffsets[i] + MAX_ARROWS); k++) {
    const c = model.outputs[k];
    if (!shown(c)) continue;
    const color = isDroppedInput(model, c, i) ? DROPPED_LINK_COLOR : CONSUMER_COLOR;
    outline(ctx, box(c), color, 2);
    arrow(ctx, [x + w, y + h / 2], [xOf(model.start[c]), middle(c)], color);
  }
  outline(ctx, [x, y, w, h], "#000", 2);
}
function gutterLabelAt({ model, meta }, layout, x, y) {
  if (x >= GUTTER) return "";
  for (let r = 0; r < model.rows.length; r++) {
    if (layout.shown[r] && y >= layout.y[r] && y < layout.y[r] + ROW_H) {
      const lane = meta.lanes[model.rows[r].lane];
      return `${lane.label ?? lane.name} · ${model.rows[r].name}`;
    }
  }
  return "";
}
function spanAt({ model, state, plotW, tOf, lod }, layout, x, y) {
  if (x < GUTTER) return -1;
  let row = -1;
  for (let r = 0; r < model.rows.length && row < 0; r++) {
    if (layout.shown[r] && y >= layout.y[r] && y < layout.y[r] + ROW_H) row = r;
  }
  const [a, b] = state.window;
  if (row >= 0 && lod && !lod.exact(model.rows[row].lane, a, b)) return -1;
  return hitTest(model, row, tOf(x), 3 / plotW * (b - a));
}
function levelSummaryAt({ model, meta, state, plotW, lod }, layout, x, y) {
  if (!lod || x < GUTTER) return "";
  const r = model.rows.findIndex((row, k) => layout.shown[k] && y >= layout.y[k] && y < layout.y[k] + ROW_H);
  const [a, b] = state.window;
  if (r < 0 || lod.exact(model.rows[r].lane, a, b)) return "";
  const lane = model.rows[r].lane, pixel = lod.pixelAt(lane, a, b, plotW, Math.floor(x - GUTTER));
  return pixel ? levelText(pixel, model.nodes, meta.lanes[lane], model.unitMs) : "";
}
function levelText({ count, errors, notReady, from, to, busiest }, nodes, lane, unitMs) {
  const ops = [...new Set(busiest.map(([node]) => nodes[node].op))];
  const shown = ops.length > 3 ? [...ops.slice(0, 3), `${ops.length - 3} more`] : ops;
  const also = [notReady ? `${counted(notReady, "call")} not ready` : "", errors ? counted(errors, "error") : ""].filter(Boolean);
  return [
    `${shown.join(", ") || "calls"} @ ${lane.label ?? lane.name}`,
    `${counted(count, "call")} here${also.length ? ` (${also.join(", ")})` : ""}`,
    `${startText(from * unitMs)} to ${startText(to * unitMs)}, counted by the overview's levels: zoom in for each call`
  ].join("\n");
}

// rlviz/viz/static/panes/timeline.js
var DRAWN_BY = ["window", "hover", "filter", "width", "data", "matches", "advanced"];
var ROOMS = ["rows", "band", "under-lane", "over-lanes", "over-timeline"];
var TRACKS = [
  { name: "spans", room: "rows", create: createSpanTrack },
  { name: "gauges", room: "under-lane", create: createGaugeTracks },
  { name: "gaps", room: "over-lanes", create: createGapMarks },
  { name: "divergence", room: "over-timeline", create: createDivergenceMark }
];
var ON_CANVAS = /* @__PURE__ */ new Set(["rows", "band"]);
function makeTracks(registry, view, hosts) {
  const rows = registry.filter((entry) => entry.room === "rows").length;
  if (rows !== 1) throw new Error(`a timeline needs exactly one track whose room is "rows" (the lanes); this one has ${rows}`);
  return registry.map((entry) => {
    if (!ROOMS.includes(entry.room)) {
      throw new Error(`track ${entry.name}: room "${entry.room}" is not one of ${ROOMS.join(", ")}`);
    }
    return Object.assign(entry.create(view, hosts), { name: entry.name, room: entry.room });
  });
}
function canvasTracks(tracks) {
  return tracks.filter((track) => ON_CANVAS.has(track.room));
}
function laneRoom(tracks, frame) {
  const room = [];
  for (const track of tracks) {
    if (track.room !== "under-lane") continue;
    track.laneRoom(frame).forEach((px, lane) => {
      room[lane] = (room[lane] ?? 0) + px;
    });
  }
  return room;
}
function lanePlaces(rows, frame) {
  const height = rows.height(frame);
  return { end: (lane) => lane < 0 ? height : rows.laneEnd(lane), span: (lane) => rows.laneSpan(lane), height };
}
function frameOf(model, meta, state, lod = null, room = []) {
  const plotW = Math.floor(Math.max(50, state.width - GUTTER - 8));
  const [a, b] = state.window;
  return {
    model,
    meta,
    state,
    width: state.width,
    plotW,
    lod,
    laneRoom: room,
    xOf: (t) => GUTTER + (t - a) / (b - a) * plotW,
    tOf: (x) => a + (x - GUTTER) / plotW * (b - a)
  };
}
function stackTracks(tracks, frame) {
  const tops = [];
  let height = 0;
  for (const track of tracks) {
    tops.push(height);
    height += track.height(frame);
  }
  return [tops, height];
}
function trackAt(tracks, frame, y) {
  const [tops, height] = stackTracks(tracks, frame);
  const k = tops.findLastIndex((top) => top <= y);
  return k < 0 || y >= height ? null : [tracks[k], y - tops[k]];
}
function trackHit(tracks, frame, x, y) {
  const [track, within2] = trackAt(tracks, frame, y) ?? [];
  return track?.hit ? track.hit(frame, x, within2) : -1;
}
function trackLabel(tracks, frame, x, y) {
  const [track, within2] = trackAt(tracks, frame, y) ?? [];
  return track?.label ? track.label(frame, x, within2) : "";
}
function trackSummary(tracks, frame, x, y) {
  const [track, within2] = trackAt(tracks, frame, y) ?? [];
  return track?.summary ? track.summary(frame, x, within2) : "";
}
function drawTracks(ctx, tracks, frame) {
  const [tops] = stackTracks(tracks, frame);
  tracks.forEach((track, k) => {
    ctx.save();
    ctx.translate(0, tops[k]);
    track.draw(ctx, frame);
    ctx.restore();
  });
}
function drawRuler(ctx, { model, state, width, plotW, xOf }) {
  const [a, b] = state.window;
  const ruler = rulerTicks(a * model.unitMs, b * model.unitMs, plotW);
  ctx.fillStyle = "#444";
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillText(ruler.caption, 4, 6);
  ctx.strokeStyle = "#999";
  ctx.beginPath();
  for (const tick of ruler.ticks) {
    const x = xOf(tick.ms / model.unitMs);
    if (x < GUTTER) continue;
    ctx.moveTo(x + 0.5, RULER_H - 8);
    ctx.lineTo(x + 0.5, RULER_H);
    if (x + 2 + ctx.measureText(tick.label).width <= width) ctx.fillText(tick.label, x + 2, 3);
  }
  ctx.stroke();
}
function createTimeline(host, view, registry = TRACKS) {
  const { store } = view;
  const element = make("div", "rlviz-timeline", "timeline");
  const ruler = make("canvas", null, "ruler");
  const scroll = make("div", "rlviz-scroll");
  const canvas = make("canvas", null, "lanes");
  const tooltip = make("div", "rlviz-tooltip", "tooltip");
  const band = make("div", "rlviz-advance-band", "advance-band");
  band.title = "what the last advance ran";
  band.style.display = "none";
  element.append(ruler, scroll);
  host.append(element);
  view.root.appendChild(tooltip);
  const tracks = makeTracks(registry, view, { scroll, timeline: element, newCanvas: () => document.createElement("canvas") });
  const onCanvas = canvasTracks(tracks), rows = tracks.find((track) => track.room === "rows");
  const elements = tracks.filter((track) => !ON_CANVAS.has(track.room));
  const painter = { frame: 0, first: false };
  const frame = () => {
    const f = frameOf(view.model, view.meta, store.get(), view.lod);
    f.laneRoom = laneRoom(tracks, f);
    return f;
  };
  const over = elements.filter((track) => track.room !== "over-timeline").map((track) => track.element);
  scroll.replaceChildren(canvas, ...over, band);
  const listeners = pointerListeners(view, canvas, tooltip, { frame, eventAt, labelAt, summaryAt });
  for (const [target, name, handler, options] of listeners) target.addEventListener(name, handler, options);
  drawNow();
  function local(clientX, clientY) {
    const box = canvas.getBoundingClientRect();
    return [clientX - box.left, clientY - box.top];
  }
  function eventAt(clientX, clientY) {
    return trackHit(onCanvas, frame(), ...local(clientX, clientY));
  }
  function labelAt(clientX, clientY) {
    return trackLabel(onCanvas, frame(), ...local(clientX, clientY));
  }
  function summaryAt(clientX, clientY) {
    return trackSummary(onCanvas, frame(), ...local(clientX, clientY));
  }
  function drawNow() {
    const started = performance.now();
    if (!store.get().width) store.set({ width: element.clientWidth || 960 }, { from: "layout" });
    const f = frame();
    if (!painter.first && f.lod.holding()) return;
    drawRuler(sized(ruler, f.width, RULER_H), f);
    drawTracks(sized(canvas, f.width, stackTracks(onCanvas, f)[1]), onCanvas, f);
    element.dataset.rlvizLevel = levelName(rows.drawn);
    const lanes = lanePlaces(rows, f);
    for (const track of elements) track.draw(f, lanes);
    placeBand(f);
    measure("rlviz:draw", started);
    if (!painter.first && f.lod.settled()) {
      painter.first = true;
      performance.mark("rlviz:first-frame");
      view.root.dataset.rlvizReady = "1";
    }
  }
  function placeBand(f) {
    const stretch = store.get().advanced, place = stretch && bandPlace(stretch, f);
    band.style.display = place ? "" : "none";
    if (!place) return;
    band.style.left = `${place.left}px`;
    band.style.width = `${place.width}px`;
    band.dataset.from = String(stretch[0]);
    band.dataset.to = String(stretch[1]);
  }
  return {
    element,
    update(changed, info = {}) {
      for (const track of tracks) track.update?.(changed, store.get());
      const hiding = changed.has("hideOthers") || changed.has("filter") && store.get().hideOthers;
      const now = info.from === "append" && DRAWN_BY.some((key) => changed.has(key));
      if (changed.has("selected") || changed.has("rows") || hiding || now) {
        if (painter.frame) cancelAnimationFrame(painter.frame);
        painter.frame = 0;
        drawNow();
      } else if (DRAWN_BY.some((key) => changed.has(key)) && !painter.frame) {
        painter.frame = requestAnimationFrame(() => {
          painter.frame = 0;
          drawNow();
        });
      }
    },
    destroy() {
      if (painter.frame) cancelAnimationFrame(painter.frame);
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      tooltip.remove();
      for (const track of elements) track.destroy();
      element.remove();
    }
  };
}
function bandPlace([from, to], frame) {
  const left = Math.max(GUTTER, frame.xOf(from)), right = Math.min(GUTTER + frame.plotW, frame.xOf(to));
  return right - left >= 0 && right > GUTTER ? { left, width: Math.max(2, right - left) } : null;
}
function levelName({ exact, levels }) {
  return levels === 0 ? "exact" : exact === 0 ? "levels" : "mixed";
}
function pointerListeners(view, canvas, tooltip, { frame, eventAt, labelAt, summaryAt }) {
  const { store } = view;
  let drag = null;
  const zoom = (e) => {
    e.preventDefault();
    const f = frame(), box = canvas.getBoundingClientRect();
    const t = f.tOf(Math.max(GUTTER, e.clientX - box.left));
    const factor = Math.exp((e.deltaY || 0) * 2e-3);
    const [a, b] = f.state.window;
    view.actions.setWindow([t - (t - a) * factor, t + (b - t) * factor], { from: "user", gesture: true });
  };
  const move = (e) => {
    if (drag) {
      const dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (!drag.moved) return;
      const shift = dx / frame().plotW * (drag.window[1] - drag.window[0]);
      view.actions.setWindow([drag.window[0] - shift, drag.window[1] - shift], { from: "user", gesture: true });
      return;
    }
    const started = performance.now();
    const i = eventAt(e.clientX, e.clientY);
    measure("rlviz:hit", started);
    store.set({ hover: i }, { from: "pointer" });
    showTooltip(view, tooltip, i < 0 ? summaryAt(e.clientX, e.clientY) : eventText(view, i), e.clientX, e.clientY);
    canvas.title = i < 0 ? labelAt(e.clientX, e.clientY) : "";
  };
  return [
    [canvas, "wheel", zoom, { passive: false }],
    [canvas, "pointerdown", (e) => {
      drag = { x: e.clientX, window: store.get().window.slice(), moved: false };
      canvas.setPointerCapture?.(e.pointerId);
    }],
    [canvas, "pointermove", move],
    [canvas, "pointerup", (e) => {
      if (drag && !drag.moved) view.actions.select(eventAt(e.clientX, e.clientY), { center: false });
      drag = null;
    }],
    [canvas, "pointerleave", () => {
      tooltip.style.display = "none";
      store.set({ hover: -1 }, { from: "pointer" });
    }]
  ];
}
function eventText(view, i) {
  const d = view.describe(i);
  return [
    `${d.node.op} @ ${d.node.where}`,
    d.node.label.length > 90 ? `${d.node.label.slice(0, 89)}…` : d.node.label,
    `${d.outcome}${d.item != null ? `: ${d.item}` : ""}`,
    `start ${startText(d.startMs)} · ${durationText(d.durationMs)} long · #${d.index ?? i}`
  ].join("\n");
}
function showTooltip(view, tooltip, text, clientX, clientY) {
  if (!text) {
    tooltip.style.display = "none";
    return;
  }
  tooltip.textContent = text;
  const box = view.root.getBoundingClientRect();
  const x = clientX - box.left + 14, flip = x > box.width - 330;
  tooltip.style.display = "block";
  tooltip.style.left = flip ? "" : `${x}px`;
  tooltip.style.right = flip ? `${box.width - x + 28}px` : "";
  tooltip.style.top = `${clientY - box.top + 16}px`;
}

// rlviz/viz/static/panes/toolbar.js
var SEARCH_SETTLE_MS = 200;
function toolbarTexts(model, meta) {
  return {
    title: `${counted(meta.events ?? model.n, "call")} · ${counted(meta.lanes.length, "process")} · ${durationText(meta.span_ms)}`,
    dropped: meta.dropped > 0 ? `${counted(meta.dropped, "event")} ${meta.dropped === 1 ? "was" : "were"} dropped by the bounded buffers (the oldest); raise rlviz.record(capacity=...) to keep them.` : ""
  };
}
function searchCountText(query, hits, current = -1) {
  if (!query.trim()) return "";
  const k = current >= 0 ? hits.indexOf(current) : -1;
  return k >= 0 ? `match ${(k + 1).toLocaleString("en-US")} of ${hits.length.toLocaleString("en-US")}` : counted(hits.length, "match");
}
function filterChipText(filter) {
  const parts = [filter.op, filter.where].filter((v) => v != null);
  return parts.length ? `showing ${parts.join(" @ ")}` : "";
}
function createToolbar(host, view) {
  const { store, actions, root } = view;
  const bar = make("div", "rlviz-bar");
  const title = make("span", "rlviz-title");
  const search = make("input", null, "search");
  search.type = "search";
  search.placeholder = "search op or item, op:Name for op names only (Enter: next)";
  search.setAttribute("aria-label", "search op, label or item text");
  const prev = iconButton("prev", "prev");
  prev.title = "previous call to complete (←)";
  const play = iconButton("play", "play", "Play");
  play.title = "step through calls in completion order";
  const next = iconButton("next", "next");
  next.title = "next call to complete (→)";
  const skip = make("label", "rlviz-skip", "skip-not-ready");
  const skipBox = make("input", null, "skip-not-ready-box");
  skipBox.type = "checkbox";
  skip.title = "step over calls that returned 'not ready'";
  skip.append(skipBox, document.createTextNode(" skip not-ready"));
  const hide = make("label", "rlviz-hide", "hide-others");
  const hideBox = make("input", null, "hide-others-box");
  hideBox.type = "checkbox";
  hide.title = "hide the rows the filter leaves out (instead of dimming them)";
  hide.append(hideBox, document.createTextNode(" hide others"));
  const zoomSel = make("button", null, "zoom-selection", "zoom to selection");
  const reset = make("button", null, "reset", "reset zoom");
  const chip = make("span", "rlviz-chip", "filter");
  chip.style.display = "none";
  const status = make("span", "rlviz-status", "status");
  const count = make("span", "rlviz-status", "matches");
  bar.append(title, search, count, prev, play, next, skip, zoomSel, reset, chip, hide, status);
  const banner = make("div", "rlviz-banner", "error");
  banner.style.display = "none";
  const dropped = make("div", "rlviz-note", "dropped");
  host.append(bar, banner, dropped);
  let playing = null, searched = null, typing = null;
  let stepped = { query: "", event: -1 };
  const listeners = [
    [root, "keydown", (e) => {
      if (e.target === search) return;
      if (e.key === "ArrowRight") {
        e.preventDefault();
        e.stopPropagation();
        actions.step(1);
      } else if (e.key === "ArrowLeft") {
        e.preventDefault();
        e.stopPropagation();
        actions.step(-1);
      } else if (e.key === "Escape") {
        e.stopPropagation();
        actions.select(-1);
      }
    }],
    // a click anywhere but in the search box gives the view the keyboard, so ← / → work next
    [root, "pointerdown", (e) => {
      if (e.target !== search && document.activeElement !== root) root.focus({ preventScroll: true });
    }],
    [skipBox, "change", () => actions.setSkipNotReady(skipBox.checked)],
    [hideBox, "change", () => actions.setHideOthers(hideBox.checked)],
    [search, "input", () => {
      clearTimeout(typing);
      typing = setTimeout(highlight, SEARCH_SETTLE_MS);
    }],
    [prev, "click", () => actions.step(-1)],
    [next, "click", () => actions.step(1)],
    [play, "click", togglePlay],
    [reset, "click", () => actions.setWindow(view.full.slice(), { from: "user" })],
    [zoomSel, "click", () => actions.zoomToSelection()],
    [chip, "click", () => actions.setFilter({})],
    [search, "keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        runSearch(e.shiftKey ? -1 : 1);
      }
    }]
  ];
  for (const [target, name, handler] of listeners) target.addEventListener(name, handler);
  describe2();
  announce2();
  function describe2() {
    const texts = toolbarTexts(view.model, view.meta);
    title.textContent = texts.title;
    dropped.style.display = texts.dropped ? "" : "none";
    dropped.textContent = texts.dropped;
  }
  function announce2() {
    const state = store.get(), toMs = (t) => t * view.model.unitMs;
    root.dataset.rlvizSelected = String(view.selectedId());
    root.dataset.rlvizWindow = `${formatMs(toMs(state.window[0]))},${formatMs(toMs(state.window[1]))}`;
    root.dataset.rlvizSkipNotReady = String(state.skipNotReady);
    root.dataset.rlvizHideOthers = String(state.hideOthers);
    root.dataset.rlvizMatches = String(state.matches ? state.matches.length : 0);
    skipBox.checked = state.skipNotReady;
    hideBox.checked = state.hideOthers;
    const showing = filterChipText(state.filter);
    chip.style.display = showing ? "" : "none";
    if (showing) {
      setIconLabel(chip, "close", showing);
      chip.title = "click to show every op and lane";
    }
  }
  function togglePlay() {
    if (playing) {
      clearInterval(playing);
      playing = null;
      setIconLabel(play, "play", "Play");
      return;
    }
    setIconLabel(play, "pause", "Pause");
    playing = setInterval(() => {
      if (actions.step(1) < 0) togglePlay();
    }, PLAY_MS);
  }
  function hitsOf(query) {
    if (!searched || searched.query !== query) {
      searched = { query, hits: query.trim() ? actions.search(query) : new Uint32Array(0) };
      actions.setMatches(searched.hits);
      count.textContent = searchCountText(query, searched.hits, stepped.query === query ? stepped.event : -1);
    }
    return searched.hits;
  }
  function highlight() {
    clearTimeout(typing);
    hitsOf(search.value);
    if (!search.value.trim()) status.textContent = "";
  }
  function runSearch(direction) {
    const query = search.value;
    const hits = hitsOf(query);
    if (!query.trim()) {
      status.textContent = "";
      return;
    }
    if (hits.length === 0) {
      status.textContent = `no call matches "${query}"`;
      return;
    }
    stepped = { query, event: actions.searchStep(hits, direction) };
    status.textContent = "";
    count.textContent = searchCountText(query, hits, stepped.event);
  }
  return {
    update(changed) {
      if (changed.has("filter") || changed.has("data")) {
        const again = searched !== null;
        searched = null;
        if (again) {
          clearTimeout(typing);
          typing = setTimeout(highlight, 0);
        }
      }
      if (changed.has("data") || changed.has("rows")) describe2();
      if (["selected", "window", "filter", "skipNotReady", "hideOthers", "matches", "data"].some((key) => changed.has(key))) announce2();
      if (changed.has("error")) {
        const message = store.get().error;
        banner.textContent = message || "";
        banner.style.display = message ? "" : "none";
      }
    },
    destroy() {
      if (playing) clearInterval(playing);
      clearTimeout(typing);
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      bar.remove();
      banner.remove();
      dropped.remove();
    }
  };
}

// rlviz/viz/static/explorer_diff.js
var DIVERGENCE_SHARE = 0.04;
var DIFF_CSS = `
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
function matchingNode(nodes, n, others) {
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
function counterpart(model, id, other) {
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
function divergenceView(times, widths, spans, share = DIVERGENCE_SHARE) {
  const width = Math.max(...widths, Math.min(...spans) * share, 1e-3);
  return { windows: times.map((t) => [t - width / 2, t + width / 2]), offsetMs: times[1] - times[0] };
}
function divergenceText(runs) {
  const [a, b] = runs;
  if (!a.divergence) return "The two runs made their items in the same op order (as far as the shorter one went).";
  return `The op order diverges at item ${a.divergence.index}: ${a.name} made ${a.divergence.op}, ${b.name} made ${b.divergence.op}.`;
}
function alignmentText(runs, offsetMs) {
  if (offsetMs === 0) return "Zoom, pan and selection are linked, in ms since each run's start.";
  const sign = offsetMs > 0 ? "+" : "−";
  return `Zoom, pan and selection are linked, ${runs[1].name} shifted by ${sign}${Math.abs(offsetMs).toPrecision(4)} ms to line up the first divergence.`;
}
function linkRuns(runs, bar) {
  const link = { offsetMs: 0 };
  const note = make("span", "rlviz-diff-note", "alignment");
  const toDivergence = make("button", null, "to-divergence", "Go to the first divergence");
  const alignStarts = make("button", null, "align-starts", "Line up the starts");
  toDivergence.disabled = !runs[0].divergence;
  bar.append(make("span", "rlviz-diff-note", "divergence-text", divergenceText(runs)), toDivergence, alignStarts, note);
  const showAlignment = () => {
    note.textContent = alignmentText(runs, link.offsetMs);
  };
  showAlignment();
  const unsubscribe = runs.map((run, k) => run.api.store.subscribe((changed, state, info) => {
    if (info.from === "host" || info.from === "append") return;
    passOn(run.api, runs[1 - k].api, changed, state, k === 0 ? link.offsetMs : -link.offsetMs);
  }));
  link.goToDivergence = () => {
    if (!runs[0].divergence) return;
    const view = divergenceView(
      runs.map((run) => run.divergence.ms),
      runs.map((run) => callWidthMs(run)),
      runs.map((run) => run.spanMs)
    );
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
  link.destroy = () => {
    for (const stop of unsubscribe) stop();
  };
  return link;
}
function passOn(from, to, changed, state, offsetMs) {
  if (changed.has("window")) to.setWindow(state.window.map((t) => t * from.model.unitMs + offsetMs));
  if (changed.has("filter")) to.setFilter(state.filter);
  if (changed.has("selected")) to.setSelected(counterpart(from.model, from.selectedId(), to.model));
}
function callWidthMs({ api, divergence }) {
  const m = api.model, i = partIndex(m, divergence.event);
  return i >= 0 ? 3 * m.duration[i] * m.unitMs : 0;
}

// rlviz/viz/static/explorer.js
function stopsFollowing(changed, info) {
  return changed.has("window") && (info.gesture || info.from === "user") || changed.has("selected") && info.from === "select";
}
function mountExplorer(el, meta, host) {
  el.replaceChildren();
  const growing = Boolean(meta.growing);
  const model = modelOf(meta, [], []);
  const root = make("div", "rlviz-explorer", "explorer");
  root.tabIndex = 0;
  root.appendChild(make("style", null, null, CSS));
  el.appendChild(root);
  const end = meta.span_ms / (meta.unit_ns / 1e6);
  const view = {
    meta: model.meta,
    model,
    root,
    full: [0, Math.max(end, 1)],
    describe: (i) => describe(view.model, i, baseOf(view.model)),
    command: (name, extra) => host.onCommand?.(name, extra),
    lod: host.lod,
    divergence: host.divergence ?? null,
    selection: -1
  };
  view.selectedId = () => view.selection;
  view.store = createStore({
    window: view.full.slice(),
    selected: -1,
    hover: -1,
    filter: { op: null, where: null },
    skipNotReady: false,
    hideOthers: false,
    matches: null,
    width: 0,
    orderWidth: 0,
    order: null,
    error: "",
    data: 0,
    rows: 0,
    follow: growing,
    followSpan: null,
    live: null,
    advanced: null
  });
  view.actions = createActions(view, host);
  const { panes, timeline, lower } = mountPanes(root, view, growing);
  const unsubscribe = view.store.subscribe((changed, state, info) => {
    view.actions.forget(changed);
    if (state.follow && stopsFollowing(changed, info)) view.store.set({ follow: false }, { from: "follow" });
    for (const pane of panes) pane.update(changed, info);
    if (info.from === "user") view.actions.notify(changed, state);
  });
  const resize = watchWidths(view.store, timeline.element, lower);
  const ordering = setTimeout(() => {
    completionOrder(view.model);
    view.store.set({ order: orderEvents(view.model) });
  }, 0);
  const api = hostApi(view, () => {
    unsubscribe();
    clearTimeout(ordering);
    view.actions.destroy();
    resize?.disconnect();
    for (const pane of panes) pane.destroy();
    el.replaceChildren();
  });
  root.rlvizExplorer = api;
  return api;
}
function mountDiff(el, runs) {
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
    const api2 = mountLong(host, run.meta, run.overview, run.source, { divergence: run.divergence });
    return { name: run.name, divergence: run.divergence, spanMs: run.meta.span_ms, api: api2 };
  });
  const link = linkRuns(mounted, bar);
  const api = {
    runs: mounted.map((run) => run.api),
    link,
    root,
    levelsReady: Promise.all(mounted.map((run) => run.api.levelsReady)),
    destroy() {
      link.destroy();
      for (const run of mounted) run.api.destroy();
      el.replaceChildren();
    }
  };
  root.rlvizDiff = api;
  return api;
}
function mountPanes(root, view, live) {
  const toolbar = createToolbar(root, view);
  const timeline = createTimeline(root, view);
  const lower = make("div", "rlviz-lower");
  root.appendChild(lower);
  const panes = [toolbar, timeline, createGraph(lower, view), createOrder(lower, view), createInspector(lower, view)];
  if (live) panes.push(createLiveBar(root, timeline.element, view));
  return { panes, timeline, lower };
}
function watchWidths(store, timeline, lower) {
  if (typeof ResizeObserver === "undefined") return null;
  const resize = new ResizeObserver(() => {
    const width = timeline.clientWidth;
    if (width && width !== store.get().width) store.set({ width, orderWidth: lower.children[1].clientWidth }, { from: "layout" });
  });
  resize.observe(timeline);
  return resize;
}
function describe(m, i, base) {
  return {
    node: m.nodes[m.node[i]],
    outcome: OUTCOMES[m.flags[i] & 3],
    item: itemText(m, i),
    index: base + i,
    startMs: m.start[i] * m.unitMs,
    durationMs: m.duration[i] * m.unitMs
  };
}
function hostApi(view, destroy) {
  const { store, actions } = view, quiet = { from: "host" }, unitMs = view.model.unitMs;
  return {
    get state() {
      return store.get();
    },
    /** The selected event's trace index, -1 for none (a long trace's page: whether or not its part is loaded). */
    selectedId: () => view.selectedId(),
    /** The model the panes draw (a live view replaces it when the structure changes or the window trims it). */
    get model() {
      return view.model;
    },
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
    setWindow([a, b]) {
      actions.setWindow([a / unitMs, b / unitMs], quiet);
    },
    /** Filter to op / lane (null for any) without telling the host. */
    setFilter(filter) {
      actions.setFilter(filter, quiet);
    },
    /** Step over not-ready calls (or not) without telling the host. */
    setSkipNotReady(on) {
      actions.setSkipNotReady(on, quiet);
    },
    /** Show an error message in the view (empty to hide it). */
    showError(message) {
      store.set({ error: message || "" }, quiet);
    },
    /** Live views: show the run's status (count, rate, counters, return curve, running or not). */
    setLive(status) {
      store.set({ live: status }, { from: "append" });
    },
    /** Draw again what is there (a view moved into another output). */
    drawNow() {
      store.set({ data: store.get().data + 1 }, { from: "append" });
    },
    /**
     * A growing run's end moved to `end` (time units): the whole run's range grows, and while the view
     * follows the run its window shows the newest FOLLOW_MS (or what it set by an advance's zoom).
     */
    setEnd(end) {
      view.full[1] = Math.max(end, 1);
      const state = store.get();
      const span = state.followSpan ?? FOLLOW_MS * 1e6 / view.meta.unit_ns;
      const window2 = followWindow(state.window, view.full[1], state.follow, span);
      store.set(window2 === state.window ? { data: state.data + 1 } : { data: state.data + 1, window: window2 }, { from: "append" });
    },
    /**
     * Draw `model` from now on (a long trace's part for the window shown); the selection stays on its
     * event (a trace index), shown when the new part holds it. Without a model, draw again what is there
     * (new levels came).
     */
    showModel(model = null) {
      const state = store.get();
      if (!model) {
        store.set({ data: state.data + 1 }, { from: "append" });
        return;
      }
      view.model = model;
      view.meta = model.meta;
      store.set({
        data: state.data + 1,
        rows: state.rows + 1,
        hover: -1,
        order: null,
        selected: partIndex(model, view.selection)
      }, { from: "append" });
      setTimeout(() => {
        if (view.model === model) store.set({ order: orderEvents(model) }, { from: "append" });
      }, 0);
    },
    /**
     * Say the kernel is gone ([data-rlviz=kernel], over the toolbar), empty to take it back; what the
     * view shows stays, and a live run's bar says it stopped.
     */
    setKernelNote(text) {
      let note = view.root.querySelector(':scope > [data-rlviz="kernel"]');
      if (!text) {
        note?.remove();
        return;
      }
      if (!note) {
        note = make("div", "rlviz-banner", "kernel");
        view.root.insertBefore(note, view.root.children[1] ?? null);
      }
      note.textContent = text;
      const live = store.get().live;
      if (live?.running) store.set({ live: { ...live, running: false, paused: false } }, quiet);
    },
    destroy
  };
}
function base64Bytes(text) {
  const binary2 = atob(text);
  const bytes = new Uint8Array(binary2.length);
  for (let k = 0; k < binary2.length; k++) bytes[k] = binary2.charCodeAt(k);
  return bytes;
}
var BASE85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;.=>?@^_`{|}~";
var BASE85_DIGIT = new Uint8Array(128).fill(255);
for (let k = 0; k < 85; k++) BASE85_DIGIT[BASE85.charCodeAt(k)] = k;
function base85Bytes(text) {
  const length = text.length, full = Math.floor(length / 5), tail = length % 5;
  const bytes = new Uint8Array((full + (tail ? 1 : 0)) * 4);
  const digit = (k) => {
    const code = k < length ? text.charCodeAt(k) : 126;
    const value = code < 128 ? BASE85_DIGIT[code] : 255;
    if (value === 255) throw new Error(`the embedded data has ${JSON.stringify(text[k])} at ${k}: not base85`);
    return value;
  };
  for (let g = 0; g < full + (tail ? 1 : 0); g++) {
    const k = 5 * g, v = (((digit(k) * 85 + digit(k + 1)) * 85 + digit(k + 2)) * 85 + digit(k + 3)) * 85 + digit(k + 4);
    const at = 4 * g;
    bytes[at] = v >>> 24;
    bytes[at + 1] = v >>> 16 & 255;
    bytes[at + 2] = v >>> 8 & 255;
    bytes[at + 3] = v & 255;
  }
  return tail ? bytes.subarray(0, bytes.length - (5 - tail)) : bytes;
}
function mountSaved(host, doc = document) {
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
function savedRun(doc, suffix) {
  const meta = savedJson(doc.getElementById(`rlviz-meta${suffix}`)?.textContent);
  if (!Array.isArray(meta.detail)) throw new DamagedPage(`the trace's description (#rlviz-meta${suffix}) lists no detail chunks`);
  const overview = packedOverview(meta, doc, suffix);
  return { meta, overview, source: savedChunks(meta, doc, suffix, wholeRunChunks(meta, doc, suffix)) };
}
function packedOverview(meta, doc, suffix) {
  const last = meta.detail.length - 1;
  if (last >= 0) {
    const id = `rlviz-detail${suffix}-${last}`, element = doc.getElementById(id);
    if (!element) throw new DamagedPage(`its last detail chunk (#${id}) is missing: the file was cut short`);
    const length = element.textContent.trim().length, expected = base85Length(meta.detail[last].packed.bytes);
    if (length !== expected) {
      throw new DamagedPage(`its last detail chunk (#${id}) holds ${length.toLocaleString("en-US")} characters where ${expected.toLocaleString("en-US")} were written: the file was ${length < expected ? "cut short" : "changed after it was written"}`);
    }
  }
  return packedBytes(doc, `rlviz-overview${suffix}`, meta.overview.packed, "its overview");
}
function mountSavedDiff(host, doc = document) {
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
function showDamaged(host, error) {
  if (!(error instanceof DamagedPage)) throw error;
  const box = make("div", null, "damaged", damagedText(error.message));
  Object.assign(box.style, { background: "#fdecea", borderLeft: "4px solid #d62728", padding: "6px 10px", margin: "4px 0" });
  host.replaceChildren(box);
  return null;
}
function base85Length(bytes) {
  return 5 * Math.floor(bytes / 4) + (bytes % 4 ? bytes % 4 + 1 : 0);
}
function packedBytes(doc, id, size, what) {
  const element = doc.getElementById(id);
  if (!element) throw new DamagedPage(`${what} (#${id}) is missing: the file was cut short`);
  let bytes;
  try {
    bytes = base85Bytes(element.textContent.trim());
  } catch (error) {
    throw new DamagedPage(`${what}: ${error.message}`);
  }
  checkPacked(bytes, size, Number(element.dataset.adler32), what);
  return bytes;
}
function detailBytes(meta, doc, suffix, k) {
  return packedBytes(doc, `rlviz-detail${suffix}-${k}`, meta.detail[k].packed.bytes, `its detail chunk ${k}`);
}
function wholeRunChunks(meta, doc, suffix) {
  const checked = /* @__PURE__ */ new Map(), all = chunksFor(meta.detail, -Infinity, Infinity, mostChunks(meta.detail));
  for (let k = all ? all[0] : 0; all && k <= all[1]; k++) checked.set(k, detailBytes(meta, doc, suffix, k));
  return checked;
}
function savedChunks(meta, doc, suffix, checked) {
  return {
    async chunk(k) {
      const bytes = checked.get(k) ?? detailBytes(meta, doc, suffix, k);
      checked.delete(k);
      return { chunk: meta.detail[k], buffers: unpackChunk(meta.detail[k], await inflate(bytes)) };
    }
  };
}
function mountLong(el, meta, overview, source, host = {}, delayMs = 0) {
  let explorer = null, waiting = 0;
  const lod = createLod(meta, source, {
    onModel: (model) => explorer.showModel(model),
    onError: (error) => explorer.showError(error instanceof DamagedPage ? damagedText(error.message) : `The Explorer failed: ${error && error.message ? error.message : error}`)
  });
  explorer = mountExplorer(el, meta, { ...host, lod });
  explorer.lod = lod;
  explorer.store.subscribe((changed, state) => {
    if (!changed.has("window")) return;
    if (!delayMs) {
      lod.request(state.window);
      return;
    }
    clearTimeout(waiting);
    waiting = setTimeout(() => lod.request(explorer.state.window), delayMs);
  });
  lod.request(explorer.state.window);
  const overviewMeta = meta.overview;
  const levels = inflate(overview).then((bytes) => {
    if (!lod.levels) lod.setLevels(levelsFromOverview(overviewMeta, bytes));
    if (!lod.holding()) explorer.showModel();
  }).catch((error) => {
    lod.failed = true;
    explorer.showError(`The Explorer failed: its overview does not inflate: ${error.message}`);
  });
  explorer.levelsReady = lod.whole ? Promise.all([levels, lod.pending]) : levels;
  if (meta.growing) explorer.extend = extendWith(explorer, meta, lod, host);
  measure("rlviz:mount", performance.now(), { events: meta.events ?? meta.count });
  return explorer;
}
function extendWith(explorer, meta, lod, host) {
  let levels = 0;
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
      const overview = extent.overview, mine = ++levels;
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
var PICTURE_DELAY_MS = 1e3;
function showSavedPicture(el, model) {
  const picture = model.get("_picture");
  if (!picture || !picture.byteLength) return () => {
  };
  const bytes = new Uint8Array(picture.buffer, picture.byteOffset, picture.byteLength);
  const url = URL.createObjectURL(new Blob([bytes], { type: "image/png" }));
  const box = make("div", "rlviz-picture", "picture");
  const note = make(
    "div",
    "rlviz-picture-note",
    null,
    "A picture of this view, saved with the notebook: run the cell in a kernel to explore it."
  );
  Object.assign(note.style, { color: "#555", fontStyle: "italic", fontSize: "12px", margin: "4px 0" });
  const image = make("img");
  image.style.maxWidth = "100%";
  image.src = url;
  image.alt = "the view's timeline";
  box.append(note, image);
  el.replaceChildren(box);
  return () => URL.revokeObjectURL(url);
}
function followedTraits(model, current) {
  const setFilter = () => current()?.setFilter({ op: model.get("op"), where: model.get("where") });
  return [
    ["change:selected", () => {
      const view = current();
      if (view && view.selectedId() !== model.get("selected")) view.setSelected(model.get("selected"));
    }],
    ["change:window", () => {
      const w = model.get("window");
      if (current() && w && w.length === 2 && w[1] > w[0]) current().setWindow(w);
    }],
    ["change:op", setFilter],
    ["change:where", setFilter],
    ["change:skip_not_ready", () => current()?.setSkipNotReady(model.get("skip_not_ready"))]
  ];
}
function startFromTraits(view, model, meta) {
  const w = model.get("window");
  if (w && w.length === 2 && w[1] > w[0]) {
    view.setWindow(w);
  } else if (meta.count > 0) {
    model.set("window", [0, meta.span_ms]);
    model.save_changes();
  }
  view.setFilter({ op: model.get("op"), where: model.get("where") });
  view.setSkipNotReady(model.get("skip_not_ready"));
  if (model.get("selected") >= 0) view.setSelected(model.get("selected"));
}
function kernelHost(currentModel, token, meta, asking) {
  return {
    onCommand(name, extra) {
      currentModel().send({ ...extra, type: "command", command: name, view: token });
    },
    onChange(state) {
      if (meta.growing) return;
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
    }
  };
}
var KERNEL_DELAY_MS = 60;
function bytesOf(buffer2) {
  return buffer2 instanceof ArrayBuffer ? new Uint8Array(buffer2) : new Uint8Array(buffer2.buffer, buffer2.byteOffset, buffer2.byteLength);
}
function askKernel(currentModel, token) {
  const waiting = /* @__PURE__ */ new Map();
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
    }
  };
}
function reportDrawn(view, send) {
  const drawn = view.levelsReady ?? Promise.resolve();
  drawn.then(() => requestAnimationFrame(() => {
    try {
      send();
    } catch {
    }
  }));
}
function mountShown(box, meta, buffers, kernelChunks, host) {
  return mountLong(box, meta, bytesOf(buffers[0]), kernelChunks, host, KERNEL_DELAY_MS);
}
var SHOWN = /* @__PURE__ */ new Map();
function render({ model, el }) {
  const key = model.get("_view_key");
  const orphan = key ? SHOWN.get(key) : void 0;
  const shown = orphan && !orphan.box.isConnected ? orphan : createShown(model, key);
  shown.attach(model, el);
  return () => shown.release(model);
}
function createShown(model, key) {
  let view = null, freePicture = () => {
  }, current = model, handlers = [], renders = 0;
  const box = make("div", "rlviz-shown", "shown");
  const token = Math.random().toString(36).slice(2);
  const asking = { now: false };
  const showFailure = (error) => {
    const banner = make("div", "rlviz-banner", "error", `The Explorer failed: ${error && error.message ? error.message : error}`);
    if (view) view.showError(banner.textContent);
    else box.replaceChildren(banner);
  };
  const kernelChunks = askKernel(() => current, token);
  const messages = {
    payload(message, buffers) {
      if (message.view !== token) return;
      view?.destroy();
      asking.now = false;
      const host = kernelHost(() => current, token, message.meta, asking);
      view = mountShown(box, message.meta, buffers, kernelChunks, host);
      if (!message.meta.growing) startFromTraits(view, current, message.meta);
      reportDrawn(view, () => current.send({ type: "drawn", view: token }));
    },
    detail(message, buffers) {
      if (message.view === token) kernelChunks.answer(message, buffers);
    },
    extent(message, buffers) {
      if (message.view === token && view) view.extend(message.extent, buffers);
    },
    status(message) {
      view?.setLive(message.status);
      if (view && message.status.error) view.showError(message.status.error);
    },
    error(message) {
      if (view) view.showError(message.message);
      else showFailure(message.message);
    }
  };
  const kernel = createKernelWatch({
    ping: () => current.send({ type: "ping", view: token }),
    lost: () => {
      const text = kernelLostText(view ? view.model.n : 0, Boolean(view?.state.live));
      if (view) view.setKernelNote(text);
      else box.append(make("div", "rlviz-banner", "kernel", text));
    },
    found: () => view?.setKernelNote("")
  });
  const onMessage = (message, buffers) => {
    kernel.heard();
    try {
      messages[message.type]?.(message, buffers);
    } catch (error) {
      showFailure(error);
    }
  };
  const onConnection = () => kernel.disconnected();
  const waiting = setTimeout(() => {
    if (!view) freePicture = showSavedPicture(box, current);
  }, PICTURE_DELAY_MS);
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
      box.dataset.rlvizRenders = String(++renders);
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
    }
  };
  return shown;
}
var explorer_default = { render };
export {
  PICTURE_DELAY_MS,
  base64Bytes,
  base85Bytes,
  base85Length,
  explorer_default as default,
  mountDiff,
  mountLong,
  mountSaved,
  mountSavedDiff,
  stopsFollowing
};
