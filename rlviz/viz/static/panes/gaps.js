// Gap marks (an `over-lanes` track of the timeline's registry): where a process's bounded recorder
// evicted events past its capacity, a hatched box over that lane's rows ([data-rlviz=gap], data-rlviz-where the lane, data-rlviz-dropped the count) whose
// title says how many were dropped there and what to do. The gaps come in the stream's meta (each
// chunk brings the latest: rlviz.viz.explorer_stream), so a live page and a saved one mark the same.
// The geometry is one plain function (gapBoxes), tested alone in tests/js/explorer_gaps.test.mjs.
import { GUTTER, counted, make } from "../explorer_dom.js";
import { durationText, startText } from "../explorer_time.js";

const MIN_W = 3;                 // a gap narrower than this many pixels is drawn this wide, so it shows

/** What hovering gap `gap` says (`unitMs` converts its times). */
export function gapTitle(gap, unitMs) {
  const from = gap.from * unitMs, to = gap.to * unitMs;
  return `${counted(gap.dropped, "event")} of ${gap.where} dropped here, between ${startText(from)} `
    + `and ${startText(to)} (${durationText(to - from)}): its bounded buffer evicted its oldest events past its `
    + "capacity. Raise rlviz.record(capacity=...) to keep them.";
}

/**
 * The boxes of `gaps` over the window [a, b] (units) drawn `plotW` pixels wide after the gutter:
 * [{gap, left, width, top, height}], pixels in the timeline's scroll area. `laneSpan(k)` gives lane k's
 * [top, bottom] (undefined when its rows are hidden: no box); a gap of a lane the page has no rows for
 * (every event it held was dropped) spans [0, `height`]. Gaps wholly outside the window get no box.
 */
export function gapBoxes(gaps, lanes, laneSpan, [a, b], plotW, height) {
  const scale = plotW / (b - a), boxes = [];
  for (const gap of gaps) {
    if (gap.to < a || gap.from > b) continue;
    const k = lanes.indexOf(gap.where);
    const span = k < 0 ? [0, height] : laneSpan(k);
    if (!span) continue;
    const x0 = Math.max(0, (gap.from - a) * scale), x1 = Math.min(plotW, (gap.to - a) * scale);
    const width = Math.max(MIN_W, x1 - x0), left = Math.min(GUTTER + x0, GUTTER + plotW - width);
    boxes.push({ gap, left, width, top: span[0], height: span[1] - span[0] });
  }
  return boxes;
}

/**
 * The gap marks of a timeline (its `over-lanes` track): mounted into the scroll area, over the lanes canvas.
 * @param {object} view  the Explorer's shared context (meta.gaps, meta.lanes, model.unitMs, store)
 * @param {object} hosts  `{scroll}`: the timeline's scroll area
 * @returns {{draw: function(object, object): void, element: HTMLElement, destroy: function(): void}}
 */
export function createGapMarks(view, { scroll: host }) {
  const box = make("div", "rlviz-gaps", "gaps");
  Object.assign(box.style, { position: "absolute", left: "0", top: "0", width: "100%", height: "0",
    overflow: "visible", pointerEvents: "none" });
  host.appendChild(box);

  function mark({ gap, left, width, top, height: tall }) {
    const el = make("div", "rlviz-gap", "gap");
    el.dataset.rlvizWhere = gap.where;
    el.dataset.rlvizDropped = String(gap.dropped);
    el.title = gapTitle(gap, view.model.unitMs);
    Object.assign(el.style, { position: "absolute", left: `${left}px`, width: `${width}px`, top: `${top}px`,
      height: `${tall}px`, pointerEvents: "auto", boxSizing: "border-box", borderLeft: "1px solid #d62728",
      borderRight: "1px solid #d62728",
      background: "repeating-linear-gradient(135deg, rgba(214,39,40,0.28) 0 3px, rgba(255,255,255,0.55) 3px 7px)" });
    return el;
  }

  /** Mark every gap in the window over its lane's rows, `placed` saying where the rows lie (timeline.js). */
  function draw(placed) {
    const gaps = view.meta.gaps || [], state = view.store.get();
    const lanes = (view.meta.lanes || []).map((lane) => lane.name);
    const plotW = Math.floor(Math.max(50, (state.width || 960) - GUTTER - 8));
    const boxes = gaps.length && view.model.n > 0 ? gapBoxes(gaps, lanes, placed.span, state.window, plotW, placed.height) : [];
    box.replaceChildren(...boxes.map(mark));
  }

  return { draw: (frame, placed) => draw(placed), element: box, destroy() { box.remove(); } };
}
