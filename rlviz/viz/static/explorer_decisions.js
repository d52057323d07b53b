// The unions' scheduling decisions a page holds: they arrive with the chunks of the stream (one
// row per pull, naming the event it explains by id) and are read as one table, in the order the
// pulls were made, with each union call tied to the pull it passed on. The same rules as
// rlviz.trace.decisions.Decisions (a parity test runs both): an item goes on by identity (the
// union's call lists the child's item as its input), a not-ready only from a union that does not
// block (its not-ready call encloses the child's), and each union call names one pull, its last.
import { withRoom } from "./explorer_core.js";

const FIELDS = ["event", "union", "round", "child", "pull", "allowed", "flags"];
const ITEM = 0, NOT_READY = 1;

/** Empty held decisions. */
export function createDecisions() {
  const held = { n: 0, version: 0, table: null, sorted: new Int32Array(0), sortedN: 0 };
  for (const name of FIELDS) held[name] = new Float64Array(64);
  return held;
}

/** Append a chunk's decoded decision columns (decision_event, decision_union, ...). */
export function appendDecisions(held, decoded) {
  const events = decoded.decision_event;
  if (!events || events.length === 0) return;
  for (const name of FIELDS) {
    held[name] = withRoom(held[name], held.n + events.length);
    held[name].set(decoded[`decision_${name}`], held.n);
  }
  held.n += events.length;
  held.version++;
}

/** Forget the decisions about events whose ids are below `base` (they left the page). */
export function trimDecisions(held, base) {
  let kept = 0;
  for (let k = 0; k < held.n; k++) {
    if (held.event[k] < base) continue;
    for (const name of FIELDS) held[name][kept] = held[name][k];
    kept++;
  }
  if (kept !== held.n) { held.n = kept; held.version++; held.sortedN = 0; }   // indices moved: sort afresh
}

/**
 * The table the inspector's "why" and the order pane's rounds read: {specs, rows}, rows as columns
 * (event, union_event, union, round, child, pull, allowed, outcome, flags, next, and after: the child
 * whose not-ready ended the turn before this row's, else -1) in the order the
 * pulls were made, events as model indices (id - base). Rebuilt only when decisions or events changed.
 */
export function decisionTable(held, model, base, nodes) {
  const key = `${held.version}:${model.n}:${base}`;
  if (held.table && held.table.key === key) return held.table.value;
  const value = buildTable(held, model, base, nodes);
  held.table = { key, value };
  return value;
}

/**
 * The held decisions (their indices) in the order their calls started, ties by id: the ones sorted
 * before keep their order, the new ones are sorted among themselves and merged in, so a refresh
 * costs in proportion to what is held plus a sort of what is new. (A decision's event always comes
 * in the same chunk or an earlier one; should one be missing, it is left out until it arrives.)
 */
function timeOrder(held, model, base) {
  const at = (k) => held.event[k] - base;
  const before = (a, b) => model.start[at(a)] - model.start[at(b)] || at(a) - at(b);
  const fresh = [];
  for (let k = held.sortedN; k < held.n; k++) fresh.push(k);
  if (fresh.some((k) => at(k) >= model.n)) {
    const arrived = [];
    for (let k = 0; k < held.n; k++) if (at(k) < model.n) arrived.push(k);
    held.sortedN = 0;                           // sorted afresh next time too
    return Int32Array.from(arrived.sort(before));
  }
  fresh.sort(before);
  const old = held.sorted.subarray(0, held.sortedN), merged = new Int32Array(held.sortedN + fresh.length);
  let a = 0, b = 0, k = 0;
  while (a < old.length || b < fresh.length) {
    merged[k++] = b >= fresh.length || (a < old.length && before(old[a], fresh[b]) <= 0) ? old[a++] : fresh[b++];
  }
  held.sorted = merged;
  held.sortedN = merged.length;
  return merged;
}

function buildTable(held, model, base, nodes) {
  const order = Array.from(timeOrder(held, model, base));
  const at = (k) => held.event[k] - base;
  const unionNodes = [...new Set(order.map((k) => held.union[k]))].sort((a, b) => a - b);
  const specs = unionNodes.map((node) => ({ op: nodes[node]?.op ?? "union", node,
    ...(nodes[node]?.union ?? { children: [], weights: [], output_indexes: null }) }));
  const specOf = new Map(unionNodes.map((node, s) => [node, s]));
  const m = order.length, rows = { event: new Int32Array(m), union_event: new Int32Array(m).fill(-1),
    union: new Int32Array(m), round: new Float64Array(m), child: new Int32Array(m), pull: new Int32Array(m),
    allowed: new Float64Array(m), outcome: new Uint8Array(m), flags: new Uint8Array(m), next: new Int32Array(m).fill(-1),
    after: new Int32Array(m).fill(-1) };
  const lastOf = new Map();
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
      if (rows.outcome[before] === NOT_READY) rows.after[row] = rows.child[before];   // a not-ready ended the turn before
    }
    lastOf.set(spec, row);
  });
  tieUnionCalls(rows, specs, model);
  return { specs, rows };
}

/** DROPPED (8) for an item from a child the union's output_indexes leaves out. */
function droppedFlag(spec, child, outcome) {
  const keep = spec.output_indexes;
  return keep && outcome === ITEM && !keep.includes(child) ? 8 : 0;
}

/** Per decision, the union's call that passed its pull on; each union call keeps only its last decision. */
function tieUnionCalls(rows, specs, model) {
  const m = rows.event.length, named = new Map();
  for (let row = 0; row < m; row++) {
    const union = specs[rows.union[row]].node, event = rows.event[row];
    let call = -1;
    if (rows.outcome[row] === ITEM) {
      for (let k = model.outOffsets[event]; k < model.outOffsets[event + 1]; k++) {
        if (model.node[model.outputs[k]] === union) { call = model.outputs[k]; break; }
      }
    } else if (rows.outcome[row] === NOT_READY) {
      call = enclosingNotReady(model, union, event);
    }
    if (call >= 0) {
      if (named.has(call)) rows.union_event[named.get(call)] = -1;
      rows.union_event[row] = call;
      named.set(call, row);
    }
  }
}

/** The union's not-ready call that encloses event `event` (-1 if none). */
function enclosingNotReady(model, union, event) {
  const r = model.nodeRow[union];
  if (r === undefined || r < 0) return -1;
  const times = model.rowTimes, s = model.start[event], e = s + model.duration[event];
  let a = model.rowStart[r], b = model.rowEnd[r];
  while (a < b) { const mid = (a + b) >>> 1; if (times[mid] <= s) a = mid + 1; else b = mid; }
  const candidate = a - 1 >= model.rowStart[r] ? model.rowEvents[a - 1] : -1;
  if (candidate < 0 || (model.flags[candidate] & 3) !== NOT_READY) return -1;
  return model.start[candidate] + model.duration[candidate] >= e ? candidate : -1;
}
