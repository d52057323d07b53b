// The live bar (only in a live view): events held and per second, run state, pause / resume /
// advance / stop (keys: Space pauses and resumes, N advances), the follow toggle, the plan's
// counters against the target ratio, and the return curve (episode_reward_mean against sampled
// steps). Status comes from the store's `live` key. Each time the run pauses at an op boundary,
// the event it paused after is selected (the inspector shows it, with its why) and the events
// that arrived since the previous pause are highlighted; after an advance the bar says which
// round ran and what it did, and the timeline shows that stretch (follow off) with a band over it.
import { iconButton, make, setIconLabel, sized } from "../explorer_dom.js";

const CURVE_W = 260, CURVE_H = 64;

const OUTCOME_WORDS = { not_ready: "not ready", error: "failed", stop: "ended" };
const NAMED_OP = /^[A-Z]/;       // RLlib's ops (ParallelRollouts, Replay, ...), not the plumbing (source, for_each, tag[0])

/** One tally entry [op, outcome, calls] as words: "Replay ×2", "Replay not ready". */
function callText([op, outcome, count]) {
  const times = count > 1 || outcome === "item" ? ` ×${count.toLocaleString("en-US")}` : "";
  return outcome === "item" ? `${op}${times}` : `${op} ${OUTCOME_WORDS[outcome] || outcome}${times}`;
}

/**
 * The calls worth naming of an advance's tally: RLlib's named ops (all calls when none ran), and of a
 * run of calls that were not ready only the first, which caused the rest.
 */
export function roundCalls(ran) {
  const named = ran.some(([op]) => NAMED_OP.test(op)) ? ran.filter(([op]) => NAMED_OP.test(op)) : ran;
  return named.filter((entry, k) => entry[1] !== "not_ready" || k === 0 || named[k - 1][1] !== "not_ready");
}

/**
 * What an advance did, from the gate's tally `advanced` ({round, ran: [[op, outcome, calls], ...]}):
 * "round 8: StoreToReplayBuffer ×1, TrainOneStep ×1"; a call that gave no item says what it gave
 * ("Replay not ready"). `full` names every driver call (the bar's hover text). "" when there is
 * no advance to tell of.
 */
export function roundText(advanced, full = false) {
  if (!advanced || !advanced.ran) return "";
  const calls = (full ? advanced.ran : roundCalls(advanced.ran)).map(callText);
  const head = advanced.round != null ? `round ${advanced.round.toLocaleString("en-US")}` : "advanced";
  return `${head}: ${calls.length ? calls.join(", ") : "no driver call"}`;
}

/**
 * The window that shows the stretch from `since` to `end` (time units) with a margin either side,
 * inside `full`: what the timeline shows after an advance.
 */
export function roundWindow(since, end, full) {
  const span = Math.max(end - since, 1), margin = span * 0.15;
  return [Math.max(full[0], since - margin), Math.min(Math.max(full[1], end), end + margin)];
}

/**
 * What ran between two pauses of a run (their events' ends `since` and `end`, time units) in `model`:
 * `ran`, the calls that ended in (since, end], and `first`, where the advance's own stretch of time
 * starts. A call that started after `since` counts from its start; a call the pause held open (it
 * started before, and its start lies in the time the user waited) counts from its end, so an
 * advance that only finished open calls still gets the short stretch in which it finished them.
 */
export function advanceStretch(model, since, end) {
  const ran = [];
  let first = end;
  for (let i = 0; i < model.n; i++) {
    const ended = model.start[i] + model.duration[i];
    if (ended <= since || ended > end) continue;
    ran.push(i);
    first = Math.min(first, model.start[i] >= since ? model.start[i] : ended);
  }
  return { ran, first };
}

/**
 * What the live bar says of a run's status `live` (the kernel's status message): the event count and
 * rate, the run's state, the pause button's label, where it paused (or breaks, or why its predicate
 * failed) and the counters line.
 */
export function liveBarTexts(live) {
  const at = live.paused_at, c = live.counters || {};
  const counters = [`iteration ${live.iterations}`];
  if (c.sampled != null) counters.push(`sampled ${c.sampled.toLocaleString("en-US")}`);
  if (c.trained != null) counters.push(`trained ${c.trained.toLocaleString("en-US")}`);
  if (c.sampled) counters.push(`trained/sampled ${(c.trained / c.sampled).toFixed(2)}`
    + (live.target_ratio != null ? ` (target ${live.target_ratio})` : ""));
  return {
    count: live.events.toLocaleString("en-US"),
    rate: `${Math.round(live.events_per_s).toLocaleString("en-US")} events/s`,
    state: live.error ? "stopped by an error" : live.running ? (live.paused ? "paused" : "running") : "stopped",
    pause: live.paused ? "resume" : "pause",
    pauseIcon: live.paused ? "play" : "pause",
    round: roundText(live.advanced),
    where: live.break_error ? `⚠ ${live.break_error}`
      : at ? `paused after ${at.op} (${at.outcome}${at.item ? `: ${at.item}` : ""})` : live.break_on ? `break on ${live.break_on}` : "",
    counters: counters.join(" · "),
  };
}

/**
 * Mount the live bar into `host`, before `before`.
 * @param {HTMLElement} host
 * @param {HTMLElement} before
 * @param {object} view  the Explorer's shared context; view.command(name) sends pause/resume/stop
 * @returns {{update: function(Set<string>): void, destroy: function(): void}}
 */
export function createLiveBar(host, before, view) {
  const { store } = view;
  const bar = make("div", "rlviz-live", "live");
  const state = make("span", null, "live-state", "starting");
  const count = make("span", "rlviz-count", "live-count", "0");
  const rate = make("span", null, "live-rate", "");
  const pause = iconButton("pause", "pause", "pause");
  const advance = iconButton("advance", "advance", "advance");
  advance.title = "run one round of the outermost union (or one call of the last op), then pause again (key N)";
  pause.title = "pause at the next op boundary, or go on (key Space)";
  const round = make("span", "rlviz-round", "round", "");
  const where = make("span", null, "paused-at", "");
  const stop = iconButton("stop", "stop", "stop");
  const follow = make("label", null, "follow");
  const followBox = make("input", null, "follow-box");
  followBox.type = "checkbox";
  followBox.checked = true;
  follow.title = "keep the newest events in view (a zoom, pan or selection turns it off)";
  follow.append(followBox, document.createTextNode(" follow"));
  const counters = make("span", null, "live-counters", "");
  const curve = make("canvas", null, "return-curve");
  curve.title = "episode_reward_mean against sampled steps";
  bar.append(state, count, make("span", null, null, "events"), rate, pause, advance, stop, round, where, follow, counters, curve);
  host.insertBefore(bar, before);
  const listeners = [
    [pause, "click", () => view.command(store.get().live?.paused ? "resume" : "pause")],
    [advance, "click", () => view.command("advance")],
    [view.root, "keydown", onKey],
    [stop, "click", () => view.command("stop")],
    [followBox, "change", () => store.set({ follow: followBox.checked, followSpan: null }, { from: "user" })],
  ];
  for (const [target, name, handler] of listeners) target.addEventListener(name, handler);
  drawCurve([]);

  let drawnCurve = "";
  let pausedAt = null, focus = null;       // the pause shown, and the one whose event is still to select

  /** Space pauses and resumes, N advances (not while typing in the search box). */
  function onKey(e) {
    if (e.target && e.target.tagName === "INPUT") return;
    const live = store.get().live;
    if (!live || !live.running) return;
    if (e.key === " ") { e.preventDefault(); view.command(live.paused ? "resume" : "pause"); }
    else if (e.key === "n" || e.key === "N") { e.preventDefault(); if (live.paused_at) view.command("advance"); }
  }

  /** A new pause: remember it, so its event is selected once it has arrived. */
  function noticePause(live) {
    const at = live.paused_at;
    if (!at || (pausedAt && at.end_ns === pausedAt.end_ns && at.op === pausedAt.op)) return;
    focus = { at, since: pausedAt ? pausedAt.end_unit : null, advanced: Boolean(live.advanced) };
    pausedAt = at;
  }

  /** Select the event the run paused after, and highlight what ran since the previous pause (once both arrived). */
  function focusPause() {
    if (!focus) return;
    const { model } = view;
    const end = focus.at.end_unit;
    const ofOp = (i) => { const n = model.nodes[model.node[i]]; return n.op === focus.at.op && n.where === focus.at.where; };
    let found = -1;
    for (let i = model.n - 1; i >= 0 && found < 0; i--) {
      if (Math.abs(model.start[i] + model.duration[i] - end) <= 1 && ofOp(i)) found = i;
    }
    if (found < 0) return;                              // not arrived yet: the next append brings it
    const since = focus.since, advanced = focus.advanced;
    focus = null;
    if (since != null) {
      const stretch = advanceStretch(model, since, end);
      view.actions.setMatches(stretch.ran);
      if (advanced) showRound(stretch.first, end);
    }
    view.actions.select(found, { from: "pause" });
  }

  /** An advance's stretch of time in view and marked; following stops, or the next append would move it away. */
  function showRound(since, end) {
    view.store.set({ follow: false, advanced: [since, end], window: roundWindow(since, end, view.full) }, { from: "pause" });
  }

  /** Show `live`; an unchanged text or curve is left alone (a write would make the page lay out and paint it again). */
  function show(live) {
    const texts = liveBarTexts(live);
    setText(count, texts.count);
    count.dataset.count = String(live.events);
    setText(rate, texts.rate);
    setText(state, texts.state);
    bar.dataset.running = String(Boolean(live.running));
    setIconLabel(pause, texts.pauseIcon, texts.pause);
    pause.disabled = stop.disabled = !live.running;
    advance.disabled = !live.running || !live.paused_at;
    advance.style.display = live.gated === false ? "none" : "";     // an RLlib 2.x Algorithm has no ops to advance through
    setText(round, texts.round);
    round.title = texts.round ? `${roundText(live.advanced, true)} (every driver call of the advance)` : "";
    round.style.display = texts.round ? "" : "none";
    setText(where, texts.where);
    where.dataset.outcome = live.paused_at ? live.paused_at.outcome : "";
    if (live.running) noticePause(live);
    if (!live.paused && view.store.get().advanced) view.store.set({ advanced: null }, { from: "pause" });   // the run goes on: no band
    setText(counters, texts.counters);
    curve.style.display = live.curve ? "" : "none";          // an iterator has no return curve
    const points = live.curve || [];
    const key = `${points.length}:${points.length ? points[points.length - 1].join(",") : ""}`;
    if (live.curve && key !== drawnCurve) {
      drawCurve(points);
      drawnCurve = key;
    }
    curve.dataset.points = String(points.length);
  }

  function drawCurve(points) {
    const ctx = sized(curve, CURVE_W, CURVE_H);
    ctx.strokeStyle = "#ccc";
    ctx.strokeRect(0.5, 0.5, CURVE_W - 1, CURVE_H - 1);
    ctx.fillStyle = "#555";
    ctx.font = "9px system-ui, sans-serif";
    if (points.length === 0) { ctx.fillText("return curve: no episode finished yet", 6, CURVE_H / 2); return; }
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1), y0 = Math.min(...ys, 0), y1 = Math.max(...ys, y0 + 1);
    const px = (x) => 4 + ((x - x0) / (x1 - x0)) * (CURVE_W - 8), py = (y) => CURVE_H - 4 - ((y - y0) / (y1 - y0)) * (CURVE_H - 14);
    ctx.strokeStyle = "#1f77b4";
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    points.forEach(([x, y], k) => (k ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y))));
    ctx.stroke();
    ctx.fillText(`return ${ys[ys.length - 1].toFixed(1)} at ${xs[xs.length - 1].toLocaleString("en-US")} steps`, 6, 10);
  }

  function setText(element, text) {
    if (element.textContent !== text) element.textContent = text;
  }

  return {
    update(changed) {
      if (changed.has("live") && store.get().live) show(store.get().live);
      if (changed.has("live") || changed.has("data")) focusPause();
      if (changed.has("follow")) followBox.checked = store.get().follow;
    },
    destroy() {
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      bar.remove();
    },
  };
}
