// What the Explorer's JS tests share: a payload like rlviz.viz.explorer_payload.encode_trace's,
// and its built model, from plain event lists.
import { buildModel, decodeColumns } from "../../rlviz/viz/static/explorer_core.js";

const DTYPES = { start: "<u4", duration: "<u4", node: "|u1", flags: "|u1", item: "<i4", input_count: "|u1", inputs: "<u4",
  input_dropped: "|u1" };

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
  const specs = Object.entries(columns).map(([name, values]) => ({ name, dtype: DTYPES[name], length: values.length,
    chunks: [values.byteLength] }));
  const lanes = [];
  nodes.forEach((node, k) => {
    let lane = lanes.find((l) => l.name === node.where);
    if (!lane) { lane = { name: node.where, color: "#5b6770", nodes: [] }; lanes.push(lane); }
    lane.nodes.push(k);
  });
  const meta = { count: events.length, unit_ns: 1000, texts, columns: specs, lanes, order: null,
    nodes: nodes.map((node) => ({ short: node.op, color: "#1f77b4", label: node.op, ...node })) };
  return { meta, buffers: Object.values(columns).map((v) => new Uint8Array(v.buffer)) };
}

/** The model built from `payload(nodes, events, texts)`. */
export function model(nodes, events, texts) {
  const { meta, buffers } = payload(nodes, events, texts);
  return buildModel(meta, decodeColumns(meta, buffers));
}
