// The first divergence of a diff's run (an `over-timeline` track of the timeline's registry): a
// dashed line down the whole timeline at the time the run's op order first differs from the other
// run's ([data-rlviz=divergence], data-rlviz-ms, -event and -index), labelled under the ruler, kept
// at its time as the window moves; hidden when the time is out of the window. A page that is not a
// diff's run (view.divergence unset) has the track and no line.
import { GUTTER, make } from "../explorer_dom.js";

/** Where (px from the timeline's left edge) the line of time `t` (model units) is drawn in `frame`; null when outside the plot. */
export function markerLeft(frame, t) {
  const x = frame.xOf(t);
  return x >= GUTTER && x <= GUTTER + frame.plotW ? x : null;
}

/**
 * The divergence track: its line mounted into the timeline element, placed at each draw.
 * @param {object} view  the Explorer's shared context; `divergence` {ms, event, index, op} (a diff's run), or none
 * @param {object} hosts  `{timeline}`: the timeline element
 * @returns {{draw: function(object): void, element: (HTMLElement|null), destroy: function(): void}}
 */
export function createDivergenceMark(view, { timeline }) {
  const divergence = view.divergence;
  if (!divergence) return { element: null, draw() {}, destroy() {} };
  timeline.style.position = "relative";
  const element = make("div", "rlviz-divergence", "divergence");
  Object.assign(element.dataset, { rlvizMs: String(divergence.ms), rlvizEvent: String(divergence.event),
    rlvizIndex: String(divergence.index) });
  element.appendChild(make("span", null, null, `first divergence: item ${divergence.index}, ${divergence.op}`));
  timeline.appendChild(element);
  return {
    element,
    draw(frame) {
      const left = markerLeft(frame, divergence.ms / frame.model.unitMs);
      element.style.display = left == null ? "none" : "block";
      if (left != null) element.style.left = `${left}px`;
    },
    destroy() { element.remove(); },
  };
}
