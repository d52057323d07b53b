// Small helpers of explorer_dom.js: text cut to fit a width, busy times formatted, performance measures bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MEASURES_KEPT, fitText, formatBusy, measure } from "../../rlviz/viz/static/explorer_dom.js";

/** A context whose font draws every character 6 px wide, counting its measurements. */
function fakeContext(font = "10px test") {
  const ctx = { font, measured: 0, measureText(text) { ctx.measured++; return { width: 6 * [...text].length }; } };
  return ctx;
}

test("fitText keeps a text that fits and cuts one that does not to the longest start that fits with an ellipsis", () => {
  const ctx = fakeContext();
  assert.equal(fitText(ctx, "short", 60), "short");
  assert.equal(fitText(ctx, "a rather long lane name", 60), "a rather …");    // 9 characters + … = 60 px
  assert.equal(fitText(ctx, "wide", 5), "w…");                                   // never less than one character
});

test("fitText measures a label once per font and width, not at every frame", () => {
  const ctx = fakeContext("11px once");
  fitText(ctx, "driver · gathers in flight (shard-0)", 80);
  const first = ctx.measured;
  assert.ok(first > 0 && first <= 8, `a binary search measures a few times, not once per character (${first})`);
  for (let frame = 0; frame < 100; frame++) fitText(ctx, "driver · gathers in flight (shard-0)", 80);
  assert.equal(ctx.measured, first);
  ctx.font = "12px other";
  fitText(ctx, "driver · gathers in flight (shard-0)", 80);
  assert.ok(ctx.measured > first, "another font is measured again");
});

test("formatBusy writes whole milliseconds with thousands separators from 1 s, three digits below", () => {
  assert.equal(formatBusy(1234567.4), "1,234,567");
  assert.equal(formatBusy(999.44), "999");
  assert.equal(formatBusy(1.23456), "1.23");
});

test("a page keeps at most MEASURES_KEPT measures of a name: past it they are cleared and kept again", () => {
  const name = "rlviz:test-measure";
  for (let k = 0; k < MEASURES_KEPT; k++) measure(name, performance.now());
  assert.equal(performance.getEntriesByName(name, "measure").length, MEASURES_KEPT, "all kept up to the bound");
  measure(name, performance.now(), { last: true });
  const kept = performance.getEntriesByName(name, "measure");
  assert.equal(kept.length, 1, "the bound passed: the old ones cleared, the newest kept");
  assert.deepEqual(kept[0].detail, { last: true });
  measure("rlviz:other-measure", performance.now());
  assert.equal(performance.getEntriesByName("rlviz:other-measure", "measure").length, 1, "other names untouched");
  performance.clearMeasures(name);
  performance.clearMeasures("rlviz:other-measure");
});
