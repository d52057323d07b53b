// Unit tests of what a live view shows after an advance: the round's text, the window that brings it
// into view, the band over it, and which of the user's changes stop the view following the run.
// Run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { advanceStretch, roundText, roundWindow } from "../../rlviz/viz/static/panes/livebar.js";
import { bandPlace, frameOf } from "../../rlviz/viz/static/panes/timeline.js";
import { GUTTER, ICONS } from "../../rlviz/viz/static/explorer_dom.js";
import { exactLod } from "./fixtures.mjs";

test("the round's text names the round and each driver op's calls, in the order they ran", () => {
  const advanced = { round: 8, ran: [["StoreToReplayBuffer", "item", 1], ["TrainOneStep", "item", 1]] };
  assert.equal(roundText(advanced), "round 8: StoreToReplayBuffer ×1, TrainOneStep ×1");
  assert.equal(roundText({ round: 3, ran: [["ParallelRollouts", "item", 2], ["Replay", "not_ready", 1]] }),
    "round 3: ParallelRollouts ×2, Replay not ready");
  assert.equal(roundText({ round: 1200, ran: [["Replay", "not_ready", 2], ["Train", "error", 1]] }),
    "round 1,200: Replay not ready ×2, Train failed");
  assert.equal(roundText({ round: null, ran: [["for_each", "item", 1]] }), "advanced: for_each ×1");
  const dqn = { round: 3, ran: [["source", "item", 1], ["ParallelRollouts", "item", 1], ["StoreToReplayBuffer", "item", 1],
    ["tag[0]", "item", 1], ["Replay", "not_ready", 1], ["TrainOneStep", "not_ready", 1], ["tag[1]", "not_ready", 1]] };
  assert.equal(roundText(dqn), "round 3: ParallelRollouts ×1, StoreToReplayBuffer ×1, Replay not ready",
    "RLlib's ops, and only the call that was not ready first");
  assert.equal(roundText(dqn, true), "round 3: source ×1, ParallelRollouts ×1, StoreToReplayBuffer ×1, tag[0] ×1, "
    + "Replay not ready, TrainOneStep not ready, tag[1] not ready");
  assert.equal(roundText({ round: 2, ran: [] }), "round 2: no driver call");
  assert.equal(roundText(null), "");
  assert.equal(roundText(undefined), "");
});

test("after an advance the window holds the round with a margin, inside what was recorded", () => {
  assert.deepEqual(roundWindow(800, 1000, [0, 1000]), [770, 1000]);
  assert.deepEqual(roundWindow(800, 1000, [0, 1200]), [770, 1030]);
  assert.deepEqual(roundWindow(5, 105, [0, 2000]), [0, 120], "never before the start");
  const [a, b] = roundWindow(500, 500, [0, 600]);
  assert.ok(a < 500 && b > 500, "a round of no length still gets a window");
});

test("the band lies over the round where the window shows it, clipped to the plot, and is gone when out of view", () => {
  const state = { window: [0, 100], width: 1000 + GUTTER + 8 };
  const frame = frameOf({}, {}, state, exactLod());
  assert.deepEqual(bandPlace([50, 75], frame), { left: GUTTER + 500, width: 250 });
  assert.deepEqual(bandPlace([-10, 10], frame), { left: GUTTER, width: 100 }, "clipped at the gutter");
  assert.deepEqual(bandPlace([90, 150], frame), { left: GUTTER + 900, width: 100 }, "clipped at the right edge");
  assert.equal(bandPlace([150, 200], frame), null);
  assert.equal(bandPlace([-50, -10], frame), null);
  assert.equal(bandPlace([40, 40], frame).width, 2, "a round of no length is still seen");
});

test("every symbol the page's buttons show is an SVG path, none a font glyph", () => {
  for (const [name, path] of Object.entries(ICONS)) {
    assert.match(path, /^[MLHVACZmlhvacz0-9.,\s-]+$/, `${name} is path data`);
  }
  assert.ok(["play", "pause", "stop", "advance", "prev", "next", "dot"].every((name) => name in ICONS));
});

test("a zoom, pan, 'zoom to selection' or selection by the user stops following; the feed's moves do not", async () => {
  const { stopsFollowing } = await import("../../rlviz/viz/static/explorer.js");
  const window = new Set(["window"]), selected = new Set(["selected"]), both = new Set(["selected", "window"]);
  assert.equal(stopsFollowing(window, { from: "user", gesture: true }), true, "wheel or drag");
  assert.equal(stopsFollowing(window, { from: "user" }), true, "zoom to selection, reset zoom");
  assert.equal(stopsFollowing(both, { from: "select" }), true, "a click on a call");
  assert.equal(stopsFollowing(selected, { from: "select" }), true);
  assert.equal(stopsFollowing(window, { from: "append" }), false, "the feed following the run");
  assert.equal(stopsFollowing(both, { from: "pause" }), false, "the page selecting where the run paused");
  assert.equal(stopsFollowing(window, {}), false, "Python setting the window");
});

test("an advance's stretch starts at its first new call, or where it finished the calls the pause held open", () => {
  // calls as [start, duration]: 0 ended before the pause (at 10); 1 was held open by it (the user waited
  // until 100); 2 and 3 started after the advance resumed; 4 ends after the advance's pause (at 130)
  const calls = [[2, 8], [5, 120], [101, 4], [108, 10], [120, 30]];
  const model = { n: calls.length, start: calls.map((c) => c[0]), duration: calls.map((c) => c[1]) };
  assert.deepEqual(advanceStretch(model, 10, 130), { ran: [1, 2, 3], first: 101 });
  const onlyOpen = { n: 2, start: [5, 0], duration: [120, 126] };     // only enclosing calls finished
  assert.deepEqual(advanceStretch(onlyOpen, 10, 126), { ran: [0, 1], first: 125 },
    "not the pause's own end: a band of no width would be a sliver at any zoom");
  assert.deepEqual(advanceStretch(model, 130, 130), { ran: [], first: 130 });
});
