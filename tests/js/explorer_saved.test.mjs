// Unit tests of a saved page's checks before it is replayed (explorer_saved.js): its description parses,
// its bytes are whole and match their checksum. tests/viz/test_damaged_page_browser.py opens damaged files.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DamagedPage, adler32, announcedBytes, checkSavedBytes, damagedText, savedJson } from "../../rlviz/viz/static/explorer_saved.js";

test("a saved page's data is checked: its description parses, its bytes are whole and match their checksum", () => {
  const meta = savedJson(JSON.stringify({ chunks: [{ tables: [{ bytes: 6 }, { bytes: 3 }] }] }));
  assert.equal(announcedBytes(meta), 9);
  const bytes = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(adler32(bytes), 0xae002e);              // zlib.adler32(bytes(range(1, 10)))
  assert.equal(adler32(new Uint8Array(100_000).fill(255)), 0x149a302c);   // past zlib's NMAX: the sums stay exact
  checkSavedBytes(meta, bytes, adler32(bytes));
  checkSavedBytes(meta, bytes, null);                  // a file written without one
  assert.throws(() => checkSavedBytes(meta, bytes.subarray(0, 5), null), (e) => e instanceof DamagedPage
    && e.message === "its trace data stops after 5 of the 9 bytes it announces: the file was cut short");
  assert.throws(() => checkSavedBytes(meta, Uint8Array.from([...bytes, 0]), null), /changed after it was written/);
  assert.throws(() => checkSavedBytes(meta, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 8]), adler32(bytes)), /checksum/);
  assert.throws(() => savedJson('{"chunks": [{'), (e) => e instanceof DamagedPage && /does not parse/.test(e.message));
  assert.throws(() => savedJson(undefined), /is missing/);
  assert.throws(() => savedJson("{}"), /lists no chunks/);
  assert.deepEqual(savedJson("{}", "view"), {});
  assert.match(damagedText("x"), /^This saved rlviz page is damaged, so its trace cannot be shown: x\. Write it again with rlviz\.viz\.write_html/);
});
