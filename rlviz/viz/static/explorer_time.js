// Time as people read it, at any zoom: the ruler's ticks and labels chosen from the visible span
// (h:mm:ss over hours, m:ss.s, m:ss.fff, then µs after a stated anchor), an event's start as a clock
// since the trace start and its duration in µs, ms or s as fits. Pure functions of milliseconds,
// tested with `node --test`; rlviz/viz/timeaxis.py is the same rules for the matplotlib timeline
// (tests/viz/test_time_axis.py runs both over the same cases).

const SECOND = 1000, MINUTE = 60 * SECOND, HOUR = 60 * MINUTE, DAY = 24 * HOUR;
/**
 * The tick steps, in ms, finest first: 1, 2, 5 times a power of ten below a second; over a second
 * the steps divide a minute or an hour (base 60), then an hour or a day, then days.
 */
export const TICK_STEPS_MS = [
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500,
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY,
];

/**
 * The tick step (ms) for a window `spanMs` wide showing about `target` ticks: the smallest step of
 * TICK_STEPS_MS at least spanMs / target (past a day: 1, 2 or 5 times a power of ten days).
 */
export function timeStep(spanMs, target) {
  const raw = spanMs / Math.max(1, target);
  const step = TICK_STEPS_MS.find((s) => s >= raw * (1 - 1e-9));
  if (step !== undefined) return step;
  const days = raw / DAY, power = 10 ** Math.floor(Math.log10(days));
  for (const m of [1, 2, 5, 10]) if (m * power >= days * (1 - 1e-9)) return m * power * DAY;
  return 10 * power * DAY;
}

/** Decimals of the seconds a step needs: 0 from a second up, 1 for 100 ms steps, 2 for 10 ms, 3 for 1 ms. */
function secondDecimals(stepMs) {
  if (stepMs >= SECOND) return 0;
  return Math.min(3, Math.max(0, Math.ceil(-Math.log10(stepMs / SECOND) - 1e-9)));
}

/**
 * `ms` since the trace start as a clock: h:mm:ss when `hours` (or the time is an hour or more),
 * else m:ss; the seconds with `decimals` digits (0 to 6). Negative times get a "-".
 */
export function clockText(ms, decimals = 0, hours = false) {
  const sign = ms < 0 ? "-" : "";
  const scale = 10 ** decimals;
  let units = Math.round(Math.abs(ms) / SECOND * scale);      // whole units of the last digit shown
  const fraction = units % scale;
  units = (units - fraction) / scale;                           // whole seconds
  const s = units % 60, m = Math.floor(units / 60) % 60, h = Math.floor(units / 3600);
  const secs = String(s).padStart(2, "0") + (decimals ? `.${String(fraction).padStart(decimals, "0")}` : "");
  return h > 0 || hours ? `${sign}${h}:${String(m).padStart(2, "0")}:${secs}` : `${sign}${m}:${secs}`;
}

/** A whole number with thousands separators ("1,050"). */
function grouped(value) {
  return value.toLocaleString("en-US");
}

/**
 * The ruler over the window [a, b] (ms since the trace start) drawn `width` pixels wide, a tick
 * about every `spacing` pixels: {step, caption, ticks: [{ms, label}]}. Steps of a millisecond or
 * more label each tick with its clock time (h:mm:ss, m:ss.s, m:ss.fff); finer steps label the
 * µs after an anchor, the window's start cut to the millisecond, which the caption states.
 */
export function rulerTicks(a, b, width, spacing = 90) {
  const step = timeStep(b - a, width / spacing), ticks = [];
  const hours = Math.max(Math.abs(a), Math.abs(b)) >= HOUR;
  // the ticks are whole multiples of the step; one within a thousandth of a step of an edge counts as inside
  const first = Math.ceil(a / step - 1e-3), last = Math.floor(b / step + 1e-3);
  if (step >= 1) {
    const decimals = secondDecimals(step);
    for (let k = first; k <= last; k++) ticks.push({ ms: k * step, label: clockText(k * step, decimals, hours) });
    const format = (hours ? "h:mm:ss" : "m:ss") + (decimals ? `.${"s".repeat(decimals)}` : "");
    return { step, caption: `time since start (${format})`, ticks };
  }
  const anchor = Math.floor(a);                                  // the window's start cut to the millisecond
  for (let k = first; k <= last; k++) {
    const us = Math.round((k * step - anchor) * 1000) || 0;      // steps are whole µs (and -0 reads 0)
    ticks.push({ ms: k * step, label: `+${grouped(us)} µs` });
  }
  return { step, caption: `from ${clockText(anchor, 3, hours)}`, ticks };
}

/** An event's start, `ms` since the trace start, as h:mm:ss.ffffff (to the microsecond). */
export function startText(ms) {
  return clockText(ms, 6, true);
}

/**
 * A duration in the unit that fits: "850 ns", "12.3 µs", "4.56 ms", "1.23 s", "2 min 5.0 s",
 * "3 h 02 min" (three significant digits below a minute).
 */
export function durationText(ms) {
  const a = Math.abs(ms);
  const three = (v) => v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  if (a === 0) return "0 µs";
  if (a < 0.001) return `${three(ms * 1e6)} ns`;
  if (a < 1) return `${three(ms * 1e3)} µs`;
  if (a < SECOND) return `${three(ms)} ms`;
  if (a < MINUTE) return `${three(ms / SECOND)} s`;
  if (a < HOUR) {
    const m = Math.floor(a / MINUTE);
    return `${ms < 0 ? "-" : ""}${m} min ${((a - m * MINUTE) / SECOND).toFixed(1)} s`;
  }
  const h = Math.floor(a / HOUR), m = Math.floor((a - h * HOUR) / MINUTE);
  return `${ms < 0 ? "-" : ""}${h} h ${String(m).padStart(2, "0")} min`;
}
