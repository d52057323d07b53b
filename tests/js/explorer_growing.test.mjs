// Unit tests of a growing run's page: each extent brings the meta up to date, the chunks that changed
// are asked for again, and following keeps the newest span in view.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { ExtentGap, extendMeta, followWindow } from "../../rlviz/viz/static/explorer_growing.js";
import { MAX_TAIL_PIECES, createLod } from "../../rlviz/viz/static/explorer_long.js";
import { payload } from "./fixtures.mjs";

const NODES = [{ op: "sample", where: "shard-0", color: "#ff0000" }, { op: "train", where: "driver", color: "#0000ff" }];

/** A growing run's start meta (rlviz.viz.growing_chunks.GrowingChunks.start) over `detail`. */
function startMeta(detail, texts = ["(summary table full)"]) {
  const { meta } = payload(NODES, []);
  return { ...meta, growing: true, long: true, seq: 1, detail, texts, events: 0, count: 0, span_ms: 0, unit_ns: 1000,
    overview: { lanes: 2, levels: [] }, chunks: [] };
}

const COUNTS = { calls: [3, 1], items: [3, 0], not_ready: [0, 1], errors: [0, 0], busy_ms: [0.5, 2] };

test("an extent replaces the chunks from its first on, adds texts, and writes the run's counts into the same nodes", () => {
  const meta = startMeta([{ first_id: 0, count: 2, time_range: [0, 9] }]);
  const node = meta.nodes[0];
  const detail = meta.detail;
  const { restructured } = extendMeta(meta, {
    seq: 2, detail_from: 0, detail: [{ first_id: 0, count: 4, time_range: [0, 30] }, { first_id: 4, count: 1, time_range: [31, 31] }],
    texts_from: 1, texts: ["str 'a'"], counts: COUNTS, events: 5, count: 5, span_ms: 0.031, notes: ["a note"],
    orders: [], order: null,
  });
  assert.equal(restructured, false);
  assert.equal(meta.detail, detail, "the same list: the level of detail reads it");
  assert.deepEqual(meta.detail.map((chunk) => chunk.count), [4, 1]);
  assert.deepEqual(meta.texts, ["(summary table full)", "str 'a'"]);
  assert.equal(meta.nodes[0], node, "counts are written into the node every model's meta shares");
  assert.deepEqual([node.calls, node.items, node.busy_ms, meta.nodes[1].not_ready], [3, 3, 0.5, 1]);
  assert.deepEqual([meta.events, meta.span_ms, meta.notes], [5, 0.031, ["a note"]]);
});

test("an extent with a structure says so; a repeat is skipped; one that does not follow is an ExtentGap", () => {
  const meta = startMeta([{ first_id: 0, count: 2, time_range: [0, 9] }]);
  const structure = { nodes: [...NODES, { op: "replay", where: "driver", color: "#00ff00" }], lanes: [] };
  const { restructured } = extendMeta(meta, { seq: 2, detail_from: 1, detail: [{ first_id: 2, count: 0, time_range: [9, 9] }],
    texts_from: 1, texts: [], counts: { ...COUNTS, calls: [3, 1, 2] }, structure });
  assert.equal(restructured, true);
  assert.equal(meta.nodes.length, 3);
  assert.equal(meta.nodes[2].calls, 2);
  assert.throws(() => extendMeta(meta, { seq: 3, detail_from: 5, detail: [], texts_from: 1, texts: [], counts: COUNTS }), ExtentGap);
  assert.throws(() => extendMeta(meta, { seq: 3, detail_from: 1, detail: [], texts_from: 0, texts: [], counts: COUNTS }), ExtentGap);
  assert.throws(() => extendMeta(meta, { seq: 4, detail_from: 1, detail: [], texts_from: 1, texts: [], counts: COUNTS }),
    /extent 4 .* cannot follow extent 2.*one went missing/);
  assert.deepEqual(extendMeta(meta, { seq: 2, detail_from: 0, detail: [], texts_from: 1, texts: [], counts: COUNTS }),
    { restructured: false, repeated: true, changedFrom: 2 }, "one the page had already is skipped");
  assert.equal(meta.detail.length, 2, "nothing taken from an extent that does not follow, or a repeat");
});

test("follow shows the whole run while it is shorter than the span, then the newest span; off, the window stays", () => {
  assert.deepEqual(followWindow([0, 10], 100, true, null), [0, 100]);
  assert.deepEqual(followWindow([20, 40], 100, true, 20), [80, 100]);
  assert.deepEqual(followWindow([20, 40], 100, false, 20), [20, 40]);
  assert.deepEqual(followWindow([0, 1], 5, true, 20), [0, 5]);
});

test("the chunks that grew are asked for again; a closed chunk is asked for once", async () => {
  const events = [[0, 0, 5, 0, 1, 7, []], [1, 10, 5, 0, 1, 8, [0]], [0, 20, 5, 0, 1, 9, []]];
  const chunkOf = (first, count) => {
    const part = events.slice(first, first + count);
    const { meta, buffers } = payload(NODES, part);
    const range = count ? [part[0][1], part.at(-1)[1] + part.at(-1)[2]] : [15, 15];
    return { chunk: { first_id: first, count, time_base: 0, time_range: range, texts: [], tables: meta.tables }, buffers };
  };
  const meta = startMeta([{ first_id: 0, count: 2, time_range: [0, 15] }, { first_id: 2, count: 0, time_range: [15, 15] }]);
  const held = { 0: [0, 2], 1: [2, 0] };                  // per chunk: first id and count, as the kernel holds them now
  const asked = [], shown = [];
  const source = { chunk: async (k) => { asked.push(k); return chunkOf(...held[k]); } };
  const lod = createLod(meta, source, { onModel: (model) => shown.push(model.n), onError: assert.fail });
  await lod.request([0, 15]);
  assert.deepEqual(shown, [2]);
  held[1] = [2, 1];                                       // the tail grew by one event
  const { changedFrom } = extendMeta(meta, { seq: 2, detail_from: 1, detail: [{ first_id: 2, count: 1,
    time_range: [20, 25] }], texts_from: 1, texts: [], counts: COUNTS });
  assert.equal(changedFrom, 1, "the tail changed");
  assert.equal(extendMeta(meta, { seq: 3, detail_from: 1, detail: [{ first_id: 2, count: 1, time_range: [20, 25] }],
    texts_from: 1, texts: [], counts: COUNTS }).changedFrom, 2, "a refresh that brought nothing changes no chunk");
  lod.grown(changedFrom);
  await lod.request([0, 25]);
  assert.deepEqual(shown, [2, 3], "the window's model holds the tail's new event");
  assert.deepEqual(asked.filter((k) => k === 0).length, 1, "the closed chunk was kept, not asked for again");
  assert.deepEqual(asked.filter((k) => k === 1).length, 2, "the tail was asked for again");
});

test("a tail that keeps growing is asked for its new parts, and for the whole of it once it is in many pieces", async () => {
  const events = Array.from({ length: 3 * MAX_TAIL_PIECES }, (_, k) => [0, 10 * k, 5, 0, 1, 7 + k, []]);
  let held = 1;                                           // the tail's events: one part each
  const piece = (from) => {
    const part = events.slice(from, held);
    const { meta, buffers } = payload(NODES, part);
    return { chunk: { first_id: from, count: part.length, time_base: 0, time_range: [part[0][1], 10 * held - 5],
      texts: [], tables: meta.tables, parts: [from, held] }, buffers };
  };
  const meta = startMeta([{ first_id: 0, count: 1, time_range: [0, 5] }]);
  const asked = [], shown = [];
  const source = { chunk: async (k, after) => { asked.push(after ? after.parts[1] : null); return piece(after ? after.parts[1] : 0); } };
  const lod = createLod(meta, source, { onModel: (model) => shown.push(model.n), onError: assert.fail });
  await lod.request([0, 5]);
  for (held = 2; held <= events.length; held++) {
    Object.assign(meta.detail[0], { count: held, time_range: [0, 10 * held - 5] });
    lod.grown(0);
    await lod.request([0, 10 * held]);
  }
  assert.deepEqual(shown, events.map((_, k) => k + 1), "every model holds the whole tail, once");
  const wholes = asked.flatMap((from, k) => (from === null ? [k] : []));
  assert.deepEqual(wholes, [0, MAX_TAIL_PIECES, 2 * MAX_TAIL_PIECES],
    "after the first load, a piece per refresh until MAX_TAIL_PIECES are held, then the whole tail");
});
