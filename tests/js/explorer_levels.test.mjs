// Unit tests of a long trace's level of detail on the page: the levels read from an overview, the
// level picked for a window, a lane's buckets as pixels, the detail chunks a window needs, the span
// track drawing a lane from its levels, and the loader (chunks inflated, fed into one model, the
// latest window winning). Run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { tableFromArrays, tableToIPC } from "../../js/node_modules/@uwdata/flechette/src/index.js";
import { decodeChunk } from "../../rlviz/viz/static/explorer_arrow.js";
import { aggregateRow, rowLayout } from "../../rlviz/viz/static/explorer_core.js";
import { GUTTER, LANE_GAP, ROW_H, pack, rgbOf } from "../../rlviz/viz/static/explorer_dom.js";
import {
  MAX_DETAIL_CHUNKS, WHOLE_RUN_CHUNKS, chunksFor, covers, gaugeBucketAt, gaugePixels, gaugeRange, lanePixels,
  levelPixelAt, levelsFromOverview, mostChunks, pickLevel,
} from "../../rlviz/viz/static/explorer_levels.js";
import {
  chunkHolding, createLod, inflate, modelOf, partIndex, unpackChunk,
} from "../../rlviz/viz/static/explorer_long.js";
import {
  gutterLabelAt, levelScanlines, levelSummaryAt, rasterizeSpans, rowScanlines, spanAt,
} from "../../rlviz/viz/static/panes/spans.js";
import { frameOf, levelName } from "../../rlviz/viz/static/panes/timeline.js";
import { exactLod, model as modelOf_, payload } from "./fixtures.mjs";

const NODES = [{ op: "sample", where: "shard-0", color: "#ff0000" }, { op: "train", where: "driver", color: "#0000ff" }];

/** Typed arrays' bytes one after the other. */
function joined(parts) {
  const bytes = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let at = 0;
  for (const part of parts) { bytes.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), at); at += part.byteLength; }
  return bytes;
}

/** A table's columns as one Arrow IPC stream, and its spec as a level's meta lists it. */
function tableOf(name, columns) {
  const bytes = tableToIPC(tableFromArrays(columns), { format: "stream" });
  return { spec: { name, rows: Object.values(columns)[0].length, bytes: bytes.byteLength }, bytes };
}

/**
 * An overview as the kernel writes it (rlviz.viz.chunk_tables.LEVEL_TABLES): per level ({width, start, n, count,
 * busiest (-1: none), errors, notReady, busy, and with `Float` gauge summaries last, least, greatest, gaugeCount}) its
 * `lanes` table and, when it has gauge summaries, its `gauge_summaries` one; returns {overview, bytes}.
 */
function overviewOf(lanes, levels, tracks = 0, Float = Float64Array) {
  const parts = [];
  const metas = levels.map(({ width, start, n, count, busiest, errors, notReady, busy, last, least, greatest, gaugeCount }) => {
    const tables = [tableOf("lanes", { count: Uint32Array.from(count), busiest: Uint32Array.from(busiest, (b) => b + 1),
      errors: Uint32Array.from(errors), not_ready: Uint32Array.from(notReady), busy: Float32Array.from(busy) })];
    if (gaugeCount) {
      tables.push(tableOf("gauge_summaries", { gauge_last: Float.from(last), gauge_least: Float.from(least),
        gauge_greatest: Float.from(greatest), gauge_count: Uint32Array.from(gaugeCount) }));
    }
    parts.push(...tables.map((table) => table.bytes));
    return { width, start, n, tables: tables.map((table) => table.spec) };
  });
  return { overview: { lanes, gauges: tracks, levels: metas }, bytes: joined(parts) };
}

/** `overviewOf`'s levels read back as the page reads them. */
function levelsOf(lanes, levels, tracks = 0, Float = Float64Array) {
  const { overview, bytes } = overviewOf(lanes, levels, tracks, Float);
  return levelsFromOverview(overview, bytes);
}

/** Two lanes, two levels: 10 buckets of 10 units and 2 of 50 units from 0; lane 1's calls (nested) are busy 12 of 10 units. */
function twoLevels() {
  const fine = { count: [3, 0, 1, 0, 0, 0, 0, 0, 0, 2, /* lane 1 */ 0, 0, 0, 0, 5, 0, 0, 0, 0, 0],
    busiest: [0, -1, 0, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1, 1, -1, -1, -1, -1, -1],
    errors: Array(20).fill(0).map((_, k) => (k === 2 ? 1 : 0)), notReady: Array(20).fill(0).map((_, k) => (k === 14 ? 2 : 0)),
    busy: [10, 0, 3, 0, 0, 0, 0, 0, 0, 4, /* lane 1 */ 0, 0, 0, 0, 12, 0, 0, 0, 0, 0] };
  const coarse = { count: [4, 2, 5, 0], busiest: [0, 0, 1, -1], errors: [1, 0, 0, 0], notReady: [0, 0, 2, 0],
    busy: [13, 4, 12, 0] };
  return levelsOf(2, [{ width: 50, start: 0, n: 2, ...coarse }, { width: 10, start: 0, n: 10, ...fine }]);
}

test("an overview's levels: finest first, tables per lane, busiest -1 where a bucket is empty", () => {
  const levels = twoLevels();
  assert.equal(levels.lanes, 2);
  assert.deepEqual(levels.sets.map((set) => set.width), [10, 50]);
  const [fine] = levels.sets;
  assert.deepEqual([...fine.count.subarray(0, 3)], [3, 0, 1]);
  assert.deepEqual([...fine.busiest.subarray(0, 3)], [0, -1, 0]);
  const { overview, bytes } = overviewOf(2, [{ width: 10, start: 0, n: 1, count: [1, 0], busiest: [0, -1], errors: [0, 0],
    notReady: [0, 0], busy: [1, 0] }]);
  assert.throws(() => levelsFromOverview(overview, bytes.subarray(0, bytes.length - 1)), /announce/,
    "tables shorter than the levels announce");
  assert.throws(() => levelsFromOverview({ ...overview, lanes: 3 }, bytes), /has 2 rows where 3 lanes/,
    "a table of another number of rows than the lanes and buckets");
});

test("the level drawn: the coarsest no wider than a pixel, else the finest", () => {
  const levels = twoLevels();
  assert.equal(pickLevel(levels, 0, 100, 10).width, 10, "10 units a pixel: the 10-unit buckets");
  assert.equal(pickLevel(levels, 0, 1000, 10).width, 50, "100 units a pixel: the 50-unit buckets");
  assert.equal(pickLevel(levels, 0, 10, 10).width, 10, "1 unit a pixel: none is that narrow, the finest");
  assert.equal(pickLevel(null, 0, 10, 10), null);
});

test("a lane's buckets as pixels: narrow buckets add up in a pixel, a wide one covers every pixel it meets", () => {
  const [fine, coarse] = twoLevels().sets;
  const narrow = lanePixels(fine, 0, 0, 100, 5);              // 20 units a pixel: two buckets each
  assert.deepEqual([...narrow.count], [3, 1, 0, 0, 2]);
  assert.deepEqual([...narrow.busiest], [0, 0, -1, -1, 0]);
  assert.deepEqual([...narrow.errors], [0, 1, 0, 0, 0]);
  assert.deepEqual([...narrow.fraction], [10 / 20, 3 / 20, 0, 0, 4 / 20], "busy time over a pixel's 20 units");
  const wide = lanePixels(coarse, 1, 0, 100, 4);              // 25 units a pixel: lane 1's first bucket is 2 pixels
  assert.deepEqual([...wide.count], [5, 5, 0, 0]);
  assert.deepEqual([...wide.notReady], [2, 2, 0, 0]);
  assert.deepEqual([...wide.fraction], [12 / 50, 12 / 50, 0, 0], "a wide bucket's busy time spread over its width");
  assert.deepEqual([...lanePixels(fine, 1, 0, 100, 10).fraction.subarray(3, 6)], [0, 1, 0], "nested calls: at most 1");
  const steady = levelsOf(1, [{ width: 10, start: 0, n: 12, count: Array(12).fill(2), busiest: Array(12).fill(0),
    errors: Array(12).fill(0), notReady: Array(12).fill(0), busy: Array(12).fill(5) }]).sets[0];
  assert.deepEqual([...lanePixels(steady, 0, 0, 120, 8).fraction], Array(8).fill(0.5),
    "pixels of 1.5 buckets hold one or two: each shaded by its buckets' time, no stripes");
  assert.deepEqual([...lanePixels(fine, 1, 30, 60, 3).busiest], [-1, 1, -1], "a window inside the run");
});

/**
 * One node's calls [node, start, duration, outcome, kind, item, inputs] over 20 buckets of 10 units: items, stops,
 * errors and not-ready polls, short in the first 8 buckets, up to 34 units in the next 8 (overlapping, reaching into
 * later buckets), then two buckets of polls only and two quiet ones; and the same calls as one level of 10-unit buckets, summed the
 * way the pyramid sums them (by start bucket; busy time: the durations of the calls that are not polls).
 */
function oneLaneBothWays() {
  const events = [];
  for (let k = 0; k < 160; k++) {
    const outcome = k % 7 === 0 ? 1 : k % 11 === 0 ? 3 : k % 13 === 0 ? 2 : 0, start = (k * 37) % 160;
    events.push([0, start, (start < 80 ? [0, 1, 0, 2, 0] : [3, 34, 1, 0, 2])[k % 5], outcome, 0, 0, []]);
  }
  for (let k = 0; k < 20; k++) events.push([0, 160 + k, 3, 1, 0, 0, []]);
  events.sort((p, q) => p[1] - q[1]);
  const n = 20, level = { count: Array(n).fill(0), busiest: Array(n).fill(-1), errors: Array(n).fill(0),
    notReady: Array(n).fill(0), busy: Array(n).fill(0) };
  for (const [, start, duration, outcome] of events) {
    const k = Math.floor(start / 10);
    level.count[k]++;
    level.busiest[k] = 0;
    if (outcome === 3) level.errors[k]++;
    if (outcome === 1) level.notReady[k]++;
    else level.busy[k] += duration;
  }
  const levels = levelsOf(1, [{ width: 10, start: 0, n, ...level }]);
  return { model: modelOf_([NODES[0]], events), set: levels.sets[0] };
}

test("a one-node lane is shaded alike from its loaded events and from its levels: the busy fraction, pixel by pixel", () => {
  const { model, set } = oneLaneBothWays();
  const fromEvents = aggregateRow(model, 0, 0, 200, 20).fraction, fromLevels = lanePixels(set, 0, 0, 200, 20).fraction;
  assert.deepEqual([...fromLevels].map(Math.fround), [...fromEvents]);
  assert.ok(fromEvents.some((f) => f === 1) && fromEvents.some((f) => f > 0 && f < 1), "full pixels and paler ones");
  assert.deepEqual([...fromEvents.subarray(16)], [0, 0, 0, 0], "polls only, then quiet: no busy time");
  const drawn = (draw) => {
    const upper = new Uint32Array(20), lower = new Uint32Array(20);
    draw(upper, lower);
    return [[...upper], [...lower]];
  };
  const loaded = drawn((upper, lower) => rowScanlines(model, 0, [0, 200], 20, { color: rgbOf(NODES[0].color), dim: 1 }, upper, lower));
  assert.deepEqual(drawn((upper, lower) => levelScanlines(model, lanePixels(set, 0, 0, 200, 20), 1, upper, lower)), loaded,
    "the same colours and opacities in both bands");
  assert.ok(new Set(loaded[0].slice(0, 16)).size > 2, "opacities differ from pixel to pixel");
});

test("the detail chunks a window meets, and whether the loaded ones hold it", () => {
  const detail = [[0, 120], [100, 220], [200, 320], [300, 400]].map((time_range) => ({ time_range }));
  assert.deepEqual(chunksFor(detail, 110, 115), [0, 1], "a long call of chunk 0 still runs there");
  assert.deepEqual(chunksFor(detail, 330, 350), [3, 3]);
  assert.equal(chunksFor(detail, 0, 400, 3), null, "more than it may load");
  assert.equal(chunksFor(detail, 500, 600), null, "none");
  assert.equal(covers(detail, [0, 1], 110, 115), true);
  assert.equal(covers(detail, [1, 2], 110, 115), false);
  assert.equal(covers(detail, null, 110, 115), false);
});

test("a run of a few chunks is held whole, every window exact; a longer one loads a few chunks a window", () => {
  const run = (n) => Array.from({ length: n }, (_, k) => ({ time_range: [k * 100, k * 100 + 90] }));
  assert.equal(mostChunks(run(1)), MAX_DETAIL_CHUNKS);
  assert.equal(mostChunks(run(WHOLE_RUN_CHUNKS)), WHOLE_RUN_CHUNKS);
  assert.deepEqual(chunksFor(run(5), 0, 500, mostChunks(run(5))), [0, 4], "five chunks: the whole run, exact");
  assert.equal(mostChunks(run(WHOLE_RUN_CHUNKS + 1)), MAX_DETAIL_CHUNKS, "past it: drawn from levels when zoomed out");
  assert.ok(WHOLE_RUN_CHUNKS * 65536 < 1_000_000, "a notebook's view of a trace past a million events never loads it whole");
});

/** A long trace's lod over a model that holds nothing, drawing from twoLevels. */
function levelsOnly() {
  const levels = twoLevels();
  return { levels, exact: () => false, pixels: (lane, a, b, w) => lanePixels(pickLevel(levels, a, b, w), lane, a, b, w),
    pixelAt: (lane, a, b, w, x) => levelPixelAt(pickLevel(levels, a, b, w), lane, a, b, w, x) };
}

test("what one pixel of a lane counts in its levels: the pixels' rule, the busiest op of each bucket, and its time", () => {
  const [fine, coarse] = twoLevels().sets;
  for (let x = 0; x < 5; x++) {
    assert.equal(levelPixelAt(fine, 0, 0, 100, 5, x)?.count ?? 0, lanePixels(fine, 0, 0, 100, 5).count[x], `pixel ${x} as drawn`);
  }
  assert.deepEqual(levelPixelAt(fine, 0, 0, 100, 5, 0), { count: 3, errors: 0, notReady: 0, from: 0, to: 10, busiest: [[0, 3]] });
  assert.deepEqual(levelPixelAt(fine, 0, 0, 100, 5, 1), { count: 1, errors: 1, notReady: 0, from: 20, to: 30, busiest: [[0, 1]] });
  assert.deepEqual(levelPixelAt(fine, 1, 0, 100, 5, 2), { count: 5, errors: 0, notReady: 2, from: 40, to: 50, busiest: [[1, 5]] });
  assert.equal(levelPixelAt(fine, 0, 0, 100, 5, 3), null, "no call counted there");
  assert.deepEqual(levelPixelAt(coarse, 0, 0, 100, 10, 3), { count: 4, errors: 1, notReady: 0, from: 0, to: 50,
    busiest: [[0, 4]] }, "a bucket wider than a pixel counts at every pixel it meets");
});

test("hovering a lane drawn from its levels names the busiest op there and how many calls its buckets count", () => {
  const m = modelOf_(NODES, [[0, 5, 2, 0, 0, 0, []]]);
  const layout = rowLayout(m, { op: null, where: null }, false, { rowHeight: ROW_H, laneGap: LANE_GAP });
  const state = { window: [0, 100], width: GUTTER + 8 + 100, filter: { op: null, where: null }, hideOthers: false };
  const frame = frameOf(m, m.meta, state, levelsOnly());
  const shard = layout.y[m.nodeRow[0]] + 3, driver = layout.y[m.nodeRow[1]] + 3;
  assert.match(levelSummaryAt(frame, layout, GUTTER + 4, shard), /^sample @ shard-0\n3 calls here\n/);
  assert.match(levelSummaryAt(frame, layout, GUTTER + 25, shard), /^sample @ shard-0\n1 call here \(1 error\)\n/);
  assert.match(levelSummaryAt(frame, layout, GUTTER + 45, driver), /^train @ driver\n5 calls here \(2 calls not ready\)\n/);
  assert.equal(levelSummaryAt(frame, layout, GUTTER + 35, shard), "", "no call counted there");
  assert.equal(levelSummaryAt(frame, layout, 10, shard), "", "the gutter is the label's");
  assert.equal(levelSummaryAt(frameOf(m, m.meta, state, exactLod()), layout, GUTTER + 4, shard), "", "exact lanes: the events' tooltip");
});

test("the span track draws a lane from its levels where the model does not hold the window", () => {
  const m = modelOf_(NODES, [[0, 5, 2, 0, 0, 0, []]]);
  const layout = rowLayout(m, { op: null, where: null }, false, { rowHeight: ROW_H, laneGap: LANE_GAP });
  const state = { window: [0, 100], width: GUTTER + 8 + 100, filter: { op: null, where: null }, hideOthers: false };
  const frame = frameOf(m, m.meta, state, levelsOnly());
  const pixels = new Uint32Array(frame.plotW * layout.y[m.rows.length]);
  const drawn = rasterizeSpans(pixels, frame, layout);
  assert.deepEqual(drawn, { exact: 0, levels: 2 });
  assert.equal(levelName(drawn), "levels");
  const at = (x, y) => pixels[y * frame.plotW + x];
  const shard = Math.round(layout.y[m.nodeRow[0]]), driver = Math.round(layout.y[m.nodeRow[1]]);
  assert.equal(at(4, shard + 5), pack(rgbOf("#ff0000"), 1), "a bucket busy all its time at full strength in its busiest op's colour");
  assert.equal(at(95, shard + 5), pack(rgbOf("#ff0000"), 0.3 + 0.7 * 0.4), "a bucket busy 4 of its 10 units paler");
  assert.equal(at(25, shard + 1), pack(rgbOf("#d62728"), 1), "an error marks the lane's top");
  assert.equal(at(45, driver + 5), pack(rgbOf("#0000ff"), 1), "the driver's bucket in train's colour");
  assert.notEqual(at(45, driver + ROW_H - 2), at(45, driver + 5), "its not-ready calls grey the lower band");
  assert.equal(spanAt({ ...frame, tOf: () => 6 }, layout, GUTTER + 6, shard + 3), -1, "no event to hover there");
  const exact = rasterizeSpans(pixels, frameOf(m, m.meta, state, exactLod()), layout);
  assert.deepEqual(exact, { exact: 2, levels: 0 }, "a page without levels draws every lane from its model");
  assert.equal(spanAt({ ...frameOf(m, m.meta, state, exactLod()), tOf: () => 6 }, layout, GUTTER + 6, shard + 3), 0);
});

test("hovering a gutter label names its lane and row in full, however narrow the gutter drew it", () => {
  const m = modelOf_(NODES, [[0, 5, 2, 0, 0, 0, []]]);
  m.meta.lanes[m.rows[m.nodeRow[0]].lane].label = "RolloutWorker-1 · episodes finished and weights 1:2 · a long label";
  const layout = rowLayout(m, { op: null, where: null }, false, { rowHeight: ROW_H, laneGap: LANE_GAP });
  const frame = { model: m, meta: m.meta };
  const row = m.nodeRow[0], y = layout.y[row] + 3;
  assert.equal(gutterLabelAt(frame, layout, 10, y),
    `RolloutWorker-1 · episodes finished and weights 1:2 · a long label · ${m.rows[row].name}`);
  assert.equal(gutterLabelAt(frame, layout, GUTTER + 1, y), "", "the plot is the events' tooltip's, not the label's");
  assert.equal(gutterLabelAt(frame, layout, 10, layout.y[m.rows.length] + 50), "", "below every row");
});

/** A long trace's start meta and its detail chunks, from events [node, start, duration, outcome, kind, item, inputs] in start order. */
function longTrace(events, perChunk) {
  const detail = [], buffers = [];
  for (let first = 0; first < events.length; first += perChunk) {
    const part = events.slice(first, first + perChunk);
    const { meta, buffers: own } = payload(NODES, part);
    const ends = part.map((e) => e[1] + e[2]);
    detail.push({ first_id: first, count: part.length, time_base: 0, time_range: [part[0][1], Math.max(...ends)],
      texts: [], held_from: 0, tables: meta.tables, seq: detail.length, packed: { bytes: 0 } });
    buffers.push(own);
  }
  const { meta } = payload(NODES, []);
  return { meta: { ...meta, count: 0, long: true, span_ms: 1, unit_ns: 1000, detail, overview: { lanes: 2, levels: [] },
    chunks: [] }, buffers };
}

test("a part of the run is fed through the one decoder into one model, links across its chunks kept", () => {
  const events = [[0, 0, 5, 0, 1, 7, []], [1, 10, 5, 0, 1, 8, [0]], [0, 20, 5, 0, 1, 9, []], [1, 30, 5, 0, 1, 10, [2]]];
  const { meta, buffers } = longTrace(events, 2);
  const model = modelOf(meta, meta.detail, buffers);
  assert.equal(model.n, 4);
  assert.deepEqual([...model.start.subarray(0, 4)], [0, 10, 20, 30]);
  assert.deepEqual([...model.inputs], [0, 2], "each consumer's producer");
  const later = modelOf(meta, meta.detail.slice(1), buffers.slice(1));
  assert.equal(later.n, 2);
  assert.equal(later.droppedInputs.base, 2, "the part starts at trace position 2");
  assert.deepEqual([...later.inputs], [0], "the link inside the part, by the part's indices");
});

test("the loader: chunks the window needs, once; none when the model holds the window; the latest window wins", async () => {
  const events = Array.from({ length: 8 }, (_, k) => [k % 2, k * 10, 5, 0, 1, k, []]);
  const { meta, buffers } = longTrace(events, 2);        // chunks [0,15] [20,35] [40,55] [60,75]
  const asked = [], shown = [], gates = new Map();
  const source = { chunk(k) {
    asked.push(k);
    return new Promise((resolve) => gates.set(k, () => resolve({ chunk: meta.detail[k], buffers: buffers[k] })));
  } };
  const lod = createLod(meta, source, { onModel: (model, loaded) => shown.push([model.n, loaded]), onError: assert.fail }, 2);
  const first = lod.request([22, 30]);
  gates.get(1)();
  assert.equal(await first, true);
  assert.deepEqual(shown, [[2, [1, 1]]]);
  assert.equal(lod.exact(0, 21, 34), true);
  assert.equal(await lod.request([24, 26]), false, "the model holds it: nothing asked");
  assert.deepEqual(asked, [1]);
  const stale = lod.request([45, 50]);                 // chunk 2 ...
  const latest = lod.request([62, 70]);                // ... but the window moved to chunk 3 meanwhile
  gates.get(3)();
  gates.get(2)();
  assert.deepEqual([await stale, await latest], [false, true], "the answer for the window left is dropped");
  assert.deepEqual(shown.at(-1), [2, [3, 3]]);
  assert.equal(await lod.request([0, 75]), false, "four chunks: more than it may load, drawn from the levels");
  await lod.request([22, 30]);
  assert.equal(asked.filter((k) => k === 1).length, 1, "a chunk decoded before is kept");
});

test("a selection is a trace index: found in whichever part holds it, its chunk loaded when the window is drawn from levels", async () => {
  const events = Array.from({ length: 8 }, (_, k) => [k % 2, k * 10, 5, 0, 1, k, []]);
  const { meta, buffers } = longTrace(events, 2);        // chunks [0,15] [20,35] [40,55] [60,75]
  assert.deepEqual([chunkHolding(meta.detail, 5), chunkHolding(meta.detail, 0)], [[2, 2], [0, 0]]);
  assert.deepEqual([chunkHolding(meta.detail, -1), chunkHolding(meta.detail, 8)], [null, null], "none, or past the trace");
  const part = modelOf(meta, meta.detail.slice(1, 3), buffers.slice(1, 3));       // events 2..5
  assert.deepEqual([2, 5, 1, 6, -1].map((id) => partIndex(part, id)), [0, 3, -1, -1, -1]);
  assert.equal(part.start[partIndex(part, 5)], 50, "trace event 5 starts at 50, wherever the part begins");
  const shown = [];
  const source = { chunk: async (k) => ({ chunk: meta.detail[k], buffers: buffers[k] }) };
  const lod = createLod(meta, source, { onModel: (model, loaded) => shown.push([model, loaded]), onError: assert.fail }, 2);
  assert.equal(await lod.request([0, 75]), false, "nothing held: the whole run is drawn from its levels alone");
  lod.hold(5);
  const loading = lod.request([0, 75]);
  assert.deepEqual([lod.loading, lod.settled()], [true, false], "a load under way: not settled");
  assert.equal(await loading, true, "the selected event's chunk is loaded under the levels");
  assert.deepEqual([lod.loading, lod.settled()], [false, false], "loaded, but no levels yet: not settled");
  lod.setLevels({ lanes: 2, tracks: 0, sets: [] });
  assert.equal(lod.settled(), true, "levels in and nothing loading: the first frame may be drawn");
  assert.deepEqual(shown[0][1], [2, 2]);
  assert.equal(shown[0][0].start[partIndex(shown[0][0], 5)], 50);
  assert.equal(await lod.request([0, 70]), false, "held already: nothing loaded again");
  assert.equal(await lod.request([22, 30]), true, "a window that needs chunks of its own gets them ...");
  assert.equal(partIndex(shown.at(-1)[0], 5), -1, "... and the selection waits outside the part");
  await lod.request([0, 75]);
  assert.equal(partIndex(shown.at(-1)[0], 5), 1, "zoomed out again: it is back");
});

test("a run held whole holds its first frame until both its events and its levels are in, or something failed", async () => {
  const events = Array.from({ length: 8 }, (_, k) => [k % 2, k * 10, 5, 0, 1, k, []]);
  const { meta, buffers } = longTrace(events, 2);        // four chunks: a run held whole (mostChunks)
  const source = { chunk: async (k) => ({ chunk: meta.detail[k], buffers: buffers[k] }) };
  const lod = createLod(meta, source, { onModel: () => {}, onError: assert.fail });
  assert.deepEqual([lod.whole, lod.holding()], [true, true], "nothing in yet: no frame");
  assert.equal(await lod.request([0, 75]), true);
  assert.deepEqual([lod.loaded, lod.holding()], [[0, 3], true], "its events are in, its levels not yet");
  lod.setLevels({ lanes: 2, tracks: 0, sets: [] });
  assert.equal(lod.holding(), false, "both in: the one first frame");
  const many = createLod(meta, source, { onModel: () => {}, onError: assert.fail }, 2);
  assert.deepEqual([many.whole, many.holding()], [false, false], "a run past a few chunks draws its levels first");
  const failing = createLod(meta, { chunk: async () => { throw new Error("gone"); } }, { onModel: () => {}, onError: () => {} });
  await failing.request([0, 75]);
  assert.deepEqual([failing.failed, failing.holding()], [true, false], "a failed load draws (and says why)");
});

test("a packed chunk: deflated by the writer, inflated by the page's DecompressionStream, split into its tables", async () => {
  const events = [[0, 100, 5, 0, 1, 7, []], [1, 110, 5, 0, 1, 8, [0]], [0, 125, 5, 0, 1, 9, []]];
  const { meta, buffers } = payload(NODES, events);
  const raw = joined(buffers);
  const packed = new Uint8Array(await new Response(new Blob([raw]).stream()
    .pipeThrough(new CompressionStream("deflate"))).arrayBuffer());
  const chunk = { first_id: 0, tables: meta.tables, packed: { bytes: packed.length } };
  const unpacked = unpackChunk(chunk, await inflate(packed));
  assert.deepEqual(unpacked.map((b) => [...b]), buffers.map((b) => [...b]));
  assert.deepEqual([...decodeChunk(chunk, unpacked).start], [100, 110, 125]);
  assert.throws(() => unpackChunk(chunk, raw.subarray(0, 5)), /stop inside table/);
  assert.throws(() => unpackChunk(chunk, joined([raw, Uint8Array.of(0)])), /1 bytes past its tables/);
});

/**
 * One lane, one gauge track, two levels: 8 buckets of 10 units and 3 of 30 from 0, with a spike of 90 in
 * bucket 5 (no calls: their tables all 0).
 */
function gaugedLevels(Float = Float64Array) {
  const quiet = (n) => ({ count: Array(n).fill(0), busiest: Array(n).fill(-1), errors: Array(n).fill(0),
    notReady: Array(n).fill(0), busy: Array(n).fill(0) });
  const fine = { ...quiet(8), gaugeCount: [2, 0, 1, 0, 0, 3, 0, 1], last: [2, 0, 3, 0, 0, 4, 0, 5],
    least: [1, 0, 3, 0, 0, 3, 0, 5], greatest: [2, 0, 3, 0, 0, 90, 0, 5] };
  const coarse = { ...quiet(3), gaugeCount: [3, 3, 1], last: [3, 4, 5], least: [1, 3, 5], greatest: [3, 90, 5] };
  return levelsOf(1, [{ width: 30, start: 0, n: 3, ...coarse }, { width: 10, start: 0, n: 8, ...fine }], 1, Float);
}

test("an overview's gauge summaries: per level and track the last value, least, greatest and readings counted", () => {
  const levels = gaugedLevels();
  assert.equal(levels.tracks, 1);
  const [fine, coarse] = levels.sets;
  assert.deepEqual([...fine.gauges.greatest], [2, 0, 3, 0, 0, 90, 0, 5], "each bucket's greatest");
  const bucket = (set, k) => [set.gauges.last[k], set.gauges.least[k], set.gauges.greatest[k]];
  assert.deepEqual(bucket(fine, 5), [4, 3, 90], "bucket 5: last, least, greatest");
  assert.deepEqual([...coarse.gauges.count], [3, 3, 1]);
  assert.deepEqual(gaugeRange(levels, 0), [1, 90], "the run's range, from the coarsest level");
  assert.deepEqual(bucket(gaugedLevels(Float32Array).sets[0], 5), [4, 3, 90], "whole counts as float32");
  assert.equal(gaugeRange(levels, 1), null, "no such track");
  const { overview, bytes } = overviewOf(1, [{ width: 10, start: 0, n: 1, count: [0], busiest: [-1], errors: [0],
    notReady: [0], busy: [0], gaugeCount: [1], last: [1], least: [1], greatest: [1] }], 1);
  assert.throws(() => levelsFromOverview({ ...overview, gauges: 2 }, bytes), /has 1 rows where 1 lanes and 2 gauge tracks/);
});

test("a gauge track's summaries as pixels: the value in force, each pixel's last, and its range so a spike shows", () => {
  const [fine, coarse] = gaugedLevels().sets;
  const narrow = gaugePixels(fine, 0, 0, 80, 4);                 // 20 units a pixel: two buckets each
  assert.deepEqual([...narrow.count], [2, 1, 3, 1]);
  assert.deepEqual([...narrow.last], [2, 3, 4, 5]);
  assert.deepEqual([...narrow.high], [2, 3, 90, 5], "the spike is the third pixel's greatest");
  assert.deepEqual([...narrow.low], [1, 3, 3, 5]);
  assert.ok(Number.isNaN(narrow.before), "nothing before the run");
  const inside = gaugePixels(fine, 0, 30, 50, 2);              // 10 units a pixel: buckets 3 and 4, both empty
  assert.equal(inside.before, 3, "the value in force at the window's start: the last before it");
  assert.deepEqual([...inside.count], [0, 0]);
  const wide = gaugePixels(coarse, 0, 30, 60, 3);              // a 30-unit bucket over three pixels
  assert.deepEqual([...wide.high], [90, 90, 90], "its range over every pixel it meets");
  assert.deepEqual([...wide.last].map((v) => (Number.isNaN(v) ? null : v)), [null, null, 4], "its last where it ends");
  assert.equal(wide.before, 3);
});

test("hovering a summary reads the bucket there, or the latest before it with a reading", () => {
  const [fine] = gaugedLevels().sets;
  assert.deepEqual(gaugeBucketAt(fine, 0, 55), { from: 50, to: 60, count: 3, last: 4, low: 3, high: 90 });
  assert.deepEqual(gaugeBucketAt(fine, 0, 45), { from: 20, to: 30, count: 1, last: 3, low: 3, high: 3 }, "an empty bucket: the latest before");
  assert.deepEqual(gaugeBucketAt(fine, 0, 999).from, 70, "past the run: its last bucket");
  const empty = { ...fine, gauges: { ...fine.gauges, count: new Uint32Array(8) } };
  assert.equal(gaugeBucketAt(empty, 0, 55), null);
});

test("a chunk reaches on to the next one's start: a window in the quiet time between them loads the chunk before", () => {
  const detail = [[0, 100], [300, 400], [350, 500]].map((time_range) => ({ time_range }));
  assert.deepEqual(chunksFor(detail, 150, 200), [0, 0], "its gauge readings run up to the next chunk");
  assert.deepEqual(chunksFor(detail, 150, 320), [0, 1]);
  assert.equal(covers(detail, [0, 0], 150, 200), true);
  assert.equal(chunksFor(detail, 600, 700), null, "past the last chunk: none");
});
