// The live bar (only in a live view): events held and per second, run state, pause / resume /
// stop, the follow toggle, the plan's counters against the target ratio, and the return curve
// (episode_reward_mean against sampled steps). Status comes from the store's `live` key.
import { make, sized } from "../explorer_dom.js";

const CURVE_W = 260, CURVE_H = 64;

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
  const pause = make("button", null, "pause", "❚❚ pause");
  const stop = make("button", null, "stop", "■ stop");
  const follow = make("label", null, "follow");
  const followBox = make("input", null, "follow-box");
  followBox.type = "checkbox";
  followBox.checked = true;
  follow.title = "keep the newest events in view (a zoom or pan turns it off)";
  follow.append(followBox, document.createTextNode(" follow"));
  const counters = make("span", null, "live-counters", "");
  const curve = make("canvas", null, "return-curve");
  curve.title = "episode_reward_mean against sampled steps";
  bar.append(state, count, make("span", null, null, "events"), rate, pause, stop, follow, counters, curve);
  host.insertBefore(bar, before);
  const listeners = [
    [pause, "click", () => view.command(store.get().live?.paused ? "resume" : "pause")],
    [stop, "click", () => view.command("stop")],
    [followBox, "change", () => store.set({ follow: followBox.checked, followSpan: null }, { from: "user" })],
  ];
  for (const [target, name, handler] of listeners) target.addEventListener(name, handler);
  drawCurve([]);

  let drawnCurve = "";

  /** Show `live`; an unchanged text or curve is left alone (a write would make the page lay out and paint it again). */
  function show(live) {
    setText(count, live.events.toLocaleString("en-US"));
    count.dataset.count = String(live.events);
    setText(rate, `${Math.round(live.events_per_s).toLocaleString("en-US")} events/s`);
    setText(state, live.error ? "stopped by an error" : live.running ? (live.paused ? "paused" : "running") : "stopped");
    bar.dataset.running = String(Boolean(live.running));
    setText(pause, live.paused ? "▶ resume" : "❚❚ pause");
    pause.disabled = stop.disabled = !live.running;
    const c = live.counters || {};
    const parts = [`iteration ${live.iterations}`];
    if (c.sampled != null) parts.push(`sampled ${c.sampled.toLocaleString("en-US")}`);
    if (c.trained != null) parts.push(`trained ${c.trained.toLocaleString("en-US")}`);
    if (c.sampled) parts.push(`trained/sampled ${(c.trained / c.sampled).toFixed(2)}`
      + (live.target_ratio != null ? ` (target ${live.target_ratio})` : ""));
    setText(counters, parts.join(" · "));
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
      if (changed.has("follow")) followBox.checked = store.get().follow;
    },
    destroy() {
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      bar.remove();
    },
  };
}
