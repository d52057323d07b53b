// The gauges a page holds (rlviz.trace.gauges): values that go up and down over a run, one track
// per gauge name and lane, growing with the stream's chunks (gauge_track, gauge_time, gauge_value;
// a chunk's gauge_tracks lists the tracks it opens). Free of the DOM. Also the cause of a
// not-ready call, read from the gauges its op recorded during the call: the same rule, word for
// word, as rlviz.trace.causes (a parity test runs both).
import { isDroppedInput, whyOf } from "./explorer_core.js";

const NOT_READY = 1;

/** An int with thousands separators, as Python's f"{int(v):,}" writes it. */
function grouped(v) {
  return String(Math.trunc(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * The causes, in the order they are tried: the gauges a call must have recorded, and the sentence
 * they make (rlviz.trace.causes.CAUSES, word for word).
 */
export const CAUSES = [
  [["learning_starts", "replay rows added"],
    (needed, added) => `replay buffer has ${grouped(added)} of the ${grouped(needed)} rows learning_starts needs`],
  [["Enqueue queue capacity", "Enqueue queue held"], (capacity, held) => `its queue is full: ${grouped(held)} of ${grouped(capacity)} items`],
  [["Dequeue queue held"], () => "its queue is empty"],
];

/**
 * Held gauges: {tracks: [{name, where, time: [], value: []}], version}, with `tracks` ([name, where]
 * pairs: a long trace's start meta lists them all) open and empty.
 */
export function createGauges(tracks = []) {
  return { tracks: tracks.map(([name, where]) => ({ name, where, time: [], value: [] })), version: 0 };
}

/**
 * Append a chunk's gauge readings (decoded gauge_* columns; `message.gauge_tracks` opens new tracks).
 * A saved chunk also brings, per track read before it, the reading in force at its start
 * (gauge_before_*): taken only for a track that holds no reading yet (a page holding a part of the
 * chunks), so its line starts at the window's left edge. A reading of a track the data does not hold
 * (a growing run's chunk answered after a new track opened, before the extent that lists it came) is left
 * out: the page builds its model again from the same chunks once its meta lists the track.
 */
export function appendGauges(held, message, decoded) {
  for (const [name, where] of message.gauge_tracks || []) held.tracks.push({ name, where, time: [], value: [] });
  const before = decoded.gauge_before_track ?? [];
  for (let k = 0; k < before.length; k++) {
    const t = held.tracks[before[k]];
    if (!t || t.time.length > 0) continue;
    t.time.push(decoded.gauge_before_time[k]);
    t.value.push(decoded.gauge_before_value[k]);
  }
  const track = decoded.gauge_track;
  if (!track || track.length === 0) {
    if (before.length) held.version++;
    return;
  }
  for (let k = 0; k < track.length; k++) {
    const t = held.tracks[track[k]], time = decoded.gauge_time[k];
    if (!t) continue;          // a growing run's track the page's meta does not list yet: its next model has it
    let at = t.time.length;
    while (at > 0 && t.time[at - 1] > time) at--;        // readings of several processes may interleave
    t.time.splice(at, 0, time);
    t.value.splice(at, 0, decoded.gauge_value[k]);
  }
  held.version++;
}

/**
 * Let go of the readings before time `t` that no longer show (the page's front was trimmed): each
 * track keeps its latest reading before `t`, the value it held when the held events begin.
 */
export function trimGauges(held, t) {
  let trimmed = 0;
  for (const track of held.tracks) {
    const cut = readingAt(track, t);              // the reading in force at t stays
    if (cut > 0) {
      track.time.splice(0, cut);
      track.value.splice(0, cut);
      trimmed += cut;
    }
  }
  if (trimmed) held.version++;
  return trimmed;
}

/** The index of the latest reading of `track` at or before time `t` (-1 if none). */
export function readingAt(track, t) {
  let a = 0, b = track.time.length;
  while (a < b) { const mid = (a + b) >>> 1; if (track.time[mid] <= t) a = mid + 1; else b = mid; }
  return a - 1;
}

/** The track of gauge `name` on lane `where` (undefined if none). */
export function trackOf(held, name, where) {
  return held.tracks.find((t) => t.name === name && t.where === where);
}

/** The latest value of `track` from time `s` to time `e` (null if it has none then). */
function within(track, s, e) {
  const k = readingAt(track, e);
  return k >= 0 && track.time[k] >= s ? track.value[k] : null;
}

/** The state event `i`'s op recorded on its lane during the call, as a cause sentence (null if none). */
export function stateCause(held, model, i) {
  const where = model.nodes[model.node[i]].where, s = model.start[i], e = s + model.duration[i];
  for (const [names, sentence] of CAUSES) {
    const tracks = names.map((name) => trackOf(held, name, where));
    if (tracks.some((t) => !t)) continue;
    const values = tracks.map((t) => within(t, s, e));
    if (values.every((v) => v !== null)) return sentence(...values);
  }
  return null;
}

/**
 * The cause of event `i`, as rlviz.trace.causes.event_causes finds it: {text, notReady}, or null. A
 * not-ready call's is the state its op recorded during it; failing that, a call that dropped inputs
 * has the state the latest one's producer recorded while making it ("dropped an input: ...").
 */
export function causeOf(held, model, i) {
  if (!held || held.tracks.length === 0) return null;
  if ((model.flags[i] & 3) === NOT_READY) {
    const text = stateCause(held, model, i);
    if (text !== null) return { text, notReady: true };
  }
  for (let k = model.inOffsets[i + 1] - 1; k >= model.inOffsets[i]; k--) {      // the latest dropped input's
    const p = model.inputs[k];
    if (!isDroppedInput(model, i, p)) continue;
    const text = stateCause(held, model, p);
    if (text !== null) return { text: `dropped an input: ${text}`, notReady: false };
  }
  return null;
}

/** An event's whole why: the union's decision, its cause, both, or null (as rlviz.trace.causes.with_cause). */
export function withCause(decision, cause, notReady = true) {
  if (cause == null) return decision;
  if (decision != null) return `${decision} (${cause})`;
  return notReady ? `not ready: ${cause}` : cause;
}

/** Why event `i` happened, as Event.why says it: `index` from decisionIndex(decisions). */
export function eventWhy(model, decisions, index, i) {
  const cause = causeOf(model.gauges, model, i);
  return withCause(whyOf(decisions, index, i), cause && cause.text, cause ? cause.notReady : true);
}
