// Unit tests of the Explorer's pieces that draw without a page: the timeline's tracks (the
// span track's pixels, stacking, a plugged-in track's hits), the window actions, the standalone
// file's base85 text and narrow columns.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { clampWindow, selectionWindow } from "../../rlviz/viz/static/explorer_actions.js";
import { rowLayout } from "../../rlviz/viz/static/explorer_core.js";
import { GREY, GUTTER, LANE_GAP, ROW_H, pack, rgbOf } from "../../rlviz/viz/static/explorer_dom.js";
import { createStore } from "../../rlviz/viz/static/explorer_store.js";
import { createSpanTrack, rasterizeSpans, spanAt } from "../../rlviz/viz/static/panes/spans.js";
import {
  TRACKS, canvasTracks, drawTracks, frameOf, lanePlaces, laneRoom, makeTracks, stackTracks, trackHit,
} from "../../rlviz/viz/static/panes/timeline.js";
import { exactLod, model as modelOf } from "./fixtures.mjs";

const NODES = [{ op: "sample", where: "shard-0", color: "#ff0000" }, { op: "train", where: "driver", color: "#0000ff" }];

/** A model from events [node, start, duration, outcome, inputs]. */
function model(events) {
  return modelOf(NODES, events.map(([node, start, duration, outcome, inputs = []]) => [node, start, duration, outcome, 0, 0, inputs]));
}

function state(extra = {}) {
  return { window: [0, 100], width: GUTTER + 8 + 100, filter: { op: null, where: null }, hideOthers: false, selected: -1,
    hover: -1, matches: null, data: 0, ...extra };
}

const layoutOf = (m) => rowLayout(m, { op: null, where: null }, false, { rowHeight: ROW_H, laneGap: LANE_GAP });

test("the span track's pixels: an item fills its row's whole height, a not-ready poll only the lower band", () => {
  const m = model([[0, 10, 20, 0], [1, 50, 10, 1]]);         // sample: an item at 10..30; train: a poll at 50..60
  const frame = frameOf(m, m.meta, state(), exactLod());
  assert.equal(frame.plotW, 100, "one pixel per time unit");
  const layout = layoutOf(m);
  const height = layout.y[m.rows.length];
  const pixels = new Uint32Array(frame.plotW * height);
  rasterizeSpans(pixels, frame, layout);
  const at = (x, y) => pixels[y * frame.plotW + x];
  const sample = layout.y[m.nodeRow[0]], train = layout.y[m.nodeRow[1]];
  const red = pack(rgbOf("#ff0000"), 1), grey = pack(GREY, 1);
  assert.equal(at(15, Math.round(sample) + 2), red, "the item's upper band");
  assert.equal(at(15, Math.round(sample) + ROW_H - 2), red, "and its lower band");
  assert.equal(at(35, Math.round(sample) + 2), 0, "nothing after its end");
  assert.equal(at(55, Math.round(train) + 2), 0, "a poll leaves the upper band empty");
  assert.equal(at(55, Math.round(train) + ROW_H - 2), grey, "and fills the lower one");
});

const SPANS = TRACKS.find((entry) => entry.room === "rows");

test("a track plugs in with one entry: a band is stacked under the spans, drawn at its top and hit in its own coordinates", () => {
  const m = model([[0, 10, 20, 0], [1, 50, 10, 0]]);
  const store = createStore(state());
  const view = { model: m, meta: m.meta, store };
  const hits = [];
  const line = { name: "line", room: "band", create: () => ({ height: () => 40,
    draw: (ctx) => ctx.calls.push(["line", ctx.dy]), hit: (frame, x, y) => { hits.push([x, y]); return 7; } }) };
  const tracks = canvasTracks(makeTracks([SPANS, line], view, { newCanvas: () => null }));
  const frame = frameOf(m, m.meta, store.get(), exactLod());
  const [tops, height] = stackTracks(tracks, frame);
  const spans = layoutOf(m).y[m.rows.length];
  assert.deepEqual(tops, [0, spans]);
  assert.equal(height, spans + 40);
  assert.equal(trackHit(tracks, frame, GUTTER + 55, spans + 12), 7);
  assert.deepEqual(hits, [[GUTTER + 55, 12]], "the line track is asked with y from its own top");
  assert.equal(trackHit(tracks, frame, GUTTER + 55, spans + 45), -1, "below every track");
  const trainY = layoutOf(m).y[m.nodeRow[1]];
  assert.equal(trackHit(tracks, frame, GUTTER + 55, trainY + 3), 1, "the span track finds train's call");
  const ctx = { calls: [], dy: 0, save() {}, restore() { this.dy = 0; }, translate(_, dy) { this.dy += dy; } };
  drawTracks(ctx, [tracks[1]], frame);
  assert.deepEqual(ctx.calls, [["line", 0]]);
});

test("the span track keeps its row layout until the rows shown change", () => {
  const m = model([[0, 10, 20, 0], [1, 50, 10, 0]]);
  const store = createStore(state());
  const track = createSpanTrack({ model: m, meta: m.meta, store }, { newCanvas: () => null });
  const frame = frameOf(m, m.meta, store.get(), exactLod());
  const full = track.height(frame);
  store.set({ filter: { op: "train", where: null }, hideOthers: true });
  assert.equal(track.height(frame), full, "no change reported yet: the layout is kept");
  track.update(new Set(["hideOthers"]), store.get());
  assert.equal(track.height(frame), full - ROW_H - LANE_GAP, "one row (and its lane gap) fewer");
  assert.equal(track.shows(0), false);
  assert.equal(spanAt(frame, layoutOf(m), GUTTER - 1, 5), -1, "the gutter hits nothing");
});

test("the registry lays tracks out from their declared room: an under-lane track's room moves the lanes below it", () => {
  const m = model([[0, 10, 20, 0], [1, 50, 10, 0]]);       // lane 0: shard-0 (sample), lane 1: driver (train)
  const store = createStore(state());
  const view = { model: m, meta: m.meta, store };
  const placed = [];
  const under = { name: "under", room: "under-lane", create: () => ({ element: null, laneRoom: () => [25, 0],
    draw: (frame, lanes) => placed.push([lanes.end(0), lanes.span(1), lanes.height]), destroy() {} }) };
  const tracks = makeTracks([SPANS, under], view, { newCanvas: () => null });
  const frame = frameOf(m, m.meta, store.get(), exactLod(), laneRoom(tracks, frame0(m, store)));
  const rows = tracks[0], bare = layoutOf(m);
  const lane0 = m.rows.findIndex((row) => row.lane === 0), lane1 = m.rows.findIndex((row) => row.lane === 1);
  assert.deepEqual(laneRoom(tracks, frame), [25, 0]);
  assert.equal(rows.height(frame), bare.y[m.rows.length] + 25, "the rows leave the room declared");
  assert.ok(lane0 < lane1, "shard-0's rows come first");
  tracks[1].draw(frame, lanePlaces(rows, frame));
  assert.deepEqual(placed, [[bare.laneEnd.get(0), [bare.y[lane1] + 25, bare.laneEnd.get(1) + 25], bare.y[m.rows.length] + 25]],
    "lane 0's room starts where its rows end; lane 1's rows moved down by it");
  assert.throws(() => makeTracks([under], view, {}), /exactly one track whose room is "rows"/);
  assert.throws(() => makeTracks([SPANS, { ...under, room: "sideways" }], view, {}), /room "sideways" is not one of/);
});

/** A frame of `store`'s state with no lane room (what laneRoom's under-lane tracks are asked with). */
function frame0(m, store) {
  return frameOf(m, m.meta, store.get(), exactLod());
}

test("a window is kept to at least 10 ns and within half the trace beyond each end", () => {
  assert.deepEqual(clampWindow([40, 40], [0, 100], 1), [35, 45]);
  assert.deepEqual(clampWindow([-500, 500], [0, 100], 1), [-50, 150]);
  assert.deepEqual(clampWindow([-90, -70], [0, 100], 1), [-50, -30]);
  const m = model([[0, 10, 5, 0], [1, 40, 10, 0, [0]]]);
  assert.deepEqual(selectionWindow(m, 1, 1000), [10 - 6, 50 + 6], "the producer's start to the end, 15% around");
});

test("the standalone file's base85 text reads back as the bytes Python embedded (a short last group too)", async () => {
  const { base85Bytes } = await import("../../rlviz/viz/static/explorer.js");
  // rlviz.viz.explorer_html.encode_blob(bytes([*range(13), 255, 254, 60, 60, 60, 60]))
  assert.deepEqual(Array.from(base85Bytes("009C61O)~M2nh-c4FCQ-JUl!")),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 255, 254, 60, 60, 60, 60]);
  assert.deepEqual(Array.from(base85Bytes("0sZj.")), [1, 253, 241, 3], "\".\" stands for \"<\"");
  assert.deepEqual(Array.from(base85Bytes("")), []);
  assert.throws(() => base85Bytes("ab<cd"), /not base85/);
});

test("columns stay narrow until a value needs more: times past uint32 and float items widen to doubles", async () => {
  const { wideEnough } = await import("../../rlviz/viz/static/explorer_live.js");
  const starts = Uint32Array.from([1, 2, 3, 0]);
  assert.equal(wideEnough(starts, Uint32Array.from([5]), 1000, 3), starts, "fits: the same column");
  const wide = wideEnough(starts, Uint32Array.from([5]), 2 ** 32, 3);
  assert.ok(wide instanceof Float64Array);
  assert.deepEqual(Array.from(wide), [1, 2, 3, 0]);
  assert.ok(wideEnough(new Int32Array(4), Float64Array.from([0.5]), 0, 0) instanceof Float64Array);
  assert.ok(wideEnough(new Uint16Array(4), Uint32Array.from([70_000]), 0, 0) instanceof Uint32Array);
  assert.ok(wideEnough(new Uint16Array(4), Uint32Array.from([7]), 0, 0) instanceof Uint16Array);
});
