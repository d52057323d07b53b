// Unit tests of the growing model: appended chunks, the front trimmed, links by id, follow, selection.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { completionOrder, hitTest, isDroppedInput, itemText, mergeEvents, orderEvents, stepList } from "../../rlviz/viz/static/explorer_core.js";
import {
  StreamGap, TRIM_SHARE, appendChunk, createLive, followWindow, heldModel, keptSelection, liveMeta, liveModel, trimFront,
} from "../../rlviz/viz/static/explorer_live.js";
import { chunkTables } from "./fixtures.mjs";

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

test("a dropped input stays marked as the model grows and after the front is trimmed", () => {
  const live = createLive(STRUCTURE, 0);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1], [0, 6, 5, 0, 2]]));
  liveModel(live);
  appendChunk(live, ...chunk(2, [[1, 12, 2, 0, 2]], [[2, 0, true], [2, 1]]));
  let model = liveModel(live);
  assert.equal(isDroppedInput(model, 2, 0), true, "grown in place");
  assert.equal(isDroppedInput(model, 2, 1), false);
  appendChunk(live, ...chunk(3, [[0, 20, 5, 0, 3], [1, 26, 2, 0, 3]], [[4, 3]], { held_from: 1 }));
  model = liveModel(live);
  assert.equal(model.n, 4);
  assert.equal(isDroppedInput(model, 1, 0), false, "indices shift by the trim; the dropped producer left");
  assert.deepEqual(Array.from(model.inputs.subarray(model.inOffsets[1], model.inOffsets[2])), [0]);
  appendChunk(live, ...chunk(5, [[1, 30, 2, 0, 4]], [[5, 3, true]], { held_from: 1 }));
  model = liveModel(live);
  assert.equal(isDroppedInput(model, 4, 2), true, "held ids 1.. are indices 0..");
});

test("an input that arrives after its consumer links it once the chunk lands", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1], [1, 6, 2, 0, 1]]));
  appendChunk(live, ...chunk(2, [], [[1, 0]]));
  const model = liveModel(live);
  assert.equal(model.n, 2);
  assert.deepEqual(Array.from(model.inputs), [0]);
});

test("chunks are taken once and in order: a repeat is skipped, a missing one is a StreamGap", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1]], [], { seq: 0 }));
  const again = appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1]], [], { seq: 0 }));
  assert.equal(again.repeated, true);
  assert.equal(live.n, 1);                                     // nothing drawn twice
  assert.throws(() => appendChunk(live, ...chunk(3, [[0, 9, 5, 0, 1]], [], { seq: 2 })), StreamGap);
  assert.equal(live.n, 1);                                     // nothing drawn half
  appendChunk(live, ...chunk(1, [[0, 9, 5, 0, 1]], [], { seq: 1 }));
  assert.equal(liveModel(live).n, 2);
});

test("a chunk that does not start where the last ended is refused (nothing lost, nothing twice)", () => {
  const live = createLive(STRUCTURE);
  appendChunk(live, ...chunk(0, [[0, 0, 5, 0, 1]]));
  assert.throws(() => appendChunk(live, ...chunk(5, [[0, 9, 5, 0, 1]])), /cannot follow event 0/);
  assert.throws(() => appendChunk(live, ...chunk(0, [[0, 9, 5, 0, 1]])), /cannot follow/);
});

test("the sender's window trims the front: indices shift, links to gone events go, counters keep the whole run", () => {
  const live = createLive(STRUCTURE, 0);
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

// ------------------------------------------------------------------ growing = building at once

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

/** Everything the panes read of a model, without the spare room a grown model keeps. */
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

test("appending in chunks, late ones included, gives exactly the model built from all events at once", () => {
  for (const seed of [1, 2, 3]) {
    const { events, links, cuts } = history(seed, 12, 40);
    const grownLive = createLive(FOUR);
    let model = liveModel(grownLive);
    completionOrder(model);                              // the completion order grows too once computed
    for (let c = 0; c + 1 < cuts.length; c++) {
      const own = links.filter((l) => l[2] === c).map((l) => [l[0], l[1]]);
      appendChunk(grownLive, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1]), own));
      model = liveModel(grownLive);
      checkRows(model);
    }
    assert.equal(liveModel(grownLive), model, "the grown model is the same object, grown in place");
    const once = createLive(FOUR);
    appendChunk(once, ...chunk(0, events, links.map((l) => [l[0], l[1]])));
    assert.deepEqual(shape(model), shape(liveModel(once)));
    assert.deepEqual(shape(model), shape(heldModel(grownLive)));
    assert.equal(model.n, events.length);
  }
});

test("a window that drops the front gives the model of the held events built at once", () => {
  const { events, links, cuts } = history(7, 9, 30);
  const live = createLive(FOUR, 0);
  let heldFrom = 0, model;
  for (let c = 0; c + 1 < cuts.length; c++) {
    heldFrom = c >= 3 ? cuts[c - 2] : 0;
    const own = links.filter((l) => l[2] === c).map((l) => [l[0], l[1]]);
    appendChunk(live, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1]), own, { held_from: heldFrom }));
    model = liveModel(live);
    checkRows(model);
  }
  const held = events.slice(heldFrom);
  const heldLinks = links.filter((l) => l[0] >= heldFrom && l[1] >= heldFrom).map((l) => [l[0], l[1]]);
  const once = createLive(FOUR);
  appendChunk(once, ...chunk(heldFrom, held, heldLinks, { held_from: heldFrom }));
  assert.deepEqual(shape(model), shape(liveModel(once)));
  assert.equal(model.n, held.length);
});

test("by default the front that left the window goes in batches: kept until it is a quarter of what is held", () => {
  const { events, links, cuts } = history(13, 30, 40);
  const live = createLive(FOUR);
  let heldFrom = 0, trims = 0, rebuilt = 0, model = liveModel(live);
  for (let c = 0; c + 1 < cuts.length; c++) {
    heldFrom = cuts[Math.max(0, c - 7)];                    // the sender holds the last eight chunks
    const own = links.filter((l) => l[2] === c).map((l) => [l[0], l[1]]);
    const { trimmed } = appendChunk(live, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1]), own, { held_from: heldFrom }));
    if (trimmed) {
      trims++;
      assert.equal(live.base, heldFrom, "a trim goes exactly to the sender's front");
    }
    assert.ok(heldFrom - live.base < TRIM_SHARE * live.n || trimmed, "what left the window stays under a quarter");
    const next = liveModel(live);
    if (next !== model) rebuilt++;
    model = next;
    checkRows(model);
  }
  assert.ok(trims >= 4 && trims <= (cuts.length - 1) / 2, `${trims} trims in ${cuts.length - 1} appends`);
  assert.ok(rebuilt <= trims + 1, "the model is rebuilt only when the front is trimmed (or at the first nodes)");
  const held = events.slice(live.base);
  const heldLinks = links.filter((l) => l[0] >= live.base && l[1] >= live.base).map((l) => [l[0], l[1]]);
  const once = createLive(FOUR);
  appendChunk(once, ...chunk(live.base, held, heldLinks, { held_from: live.base }));
  assert.deepEqual(shape(model), shape(liveModel(once)));
});

test("the selected event is the same event after appends, late chunks included", () => {
  const { events, cuts } = history(11, 6, 20);
  const live = createLive(FOUR);
  appendChunk(live, ...chunk(0, events.slice(0, cuts[2])));
  let model = liveModel(live);
  const selected = 17, before = [model.start[selected], model.node[selected], itemText(model, selected)];
  for (let c = 2; c + 1 < cuts.length; c++) appendChunk(live, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1])));
  model = liveModel(live);
  const kept = keptSelection(selected, 0);
  assert.deepEqual([model.start[kept], model.node[kept], itemText(model, kept)], before);
  const r = model.nodeRow[model.node[kept]];
  assert.equal(hitTest(model, r, model.start[kept] + model.duration[kept] / 2, 0) >= 0, true);
});

test("the order strip's events of a grown model are those of the model built at once", () => {
  const withStrip = { ...FOUR, order: { merge: "Concurrently", groups: [{ node: 0 }, { node: 2 }] } };
  const { events, cuts } = history(5, 10, 30);
  const live = createLive(withStrip);
  let model = liveModel(live);
  for (let c = 0; c + 1 < cuts.length; c++) {
    appendChunk(live, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1])));
    model = liveModel(live);
    if (c % 2 === 1) orderEvents(model);              // computed now and then, as the page does
  }
  const once = createLive(withStrip);
  appendChunk(once, ...chunk(0, events));
  const expected = Array.from(orderEvents(liveModel(once)));
  assert.ok(expected.length > 0);
  assert.deepEqual(Array.from(orderEvents(model)), expected);
});

test("a merge's items of a grown model, tagged by input, are those of the model built at once (late inputs too)", () => {
  const strip = { merge: "Concurrently", node: 3, groups: [{ node: 0 }, { node: 1 }] };
  const { events, links, cuts } = history(17, 12, 30);
  const live = createLive(FOUR);
  let model = liveModel(live), relinked = 0;
  for (let c = 0; c + 1 < cuts.length; c++) {
    const own = links.filter((l) => l[2] === c).map((l) => [l[0], l[1]]);
    relinked += own.filter(([consumer]) => consumer < cuts[c]).length;
    appendChunk(live, ...chunk(cuts[c], events.slice(cuts[c], cuts[c + 1]), own));
    model = liveModel(live);
    if (c % 2 === 1) mergeEvents(model, strip);         // computed now and then, as the order pane does
  }
  const once = createLive(FOUR);
  appendChunk(once, ...chunk(0, events, links.map((l) => [l[0], l[1]])));
  const expected = mergeEvents(liveModel(once), strip), got = mergeEvents(model, strip);
  assert.ok(relinked > 0 && expected.events.length > 0 && !expected.fromInputs);
  assert.deepEqual(Array.from(got.events), Array.from(expected.events));
  assert.deepEqual(Array.from(got.group), Array.from(expected.group));
  const inputsOnly = { merge: "Concurrently", node: 99, groups: [{ node: 0 }, { node: 1 }] };   // a merge with no calls
  const fallback = mergeEvents(model, inputsOnly), fallbackOnce = mergeEvents(liveModel(once), inputsOnly);
  assert.ok(fallback.fromInputs && fallback.events.length > 0);
  assert.deepEqual([Array.from(fallback.events), Array.from(fallback.group)],
    [Array.from(fallbackOnce.events), Array.from(fallbackOnce.group)]);
});

test("rows that fill at different rates re-lay the model out about once per doubling of what is held", () => {
  const nodes = [0, 1, 2, 3].map((k) => ({ op: `op${k}`, label: `op${k}`, where: `shard-${k}`, short: `op${k}`,
    color: "#1f77b4", column: k, row: 0 }));
  const live = createLive({ ...STRUCTURE, nodes, edges: [],
    lanes: nodes.map((node, k) => ({ name: node.where, color: "#999", nodes: [k] })) });
  let id = 0, layouts = 0, events = null, seed = 7;
  for (let append = 0; append < 200; append++) {
    const part = [];
    for (let k = 0; k < 40; k++) {                        // each event to a pseudo-random row: rows fill unevenly
      seed = (seed * 1103515245 + 12345) % 2147483648;
      part.push([(seed >>> 16) % 4, append * 100 + k, 1, 0, k]);
    }
    appendChunk(live, ...chunk(id, part));
    id += part.length;
    const model = liveModel(live);
    if (model.rowEvents !== events) { layouts++; events = model.rowEvents; }
  }
  assert.equal(liveModel(live).n, 8000);
  // 8,000 held from 40: about log2(200) doublings; one re-layout per row that fills would be twice as many
  assert.ok(layouts <= 10, `${layouts} layouts for 8,000 events in 200 appends`);
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
