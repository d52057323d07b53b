// What every pane of the Explorer shares: sizes, colours, the style sheet, and small DOM and
// text helpers. Text is set with textContent only, never parsed as HTML.

export const GUTTER = 190, ROW_H = 13, LANE_GAP = 7, RULER_H = 24;
export const NOT_READY_COLOR = "#b8b8b8", ERROR_COLOR = "#d62728", STOP_COLOR = "#333333";
export const PRODUCER_COLOR = "#e67e22", CONSUMER_COLOR = "#2471a3", RESTART_COLOR = "#c0392b", MATCH_COLOR = "#f1c40f";
export const DROPPED_LINK_COLOR = "#8c8c8c";       // a value its consumer took and dropped (a filter's None)
export const GROUP_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
export const MAX_ARROWS = 200, MAX_LINKS_LISTED = 40, PLAY_MS = 250;
export const CSS = `
.rlviz-explorer { position: relative; font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
  border: 1px solid #ddd; border-radius: 4px; padding: 6px; background: #fff; outline: none; }
.rlviz-explorer:focus-visible { box-shadow: 0 0 0 2px #9cc3e6; }
.rlviz-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 4px; }
.rlviz-bar button { font: inherit; padding: 1px 8px; cursor: pointer; }
.rlviz-bar input[type="search"] { font: inherit; width: 16em; }
.rlviz-bar label { display: inline-flex; align-items: center; gap: 3px; white-space: nowrap; cursor: pointer; }
.rlviz-bar label input { margin: 0; }
.rlviz-title { font-weight: 600; margin-right: 8px; }
.rlviz-status { color: #555; }
.rlviz-notes { margin: 4px 0; padding-left: 16px; color: #7a4b00; font-size: 11px; }
.rlviz-notes:empty { display: none; }
.rlviz-chip { background: #eef4fb; border: 1px solid #9cc3e6; border-radius: 9px; padding: 0 6px; }
.rlviz-banner { background: #fdecea; border-left: 4px solid #d62728; padding: 4px 8px; margin: 4px 0; white-space: pre-wrap; }
.rlviz-note { background: #fff4e0; border-left: 4px solid #e69500; padding: 3px 8px; margin: 4px 0; }
.rlviz-scroll { position: relative; max-height: 62vh; overflow-y: auto; overflow-x: hidden; }
.rlviz-timeline canvas { display: block; cursor: crosshair; }
.rlviz-lower { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 4fr) minmax(0, 3fr); gap: 8px; margin-top: 6px; }
.rlviz-pane { border: 1px solid #eee; border-radius: 3px; padding: 4px; min-height: 120px; overflow: auto; max-height: 360px; }
.rlviz-pane h4 { margin: 0 0 4px 0; font-size: 12px; color: #444; position: sticky; top: -4px; left: 0; background: #fff; z-index: 1; padding: 2px 0; }
.rlviz-pane select { font: inherit; max-width: 100%; }
.rlviz-graph svg { display: block; height: auto; max-width: none; }
.rlviz-graph g.rlviz-node { cursor: pointer; }
.rlviz-pane.rlviz-graph-fitted { max-height: none; }
.rlviz-lower > .rlviz-graph-wide { grid-column: 1 / -1; }
.rlviz-lower:has(> .rlviz-graph-wide) { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
.rlviz-graph h4 button { font: inherit; font-weight: normal; padding: 0 6px; margin-left: 6px; cursor: pointer; }
.rlviz-order canvas { display: block; cursor: pointer; }
.rlviz-legend .entry { display: inline-block; white-space: nowrap; margin-right: 10px; }
.rlviz-legend span.sw { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 0; vertical-align: -1px; }
.rlviz-legend span.sw.hatch { background: repeating-linear-gradient(45deg, #555 0 1px, #fff 1px 4px); border: 1px solid #555; box-sizing: border-box; }
.rlviz-inspector dl { display: grid; grid-template-columns: auto 1fr; gap: 1px 8px; margin: 0; }
.rlviz-inspector dt { color: #666; } .rlviz-inspector dd { margin: 0; overflow-wrap: anywhere; }
.rlviz-inspector button { font: inherit; display: block; text-align: left; border: none; background: none;
  color: #1f5f99; cursor: pointer; padding: 0; } .rlviz-inspector button:hover { text-decoration: underline; }
.rlviz-inspector button.rlviz-dropped { color: #888; font-style: italic; }
.rlviz-inspector button[data-rlviz="break"] svg { fill: #d62728; }
.rlviz-tooltip { position: absolute; pointer-events: none; background: rgba(30,30,30,0.92); color: #fff;
  padding: 4px 7px; border-radius: 3px; font-size: 11px; white-space: pre-wrap; overflow-wrap: anywhere; display: none; z-index: 10; max-width: 480px; }
.rlviz-live { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 4px; }
.rlviz-live button { font: inherit; padding: 1px 8px; cursor: pointer; }
.rlviz-live .rlviz-count { font-weight: 600; }
.rlviz-live .rlviz-round { font-weight: 600; color: #1f5f99; }
button svg.rlviz-icon { width: 10px; height: 10px; vertical-align: -1px; margin-right: 4px; fill: currentColor; }
button svg.rlviz-icon:last-child { margin-right: 0; }
.rlviz-advance-band { position: absolute; top: 0; bottom: 0; pointer-events: none; background: rgba(31, 95, 153, 0.08);
  border-left: 2px solid #1f5f99; border-right: 2px solid #1f5f99; box-sizing: border-box; }
`;

/** [r, g, b] of a #rrggbb colour. */
export function rgbOf(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

export const GREY = rgbOf(NOT_READY_COLOR), DARK = rgbOf(STOP_COLOR);

/** One RGBA pixel (little-endian Uint32) of colour [r, g, b] at opacity alpha. */
export function pack([r, g, b], alpha) {
  return ((Math.round(alpha * 255) << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

const FITTED = new Map();            // (font, room, text) -> the text fitText drew: labels repeat at every frame
const FITTED_MAX = 4096;

/** `text` cut with an ellipsis to fit `room` pixels in the context's current font (remembered, as each
 * frame draws the same labels again). */
export function fitText(ctx, text, room) {
  const key = `${ctx.font}|${room}|${text}`;
  let fitted = FITTED.get(key);
  if (fitted === undefined) {
    if (FITTED.size >= FITTED_MAX) FITTED.clear();
    fitted = cutToFit(ctx, text, room);
    FITTED.set(key, fitted);
  }
  return fitted;
}

/** The longest start of `text` that fits `room` with an ellipsis (binary search on its length). */
function cutToFit(ctx, text, room) {
  if (ctx.measureText(text).width <= room) return text;
  let lo = 1, hi = text.length - 1;               // the answer keeps between lo and hi characters
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= room) lo = mid; else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

/** Create an element with a class, optional data-rlviz part name and text. */
export function make(tag, className, part, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (part) node.dataset.rlviz = part;
  if (text != null) node.textContent = text;
  return node;
}

/**
 * The symbols on the page's buttons, as SVG paths in a 10 x 10 box: drawn by the page, so no reader's
 * font lacks them (a glyph such as U+23ED shows as a missing-glyph box where no font has it).
 */
export const ICONS = {
  play: "M1,0 L9,5 L1,10 z",
  pause: "M1,0 h3 v10 h-3 z M6,0 h3 v10 h-3 z",
  stop: "M1,1 h8 v8 h-8 z",
  advance: "M0,0 L6,5 L0,10 z M6,0 h3 v10 h-3 z",
  prev: "M9,0 L1,5 L9,10 z",
  next: "M0,0 L6,5 L0,10 z M7,0 h2 v10 h-2 z",
  dot: "M5,0 A5,5 0 1 1 4.99,0 z",
  close: "M1,2 L2,1 L5,4 L8,1 L9,2 L6,5 L9,8 L8,9 L5,6 L2,9 L1,8 L4,5 z",
};

/** Show `icon` (a key of ICONS) and then `text` on `button`: the symbol as inline SVG, the words as text. */
export function setIconLabel(button, icon, text = "") {
  if (button.dataset.icon === icon && button.dataset.label === text) return;
  const drawing = svg("svg", { viewBox: "0 0 10 10", class: "rlviz-icon", "aria-hidden": "true" });
  drawing.appendChild(svg("path", { d: ICONS[icon] }));
  drawing.dataset.rlviz = "icon";
  button.replaceChildren(drawing, ...(text ? [document.createTextNode(text)] : []));
  button.dataset.icon = icon;
  button.dataset.label = text;
}

/** A button whose symbol the page draws (ICONS) before its words. */
export function iconButton(part, icon, text = "") {
  const button = make("button", null, part);
  setIconLabel(button, icon, text);
  return button;
}

/** Create an SVG element with attributes. */
export function svg(tag, attributes) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
  return node;
}

export function formatMs(value) {
  const a = Math.abs(value);
  return a >= 1000 ? value.toFixed(1) : a >= 1 ? value.toFixed(3) : value.toFixed(4);
}

const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });   // made once: toLocaleString makes one per call

export function formatBusy(ms) {
  return ms >= 1000 ? WHOLE.format(Math.round(ms)) : ms.toPrecision(3);
}

/**
 * `count` and `noun`, the noun plural unless the count is exactly one ("1 process", "48 calls");
 * `shown` writes the number (comma-grouped by default, `compact` for "1.2k").  Every count-and-noun
 * text of the page goes through it; rlviz/trace/words.py's `counted` is its Python twin.
 */
export function counted(count, noun, shown = (n) => WHOLE.format(n)) {
  return `${shown(count)} ${count === 1 ? noun : pluralOf(noun)}`;
}

function pluralOf(noun) {
  return /(s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

export function compact(value) {
  if (value >= 1e7) return `${Math.round(value / 1e6)}M`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${Math.round(value / 1e3)}k`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}

/**
 * Measures of one name the page keeps at most: past it they are cleared and counted again, so a page left
 * open for hours (a frame drawn, a chunk appended, each a measure) does not keep every one it ever took.
 */
export const MEASURES_KEPT = 5000;
const measured = new Map();              // name -> measures taken since that name's were last cleared

/** A performance measure named `name` from `started` to now (read by the benchmarks and the browser tests). */
export function measure(name, started, detail = null) {
  if (typeof performance === "undefined" || !performance.measure) return;
  const taken = (measured.get(name) ?? 0) + 1;
  if (taken > MEASURES_KEPT) performance.clearMeasures(name);
  measured.set(name, taken > MEASURES_KEPT ? 1 : taken);
  performance.measure(name, { start: started, end: performance.now(), detail });
}

/** Size a canvas to width x height CSS pixels at the device ratio, cleared; its 2D context. */
export function sized(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}

/**
 * Scroll `pane` (never the page) just enough that `element` is inside it, below the pane's sticky
 * title (`header`, optional) so the title stays in view.
 */
export function revealInPane(pane, element, header = null) {
  const box = element.getBoundingClientRect(), view = pane.getBoundingClientRect();
  const top = view.top + (header ? header.getBoundingClientRect().height : 0);
  if (box.left < view.left) pane.scrollLeft -= view.left - box.left + 8;
  else if (box.right > view.right) pane.scrollLeft += box.right - view.right + 8;
  if (box.top < top) pane.scrollTop -= top - box.top + 8;
  else if (box.bottom > view.bottom) pane.scrollTop += box.bottom - view.bottom + 8;
}
