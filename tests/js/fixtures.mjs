// What the Explorer's JS tests share: a payload like rlviz.viz.explorer_payload.encode_trace's,
// and its built model, from plain event lists.
import {
  float64, int32, tableFromArrays, tableToIPC, uint16, uint32, uint8,
} from "../../js/node_modules/@uwdata/flechette/src/index.js";
import { decodeChunk } from "../../rlviz/viz/static/explorer_arrow.js";
import { buildModel } from "../../rlviz/viz/static/explorer_core.js";

/** The Arrow type of each typed array the encoder sends (declared: an empty column has no values to infer it from). */
const ARROW_TYPES = new Map([[Uint8Array, uint8], [Uint16Array, uint16], [Uint32Array, uint32], [Int32Array, int32],
  [Float64Array, float64]]);

/**
 * Typed columns as a chunk carries them: each column its own Arrow IPC table (the decoder reads any
 * grouping; rlviz.viz.chunk_tables groups them by length), {tables: [{name, rows, bytes}], buffers}.
 */
export function chunkTables(columns) {
  const tables = [], buffers = [];
  for (const [name, values] of Object.entries(columns)) {
    const type = ARROW_TYPES.get(values.constructor)();
    const bytes = tableToIPC(tableFromArrays({ [name]: values }, { types: { [name]: type } }), { format: "stream" });
    tables.push({ name, rows: values.length, bytes: bytes.byteLength });
    buffers.push(bytes);
  }
  return { tables, buffers };
}

/**
 * A payload {meta, buffers} from events [node, start, duration, outcome, kind, item, inputs, dropped],
 * where `inputs` lists producer indices and `dropped` (optional) those of them the call dropped.
 */
export function payload(nodes, events, texts = []) {
  const columns = {
    start: Uint32Array.from(events.map((e) => e[1])),
    duration: Uint32Array.from(events.map((e) => e[2])),
    node: Uint8Array.from(events.map((e) => e[0])),
    flags: Uint8Array.from(events.map((e) => e[3] | (e[4] << 2))),
    item: Int32Array.from(events.map((e) => e[5])),
    input_count: Uint8Array.from(events.map((e) => e[6].length)),
    inputs: Uint32Array.from(events.flatMap((e) => e[6])),
    input_dropped: Uint8Array.from(events.flatMap((e) => e[6].map((p) => ((e[7] || []).includes(p) ? 1 : 0)))),
  };
  const { tables, buffers } = chunkTables(columns);
  const lanes = [];
  nodes.forEach((node, k) => {
    let lane = lanes.find((l) => l.name === node.where);
    if (!lane) { lane = { name: node.where, color: "#5b6770", nodes: [] }; lanes.push(lane); }
    lane.nodes.push(k);
  });
  const meta = { count: events.length, unit_ns: 1000, texts, tables, lanes, order: null,
    nodes: nodes.map((node) => ({ short: node.op, color: "#1f77b4", label: node.op, ...node })) };
  return { meta, buffers };
}

/** The model built from `payload(nodes, events, texts)`. */
export function model(nodes, events, texts) {
  const { meta, buffers } = payload(nodes, events, texts);
  return buildModel(meta, decodeChunk(meta, buffers));
}

/**
 * A level of detail (explorer_long.js `createLod`'s shape) for a model that holds every event: every lane exact,
 * no levels, as a page whose chunks are all loaded.
 */
export function exactLod() {
  return { levels: null, loaded: [0, 0], exact: () => true, pixels: () => null, pixelAt: () => null,
    gaugePixels: () => null, gaugeAt: () => null, gaugeRange: () => null, holding: () => false, settled: () => true };
}
