// A live view's feed (Bokeh's ColumnDataSource.stream is the model): chunks and the run's status
// are taken at once but drawn once per frame, so two messages a refresh, or several queued behind
// a busy page, cost one pass of the panes. A hidden page draws no frames, so past MAX_QUEUED chunks
// go into the data (trimmed to the window) undrawn. A chunk the page cannot take where it stands
// (one went missing or came out of order) drops what is queued and asks the host for the stream again.
// Chunks are drawn at most once every DRAW_EVERY_MS: on a machine the run already fills, each draw of
// the page (script, layout, compositing) is CPU the learner and the workers do not get. A status that
// changes the run's state (paused, stopped, an error) is drawn at the next frame; its counters and
// curve wait with the chunks.
import { orderEvents } from "./explorer_core.js";
import { measure } from "./explorer_dom.js";
import { StreamGap, appendChunk, followWindow, keptSelection, liveModel } from "./explorer_live.js";

const FOLLOW_MS = 30_000;           // following, a live view shows the newest 30 s (all of a shorter run)
const MAX_QUEUED = 8;               // chunks a live view queues undrawn before taking them into its data
export const DRAW_EVERY_MS = 1000;  // a live view draws appended chunks at most once a second
/** The status fields a person acts on: when one changes, the status is drawn at once. */
const STATE_FIELDS = ["running", "paused", "error", "gated", "paused_at", "break_on", "break_error", "break_op"];

/** Whether status `next` changes the run's state from `shown` (the status drawn last). */
export function changesState(next, shown) {
  return !shown || STATE_FIELDS.some((key) => JSON.stringify(next[key]) !== JSON.stringify(shown[key]));
}

/**
 * The patch of the store that shows what new chunks brought: the model grown to the live data,
 * its completion order, the window following the tail (while it follows), the selection kept on its event.
 * @param {object} view     the Explorer's shared context (model, meta, full are brought up to date here)
 * @param {object} live     the live data (explorer_live.js)
 * @param {object} changes  {trimmed, structure}: events trimmed from the front, whether the structure changed
 * @returns {object} the patch
 */
export function grownPatch(view, live, changes) {
  view.model = liveModel(live);
  view.meta = view.model.meta;
  view.full[1] = Math.max(view.model.end, 1);
  const state = view.store.get();
  const span = state.followSpan ?? FOLLOW_MS * 1e6 / view.meta.unit_ns;
  const patch = { data: state.data + 1, selected: keptSelection(state.selected, changes.trimmed), hover: -1,
    order: orderEvents(view.model),
    window: state.follow ? followWindow(state.window, view.full[1], true, span) : state.window };
  if (changes.structure) patch.rows = state.rows + 1;
  return patch;
}

/**
 * The feed of a live view.
 * @param {object} view  the Explorer's shared context
 * @param {object} live  the live data the chunks go into
 * @param {object} host  {onStreamGap?(error)}: called (once per gap) instead of showing the error,
 *   when the host can ask for the stream again
 * @returns {{append, setLive, drawNow, destroy}}
 */
export function createFeed(view, live, host = {}) {
  const { store } = view;
  let queued = [], taken = null, status = null, shown = null, frame = 0, pacing = 0, drawnAt = -Infinity;
  const nextFrame = globalThis.requestAnimationFrame ?? ((draw) => setTimeout(draw, 16));
  const cancelFrame = globalThis.cancelAnimationFrame ?? clearTimeout;
  const drawSoon = () => { if (!frame) frame = nextFrame(() => { frame = 0; drawQueued(); }); };

  /** Draw at the next frame once the last draw of chunks is DRAW_EVERY_MS old. */
  function drawPaced() {
    if (frame || pacing) return;
    const due = drawnAt + DRAW_EVERY_MS - performance.now();
    if (due <= 0) drawSoon();
    else pacing = setTimeout(() => { pacing = 0; drawSoon(); }, due);
  }

  function cancel() {
    cancelFrame(frame);
    clearTimeout(pacing);
    frame = pacing = 0;
  }

  /** Move the queued chunks into the live data; what they changed waits in `taken` for the next draw. */
  function take() {
    const chunks = queued;
    queued = [];
    for (const [message, buffers] of chunks) {
      const { trimmed, structure } = appendChunk(live, message, buffers);
      taken ??= { trimmed: 0, structure: false, first: message.first_id, count: 0 };
      taken.trimmed += trimmed;
      taken.structure ||= structure;
      taken.count += message.count;
    }
  }

  /** `take`, where a gap goes to the host when it can ask for the stream again (else it is thrown). */
  function takeOrAsk() {
    try { take(); } catch (error) {
      if (!(error instanceof StreamGap) || !host.onStreamGap) throw error;
      host.onStreamGap(error);
    }
  }

  /** Draw what was queued: the model grows, the window follows the tail, the selection stays on its event. */
  function drawQueued() {
    const started = performance.now();
    clearTimeout(pacing);
    pacing = 0;
    try {
      takeOrAsk();
      const patch = taken ? grownPatch(view, live, taken) : {};
      if (status) patch.live = shown = status;
      status = null;
      store.set(patch, { from: "append" });
      // which events were drawn when: a profiler (or benchmarks/bench_live_lab.py) times event -> page from it
      if (taken) {
        drawnAt = started;
        measure("rlviz:append", started, { first_id: taken.first, count: taken.count });
      }
    } catch (error) {
      store.set({ error: `The Explorer failed: ${error && error.message ? error.message : error}` }, { from: "append" });
    } finally {
      taken = null;
    }
  }

  return {
    /** Queue one appended chunk (see rlviz.viz.explorer_stream); it is drawn at the next frame, or a
     * second after the last drawn chunk. */
    append(message, buffers) {
      queued.push([message, buffers]);
      if (queued.length >= MAX_QUEUED) takeOrAsk();
      drawPaced();
    },
    /** Queue the run's status; drawn at the next frame (with any chunks queued) when it changes the
     * run's state, else with the next chunks. */
    setLive(next) {
      const now = changesState(next, shown);
      status = next;
      if (now) drawSoon(); else drawPaced();
    },
    /** Draw what was appended (and the status) now rather than at the next frame. */
    drawNow() { cancel(); drawQueued(); },
    destroy() { cancel(); },
  };
}
