// Unit tests of the growing model: appended chunks, the front trimmed, links by id, follow, selection.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { completionOrder, hitTest, itemText, stepList } from "../../rlviz/viz/static/explorer_core.js";
import {
  appendChunk, createLive, followWindow, keptSelection, liveMeta, liveModel, trimFront,
} from "../../rlviz/viz/static/explorer_live.js";

const STRUCTURE = {
  live: true, unit_ns: 1000, origin_ns: "0", texts: ["(summary table full)"],
  nodes: [
    { op: "from_range", label: "src", where: "shard-0", short: "from_range", color: "#1f77b4", column: 0, row: 0 },
    { op: "gather_sync", label: "gs", where: "driver", short: "gather_sync", color: "#ff7f0e", column: 1, row: 0 },
  ],
  edges: [[0, 1, 0, false]],
  lanes: [{ name: "driver", color: "#333", nodes: [1] }, { name: "shard-0", color: "#999", nodes: [0] }],
  order: null,
};

/** One append message like rlviz.viz.explorer_stream's: events [node, start, duration, outcome, item], links [consumer, producer]. */
function chunk(firstId, events, links = [], extra = {}) {
  const columns = {
    start: Uint32Array.from(events.map((e) => e[1])), duration: Uint32Array.from(events.map((e) => e[2])),
    node: Uint16Array.from(events.map((e) => e[0])), flags: Uint8Array.from(events.map((e) => e[3] | (1 << 2))),
    item: Int32Array.from(events.map((e) => e[4])),
    in_consumer: Uint32Array.from(links.map((l) => l[0])), in_producer: Uint32Array.from(links.map((l) => l[1])),
  };
  const dtypes = { start: "<u4", duration: "<u4", node: "<u2", flags: "|u1", item: "<i4", in_consumer: "<u4", in_producer: "<u4" };
  const specs = Object.entries(columns).map(([name, v]) => ({ name, dtype: dtypes[name], length: v.length, chunks: [v.byteLength] }));
  return [{ first_id: firstId, count: events.length, held_from: extra.held_from ?? 0, texts: [], dropped: 0,
    columns: specs, ...extra }, Object.values(columns).map((v) => v.buffer)];
}

test("appended chunks grow the model, and links name events sent in earlier chunks", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 10], [0, 10, 5, 0, 11]]));
  let model = liveModel(live);
  assert.equal(model.n, 2);
  appendChunk(live, ...chunk(2, [[1, 20, 3, 0, 10], [1, 30, 3, 0, 11]], [[2, 0], [3, 1]]));
  model = liveModel(live);
  assert.equal(model.n, 4);
  assert.deepEqual(Array.from(model.inputs.subarray(model.inOffsets[3], model.inOffsets[4])), [1]);
  assert.deepEqual(Array.from(model.outputs.subarray(model.outOffsets[0], model.outOffsets[1])), [2]);
  assert.equal(itemText(model, 3), "int 11");
  assert.equal(model.end, 33);
  assert.equal(hitTest(model, model.nodeRow[1], 31, 0), 3);
});

test("an input that arrives after its consumer links it once the chunk lands", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1], [1, 6, 2, 0, 1]]));
  appendChunk(live, ...chunk(2, [], [[1, 0]]));
  const model = liveModel(live);
  assert.equal(model.n, 2);
  assert.deepEqual(Array.from(model.inputs), [0]);
});

test("a chunk that does not start where the last ended is refused (nothing lost, nothing twice)", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1]]));
  assert.throws(() => appendChunk(live, ...chunk(5, [[0, 9, 5, 0, 1]])), /cannot follow event 0/);
  assert.throws(() => appendChunk(live, ...chunk(0, [[0, 9, 5, 0, 1]])), /cannot follow/);
});

test("the sender's window trims the front: indices shift, links to gone events go, counters keep the whole run", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1], [0, 10, 5, 0, 2], [1, 20, 5, 0, 3]], [[2, 0]]));
  const { trimmed } = appendChunk(live, ...chunk(3, [[1, 30, 5, 0, 4]], [[3, 1]], { held_from: 1 }));
  assert.equal(trimmed, 1);
  const model = liveModel(live);
  assert.equal(model.n, 3);
  assert.equal(itemText(model, 0), "int 2");
  assert.deepEqual(Array.from(model.inputs), [0]);            // event 3 (now 2) <- event 1 (now 0); 2 <- 0 went
  assert.equal(liveMeta(live).nodes[0].calls, 2);             // counted before the trim: the whole run
  assert.equal(trimFront(live, 0), 0);
});

test("the selection stays on its event across appends, and leaves when its event leaves", () => {
  assert.equal(keptSelection(5, 0), 5);
  assert.equal(keptSelection(5, 3), 2);
  assert.equal(keptSelection(2, 3), -1);
  assert.equal(keptSelection(-1, 0), -1);
});

test("follow shows the whole run while it is shorter than the span, then the newest span; off, the window stays", () => {
  assert.deepEqual(followWindow([0, 10], 100, true, null), [0, 100]);
  assert.deepEqual(followWindow([20, 40], 100, true, 20), [80, 100]);
  assert.deepEqual(followWindow([20, 40], 100, false, 20), [20, 40]);
  assert.deepEqual(followWindow([0, 1], 5, true, 20), [0, 5]);
});

test("stepping and the completion order see appended events", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 50, 0, 1], [1, 5, 5, 0, 2]]));
  let model = liveModel(live);
  assert.deepEqual(Array.from(completionOrder(model)), [1, 0]);
  appendChunk(live, ...chunk(2, [[1, 60, 5, 0, 3]]));
  model = liveModel(live);
  assert.deepEqual(Array.from(stepList(model, { op: null, where: null })), [1, 0, 2]);
});
