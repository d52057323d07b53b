// Unit tests of the marks of events dropped past a recorder's capacity (panes/gaps.js): where a gap's
// box lies over its lane, and what its title says. tests/viz/test_gap_marks_browser.py draws them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { gapBoxes, gapTitle } from "../../rlviz/viz/static/panes/gaps.js";

const GUTTER = 190;

test("a gap is a box over its lane's rows from where the dropped events began to where they ended", () => {
  const gaps = [{ where: "shard-0", from: 100, to: 300, dropped: 3072 }];
  const spans = [[4, 30], [37, 80]];
  const [box] = gapBoxes(gaps, ["driver", "shard-0"], (k) => spans[k], [0, 1000], 500, 90);
  assert.deepEqual(box, { gap: gaps[0], left: GUTTER + 50, width: 100, top: 37, height: 43 });
  const [clipped] = gapBoxes(gaps, ["driver", "shard-0"], (k) => spans[k], [200, 1200], 500, 90);
  assert.equal(clipped.left, GUTTER);
  assert.equal(clipped.width, 50, "cut at the window's left edge");
  assert.deepEqual(gapBoxes(gaps, ["driver", "shard-0"], (k) => spans[k], [400, 900], 500, 90), [], "outside the window");
  assert.deepEqual(gapBoxes(gaps, ["driver", "shard-0"], () => undefined, [0, 1000], 500, 90), [], "its lane is hidden");
  const [thin] = gapBoxes([{ ...gaps[0], to: 100 }], ["driver", "shard-0"], (k) => spans[k], [0, 1e6], 500, 90);
  assert.equal(thin.width, 3, "a gap thinner than a pixel still shows");
  const [noRows] = gapBoxes([{ ...gaps[0], where: "shard-9" }], ["driver", "shard-0"], (k) => spans[k], [0, 1000], 500, 90);
  assert.deepEqual([noRows.top, noRows.height], [0, 90], "a lane with no rows left: the gap spans every lane");
});

test("a gap's title says how many events were dropped there, when, and what to do", () => {
  const text = gapTitle({ where: "driver", from: 1_000_000, to: 3_500_000, dropped: 3072 }, 0.001);
  assert.equal(text, "3,072 events of driver dropped here, between 0:00:01.000000 and 0:00:03.500000 (2.50 s): "
    + "its bounded buffer evicted its oldest events past its capacity. Raise rlviz.record(capacity=...) to keep them.");
});
