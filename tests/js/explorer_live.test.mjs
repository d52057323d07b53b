// Unit tests of a stream replayed into the model: chunks in order, links by id across chunks, late links.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { completionOrder, hitTest, isDroppedInput, itemText, stepList } from "../../rlviz/viz/static/explorer_core.js";
import { appendChunk, createLive, liveModel } from "../../rlviz/viz/static/explorer_live.js";
import { chunkTables } from "./fixtures.mjs";

const STRUCTURE = {
  unit_ns: 1000, origin_ns: "0", texts: ["(summary table full)"],
  nodes: [
    { op: "from_range", label: "src", where: "shard-0", short: "from_range", color: "#1f77b4", column: 0, row: 0 },
    { op: "gather_sync", label: "gs", where: "driver", short: "gather_sync", color: "#ff7f0e", column: 1, row: 0 },
  ],
  edges: [[0, 1, 0, false]],
  lanes: [{ name: "driver", color: "#333", nodes: [1] }, { name: "shard-0", color: "#999", nodes: [0] }],
  order: null,
};

/**
 * One append message like rlviz.viz.explorer_stream's: events [node, start, duration, outcome, item, kind?],
 * links [consumer, producer, dropped?] (ids; dropped when the consumer took the value and dropped it).
 * Links whose consumer is one of this chunk's events travel as input_count + inputs, the others
 * (inputs of events sent earlier) as late_consumer / late_producer, as the encoder sends them.
 */
function chunk(firstId, events, links = [], extra = {}) {
  const times = (k) => {      // as the encoder sends them: uint32 when every value fits, else float64
    const values = events.map((e) => e[k]);
    return values.some((v) => v > 0xffffffff) ? Float64Array.from(values) : Uint32Array.from(values);
  };
  const own = links.filter((l) => l[0] >= firstId).sort((a, b) => a[0] - b[0]);
  const late = links.filter((l) => l[0] < firstId);
  const columns = {
    start: times(1), duration: times(2),
    node: Uint16Array.from(events.map((e) => e[0])), flags: Uint8Array.from(events.map((e) => e[3] | ((e[5] ?? 1) << 2))),
    item: Int32Array.from(events.map((e) => e[4])),
    input_count: Uint8Array.from(events.map((_, i) => own.filter((l) => l[0] === firstId + i).length)),
    inputs: Uint32Array.from(own.map((l) => l[1])), input_dropped: Uint8Array.from(own.map((l) => (l[2] ? 1 : 0))),
    late_consumer: Uint32Array.from(late.map((l) => l[0])), late_producer: Uint32Array.from(late.map((l) => l[1])),
    late_dropped: Uint8Array.from(late.map((l) => (l[2] ? 1 : 0))),
  };
  const { tables, buffers } = chunkTables(columns);
  return [{ first_id: firstId, count: events.length, held_from: extra.held_from ?? 0, texts: [], dropped: 0,
    tables, ...extra }, buffers];
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


test("times are never clamped: a chunk's own time base and float64 columns place events hours and days in", () => {
  const live = createLive(STRUCTURE);
  const threeHours = 3 * 3600 * 1e6;                        // µs: far past the 71.6 minutes uint32 µs can count
  appendChunk(live, ...chunk(0, [[0, 5, 7, 0, 1], [0, 1000, 2, 0, 2]], [], { time_base: threeHours }));
  const threeDays = 3 * 24 * 3600 * 1e6, twoHours = 2 * 3600 * 1e6;
  appendChunk(live, ...chunk(2, [[1, threeDays - threeHours, twoHours, 0, 3]], [], { time_base: threeHours }));
  const model = liveModel(live);
  assert.deepEqual(Array.from(model.start.subarray(0, 3)), [threeHours + 5, threeHours + 1000, threeDays]);
  assert.deepEqual(Array.from(model.duration.subarray(0, 3)), [7, 2, twoHours]);
  assert.equal(model.end, threeDays + twoHours);
  assert.equal(hitTest(model, model.nodeRow[0], threeHours + 1001, 0), 1);
  assert.equal(hitTest(model, model.nodeRow[1], threeDays + twoHours - 1, 0), 2);
});


test("a dropped input stays marked, across chunks too", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1], [0, 6, 5, 0, 2]]));
  appendChunk(live, ...chunk(2, [[1, 12, 2, 0, 2]], [[2, 0, true], [2, 1]]));
  appendChunk(live, ...chunk(3, [[1, 30, 2, 0, 4]], [[3, 1, true]]));
  const model = liveModel(live);
  assert.equal(isDroppedInput(model, 2, 0), true);
  assert.equal(isDroppedInput(model, 2, 1), false);
  assert.equal(isDroppedInput(model, 3, 1), true);
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


test("stepping and the completion order see appended events", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 50, 0, 1], [1, 5, 5, 0, 2]]));
  let model = liveModel(live);
  assert.deepEqual(Array.from(completionOrder(model)), [1, 0]);
  appendChunk(live, ...chunk(2, [[1, 60, 5, 0, 3]]));
  model = liveModel(live);
  assert.deepEqual(Array.from(stepList(model, { op: null, where: null })), [1, 0, 2]);
});

// ------------------------------------------------------------------ chunks = one chunk

/** A small deterministic generator (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FOUR = {
  ...STRUCTURE,
  nodes: [0, 1, 2, 3].map((k) => ({ op: `op${k}`, label: `op${k}`, where: k < 2 ? "driver" : "w", short: `op${k}`,
    color: "#1f77b4", column: k, row: 0 })),
  edges: [], lanes: [{ name: "driver", color: "#333", nodes: [0, 1] }, { name: "w", color: "#999", nodes: [2, 3] }],
};

/**
 * Events in arrival (id) order: each chunk's starts run on from a clock, but every third chunk is
 * "late" (an actor's increment): its starts lie before the tail already sent, on the same rows.
 * Links join random arrived events, some naming a consumer sent in an earlier chunk.
 */
function history(seed, chunks, perChunk) {
  const next = random(seed), events = [], links = [], cuts = [0];
  let clock = 1000;
  for (let c = 0; c < chunks; c++) {
    const late = c % 3 === 2;
    let t = late ? clock - 400 - Math.floor(next() * 300) : clock;
    for (let j = 0; j < perChunk; j++) {
      t += Math.floor(next() * 20);                     // equal starts happen (ties by id)
      const outcome = next() < 0.1 ? 3 : next() < 0.3 ? 1 : 0;
      events.push([Math.floor(next() * 4), t, Math.floor(next() * 60), outcome, events.length]);
    }
    if (!late) clock = t + 50;
    for (let j = 0; j < perChunk / 2; j++) {
      const consumer = Math.floor(next() * events.length), producer = Math.floor(next() * events.length);
      links.push([consumer, producer, c]);
    }
    cuts.push(events.length);
  }
  return { events, links, cuts };
}

/** Everything the panes read of a model. */
function shape(model) {
  const rows = model.rows.map((_, r) => {
    const a = model.rowStart[r], b = model.rowEnd[r];
    return { events: Array.from(model.rowEvents.subarray(a, b)), times: Array.from(model.rowTimes.subarray(a, b)),
      busy: Array.from(model.busy.subarray(a + r, b + r + 1)), polls: Array.from(model.polls.subarray(a + r, b + r + 1)),
      maxDur: model.rowMaxDur[r], errors: Array.from(model.errors[r]) };
  });
  const columns = {};
  for (const name of ["start", "duration", "node", "flags", "item"]) columns[name] = Array.from(model[name]);
  const byEnd = completionOrder(model);
  return { n: model.n, end: model.end, rows, columns,
    inOffsets: Array.from(model.inOffsets), inputs: Array.from(model.inputs),
    outOffsets: Array.from(model.outOffsets), outputs: Array.from(model.outputs),
    byEnd: Array.from(byEnd), rank: Array.from(model.rank) };
}

/** Rows sorted by start whatever the arrival order, each event once. */
function checkRows(model) {
  const seen = new Set();
  model.rows.forEach((row, r) => {
    for (let k = model.rowStart[r]; k < model.rowEnd[r]; k++) {
      const i = model.rowEvents[k];
      assert.equal(model.node[i], row.node);
      assert.ok(!seen.has(i), `event ${i} twice`);
      seen.add(i);
      if (k > model.rowStart[r]) assert.ok(model.rowTimes[k - 1] <= model.rowTimes[k]);
    }
  });
  assert.equal(seen.size, model.n);
}

test("appending in chunks, late ones included, gives exactly the model of all events in one chunk", () => {
  for (const seed of [1, 2, 3]) {
    const { events, links, cuts } = history(seed, 12, 40);
    const inChunks = createLive(FOUR);
    for (let c = 0; c + 1 < cuts.length; c++) {
      const own = links.filter((l) => l[2] === c).map((l) => [l[0], l[1]]);
      appendChunk(inChunks, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1]), own));
    }
    const model = liveModel(inChunks);
    checkRows(model);
    const once = createLive(FOUR);
    appendChunk(once, ...chunk(0, events, links.map((l) => [l[0], l[1]])));
    assert.deepEqual(shape(model), shape(liveModel(once)));
    assert.equal(model.n, events.length);
  }
});


test("a chunk of 250,000 distinct item texts appends (a spread of them would overflow the call stack)", () => {
  const count = 250_000;
  const events = Array.from({ length: count }, (_, k) => [0, k, 1, 0, k + 1, 4]);    // outcome item, kind text
  const [message, buffers] = chunk(0, events, [], { texts: Array.from({ length: count }, (_, k) => `str 'v${k}'`) });
  const live = createLive(STRUCTURE);
  appendChunk(live, message, buffers);
  const model = liveModel(live);
  assert.equal(model.meta.texts.length, 1 + count);
  assert.equal(itemText(model, count - 1), `str 'v${count - 1}'`);
  assert.equal(itemText(model, 0), "str 'v0'");
});
