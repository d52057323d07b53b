// The page's table decoder (explorer_arrow.js, flechette) on a chunk and an overview level Python wrote:
// every table of rlviz.viz.chunk_tables, narrow and wide types, a delta-coded start that wraps modulo
// 2**32, a busy time sent as the high half of its float32 bits. tests/viz/test_chunk_tables.py keeps
// chunk_fixture.json and level_fixture.json what the writer writes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { decodeChunk } from "../../rlviz/viz/static/explorer_arrow.js";

const FIXTURE = JSON.parse(readFileSync(new URL("./chunk_fixture.json", import.meta.url), "utf8"));
const BUFFERS = FIXTURE.buffers.map((text) => Uint8Array.from(Buffer.from(text, "base64")));

test("a chunk Python wrote decodes to the columns it holds, each table, as narrow as it was written", () => {
  const columns = decodeChunk({ tables: FIXTURE.tables }, BUFFERS);
  assert.deepEqual(Object.keys(columns).sort(), Object.keys(FIXTURE.columns).sort());
  for (const [name, values] of Object.entries(FIXTURE.columns)) assert.deepEqual(Array.from(columns[name]), values, name);
  assert.ok(columns.start instanceof Uint32Array && columns.node instanceof Uint16Array && columns.flags instanceof Uint8Array);
  assert.ok(columns.duration instanceof Float64Array && columns.item instanceof Int32Array);
});

test("decoding twice gives the same columns: the delta-coded ones are summed in a copy", () => {
  const first = decodeChunk({ tables: FIXTURE.tables }, BUFFERS);
  const again = decodeChunk({ tables: FIXTURE.tables }, BUFFERS);
  assert.deepEqual(Array.from(again.start), Array.from(first.start));
  assert.deepEqual(Array.from(again.inputs), FIXTURE.columns.inputs);
});

const LEVEL = JSON.parse(readFileSync(new URL("./level_fixture.json", import.meta.url), "utf8"));

test("an overview level Python wrote decodes as a chunk does: a busy time sent as its high 16 bits is float32 again", () => {
  const buffers = LEVEL.buffers.map((text) => Uint8Array.from(Buffer.from(text, "base64")));
  const columns = decodeChunk({ tables: LEVEL.tables }, buffers);
  assert.deepEqual(Object.keys(columns).sort(), Object.keys(LEVEL.columns).sort());
  for (const [name, values] of Object.entries(LEVEL.columns)) assert.deepEqual(Array.from(columns[name]), values, name);
  assert.ok(columns.busy instanceof Float32Array && columns.count instanceof Uint16Array);
  assert.ok(columns.gauge_last instanceof Float64Array && columns.gauge_count instanceof Uint32Array);
});
