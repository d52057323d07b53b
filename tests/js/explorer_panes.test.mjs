// Unit tests of the logic behind the Explorer's panes: the timeline's row layout when a filter hides
// the others, the search-hit marks, the order pane's default merging node and its rows per round.
// Run with `node --test tests/js` (tests/viz/test_explorer_js.py runs it under pytest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { defaultMerge, matchMarks, mergeEvents, roundRows, rowLayout } from "../../rlviz/viz/static/explorer_core.js";
import { model as modelOf } from "./fixtures.mjs";

/** A model from plain events [node, start, duration, outcome, inputs]. */
function model(nodes, events) {
  return modelOf(nodes, events.map(([node, start, duration, outcome, inputs = []]) => [node, start, duration, outcome, 0, 0, inputs]));
}

const NODES = [{ op: "sample", where: "shard-0" }, { op: "sample", where: "shard-1" },
  { op: "gather", where: "driver" }, { op: "train", where: "driver" }];
const GEOMETRY = { top: 4, rowHeight: 10, laneGap: 5 };

test("without hiding every row keeps its place; hiding drops the rows the filter rejects and their lane gaps", () => {
  const m = model(NODES, [[0, 0, 5, 0], [1, 0, 5, 0], [2, 6, 2, 0], [3, 9, 2, 0]]);
  const all = rowLayout(m, { op: "gather", where: null }, false, GEOMETRY);
  assert.deepEqual(Array.from(all.shown), [1, 1, 1, 1]);
  assert.deepEqual(Array.from(all.y), [4, 19, 34, 44, 58]);        // three lanes: two gaps of 5
  assert.deepEqual(Array.from(all.first), [1, 1, 1, 0]);
  assert.deepEqual(Array.from(all.last), [1, 1, 0, 1]);
  const hidden = rowLayout(m, { op: "gather", where: null }, true, GEOMETRY);
  assert.deepEqual(Array.from(hidden.shown), [0, 0, 1, 0]);
  assert.equal(hidden.y[2], 4, "the one row left starts at the top");
  assert.equal(hidden.y[4], 18, "and the pane is one row high");
  assert.deepEqual(Array.from(hidden.first), [0, 0, 1, 0]);
  assert.deepEqual(Array.from(hidden.last), [0, 0, 1, 0]);
  const byLane = rowLayout(m, { op: null, where: "driver" }, true, GEOMETRY);
  assert.deepEqual(Array.from(byLane.shown), [0, 0, 1, 1]);
  assert.deepEqual(Array.from(byLane.y.subarray(2)), [4, 14, 28]);
  const none = rowLayout(m, { op: null, where: null }, true, GEOMETRY);
  assert.deepEqual(Array.from(none.shown), [1, 1, 1, 1], "hiding without a filter hides nothing");
});

test("laneExtra leaves room under each lane's rows for its gauge tracks, and laneEnd says where it starts", () => {
  const m = model(NODES, [[0, 0, 5, 0], [1, 0, 5, 0], [2, 6, 2, 0], [3, 9, 2, 0]]);
  const lanes = m.rows.map((row) => row.lane);                     // [a, b, c, c]: three lanes, the last with two rows
  const extra = [];
  extra[lanes[1]] = 30;                                            // the middle lane has one gauge track
  extra[lanes[3]] = 60;                                            // the last lane two
  const laid = rowLayout(m, { op: null, where: null }, false, { ...GEOMETRY, laneExtra: extra });
  assert.deepEqual(Array.from(laid.y), [4, 19, 64, 74, 148]);      // 30 px after the middle lane, 60 after the last
  assert.equal(laid.laneEnd.get(lanes[0]), 14, "a lane without gauges: its room is empty, where the gap starts");
  assert.equal(laid.laneEnd.get(lanes[1]), 29, "the middle lane's gauges start under its one row");
  assert.equal(laid.laneEnd.get(lanes[3]), 84, "the last lane's under its second row");
  const hidden = rowLayout(m, { op: null, where: "driver" }, true, { ...GEOMETRY, laneExtra: extra });
  assert.equal(hidden.laneEnd.get(lanes[1]), undefined, "a lane the filter hides has no room and no place");
});

test("every search hit in the window gets a mark; neighbours in one pixel merge, outside hits count nothing", () => {
  const m = model(NODES, [[0, 0, 10, 0], [0, 10, 10, 0], [0, 50, 10, 0], [2, 30, 1, 1], [3, 200, 5, 0]]);
  const { marks, inside } = matchMarks(m, Uint32Array.from([0, 1, 2, 3, 4]), 0, 100, 10);
  assert.equal(inside, 4, "the hit at 200 lies outside [0, 100)");
  const row = (node) => m.nodeRow[node];
  assert.deepEqual(marks.get(row(0)), [0, 2, 5, 6], "two touching spans make one mark, the third its own");
  assert.deepEqual(marks.get(row(2)), [3, 4], "a 1-unit not-ready poll still gets a whole pixel");
  assert.equal(marks.has(row(3)), false);
  assert.equal(matchMarks(m, new Uint32Array(0), 0, 100, 10).inside, 0);
});

test("the order pane opens on the selection's merging node, else the payload's default", () => {
  const m = model(NODES, [[0, 0, 5, 0], [2, 6, 2, 0], [3, 9, 2, 0]]);
  const orders = [{ node: 3 }, { node: 2 }];
  assert.equal(defaultMerge(m, orders, -1, 1), 1, "nothing selected: the default");
  assert.equal(defaultMerge(m, orders, 2, 1), 0, "the selection is on node 3, which merges");
  assert.equal(defaultMerge(m, orders, 0, 1), 1, "a shard's call merges nothing: the default");
  assert.equal(defaultMerge(m, orders, 0, -1), 1, "no default given: the last (most downstream)");
  assert.equal(defaultMerge(m, [], 0, 0), -1);
});

/** Decisions as the payload carries them: rows as columns. */
function decisions(rows) {
  const names = ["event", "union_event", "union", "round", "child", "pull", "allowed", "outcome", "flags", "next"];
  const columns = Object.fromEntries(names.map((name, k) => [name, rows.map((r) => r[k])]));
  return { specs: [{ op: "Concurrently", children: ["Store", "Train"], weights: [2, 1], node: 4 },
    { op: "union", children: ["a", "b"], weights: [1, 1], node: 7 }], rows: columns };
}

test("rounds worked out by hand: one row each, not-ready polls kept in place, stops and other unions left out", () => {
  // weights [2, 1]: round 1 Store, Store, Train (not ready: its turn ends); round 2 Store, Store, Train
  const d = decisions([
    [10, 11, 0, 1, 0, 1, 2, 0, 0, 0], [12, 13, 0, 1, 0, 2, 2, 0, 0, 1], [14, -1, 0, 1, 1, 1, 1, 1, 4, 0],
    [20, 21, 1, 1, 0, 1, 1, 0, 0, 1],
    [15, 16, 0, 2, 0, 1, 2, 0, 0, 0], [17, 18, 0, 2, 0, 2, 2, 0, 0, 1], [19, 22, 0, 2, 1, 1, 1, 0, 0, -1],
    [23, -1, 0, 3, 0, 1, 2, 2, 0, -1],
  ]);
  const { rounds, items, notReady } = roundRows(d, 0);
  assert.deepEqual(rounds.map((r) => r.round), [1, 2]);
  assert.deepEqual(rounds[0].cells, [{ child: 0, notReady: false, event: 10 }, { child: 0, notReady: false, event: 12 },
    { child: 1, notReady: true, event: 14 }]);
  assert.deepEqual(rounds[1].cells.map((c) => c.child), [0, 0, 1]);
  assert.deepEqual(items, [4, 1], "Store made 4 items, Train 1");
  assert.deepEqual(notReady, [0, 1], "Train was not ready once");
  const late = roundRows(d, 0, (row) => row >= 4);
  assert.deepEqual(late.rounds.map((r) => r.round), [2], "a window keeps its rounds only");
  assert.deepEqual(late.items, [4, 1], "but the counts are the whole run's");
  assert.deepEqual(roundRows(d, 1).rounds.map((r) => r.cells.length), [1]);
  assert.deepEqual(roundRows(null, 0).rounds, []);
  const orphan = roundRows(decisions([[-1, 30, 0, 1, 0, 1, 1, 0, 0, -1]]), 0);
  assert.equal(orphan.rounds[0].cells[0].event, 30, "no child call recorded: the union's call stands for it");
});

test("a merge's order is what it handed on, each item coloured by the input it came from", () => {
  // two shards finish in bursts (0, 1 then 2, 3); the gather alternates: 0, 2, 1, 3
  const nodes = [{ op: "s", where: "shard-0" }, { op: "s", where: "shard-1" }, { op: "gather", where: "driver" }];
  const events = [[0, 0, 1, 0, []], [0, 1, 1, 0, []], [1, 2, 1, 0, []], [1, 3, 1, 0, []],
    [2, 5, 1, 0, [0]], [2, 7, 1, 0, [2]], [2, 9, 1, 0, [1]], [2, 11, 1, 0, [3]], [2, 13, 1, 1, []]];
  const m = model(nodes, events);
  const strip = { node: 2, groups: [{ node: 0 }, { node: 1 }] };
  const { events: order, group, fromInputs } = mergeEvents(m, strip);
  assert.equal(fromInputs, false);
  assert.deepEqual(Array.from(order), [4, 5, 6, 7], "the gather's items, its not-ready poll left out");
  assert.deepEqual(Array.from(group), [0, 1, 0, 1], "the alternation, not the bursts");
  const unlinked = model(nodes, events.map((e) => [...e.slice(0, 4), []]));
  const fallback = mergeEvents(unlinked, strip);
  assert.equal(fallback.fromInputs, true, "no links: the inputs' own items stand in");
  assert.deepEqual(Array.from(fallback.group), [0, 0, 1, 1]);
});

test("the order pane's rounds view, worked out and painted without a page: newest rounds while following", async () => {
  const { paintRounds, ratioText, roundsPlan } = await import("../../rlviz/viz/static/panes/order.js");
  const { createStore } = await import("../../rlviz/viz/static/explorer_store.js");
  const d = decisions([
    [10, 11, 0, 1, 0, 1, 2, 0, 0, 0], [12, 13, 0, 1, 0, 2, 2, 0, 0, 1], [14, -1, 0, 1, 1, 1, 1, 1, 4, 0],
    [15, 16, 0, 2, 0, 1, 2, 0, 0, 0], [17, 18, 0, 2, 0, 2, 2, 0, 0, 1], [19, 22, 0, 2, 1, 1, 1, 0, 0, -1],
  ]);
  const m = model(NODES, Array.from({ length: 30 }, (_, i) => [0, i, 1, 0]));
  const strip = { merge: "Concurrently", groups: [{ name: "Store", node: 0, weight: 2 }, { name: "Train", node: 1, weight: 1 }] };
  const view = (follow) => ({ model: m, meta: { decisions: d }, store: createStore({ window: [0, 100], follow, orderWidth: 320 }) });
  const plan = roundsPlan(view(false), strip, 0, ["#111", "#222"]);
  assert.deepEqual(plan.shown.map((r) => r.round), [1, 2]);
  assert.equal(plan.colorOf(1), "#222");
  assert.equal(plan.cell, 11, "three cells fit at the widest width");
  const calls = [];
  const record = (name) => (...args) => calls.push([name, ...args]);
  const ctx = Object.fromEntries(["fillText", "fillRect", "strokeRect", "save", "restore", "beginPath", "rect", "clip",
    "moveTo", "lineTo", "stroke"].map((name) => [name, record(name)]));
  assert.equal(paintRounds(ctx, plan, 12), 1, "one not-ready cell is hatched");
  assert.deepEqual(calls.filter(([name]) => name === "fillText").map((c) => c[1]), ["1", "2"], "each round's number");
  assert.ok(calls.some((c) => c.join() === "strokeRect,45,0,11,11"), "the selected pull (round 1, second cell) is outlined");
  assert.equal(ratioText(strip, [200, 100]), "weights 2 : 1 · measured 200 : 100 = 1.00 : 0.50");
});

test("the inspector's fields, worked out without a page: details from the node, rank in completion order", async () => {
  const { inspectorFields } = await import("../../rlviz/viz/static/panes/inspector.js");
  const m = model([{ op: "Concurrently", where: "driver", details: { round_robin_weights: [2, 1, "*"] } }],
    [[0, 0, 10, 0], [0, 2, 3, 1]]);
  const view = { model: m, meta: { decisions: null },
    describe: (i) => ({ node: m.nodes[m.node[i]], outcome: ["item", "not_ready"][m.flags[i] & 3], item: null,
      index: i, startMs: m.start[i], durationMs: m.duration[i] }) };
  const fields = Object.fromEntries(inspectorFields(view, 1, new Map()));
  assert.equal(fields.round_robin_weights, "2 : 1 : *");
  assert.equal(fields.event, "#1 · completed 1 of 2", "it ended at 5, before the first call's 10");
  assert.equal(fields.item, "(none)");
  assert.equal(fields.why, undefined, "no decisions: no why");
  assert.equal(fields.start, "0:00:00.002000", "the start as a clock since the trace start, to the µs");
  assert.equal(fields.duration, "3.00 ms");
  const late = { ...view, describe: (i) => ({ ...view.describe(i), startMs: 10_800_000.0123, durationMs: 0.0456 }) };
  const hours = Object.fromEntries(inspectorFields(late, 1, new Map()));
  assert.deepEqual([hours.start, hours.duration], ["3:00:00.000012", "45.6 µs"], "3 h in: readable, not 10800000.0 ms");
  const part = { ...view, meta: { ...view.meta, events: 3_000_000 },
    describe: (i) => ({ ...view.describe(i), index: 2_000_000 + i }) };
  assert.equal(Object.fromEntries(inspectorFields(part, 1, new Map())).event,
    "#2000001 · completed 1 of the 2 loaded (the run has 3,000,000)",
    "a long trace's part names the call by its trace index, and its rank as one within the part");
});

test("with no call selected the inspector says where the selection went, that a window failed, or how to start", async () => {
  const { idleText } = await import("../../rlviz/viz/static/panes/inspector.js");
  const facts = { selectedId: -1, held: 0, events: 3_000_000, unloaded: false };
  assert.match(idleText(facts).text, /drawn from its overview here: zoom in/);
  const failed = idleText({ ...facts, unloaded: true });
  assert.equal(failed.name, "unloaded");
  assert.match(failed.text, /could not be loaded/, "not \"zoom in\" when the window's chunk is damaged");
  assert.equal(idleText({ ...facts, unloaded: true, selectedId: 7 }).name, "away", "a selection elsewhere is named first");
  assert.match(idleText({ ...facts, held: 10 }).text, /^Click a span/);
  assert.match(idleText({ ...facts, events: 0 }).text, /the trace is empty/);
});

test("the graph pane's shapes: an edge's curve and width, a node's counter lines, the marks of a selection", async () => {
  const { edgeShape, graphMarks, nodeCounterLines } = await import("../../rlviz/viz/static/panes/graph.js");
  const from = { op: "sample", x: 0, y: 0, w: 100, h: 40 }, to = { op: "gather", x: 200, y: 60, w: 80, h: 40 };
  const edge = edgeShape(from, to, 999, false);
  assert.equal(edge.d, "M100,20 C150,20 150,80 200,80", "from the right middle of one box to the left middle of the other");
  assert.equal(edge.width, 2.5, "thicker with the log of the values carried");
  assert.equal(edge.title, "sample → gather: 999 values");
  assert.equal(edgeShape(to, from, 1, true).dashed, true, "a back edge is dashed");
  assert.deepEqual(nodeCounterLines({ calls: 1200, items: 1000, busy_ms: 12.5, not_ready: 200, errors: 0 }),
    ["1.2k calls · 1.0k items", "12.5 ms busy · 200 not ready"]);
  // event 2 (gather) consumed events 0 and 1 (the two shards' samples); event 3 (train) consumed event 2
  const m = model(NODES, [[0, 0, 5, 0], [1, 0, 5, 0], [2, 6, 2, 0, [0, 1]], [3, 9, 2, 0, [2]]]);
  const marks = graphMarks(m, 2, { op: null, where: "driver" }, [0, 1, 2, 3]);
  assert.deepEqual([...marks.values()].map((mark) => mark.role), ["producer", "producer", "selected", "consumer"]);
  assert.deepEqual([...marks.values()].map((mark) => mark.dim), [true, true, false, false], "the filter keeps the driver");
  assert.deepEqual([...graphMarks(m, -1, {}, [0, 3]).values()], [{ role: null, dim: false }, { role: null, dim: false }]);
});

test("the live bar's texts: count, rate, state, the pause button, where it paused, the counters", async () => {
  const { liveBarTexts } = await import("../../rlviz/viz/static/panes/livebar.js");
  const running = liveBarTexts({ events: 12345, events_per_s: 740.4, running: true, paused: false, iterations: 3,
    counters: { sampled: 4000, trained: 1000 }, target_ratio: 0.25, break_on: "Replay" });
  assert.deepEqual(running, { count: "12,345", rate: "740 events/s", state: "running", pause: "pause", pauseIcon: "pause",
    round: "", where: "break on Replay", counters: "iteration 3 · sampled 4,000 · trained 1,000 · trained/sampled 0.25 (target 0.25)" });
  const paused = liveBarTexts({ events: 1, events_per_s: 0, running: true, paused: true, iterations: 0,
    paused_at: { op: "Replay", outcome: "not_ready", item: null } });
  assert.equal(paused.state, "paused");
  assert.equal(paused.pause, "resume");
  assert.equal(paused.pauseIcon, "play");
  assert.equal(paused.where, "paused after Replay (not_ready)");
  assert.equal(liveBarTexts({ events: 1, events_per_s: 0, running: false, error: "x", iterations: 0,
    break_error: "break_on raised ZeroDivisionError" }).where, "⚠ break_on raised ZeroDivisionError");
});

test("the toolbar's texts: the trace's header, what was dropped, the filter chip", async () => {
  const { filterChipText, toolbarTexts } = await import("../../rlviz/viz/static/panes/toolbar.js");
  const texts = toolbarTexts({ n: 1234 }, { lanes: [{}, {}, {}], span_ms: 1500, dropped: 5000 });
  assert.equal(texts.title, "1,234 calls · 3 processes · 1.50 s");
  assert.equal(texts.dropped, "5,000 events were dropped by the bounded buffers (the oldest); "
    + "raise rlviz.record(capacity=...) to keep them.");
  assert.equal(toolbarTexts({ n: 0 }, { lanes: [], span_ms: 0, dropped: 0 }).dropped, "");
  assert.equal(filterChipText({ op: "sample", where: "shard-0" }), "showing sample @ shard-0");
  assert.equal(filterChipText({ op: null, where: "driver" }), "showing driver");
  assert.equal(filterChipText({}), "");
});

test("counts agree with their nouns everywhere the page writes one: 1 process, 48 calls", async () => {
  const { counted, compact } = await import("../../rlviz/viz/static/explorer_dom.js");
  assert.equal(counted(1, "process"), "1 process");
  assert.equal(counted(48, "call"), "48 calls");
  assert.equal(counted(5186, "match"), "5,186 matches");
  assert.equal(counted(0, "item"), "0 items");
  assert.equal(counted(12345, "call", compact), "12k calls");
  const { toolbarTexts } = await import("../../rlviz/viz/static/panes/toolbar.js");
  const one = toolbarTexts({ n: 48 }, { lanes: [{}], span_ms: 1500, dropped: 1 });
  assert.equal(one.title, "48 calls · 1 process · 1.50 s");
  assert.match(one.dropped, /^1 event was dropped/);
  const { nodeCounterLines } = await import("../../rlviz/viz/static/panes/graph.js");
  assert.equal(nodeCounterLines({ calls: 1, items: 1, busy_ms: 2, not_ready: 0, errors: 1 }).join(" | "),
    "1 call · 1 item | 2.00 ms busy · 1 error");
});

test("the search shows one count, from the hits of now: the step's place among them, or their number", async () => {
  const { searchCountText } = await import("../../rlviz/viz/static/panes/toolbar.js");
  const before = Uint32Array.from([3, 8, 20, 31]), grown = Uint32Array.from([3, 8, 20, 31, 40, 44]);
  assert.equal(searchCountText("op:Store", before), "4 matches");
  assert.equal(searchCountText("op:Store", before, 20), "match 3 of 4");
  assert.equal(searchCountText("op:Store", grown, 20), "match 3 of 6", "a live trace's new hits count at once");
  assert.equal(searchCountText("op:Store", Uint32Array.from([3]), 20), "1 match", "a step no longer among them");
  assert.equal(searchCountText("  ", grown, 20), "");
});
