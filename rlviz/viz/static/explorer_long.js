// A long trace on the page: its levels (explorer_levels.js) for the whole run, and the detail
// chunks its window needs, loaded when it moves there and fed through the one decoder into the one
// model (openStream, liveModel), so every pane draws them as it draws any trace. A saved chunk
// arrives packed (its Arrow IPC tables deflated together: rlviz.viz.explorer_long) and
// is inflated with the browser's own DecompressionStream; a notebook's kernel sends it unpacked. The latest window wins: an answer for a window the page has
// left is dropped. The selection is a trace index (partIndex finds it in a part), so it survives the
// parts coming and going. Free of the DOM: tested with node.
import {
  chunksFor, covers, gaugeBucketAt, gaugePixels, gaugeRange, lanePixels, levelPixelAt, pickLevel,
  mostChunks,
} from "./explorer_levels.js";
import { measure } from "./explorer_dom.js";
import { liveModel, openStream, settle } from "./explorer_live.js";

/** Decoded chunks kept for a pan back (each about a megabyte). */
const KEPT_CHUNKS = 8;

/**
 * Pieces of a growing tail kept before it is asked for whole again. A page that shows the tail gets a piece per
 * refresh that brought something (an event or a gauge reading); a paused page or a slow run would otherwise gather
 * hundreds of small pieces per chunk, each decoded and replayed into every model of it.
 */
export const MAX_TAIL_PIECES = 16;

/** `bytes` inflated (zlib's deflate format, as Python's zlib.compress writes it) by the browser's DecompressionStream. */
export async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * One inflated detail chunk as the buffers appendChunk takes: the Arrow IPC stream of each of its
 * tables (rlviz.viz.chunk_tables), split at the sizes its meta announces.
 * @param {object} chunk  the chunk's meta (first_id, tables)
 * @param {Uint8Array} bytes  the inflated bytes, table after table
 * @returns {Uint8Array[]}
 */
export function unpackChunk(chunk, bytes) {
  const buffers = [];
  let at = 0;
  for (const spec of chunk.tables) {
    if (at + spec.bytes > bytes.length) throw new Error(`detail chunk ${chunk.first_id}: its bytes stop inside table ${spec.name}`);
    buffers.push(bytes.subarray(at, at + spec.bytes));
    at += spec.bytes;
  }
  if (at !== bytes.length) throw new Error(`detail chunk ${chunk.first_id}: ${bytes.length - at} bytes past its tables`);
  return buffers;
}

/**
 * The level of detail of a long trace's page: what the span track asks per lane (`exact`, `pixels`,
 * and `pixelAt` for its hover),
 * what a gauge track asks when the window is not exact (`gaugePixels`, `gaugeAt`, `gaugeRange`), and
 * what the window's moves ask for (`request`).
 * @param {object} meta  the stream's start meta, with `detail` (per chunk at least its `time_range`) and `overview`
 * @param {object} source  {chunk(k, after): Promise<{chunk, buffers}>}: chunk k's meta (first_id, count,
 *   time_base, tables, ...) and its buffers, unpacked; `after` (a growing run's tail the page holds a part of:
 *   the last piece it has, or null) lets the source send only the rest (a piece whose meta says `parts`)
 * @param {object} host  {onModel(model, loaded), onError(error)}: a model of the chunks [first, last]
 *   loaded for the latest window, or why they could not be
 * @param {number} most  chunks a window may need at most to be drawn exactly (by default mostChunks: a run of a
 *   few chunks is held whole)
 * @returns {object} {exact, pixels, pixelAt, gaugePixels, gaugeAt, gaugeRange, request, setLevels, levels, loaded, pending,
 *   whole, holding}
 */
export function createLod(meta, source, host, fixedMost = null) {
  const detail = meta.detail;
  let most = fixedMost ?? mostChunks(detail);
  const kept = new Map();                // k -> Promise of its pieces ({chunk, buffers} each), the most recent last
  const grew = new Map();                // k -> its pieces before it grew (a growing run's tail): asked for the rest
  let asked = 0;                         // the latest request's number: older answers are dropped
  let held = -1;                         // the trace index of the selected event, kept in the model when it may be
  let grownTimes = 0;                    // how many times a growing run's chunks changed (a load notes it at its start)
  let loadingNeed = null, latest = null; // the chunks the load under way fetches; the latest window asked for
  const lod = {
    /** Per detail chunk its `first_id`, `count`, `time_range` and `calls` (per node); a growing run's grows in place */
    detail,
    levels: null,
    loaded: null,                        // [first, last] chunks in the model, or null
    pending: null,                       // the promise of the latest load (tests and benchmarks await it)
    loading: false,                      // whether the latest load is still under way
    whole: detail.length > 0 && most >= detail.length,     // a run held whole: its first window loads all of it
    failed: false,                       // whether a load (or the levels) failed: the view shows why
    /** Whether a run held whole lacks its events or its levels yet (and nothing failed): its first frame waits for both. */
    holding: () => lod.whole && !(lod.loaded && lod.levels) && !lod.failed,
    /** Whether the page has what its window needs: the levels, and no load under way. */
    settled: () => lod.levels != null && !lod.loading,
    /** Whether lane `lane`'s events in window [a, b] are all in the model. */
    exact: (lane, a, b) => covers(detail, lod.loaded, a, b, most),
    /** Lane `lane` over [a, b] at `plotW` pixels from its levels (lanePixels), or null without levels. */
    pixels(lane, a, b, plotW) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && lane < lod.levels.lanes ? lanePixels(set, lane, a, b, plotW) : null;
    },
    /** What lane `lane`'s pixel `x` of [a, b] drawn `plotW` wide counts in its levels (levelPixelAt), or null. */
    pixelAt(lane, a, b, plotW, x) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && lane < lod.levels.lanes ? levelPixelAt(set, lane, a, b, plotW, x) : null;
    },
    /** Gauge track `track` over [a, b] at `plotW` pixels from its summaries (gaugePixels), or null without levels. */
    gaugePixels(track, a, b, plotW) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && track < lod.levels.tracks ? gaugePixels(set, track, a, b, plotW) : null;
    },
    /** The summary hovering time `t` reads on gauge track `track`, at the level window [a, b] is drawn from. */
    gaugeAt(track, t, a, b, plotW) {
      const set = pickLevel(lod.levels, a, b, plotW);
      return set && track < lod.levels.tracks ? gaugeBucketAt(set, track, t) : null;
    },
    /** Gauge track `track`'s least and greatest reading over the run, or null (no levels yet, or no reading). */
    gaugeRange: (track) => gaugeRange(lod.levels, track),
    setLevels(levels) { lod.levels = levels; },
    /**
     * A growing run's chunks from `from` on changed (the tail grew, chunks closed: `detail` holds their new
     * entries), or with `restructured` every chunk's model must be built again (new nodes or lanes): drop
     * what is kept of them, so that the next request asks for them again.
     */
    grown(from, restructured = false) {
      most = fixedMost ?? mostChunks(detail);
      for (const [k, pieces] of [...kept]) {
        if (!restructured && k < from) continue;
        kept.delete(k);
        if (!restructured) grew.set(k, pieces);
      }
      if (lod.loaded && (restructured || lod.loaded[1] >= from)) lod.loaded = null;
      grownTimes++;
    },
    /**
     * Keep trace event `id` (-1: none) at hand: a window drawn from the levels (it needs more than
     * `most` chunks) loads the chunk holding it, so the selection has its event, its inspector and its why.
     */
    hold(id) { held = id; },
    /**
     * The model of detail chunk `k` alone, from the chunks kept or its source, whatever the window holds (a diff
     * page finds in it the call that stands for one selected in the other run: explorer_diff.js).
     * @returns {Promise<object>}
     */
    chunkModel(k) {
      return chunk(k).then((pieces) => modelOf(meta, pieces.map((piece) => piece.chunk),
        pieces.map((piece) => piece.buffers)));
    },
    /**
     * The window moved to [a, b]: load the chunks it needs (when it needs more than `most`, the chunk
     * of the event held, if any), unless the model holds them already. Resolves to true when a new
     * model was handed to the host.
     */
    request([a, b]) {
      latest = [a, b];
      const need = chunksFor(detail, a, b, most) ?? chunkHolding(detail, held);
      if (!need || (lod.loaded && need[0] >= lod.loaded[0] && need[1] <= lod.loaded[1])) return Promise.resolve(false);
      // the same chunks under way (a growing run's next refresh): let that load finish, then ask again, so a page
      // whose answers take longer than a refresh still shows each model rather than dropping every one
      if (lod.loading && loadingNeed && need[0] === loadingNeed[0] && need[1] === loadingNeed[1]) return lod.pending;
      const mine = ++asked, since = grownTimes;
      lod.loading = true;
      loadingNeed = need;
      const load = Promise.all(range(need).map(chunk)).then((parts) => {
        if (mine !== asked) return false;                      // the window moved on meanwhile
        lod.loaded = since === grownTimes ? need : null;       // chunks that changed meanwhile are asked for again
        lod.loading = false;
        loadingNeed = null;
        const started = performance.now();
        const pieces = parts.flat();
        const model = modelOf(meta, pieces.map((piece) => piece.chunk), pieces.map((piece) => piece.buffers));
        host.onModel(model, need);
        // which events were drawn when: a profiler (or benchmarks/bench_live_lab.py) times event -> page from it
        measure("rlviz:append", started, { first_id: baseOf(model), count: model.n });
        if (!lod.loaded) lod.request(latest);
        return true;
      }, (error) => {
        if (mine !== asked) return false;
        lod.loading = false;
        loadingNeed = null;
        lod.failed = true;
        host.onError(error);
        return false;
      });
      lod.pending = load;
      return load;
    },
  };

  function chunk(k) {
    if (kept.has(k)) {
      const known = kept.get(k);
      kept.delete(k);
      kept.set(k, known);
      return known;
    }
    const before = grew.get(k);
    grew.delete(k);
    const loading = before ? before.then((pieces) => rest(k, pieces), () => whole(k)) : whole(k);
    kept.set(k, loading);
    loading.catch(() => kept.delete(k));
    while (kept.size > Math.max(KEPT_CHUNKS, most)) kept.delete(kept.keys().next().value);
    return loading;
  }

  /** Chunk k as its source sends it whole: one piece. */
  function whole(k) {
    return source.chunk(k, null).then((piece) => [piece]);
  }

  /**
   * Chunk k that grew: the pieces held and the rest, or the whole chunk when the source sends it whole (or when
   * MAX_TAIL_PIECES are held: the whole tail is then one piece again).
   */
  async function rest(k, pieces) {
    if (pieces.length >= MAX_TAIL_PIECES) return whole(k);
    const piece = await source.chunk(k, pieces[pieces.length - 1].chunk);
    return piece.chunk.parts && piece.chunk.parts[0] > 0 ? [...pieces, piece] : [piece];
  }
  return lod;
}

/** [k, k] for the detail chunk holding trace index `id`, or null (none does, or `id` is -1). */
export function chunkHolding(detail, id) {
  const k = id < 0 ? -1 : detail.findIndex((chunk) => id >= chunk.first_id && id < chunk.first_id + chunk.count);
  return k < 0 ? null : [k, k];
}

/** The trace index of a model's first event: 0, or past it for a long trace's part. */
export function baseOf(model) {
  return model.droppedInputs?.base ?? 0;
}

/** Trace index `id` (-1: none) as an index into `model` (a long trace's part), or -1 when the part lacks it. */
export function partIndex(model, id) {
  const i = id - baseOf(model);
  return id >= 0 && i >= 0 && i < model.n ? i : -1;
}

/** [first, ..., last] of a pair. */
function range([first, last]) {
  return Array.from({ length: last - first + 1 }, (_, k) => first + k);
}

/** The model of consecutive detail chunks: their stream replayed (explorer_live.js), settled. */
export function modelOf(meta, chunks, buffers) {
  const { detail, overview, ...start } = meta;
  const metas = chunks.map(({ seq, packed, ...chunk }) => chunk);     // a part of the stream, not its start: no seq
  const data = openStream({ ...start, chunks: metas }, buffers.flat());
  const model = liveModel(data);
  settle(data);
  return model;
}
