// A stream's chunks replayed into the Explorer's data, free of the DOM: columns that take the
// chunks of the one wire format (rlviz.viz.explorer_stream) in order, links kept as (consumer,
// producer) id pairs, the unions' decisions, the gauge readings, and the model the panes draw. Event
// indices are stable: index = event id - base (the first chunk's first id). Every page builds its
// model this way from the chunks its window needs (explorer_long.modelOf), a saved trace's and a
// growing run's alike.
import { decodeChunk } from "./explorer_arrow.js";
import { buildModel, withRoom } from "./explorer_core.js";
import { appendDecisions, createDecisions, decisionTable } from "./explorer_decisions.js";
import { appendGauges, createGauges } from "./explorer_gauges.js";

const COLUMNS = ["start", "duration", "node", "flags", "item"];
/**
 * Each column is held in the narrowest type its values have needed so far: times as uint32 until one
 * passes 2**32 units (71.6 minutes of microseconds) and items as int32 until a float or a wider int
 * arrives, then as doubles (exact for 285 years of microseconds); nodes as uint16 until a node index
 * passes 65535. A million events hold 15 bytes each rather than 32.
 */
const NARROW = { start: Uint32Array, duration: Uint32Array, node: Uint16Array, flags: Uint8Array, item: Int32Array };
/**
 * Empty data for the structure (nodes, lanes, edges, order strip, unit) in `meta`.
 * @param {object} meta  the start meta: unit_ns, origin_ns, nodes, edges, lanes, order, texts (a long
 *   trace's also gauge_tracks: every gauge track, opened at once)
 * @returns {object} the data: {meta, n, base, columns, pairs}
 */
export function createLive(meta) {
  const live = { meta: { ...meta, count: 0, texts: [...(meta.texts || [])], dropped: meta.dropped || 0, gaps: meta.gaps || [] },
    n: 0, base: 0, columns: {}, pairs: { consumer: new Uint32Array(1024), producer: new Uint32Array(1024), n: 0 },
    droppedLinks: new Map(), model: null,
    decisions: createDecisions(), gauges: createGauges(meta.gauge_tracks) };
  for (const name of COLUMNS) live.columns[name] = new NARROW[name](1024);
  return live;
}

/**
 * A page's data from a stream's start meta and the chunks it brings along (meta.chunks, their buffers
 * chunk after chunk in `buffers`): the stream replayed.
 */
export function openStream(meta, buffers = []) {
  const live = createLive(meta);
  let next = 0;
  for (const chunk of meta.chunks || []) {
    const count = chunk.tables.length;
    appendChunk(live, chunk, buffers.slice(next, next + count));
    next += count;
  }
  return live;
}

/**
 * Append one chunk: meta {first_id, count, time_base, texts, dropped, gaps?, notes?, tables}
 * and its buffers, one Arrow IPC stream per table (explorer_arrow.js: columns start, duration, node, flags, item,
 * input_count, inputs, input_dropped?, late_consumer?, late_producer?, late_dropped?, decision_*?, gauge_*?;
 * meta gauge_tracks?). Chunks follow each other: each starts at the id after the last one's.
 * @returns {number} the events added
 */
export function appendChunk(live, message, buffers) {
  if (live.settled) throw new Error("this stream was replayed whole: no chunk can follow");
  if (live.n > 0 && message.first_id !== live.base + live.n) {
    throw new Error(`a chunk starting at event ${message.first_id} cannot follow event ${live.base + live.n - 1}`);
  }
  const decoded = decodeChunk(message, buffers);
  for (const text of message.texts || []) live.meta.texts.push(text);   // a spread of 150k texts overflows the stack
  if (message.notes) live.meta.notes = message.notes;
  live.meta.dropped = message.dropped || 0;
  if (message.gaps) live.meta.gaps = message.gaps;        // each chunk brings the latest (explorer_stream.py)
  if (live.n === 0) live.base = message.first_id;
  const count = message.count, at = live.n, timeBase = message.time_base || 0;
  for (const name of COLUMNS) {
    const column = wideEnough(live.columns[name], decoded[name], name === "start" ? timeBase : 0, at);
    live.columns[name] = withRoom(column, at + count, at);
    live.columns[name].set(decoded[name], at);
  }
  addTimeBase(live.columns.start, at, at + count, timeBase);
  live.n += count;
  const links = chunkLinks(message, decoded);
  addPairs(live, links.consumer, links.producer);
  rememberDropped(live.droppedLinks, links);
  appendDecisions(live.decisions, decoded);
  appendGauges(live.gauges, message, decoded);
  live.model = null;
  return count;
}

/** A chunk's links as (consumer, producer, dropped) id triples: its own events' inputs, then late ones. */
function chunkLinks(message, decoded) {
  const counts = decoded.input_count, inputs = decoded.inputs;
  const late = decoded.late_consumer ? decoded.late_consumer.length : 0;
  const consumer = new Uint32Array(inputs.length + late), producer = new Uint32Array(inputs.length + late);
  const dropped = new Uint8Array(inputs.length + late);
  let k = 0;
  for (let i = 0; i < counts.length; i++) for (let c = 0; c < counts[i]; c++) consumer[k++] = message.first_id + i;
  producer.set(inputs);
  if (decoded.input_dropped) dropped.set(decoded.input_dropped);
  if (late) {
    consumer.set(decoded.late_consumer, inputs.length);
    producer.set(decoded.late_producer, inputs.length);
    dropped.set(decoded.late_dropped, inputs.length);
  }
  return { consumer, producer, dropped };
}

/**
 * `column` (its first `kept` values), or a wider copy when `values` (plus `base`) do not fit in its
 * type: doubles for float values or times past uint32, uint32 for node indices past uint16.
 */
export function wideEnough(column, values, base, kept) {
  if (column instanceof Float64Array || values.length === 0) return column;
  const top = () => values.reduce((a, b) => Math.max(a, b), 0);
  let Wider = null;
  if (values instanceof Float64Array || (base > 0 && base + top() > 0xffffffff)) Wider = Float64Array;
  else if (column instanceof Uint16Array && values.BYTES_PER_ELEMENT > 2 && top() > 0xffff) Wider = Uint32Array;
  else if (column instanceof Int32Array && !(values instanceof Int32Array)) Wider = Float64Array;
  if (!Wider) return column;
  const wider = new Wider(column.length);
  wider.set(column.subarray(0, kept));
  return wider;
}

/**
 * A stream is whole once replayed: build its model (which keeps the links) and drop the link pairs
 * the model was built from. No chunk can follow.
 */
export function settle(live) {
  liveModel(live);
  live.pairs = { consumer: new Uint32Array(0), producer: new Uint32Array(0), n: 0 };
  live.settled = true;
}

/** A chunk's starts count from its own time base: make them count from the run's origin. */
function addTimeBase(start, from, to, timeBase) {
  if (timeBase === 0) return;
  for (let i = from; i < to; i++) start[i] += timeBase;
}

/** Keep the links (consumer id, producer id) between events held: a link to one the page trimmed is gone. */
function addPairs(live, consumers, producers) {
  const pairs = live.pairs;
  pairs.consumer = withRoom(pairs.consumer, pairs.n + consumers.length);
  pairs.producer = withRoom(pairs.producer, pairs.n + consumers.length);
  for (let k = 0; k < consumers.length; k++) {
    if (consumers[k] < live.base || producers[k] < live.base) continue;
    pairs.consumer[pairs.n] = consumers[k];
    pairs.producer[pairs.n++] = producers[k];
  }
}

/** Keep the links whose consumer dropped the value, by event id (rare: a filter's rejected items). */
function rememberDropped(dropped, links) {
  const flags = links.dropped;
  for (let k = 0; k < flags.length; k++) {
    if (!flags[k]) continue;
    const consumer = links.consumer[k];
    if (!dropped.has(consumer)) dropped.set(consumer, new Set());
    dropped.get(consumer).add(links.producer[k]);
  }
}

/**
 * The meta the panes read: the start meta, whose node counters, order strip and span are the whole
 * run's (rlviz counts them: a page holds a part of the run), with the events held.
 */
function liveMeta(live) {
  return { ...live.meta, count: live.n, item_mode: "f64" };
}

/** The model the panes draw, built once from every event and link of the data. */
export function liveModel(live) {
  if (!live.model) {
    live.model = heldModel(live);
    live.model.meta.decisions = decisionTable(live.decisions, live.model, live.base, live.meta.nodes);
    live.model.gauges = live.gauges;
  }
  return live.model;
}

/** The model built at once from every held event and link (links turned into per-consumer lists). */
export function heldModel(live) {
  const n = live.n, base = live.base, pairs = live.pairs;
  const inputCount = new Uint32Array(n);
  let links = 0;
  for (let k = 0; k < pairs.n; k++) {
    const consumer = pairs.consumer[k] - base, producer = pairs.producer[k] - base;
    if (consumer < n && producer < n) { inputCount[consumer]++; links++; }
  }
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + inputCount[i];
  const inputs = new Uint32Array(links), fill = offsets.slice(0, n);
  for (let k = 0; k < pairs.n; k++) {
    const consumer = pairs.consumer[k] - base, producer = pairs.producer[k] - base;
    if (consumer < n && producer < n) inputs[fill[consumer]++] = producer;
  }
  const columns = { input_count: inputCount, inputs };
  for (const name of COLUMNS) columns[name] = live.columns[name].subarray(0, n);
  const model = buildModel(liveMeta(live), columns);
  model.droppedInputs = { base, links: live.droppedLinks };
  return model;
}
