// Unit tests of what links two runs on a diff page (rlviz.diff): which event of the other run stands
// for a selected one, the windows that bring both runs to their first divergence, where its mark
// is drawn, and what the diff bar says. Run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  alignmentText, counterpart, divergenceText, divergenceView, matchingNode,
} from "../../rlviz/viz/static/explorer_diff.js";
import { GUTTER } from "../../rlviz/viz/static/explorer_dom.js";
import { markerLeft } from "../../rlviz/viz/static/panes/divergence.js";
import { frameOf } from "../../rlviz/viz/static/panes/timeline.js";
import { exactLod, model as modelOf } from "./fixtures.mjs";

/** A model from plain events [node, start, duration]: every call made an item. */
function model(nodes, events) {
  return modelOf(nodes, events.map(([node, start, duration]) => [node, start, duration, 0, 0, 0, []]));
}

const A_NODES = [{ op: "sample", where: "worker-1" }, { op: "store", where: "driver" }, { op: "train", where: "driver" }];
const B_NODES = [{ op: "train", where: "driver" }, { op: "store", where: "driver" }, { op: "sample", where: "worker-2" },
  { op: "report", where: "driver" }];

test("matchingNode takes the same op on the same lane, else the same op anywhere, else none", () => {
  assert.equal(matchingNode(A_NODES, 1, B_NODES), 1);                 // store @ driver
  assert.equal(matchingNode(A_NODES, 2, B_NODES), 0);                 // train @ driver, listed first there
  assert.equal(matchingNode(A_NODES, 0, B_NODES), 2);                 // sample: on another worker
  assert.equal(matchingNode(B_NODES, 3, A_NODES), -1);                // report: not in the first run
  const twice = [{ op: "f", where: "driver" }, { op: "f", where: "driver" }];
  assert.equal(matchingNode(twice, 1, twice), 1, "the second of two like nodes stands for the second");
  assert.equal(matchingNode(twice, 1, twice.slice(0, 1)), 0, "else for the last there is");
});

test("counterpart: the k-th call of a node stands for the k-th call of the matching node, or its last", () => {
  // A: store calls start at 10, 30, 50 (listed out of start order); B: store calls at 5, 25
  const a = model(A_NODES, [[1, 50, 2], [1, 10, 2], [2, 12, 3], [1, 30, 2], [0, 0, 5]]);
  const b = model(B_NODES, [[0, 7, 3], [1, 5, 2], [1, 25, 2], [3, 40, 1]]);
  assert.equal(counterpart(a, 1, b), 1, "A's first store call (start 10) -> B's first (start 5)");
  assert.equal(counterpart(a, 3, b), 2, "A's second (start 30) -> B's second (start 25)");
  assert.equal(counterpart(a, 0, b), 2, "A's third: B has two, so its last");
  assert.equal(counterpart(a, 2, b), 0, "train -> train");
  assert.equal(counterpart(a, 4, b), -1, "B ran no sample call at all");
  assert.equal(counterpart(b, 3, a), -1, "report is not an op of A");
  assert.equal(counterpart(a, -1, b), -1, "no selection stays none");
  // a long trace's part: B's chunks from trace index 100 on; indices in and out are trace indices
  const part = { ...b, droppedInputs: { ...b.droppedInputs, base: 100 } };
  assert.equal(counterpart(a, 3, part), 102, "A's second store call -> the part's second, as a trace index");
  assert.equal(counterpart(part, 101, a), 1, "the part's first store call (trace index 101) -> A's first");
  assert.equal(counterpart(part, 1, a), -1, "a trace index before the part: not in it, no counterpart");
});

test("divergenceView: one width for both runs, each centred on its own time, and the offset between them", () => {
  const view = divergenceView([120, 150], [2, 6], [1000, 400]);
  assert.equal(view.offsetMs, 30);
  assert.deepEqual(view.windows, [[112, 128], [142, 158]], "4% of the shorter span (16 ms) beats the calls' 2 and 6 ms");
  const wide = divergenceView([120, 150], [40, 6], [1000, 400]);
  assert.deepEqual(wide.windows, [[100, 140], [130, 170]], "the divergence call and its links fit");
});

test("markerLeft: the x of a time in the plot, null outside it", () => {
  const frame = frameOf(null, null, { width: GUTTER + 8 + 400, window: [100, 200] }, exactLod());
  assert.equal(markerLeft(frame, 150), GUTTER + 200);
  assert.equal(markerLeft(frame, 100), GUTTER);
  assert.equal(markerLeft(frame, 99), null);
  assert.equal(markerLeft(frame, 201), null);
});

test("the diff bar names the item where the runs part and how they are linked", () => {
  const runs = [{ name: "before", divergence: { index: 6, op: "store" } }, { name: "after", divergence: { index: 6, op: "train" } }];
  assert.equal(divergenceText(runs), "The op order diverges at item 6: before made store, after made train.");
  assert.match(divergenceText([{ name: "a", divergence: null }, { name: "b", divergence: null }]), /same op order/);
  assert.equal(alignmentText(runs, 0), "Zoom, pan and selection are linked, in ms since each run's start.");
  assert.match(alignmentText(runs, -2.5), /after shifted by −2\.500 ms/);
});
