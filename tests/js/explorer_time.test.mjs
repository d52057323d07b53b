// Unit tests of the time axis read at any zoom (explorer_time.js): tick steps from the visible span,
// clock labels from hours down to µs after an anchor, starts and durations in the unit that fits.
// tests/viz/test_time_axis.py runs the same cases through rlviz.viz.timeaxis, the matplotlib side.
import assert from "node:assert/strict";
import { test } from "node:test";

import { clockText, durationText, rulerTicks, startText, timeStep } from "../../rlviz/viz/static/explorer_time.js";

const HOUR = 3_600_000;
const labels = (ruler) => ruler.ticks.map((t) => t.label);

test("steps are 1, 2, 5 times a power of ten below a second and divide minutes and hours above", () => {
  assert.equal(timeStep(3 * HOUR, 10), 30 * 60_000);
  assert.equal(timeStep(40_000, 10), 5_000);
  assert.equal(timeStep(140_000, 10), 15_000);
  assert.equal(timeStep(17.6, 10), 2);
  assert.equal(timeStep(0.04, 8), 0.005);
  assert.equal(timeStep(0.004, 8), 0.001, "a microsecond is the finest step");
  assert.equal(timeStep(300 * 24 * HOUR, 10), 50 * 24 * HOUR);
});

test("a 3-hour window reads h:mm:ss, not millions of ms", () => {
  const ruler = rulerTicks(0, 3 * HOUR, 900);
  assert.equal(ruler.caption, "time since start (h:mm:ss)");
  assert.deepEqual(labels(ruler), ["0:00:00", "0:30:00", "1:00:00", "1:30:00", "2:00:00", "2:30:00", "3:00:00"]);
});

test("narrower windows read m:ss.s, then milliseconds, then µs after the anchor the caption states", () => {
  const tenths = rulerTicks(65_000, 65_800, 900);
  assert.equal(tenths.caption, "time since start (m:ss.s)");
  assert.equal(labels(tenths)[1], "1:05.1");
  const hundredths = rulerTicks(2 * HOUR, 2 * HOUR + 250, 900);
  assert.equal(hundredths.caption, "time since start (h:mm:ss.ss)");
  assert.equal(labels(hundredths)[1], "2:00:00.05");
  const ms = rulerTicks(2 * HOUR, 2 * HOUR + 40, 900);
  assert.equal(ms.caption, "time since start (h:mm:ss.sss)");
  assert.equal(labels(ms)[1], "2:00:00.005");
  const micro = rulerTicks(3 * HOUR - 0.3, 3 * HOUR + 0.3, 900);
  assert.equal(micro.caption, "from 2:59:59.999");
  assert.deepEqual(labels(micro), ["+700 µs", "+800 µs", "+900 µs", "+1,000 µs", "+1,100 µs", "+1,200 µs", "+1,300 µs"]);
  assert.ok(labels(rulerTicks(0, 0.008, 900)).every((l) => /^\+\d+ µs$/.test(l)));
});

test("clock, start and duration texts", () => {
  assert.equal(clockText(3_723_500, 1), "1:02:03.5");
  assert.equal(clockText(65_250, 3), "1:05.250");
  assert.equal(clockText(-5_000), "-0:05");
  assert.equal(startText(10_800_000.0123), "3:00:00.000012");
  assert.deepEqual([0.00085, 0.0123, 4.567, 12_340, 125_000, 10_920_000].map(durationText),
    ["850 ns", "12.3 µs", "4.57 ms", "12.3 s", "2 min 5.0 s", "3 h 02 min"]);
});
