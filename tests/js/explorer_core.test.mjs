// Unit tests of the Explorer's data logic: decoding, level of detail, hit-testing, step order.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  aggregateRow, completedIn, completionOrder, drawsExact, formatG, hitTest,
  isDroppedInput, itemText, pollAlpha, searchEvents, searchStep, step, stepList, visibleRange, decisionIndex, whyOf, whySentence,
} from "../../rlviz/viz/static/explorer_core.js";
import { decodeChunk } from "../../rlviz/viz/static/explorer_arrow.js";
import { model, payload } from "./fixtures.mjs";

const TWO = [{ op: "src", where: "shard-0" }, { op: "gather", where: "driver" }];

test("an input its consumer dropped (a filter's None) is marked on that link only, both ways", () => {
  const nodes = [{ op: "replay", where: "replay-0" }, { op: "filter", where: "driver" }];
  const m = model(nodes, [[0, 0, 5, 0, 0, 0, []], [0, 6, 5, 0, 0, 0, []], [1, 12, 2, 0, 0, 0, [0, 1], [0]]]);
  assert.equal(isDroppedInput(m, 2, 0), true, "the not-ready None the filter rejected");
  assert.equal(isDroppedInput(m, 2, 1), false, "the batch it passed on");
  assert.equal(isDroppedInput(m, 1, 0), false);
  const plain = model(TWO, [[0, 0, 5, 0, 0, 0, []], [1, 6, 2, 0, 0, 0, [0]]]);
  assert.equal(isDroppedInput(plain, 1, 0), false);
});

test("a chunk's tables decode from unaligned views too, and a table of other bytes or rows is refused", () => {
  const { meta, buffers } = payload(TWO, [[0, 0, 5, 0, 0, 0, []], [1, 10, 5, 0, 0, 0, [0]]]);
  const whole = buffers[0];
  const shifted = new Uint8Array(whole.byteLength + 1);
  shifted.set(whole, 1);
  const columns = decodeChunk(meta, [shifted.subarray(1), ...buffers.slice(1)]);
  assert.deepEqual(Array.from(columns.start), [0, 10]);
  assert.ok(columns.node instanceof Uint8Array, "narrow integers stay narrow");
  assert.deepEqual(Array.from(columns.inputs), [0]);
  assert.throws(() => decodeChunk(meta, buffers.slice(1)), /announces \d+ tables but brings/);
  const wrongRows = { ...meta, tables: meta.tables.map((spec, k) => (k ? spec : { ...spec, rows: 3 })) };
  assert.throws(() => decodeChunk(wrongRows, buffers), /table start: 2 rows, expected 3/);
});

test("rows follow the lanes; producers and consumers link both ways", () => {
  const m = model(TWO, [[0, 0, 5, 0, 1, 7, []], [1, 6, 2, 0, 1, 7, [0]], [0, 9, 5, 1, 0, 0, []]]);
  assert.deepEqual(m.rows.map((r) => r.node), [0, 1]);
  assert.deepEqual(Array.from(m.outputs.subarray(m.outOffsets[0], m.outOffsets[1])), [1]);
  assert.deepEqual(Array.from(m.inputs.subarray(m.inOffsets[1], m.inOffsets[2])), [0]);
});

test("hit-testing finds the span under the pointer, the shortest when nested, none in a gap", () => {
  const m = model([{ op: "a", where: "driver" }], [[0, 0, 100, 0, 0, 0, []], [0, 10, 5, 0, 0, 0, []], [0, 200, 10, 0, 0, 0, []]]);
  assert.equal(hitTest(m, 0, 12, 0), 1);              // inside both: the shorter, drawn on top
  assert.equal(hitTest(m, 0, 50, 0), 0);
  assert.equal(hitTest(m, 0, 150, 0), -1);            // a gap
  assert.equal(hitTest(m, 0, 198, 3), 2);             // near enough
  assert.equal(hitTest(m, 1, 12, 0), -1);             // no such row
});

test("a span that started long before the pointer is still hit", () => {
  const events = [[0, 0, 1_000_000, 0, 0, 0, []]];
  for (let k = 1; k <= 50; k++) events.push([0, 10 * k, 2, 0, 0, 0, []]);
  const m = model([{ op: "a", where: "driver" }], events);
  assert.equal(hitTest(m, 0, 999_999, 0), 0);
});

test("level of detail: exact spans when few, per-pixel aggregates that add up when many", () => {
  const events = [];
  for (let k = 0; k < 1000; k++) events.push([0, 10 * k, 5, k % 10 === 0 ? 1 : 0, 0, 0, []]);
  const m = model([{ op: "a", where: "driver" }], events);
  assert.equal(drawsExact(m, 0, 0, 10_000, 100), false);       // 1000 spans on 100 pixels
  assert.equal(drawsExact(m, 0, 0, 100, 100), true);           // 10 spans
  const { fraction, polls } = aggregateRow(m, 0, 0, 10_000, 100);
  assert.equal(fraction.length, 100);
  // each pixel covers 100 time units with 10 spans of 5, one of them a not-ready poll
  for (let px = 0; px < 100; px++) {
    assert.ok(Math.abs(fraction[px] - 0.45) < 1e-6, `pixel ${px}: ${fraction[px]}`);
    assert.equal(polls[px], 1);
  }
});

test("aggregates touch O(pixels) positions: the visible range is found by binary search", () => {
  const events = [];
  for (let k = 0; k < 100_000; k++) events.push([0, k, 1, 0, 0, 0, []]);
  const m = model([{ op: "a", where: "driver" }], events);
  assert.deepEqual(visibleRange(m, 0, 50_000, 50_010), [49_999, 50_010]);
  const { fraction } = aggregateRow(m, 0, 0, 100_000, 1000);
  assert.ok(fraction.every((v) => Math.abs(v - 1) < 1e-6));
});

test("steps follow completion order (end time), not start order, and respect the filter", () => {
  const nodes = [{ op: "src", where: "shard-0" }, { op: "src", where: "shard-1" }, { op: "gather", where: "driver" }];
  // event 0 starts first but ends last
  const m = model(nodes, [[2, 0, 100, 0, 0, 0, []], [0, 5, 10, 0, 0, 0, []], [1, 6, 20, 0, 0, 0, []], [0, 30, 10, 0, 0, 0, []]]);
  assert.deepEqual(Array.from(completionOrder(m)), [1, 2, 3, 0]);
  const all = stepList(m, { op: null, where: null });
  assert.equal(step(m, all, -1, 1), 1);
  const visited = [];
  for (let i = step(m, all, -1, 1); i >= 0; i = step(m, all, i, 1)) visited.push(i);
  assert.deepEqual(visited, [1, 2, 3, 0]);
  assert.equal(step(m, all, 0, 1), -1);               // past the end
  assert.equal(step(m, all, 3, -1), 2);
  const shard0 = stepList(m, { op: "src", where: "shard-0" });
  assert.deepEqual(Array.from(shard0), [1, 3]);
  assert.equal(step(m, shard0, 2, 1), 3);             // from an event outside the filter: the next inside
  assert.equal(step(m, shard0, 2, -1), 1);
});

test("skipping not-ready calls steps only over calls that made, ended or failed something", () => {
  const nodes = [{ op: "Dequeue", where: "driver" }, { op: "Train", where: "driver" }];
  // outcomes: 0 item, 1 not_ready, 2 stop, 3 error; Dequeue is mostly not ready, as in Ape-X
  const m = model(nodes, [[0, 0, 1, 1, 0, 0, []], [0, 2, 1, 1, 0, 0, []], [0, 4, 1, 0, 0, 0, []],
    [1, 6, 1, 0, 0, 0, [2]], [0, 8, 1, 1, 0, 0, []], [0, 10, 1, 3, 0, 0, []], [0, 12, 1, 2, 0, 0, []]]);
  const every = stepList(m, { op: null, where: null }, false);
  assert.equal(every.length, 7);
  const made = stepList(m, { op: null, where: null }, true);
  assert.deepEqual(Array.from(made), [2, 3, 5, 6]);
  assert.equal(step(m, made, -1, 1), 2);
  assert.equal(step(m, made, 3, 1), 5);               // over the not-ready call 4
  assert.equal(step(m, made, 4, -1), 3);              // from a skipped call: the previous kept one
  assert.deepEqual(Array.from(stepList(m, { op: "Dequeue", where: null }, true)), [2, 5, 6]);
});

test("ties in end time keep trace order", () => {
  const m = model([{ op: "a", where: "driver" }], [[0, 0, 10, 0, 0, 0, []], [0, 5, 5, 0, 0, 0, []], [0, 8, 2, 0, 0, 0, []]]);
  assert.deepEqual(Array.from(completionOrder(m)), [0, 1, 2]);
});

test("completedIn bounds the events that completed in a window", () => {
  const m = model([{ op: "a", where: "driver" }], [[0, 0, 10, 0, 0, 0, []], [0, 10, 10, 0, 0, 0, []], [0, 20, 10, 0, 0, 0, []]]);
  const list = completionOrder(m);
  assert.deepEqual(completedIn(m, list, 10, 20), [0, 2]);
  assert.deepEqual(completedIn(m, list, 21, 29), [2, 2]);
});

test("item texts match rlviz.trace.items.format_summary", () => {
  const texts = ["(summary table full)", "SampleBatch(200)", "list"];
  const m = model([{ op: "a", where: "driver" }], [
    [0, 0, 1, 0, 1, -3, []], [0, 1, 1, 0, 4, 1, []], [0, 2, 1, 0, 5, 4 * 2 ** 24 + 2, []], [0, 3, 1, 0, 3, 1, []],
    [0, 4, 1, 1, 0, 0, []]], texts);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => itemText(m, i)), ["int -3", "SampleBatch(200)", "list[4]", "bool True", null]);
  assert.deepEqual([2.5, 1e-7, 123456789, 0.1 + 0.2, 100000, -0.0001234567].map(formatG),
    ["2.5", "1e-07", "1.23457e+08", "0.3", "100000", "-0.000123457"]);
});

test("search matches op, label and item text in completion order", () => {
  const nodes = [{ op: "StoreToReplayBuffer", where: "driver" }, { op: "TrainOneStep", where: "driver" }];
  const m = model(nodes, [[0, 0, 5, 0, 4, 1, []], [1, 1, 2, 0, 1, 42, []], [0, 10, 5, 0, 1, 7, []]], ["x", "SampleBatch(50)"]);
  assert.deepEqual(Array.from(searchEvents(m, "store")), [0, 2]);
  assert.deepEqual(Array.from(searchEvents(m, "int 42")), [1]);
  assert.deepEqual(Array.from(searchEvents(m, "samplebatch")), [0]);
  assert.deepEqual(Array.from(searchEvents(m, "  ")), []);
});

test("search ranks exact op names first and op: limits it to op names", () => {
  const nodes = [{ op: "Concurrently", label: "Concurrently[...TrainOneStep...]", where: "driver" },
    { op: "TrainOneStep", where: "driver" }, { op: "TrainOneStepLogger", where: "driver" }];
  const m = model(nodes, [[0, 0, 9, 0, 4, 0, []], [1, 1, 2, 0, 0, 0, []], [2, 4, 1, 0, 0, 0, []],
    [1, 5, 1, 1, 0, 0, []]], ["TrainOneStep result"]);
  assert.deepEqual(Array.from(searchEvents(m, "TrainOneStep")), [1, 3, 2, 0]);
  assert.deepEqual(Array.from(searchEvents(m, "op:trainonestep")), [1, 3, 2]);
  assert.deepEqual(Array.from(searchEvents(m, "TrainOneStep", undefined, { opsOnly: true })), [1, 3, 2]);
  assert.deepEqual(Array.from(searchEvents(m, "op: ")), []);
  const hits = searchEvents(m, "TrainOneStep");
  assert.deepEqual([searchStep(hits, -1, 1), searchStep(hits, 1, 1), searchStep(hits, 3, 1), searchStep(hits, 0, 1)],
    [1, 3, 2, -1]);
  assert.deepEqual([searchStep(hits, 2, -1), searchStep(hits, 1, -1), searchStep(hits, -1, -1)], [3, -1, 0]);
});

// Decisions as encode_trace sends them: a [2, 1, "*"] Concurrently, rows worked out by hand.
const DECISIONS = {
  specs: [{ op: "Concurrently", children: ["Store", "Train", "Log"], weights: [2, 1, "*"], output_indexes: [1] }],
  rows: {                         // Store 1/2, Store 2/2, Train not ready, Log 100th at the cap, Store 1/2
    event: [10, 11, 12, 13, 14], union_event: [20, 21, -1, 23, 24], union: [0, 0, 0, 0, 0],
    round: [4, 4, 4, 4, 5], child: [0, 0, 1, 2, 0], pull: [1, 2, 1, 100, 1], allowed: [2, 2, 1, 100, 2],
    outcome: [0, 0, 1, 0, 0], flags: [8, 8, 4, 3, 8], next: [0, 1, 2, 0, -1], after: [-1, -1, -1, 1, -1],
  },
};

test("why sentences are composed from the decision columns", () => {
  const index = decisionIndex(DECISIONS);
  assert.equal(whyOf(DECISIONS, index, 10), "round 4: Store, pull 1 of 2, its item dropped by output_indexes");
  assert.equal(whyOf(DECISIONS, index, 21),
    "round 4: Store, pull 2 of 2, its item dropped by output_indexes; next Train");
  assert.equal(whyOf(DECISIONS, index, 12), "round 4: Train not ready: its turn ends, Log next");
  assert.equal(whyOf(DECISIONS, index, 13),
    "round 4: Log ('*'): 100th pull this turn, the cap — it is always ready; next Store");
  assert.equal(whyOf(DECISIONS, index, 99), null);
  assert.equal(whyOf(undefined, decisionIndex(undefined), 10), null);
  const float = { specs: [{ children: ["A", "B"], weights: [1, 0.25] }],
    rows: { union: [0], round: [3], child: [1], pull: [1], allowed: [1], outcome: [0], flags: [0], next: [0], after: [-1] } };
  assert.equal(whySentence(float, 0), "round 3: B, pull 1 of 1 (weight 0.25 drew 1 this round); next A");
  const afterNotReady = { specs: [{ children: ["Replay", "Store"], weights: [1, 2] }],
    rows: { union: [0], round: [7], child: [1], pull: [1], allowed: [2], outcome: [0], flags: [0], next: [1], after: [0] } };
  assert.equal(whySentence(afterNotReady, 0), "round 7: Store, pull 1 of 2, after Replay was not ready");
});

test("a single not-ready poll keeps a strong mark in the aggregated drawing", () => {
  assert.equal(pollAlpha(0), 0);
  assert.ok(pollAlpha(1) >= 0.85 && pollAlpha(1) <= pollAlpha(3) && pollAlpha(100) === 1);
});
