// Unit tests of a saved page's checks before it is replayed (explorer_saved.js): its description parses,
// its bytes are whole and match their checksum. tests/viz/test_damaged_page_browser.py opens damaged files.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DamagedPage, adler32, checkPacked, damagedText, savedJson } from "../../rlviz/viz/static/explorer_saved.js";

test("a saved page's data is checked: its description parses, each packed part is whole and matches its checksum", () => {
  const bytes = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(adler32(bytes), 0xae002e);              // zlib.adler32(bytes(range(1, 10)))
  assert.equal(adler32(new Uint8Array(100_000).fill(255)), 0x149a302c);   // past zlib's NMAX: the sums stay exact
  checkPacked(bytes, 9, adler32(bytes), "its detail chunk 3");
  checkPacked(bytes, 9, NaN, "its detail chunk 3");    // an element without a checksum
  assert.throws(() => checkPacked(bytes.subarray(0, 5), 9, adler32(bytes), "its detail chunk 3"), (e) => e instanceof DamagedPage
    && e.message === "its detail chunk 3 holds 5 bytes where it announces 9: the file was cut short");
  assert.throws(() => checkPacked(Uint8Array.from([...bytes, 0]), 9, NaN, "its overview"), /changed after it was written/);
  assert.throws(() => checkPacked(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 8]), 9, adler32(bytes), "its overview"),
    /its overview does not match the checksum/);
  assert.throws(() => savedJson('{"chunks": [{'), (e) => e instanceof DamagedPage && /does not parse/.test(e.message));
  assert.throws(() => savedJson(undefined), /is missing/);
  assert.throws(() => savedJson("{}"), /lists no chunks/);
  assert.deepEqual(savedJson("{}", "view"), {});
  assert.match(damagedText("x"), /^This saved rlviz page is damaged, so its trace cannot be shown: x\. Write it again with rlviz\.viz\.write_html/);
});
