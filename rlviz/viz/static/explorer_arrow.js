// A chunk's (or an overview level's) columns from its tables: each an Apache Arrow IPC stream
// (rlviz.viz.chunk_tables writes them), read with flechette, a maintained Arrow reader, into typed
// arrays. Integers come as narrow as the writer chose; a column whose field says it travels as
// differences is added up, and one that travels as the high half of float32 bits is widened again.
import { tableFromIPC } from "../../../js/node_modules/@uwdata/flechette/src/index.js";

/** Field metadata key of a column written as differences (rlviz.viz.chunk_tables.DELTA_KEY). */
export const DELTA_KEY = "rlviz.delta";
/** Field metadata key of float32 values travelling as their bits shifted right (rlviz.viz.chunk_tables.SHIFT_KEY). */
export const SHIFT_KEY = "rlviz.float32_shift";

/** Bytes of a buffer as a Uint8Array (ArrayBuffer, DataView or typed array), at an offset Arrow's types can view. */
function alignedBytes(buffer) {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer)
    : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  return bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
}

/** Each value plus the one before, modulo 2**32, in a copy (the IPC bytes stay as they came). */
function summed(values, name) {
  if (!(values instanceof Uint32Array)) throw new Error(`column ${name} is delta-coded but is not uint32`);
  const out = values.slice();
  for (let k = 1; k < out.length; k++) out[k] += out[k - 1];      // a Uint32Array wraps modulo 2**32
  return out;
}

/** Float32 values from the high bits `values` hold of them (shifted right by `shift`). */
function widened(values, shift, name) {
  if (!(values instanceof Uint16Array)) throw new Error(`column ${name} travels as float32 high bits but is not uint16`);
  const bits = new Uint32Array(values.length);
  for (let k = 0; k < values.length; k++) bits[k] = values[k] << shift;
  return new Float32Array(bits.buffer);
}

/** A column's values as its writer had them (see DELTA_KEY and SHIFT_KEY). */
function asWritten(values, field) {
  if (field.metadata?.has(DELTA_KEY)) return summed(values, field.name);
  if (field.metadata?.has(SHIFT_KEY)) return widened(values, Number(field.metadata.get(SHIFT_KEY)), field.name);
  return values;
}

/**
 * The columns of one chunk (or overview level), by name, as typed arrays.
 * @param {object} meta  the chunk's meta: `tables`, per table its name, rows and bytes, in the order of `buffers`
 * @param {Array<ArrayBuffer|Uint8Array|DataView>} buffers  one Arrow IPC stream per table
 * @returns {Object<string, TypedArray>}
 */
export function decodeChunk(meta, buffers) {
  const tables = meta.tables || [];
  if (buffers.length !== tables.length) throw new Error(`a chunk announces ${tables.length} tables but brings ${buffers.length} buffers`);
  const columns = {};
  tables.forEach((spec, k) => {
    const bytes = alignedBytes(buffers[k]);
    if (bytes.byteLength !== spec.bytes) throw new Error(`table ${spec.name}: got ${bytes.byteLength} bytes, expected ${spec.bytes}`);
    const table = tableFromIPC(bytes);
    if (table.numRows !== spec.rows) throw new Error(`table ${spec.name}: ${table.numRows} rows, expected ${spec.rows}`);
    for (const field of table.schema.fields) {
      columns[field.name] = asWritten(table.getChild(field.name).toArray(), field);
    }
  });
  return columns;
}
