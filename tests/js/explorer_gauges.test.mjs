// Unit tests of the gauges a page holds and of one gauge track's drawing, free of the DOM: readings
// merged in time order from interleaved chunks, the step line over a window, the hover text, and
// a not-ready call's cause. Run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { appendGauges, causeOf, createGauges, readingAt, trimGauges, withCause } from "../../rlviz/viz/static/explorer_gauges.js";
import { formatValue, hoverText, orderedTracks, summaryPoints, summaryText, trackPoints } from "../../rlviz/viz/static/panes/gauges.js";

function held(readings) {
  const gauges = createGauges();
  appendGauges(gauges, { gauge_tracks: [["rows", "driver"], ["weights version", "RolloutWorker-1"]] }, {
    gauge_track: Uint32Array.from(readings.map((r) => r[0])), gauge_time: Float64Array.from(readings.map((r) => r[1])),
    gauge_value: Float64Array.from(readings.map((r) => r[2])) });
  return gauges;
}

test("readings from several processes arrive interleaved and are held in time order, per track", () => {
  const gauges = held([[0, 10, 1], [1, 5, 7], [0, 30, 3], [0, 20, 2]]);
  assert.deepEqual(gauges.tracks[0].time, [10, 20, 30]);
  assert.deepEqual(gauges.tracks[0].value, [1, 2, 3]);
  assert.deepEqual(gauges.tracks[1].value, [7]);
  appendGauges(gauges, {}, { gauge_track: Uint32Array.of(0), gauge_time: Float64Array.of(15), gauge_value: Float64Array.of(9) });
  assert.deepEqual(gauges.tracks[0].value, [1, 9, 2, 3], "a late reading lands in its place");
  assert.equal(readingAt(gauges.tracks[0], 14.9), 0);
  assert.equal(readingAt(gauges.tracks[0], 9), -1);
  appendGauges(gauges, {}, { gauge_track: Uint32Array.of(2, 0), gauge_time: Float64Array.of(40, 40),
    gauge_value: Float64Array.of(5, 4), gauge_before_track: Uint32Array.of(3), gauge_before_time: Float64Array.of(1),
    gauge_before_value: Float64Array.of(1) });
  assert.equal(gauges.tracks.length, 2, "a track the data does not list yet is left out (its next model has it)");
  assert.deepEqual(gauges.tracks[0].value, [1, 9, 2, 3, 4], "the readings of the tracks it holds are kept");
});

test("a track is a step line: each value holds until the next reading, to the window's right edge", () => {
  const track = held([[0, 10, 0], [0, 20, 10]]).tracks[0];
  const { xs, ys, lo, hi } = trackPoints(track, 0, 40, 400, 30);
  assert.deepEqual([lo, hi], [0, 10]);
  assert.deepEqual(xs, [100, 200, 200, 400]);
  assert.deepEqual(ys, [27, 27, 3, 3]);
  const later = trackPoints(track, 25, 45, 200, 30);
  assert.deepEqual(later.xs, [0, 200], "a window after the last reading shows the value it left");
  assert.deepEqual(trackPoints(track, 0, 5, 100, 30).xs, [], "nothing before the first reading");
});

test("hovering says the value at that time, and tracks go in lane order", () => {
  const gauges = held([[0, 10, 812], [0, 20, 1218.5], [1, 5, 3]]);
  assert.equal(hoverText(gauges.tracks[0], 15, 0.001), "rows @ driver: 812 (since 0:00:00.000010)");
  assert.equal(hoverText(gauges.tracks[0], 5, 0.001), "rows @ driver: no reading yet");
  assert.equal(formatValue(1218.5), "1219");
  assert.equal(formatValue(4000), "4,000");
  assert.deepEqual(orderedTracks(gauges.tracks, ["driver", "RolloutWorker-1"]).map((t) => t.where), ["driver", "RolloutWorker-1"]);
  assert.deepEqual(orderedTracks(gauges.tracks, ["RolloutWorker-1", "driver"]).map((t) => t.where), ["RolloutWorker-1", "driver"]);
});

test("a not-ready call's cause is read from the gauges its lane recorded during the call", () => {
  const gauges = createGauges();
  appendGauges(gauges, { gauge_tracks: [["replay rows added", "driver"], ["learning_starts", "driver"]] }, {
    gauge_track: Uint32Array.of(0, 1, 0, 1), gauge_time: Float64Array.of(2, 2, 12, 12), gauge_value: Float64Array.of(812, 1000, 1218, 1000) });
  // event 4 (an item) consumed event 3's value (recorded during 12's readings) and dropped it
  const model = { nodes: [{ where: "driver" }, { where: "shard-0" }], node: [0, 0, 1, 0, 0], flags: [1, 1, 1, 0, 0],
    start: [1, 5, 11, 11, 14], duration: [2, 2, 2, 2, 1], inOffsets: [0, 0, 0, 0, 0, 1], inputs: [3],
    droppedInputs: { base: 0, links: new Map([[4, new Set([3])]]) } };
  assert.deepEqual(causeOf(gauges, model, 0),
    { text: "replay buffer has 812 of the 1,000 rows learning_starts needs", notReady: true });
  assert.equal(causeOf(gauges, model, 1), null, "nothing was recorded during the call");
  assert.equal(causeOf(gauges, model, 2), null, "another lane's readings are not its cause");
  assert.equal(causeOf(gauges, model, 3), null, "an item has no cause of its own");
  assert.deepEqual(causeOf(gauges, model, 4),
    { text: "dropped an input: replay buffer has 1,218 of the 1,000 rows learning_starts needs", notReady: false });
  assert.equal(withCause(null, "dropped an input: x", false), "dropped an input: x");
  assert.equal(withCause("round 2: Replay not ready: its turn ends", "x"), "round 2: Replay not ready: its turn ends (x)");
  assert.equal(withCause(null, "x"), "not ready: x");
  assert.equal(withCause(null, null), null);
});

test("trimming the front lets old readings go but keeps the one in force where the held events begin", () => {
  const gauges = held([[0, 10, 1], [0, 20, 2], [0, 30, 3], [1, 5, 7]]);
  assert.equal(trimGauges(gauges, 25), 1);
  assert.deepEqual(gauges.tracks[0].time, [20, 30], "20 is the value held at 25");
  assert.deepEqual(gauges.tracks[1].value, [7], "a track's only reading stays");
  assert.equal(trimGauges(gauges, 25), 0);
});

test("a long trace's tracks open at once; a part of its chunks takes the reading in force only where it holds none", () => {
  const gauges = createGauges([["rows", "driver"], ["weights version", "RolloutWorker-1"]]);
  assert.deepEqual(gauges.tracks.map((t) => [t.name, t.where, t.time.length]), [["rows", "driver", 0], ["weights version", "RolloutWorker-1", 0]]);
  const before = (track, time, value) => ({ gauge_before_track: Uint32Array.from(track),
    gauge_before_time: Float64Array.from(time), gauge_before_value: Float64Array.from(value) });
  appendGauges(gauges, {}, { ...before([0, 1], [5, 2], [50, 3]), gauge_track: Uint32Array.of(0),
    gauge_time: Float64Array.of(12), gauge_value: Float64Array.of(60) });
  assert.deepEqual(gauges.tracks[0].value, [50, 60], "the first chunk loaded brings each track's value in force");
  assert.deepEqual(gauges.tracks[1].time, [2]);
  appendGauges(gauges, {}, { ...before([0, 1], [12, 2], [60, 3]) });
  assert.deepEqual(gauges.tracks[0].value, [50, 60], "the next chunk's is a reading held already: not taken twice");
  assert.deepEqual(gauges.tracks[1].value, [3]);
});

test("a track drawn from its summaries: the value in force, a step to each pixel's last value, a bar over its range", () => {
  const nan = NaN;
  const pixels = { count: Uint32Array.of(0, 2, 0, 1), low: Float64Array.of(nan, 0, nan, 10), high: Float64Array.of(nan, 10, nan, 10),
    last: Float64Array.of(nan, 5, nan, 10), before: 0 };
  const { xs, ys, bars } = summaryPoints(pixels, [0, 10], 4, 30);
  assert.deepEqual(xs, [0, 2, 2, 4, 4, 4]);
  assert.deepEqual(ys, [27, 27, 15, 15, 3, 3]);
  assert.deepEqual(bars, [[1, 3, 27]], "a spike to 10 in pixel 1 shows, though its last is 5; pixel 3's one value lies under the line");
  const none = summaryPoints({ ...pixels, before: NaN }, [0, 10], 4, 30);
  assert.deepEqual(none.xs.slice(0, 1), [2], "no value in force before the first reading: the line starts there");
});

test("hovering a summary says it is one, of how many readings, over what time", () => {
  const track = { name: "rows", where: "driver" };
  assert.equal(summaryText(track, { from: 0, to: 537, count: 1200, last: 5, low: 1, high: 1000 }, 1),
    "rows @ driver: last 5, min 1, max 1,000 (a summary of 1,200 readings, 0:00:00.000000 to 0:00:00.537000)");
  assert.equal(summaryText(track, null, 1), "rows @ driver: no reading yet");
});
