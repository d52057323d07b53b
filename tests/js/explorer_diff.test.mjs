// Unit tests of what links two runs on a diff page (rlviz.diff): which event of the other run stands
// for a selected one, the windows that bring both runs to their first divergence, where its mark
// is drawn, and what the diff bar says. Run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  alignmentText, callRank, counterpart, divergenceText, divergenceView, kthCall, matchingNode, nthCallIn,
  passSelection,
} from "../../rlviz/viz/static/explorer_diff.js";
import { createActions } from "../../rlviz/viz/static/explorer_actions.js";
import { GUTTER } from "../../rlviz/viz/static/explorer_dom.js";
import { createStore } from "../../rlviz/viz/static/explorer_store.js";
import { markerLeft } from "../../rlviz/viz/static/panes/divergence.js";
import { frameOf } from "../../rlviz/viz/static/panes/timeline.js";
import { exactLod, model as modelOf } from "./fixtures.mjs";

/** A model from plain events [node, start, duration]: every call made an item. */
function model(nodes, events) {
  return modelOf(nodes, events.map(([node, start, duration]) => [node, start, duration, 0, 0, 0, []]));
}

const A_NODES = [{ op: "sample", where: "worker-1" }, { op: "store", where: "driver" }, { op: "train", where: "driver" }];
const B_NODES = [{ op: "train", where: "driver" }, { op: "store", where: "driver" }, { op: "sample", where: "worker-2" },
  { op: "report", where: "driver" }];

test("matchingNode takes the same op on the same lane, else the same op anywhere, else none", () => {
  assert.equal(matchingNode(A_NODES, 1, B_NODES), 1);                 // store @ driver
  assert.equal(matchingNode(A_NODES, 2, B_NODES), 0);                 // train @ driver, listed first there
  assert.equal(matchingNode(A_NODES, 0, B_NODES), 2);                 // sample: on another worker
  assert.equal(matchingNode(B_NODES, 3, A_NODES), -1);                // report: not in the first run
  const twice = [{ op: "f", where: "driver" }, { op: "f", where: "driver" }];
  assert.equal(matchingNode(twice, 1, twice), 1, "the second of two like nodes stands for the second");
  assert.equal(matchingNode(twice, 1, twice.slice(0, 1)), 0, "else for the last there is");
});

/** Model `m` as a long trace's part whose first event is trace index `base`. */
function part(m, base) {
  return { ...m, droppedInputs: { ...m.droppedInputs, base } };
}

test("counterpart: the k-th call of a node stands for the k-th call of the matching node, or its last", () => {
  // A: store calls start at 10, 30, 50 (listed out of start order); B: store calls at 5, 25
  const a = { model: model(A_NODES, [[1, 50, 2], [1, 10, 2], [2, 12, 3], [1, 30, 2], [0, 0, 5]]) };
  const b = { model: model(B_NODES, [[0, 7, 3], [1, 5, 2], [1, 25, 2], [3, 40, 1]]) };
  assert.equal(counterpart(a, 1, b), 1, "A's first store call (start 10) -> B's first (start 5)");
  assert.equal(counterpart(a, 3, b), 2, "A's second (start 30) -> B's second (start 25)");
  assert.equal(counterpart(a, 0, b), 2, "A's third: B has two, so its last");
  assert.equal(counterpart(a, 2, b), 0, "train -> train");
  assert.equal(counterpart(a, 4, b), -1, "B ran no sample call at all");
  assert.equal(counterpart(b, 3, a), -1, "report is not an op of A");
  assert.equal(counterpart(a, -1, b), -1, "no selection stays none");
  // a model that is a part but without the run's chunks counts from the part's first call
  const shifted = { model: part(b.model, 100) };
  assert.equal(counterpart(a, 3, shifted), 102, "A's second store call -> the part's second, as a trace index");
  assert.equal(counterpart(shifted, 101, a), 1, "the part's first store call (trace index 101) -> A's first");
  assert.equal(counterpart(shifted, 1, a), -1, "a trace index before the part: not in it, no counterpart");
});

// Two runs of chunks of 4 events, each page holding only its chunk 1 (trace indices 4-7): store is node 1 in both.
const A_EVENTS = [[1, 10, 2], [2, 12, 3], [1, 30, 2], [1, 50, 2], [0, 55, 5], [1, 70, 2], [1, 90, 2], [1, 95, 2]];
const A_DETAIL = [{ first_id: 0, count: 4, calls: [0, 3, 1] }, { first_id: 4, count: 4, calls: [1, 3] }];
const B_EVENTS = [[1, 2, 1], [0, 3, 1], [1, 4, 1], [0, 5, 1], [1, 40, 2], [0, 41, 1], [1, 45, 2], [3, 50, 1],
  [1, 60, 2], [0, 61, 1], [0, 62, 1], [0, 63, 1]];
const B_DETAIL = [{ first_id: 0, count: 4, calls: [2, 2] }, { first_id: 4, count: 4, calls: [1, 2, 0, 1] },
  { first_id: 8, count: 4, calls: [3, 1] }];

test("callRank counts a call over the whole run: the chunks before its part from their metas", () => {
  const a = { model: part(model(A_NODES, A_EVENTS.slice(4)), 4), detail: A_DETAIL };
  assert.deepEqual(callRank(a, 5), { node: 1, k: 3 }, "three store calls in chunk 0, then the part's first");
  assert.deepEqual(callRank(a, 7), { node: 1, k: 5 });
  assert.deepEqual(callRank(a, 4), { node: 0, k: 0 }, "the run's first sample call");
  assert.equal(callRank(a, 3), null, "chunk 0 is not held: its events have no rank here");
  const whole = { model: model(A_NODES, A_EVENTS), detail: A_DETAIL };
  for (const id of [5, 6, 7]) assert.deepEqual(callRank(whole, id), callRank(a, id), `the part and the whole agree on ${id}`);
});

test("counterpart is exact when the two runs' parts start at different calls", () => {
  const a = { model: part(model(A_NODES, A_EVENTS.slice(4)), 4), detail: A_DETAIL };
  const b = { model: part(model(B_NODES, B_EVENTS.slice(4, 8)), 4), detail: B_DETAIL };
  // A's trace index 5 is its 4th store call (k = 3); B makes 2 in chunk 0, so its 4th is chunk 1's second: index 6
  assert.equal(counterpart(a, 5, b), 6, "not B's part's first store call, as counting from the parts would say");
  assert.equal(counterpart(b, 6, a), 5, "and back");
  const later = counterpart(a, 6, b);
  assert.deepEqual(later, { chunk: 2, node: 1, lo: 8, hi: 12, nth: 0 }, "B's 5th store call is in chunk 2, not held");
  assert.deepEqual(counterpart(a, 7, b), later, "A's 6th: B makes 5, so its last");
  const earlier = counterpart(b, 4, a);
  assert.deepEqual(earlier, { chunk: 0, node: 1, lo: 0, hi: 4, nth: 2 }, "B's 3rd store call: A's 3rd, in its chunk 0");
  const chunk0 = model(A_NODES, A_EVENTS.slice(0, 4));
  assert.equal(nthCallIn(chunk0, earlier.node, earlier.lo, earlier.hi, earlier.nth), 3, "found in chunk 0 once loaded");
  const chunk2 = part(model(B_NODES, B_EVENTS.slice(8)), 8);
  assert.equal(nthCallIn(chunk2, later.node, later.lo, later.hi, later.nth), 8);
  assert.equal(counterpart(b, 7, a), -1, "report: no op of A");
  assert.equal(counterpart(a, 2, b), -1, "A's part lacks trace index 2");
  const wholeB = { model: model(B_NODES, B_EVENTS), detail: B_DETAIL };
  assert.equal(counterpart(a, 6, wholeB), 8, "B held whole: found at once");
  assert.equal(counterpart(a, 4, wholeB), -1, "B ran no sample call in any chunk");
});

test("kthCall: a node that makes no call in the run has none; nthCallIn counts only in [lo, hi)", () => {
  const b = { model: part(model(B_NODES, B_EVENTS.slice(4, 8)), 4), detail: B_DETAIL };
  assert.equal(kthCall(b, 2, 0), -1, "node 2 makes no call in any chunk");
  assert.equal(kthCall(b, 0, 2), 5, "train's 3rd call: chunk 0 makes 2, chunk 1's first");
  assert.equal(nthCallIn(b.model, 1, 4, 8, 2), -1, "the part makes two store calls");
  assert.equal(nthCallIn(b.model, 1, 5, 8, 0), 6, "from index 5 on");
});

/** A run as passSelection reads a mounted page: its part, its chunks (chunk k's model when `loads` lets it go), what it selected. */
function page(m, detail, loads = new Map()) {
  const run = { model: m, selected: [], errors: [], selectedId: () => run.selected.at(-1) ?? -1,
    setSelected: (id) => run.selected.push(id), showError: (text) => run.errors.push(text),
    lod: { detail, chunkModel: (k) => loads.get(k) } };
  return run;
}

test("passSelection selects at once what the part holds, else once the chunk is in; a later selection wins", async () => {
  let release;
  const chunk2 = new Promise((resolve) => { release = resolve; });
  const a = page(part(model(A_NODES, A_EVENTS.slice(4)), 4), A_DETAIL);
  const b = page(part(model(B_NODES, B_EVENTS.slice(4, 8)), 4), B_DETAIL, new Map([[2, chunk2]]));
  const link = { selecting: 0 };
  a.selected.push(5);
  assert.equal(await passSelection(a, b, link), 6, "held: selected at once");
  a.selected.push(6);
  const waiting = passSelection(a, b, link);
  assert.deepEqual(b.selected, [6], "nothing selected before chunk 2 is in");
  release(part(model(B_NODES, B_EVENTS.slice(8)), 8));
  assert.equal(await waiting, 8, "B's 5th store call, from chunk 2");
  assert.deepEqual(b.selected, [6, 8]);
  let late;
  b.lod.chunkModel = () => new Promise((resolve) => { late = resolve; });
  const stale = passSelection(a, b, link);
  a.selected.push(5);
  assert.equal(await passSelection(a, b, link), 6, "the reader moved on before the chunk came");
  late(part(model(B_NODES, B_EVENTS.slice(8)), 8));
  assert.equal(await stale, null, "the older answer is dropped");
  assert.deepEqual(b.selected, [6, 8, 6]);
  b.lod.chunkModel = () => Promise.reject(new Error("chunk 2 is damaged"));
  a.selected.push(6);
  assert.equal(await passSelection(a, b, link), null);
  assert.match(b.errors[0], /chunk 2 is damaged/, "a chunk that does not load says so");
});

test("a selection outside the part replacing another outside it is a change the panes see (selectedId)", () => {
  const m = part(model(A_NODES, A_EVENTS.slice(4)), 4);
  const view = { model: m, meta: { unit_ns: 1 }, full: [0, 100],
    store: createStore({ window: [0, 100], selected: -1, selectedId: -1 }) };
  const actions = createActions(view);
  const seen = [];
  view.store.subscribe((changed) => seen.push([...changed].sort()));
  actions.select(-1, { from: "host", id: 20 });
  actions.select(-1, { from: "host", id: 30 });
  actions.select(1, { from: "host" });
  assert.deepEqual(seen, [["selectedId"], ["selectedId"], ["selected", "selectedId"]]);
  assert.equal(view.store.get().selectedId, 5, "the part's event 1 is trace index 5");
  actions.destroy();
});

test("divergenceView: one width for both runs, each centred on its own time, and the offset between them", () => {
  const view = divergenceView([120, 150], [2, 6], [1000, 400]);
  assert.equal(view.offsetMs, 30);
  assert.deepEqual(view.windows, [[112, 128], [142, 158]], "4% of the shorter span (16 ms) beats the calls' 2 and 6 ms");
  const wide = divergenceView([120, 150], [40, 6], [1000, 400]);
  assert.deepEqual(wide.windows, [[100, 140], [130, 170]], "the divergence call and its links fit");
});

test("markerLeft: the x of a time in the plot, null outside it", () => {
  const frame = frameOf(null, null, { width: GUTTER + 8 + 400, window: [100, 200] }, exactLod());
  assert.equal(markerLeft(frame, 150), GUTTER + 200);
  assert.equal(markerLeft(frame, 100), GUTTER);
  assert.equal(markerLeft(frame, 99), null);
  assert.equal(markerLeft(frame, 201), null);
});

test("the diff bar names the item where the runs part and how they are linked", () => {
  const runs = [{ name: "before", divergence: { index: 6, op: "store" } }, { name: "after", divergence: { index: 6, op: "train" } }];
  assert.equal(divergenceText(runs), "The op order diverges at item 6: before made store, after made train.");
  assert.match(divergenceText([{ name: "a", divergence: null }, { name: "b", divergence: null }]), /same op order/);
  assert.equal(alignmentText(runs, 0), "Zoom, pan and selection are linked, in ms since each run's start.");
  assert.match(alignmentText(runs, -2.5), /after shifted by −2\.500 ms/);
});
