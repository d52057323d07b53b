// A saved page's data checked before it is replayed: the trace's description parses, each packed
// part (overview, detail chunk) is as many bytes as announced and sums to the Adler-32 the file was written with. A file cut short
// (an interrupted download or copy) or changed after it was written fails one of these, and the page
// says so in words (DamagedPage) rather than drawing garbage or nothing. Free of the DOM: tested with node.

/** The saved page's data is not what rlviz.viz.write_html wrote: the reason is the message. */
export class DamagedPage extends Error {}

/** Adler-32 of `bytes` (zlib's, as Python's zlib.adler32), an unsigned 32-bit int. */
export function adler32(bytes) {
  let a = 1, b = 0;
  for (let at = 0; at < bytes.length;) {
    const end = Math.min(at + 5552, bytes.length);     // zlib's NMAX: the sums stay exact before the modulo
    for (; at < end; at++) { a += bytes[at]; b += a; }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** How a damaged page names each JSON part it reads. */
const SAVED_PARTS = {
  meta: "the trace's description (#rlviz-meta)",
  view: "what the page opens on (#rlviz-view)",
  runs: "the list of compared runs (#rlviz-runs)",
};

/**
 * One of the page's JSON parts as an object, or a DamagedPage saying why not: the trace's description
 * (`part` "meta", #rlviz-meta, which lists the chunks), what the page opens on ("view", #rlviz-view),
 * or a diff page's compared runs ("runs", #rlviz-runs, a list).
 */
export function savedJson(text, part = "meta") {
  const what = SAVED_PARTS[part];
  if (text == null) throw new DamagedPage(`${what} is missing`);
  let value;
  try { value = JSON.parse(text); } catch (error) {
    throw new DamagedPage(`${what} does not parse: ${error.message}`);
  }
  if (part === "meta" && !(value && Array.isArray(value.chunks))) throw new DamagedPage(`${what} lists no chunks`);
  if (part === "runs" && !Array.isArray(value)) throw new DamagedPage(`${what} is not a list`);
  return value;
}

/**
 * Check one packed part of a long trace's page (its overview, a detail chunk: `what`) against the
 * size the meta announces and the Adler-32 its element carries; a DamagedPage says what is wrong.
 */
export function checkPacked(bytes, size, checksum, what) {
  if (bytes.length !== size) {
    throw new DamagedPage(`${what} holds ${bytes.length.toLocaleString("en-US")} bytes where it announces `
      + `${size.toLocaleString("en-US")}: the file was ${bytes.length < size ? "cut short" : "changed after it was written"}`);
  }
  if (Number.isFinite(checksum) && adler32(bytes) !== checksum) {
    throw new DamagedPage(`${what} does not match the checksum it was written with: the file was changed after it was written`);
  }
}

/** What a damaged page says: what is wrong and what to do. */
export function damagedText(reason) {
  return `This saved rlviz page is damaged, so its trace cannot be shown: ${reason}. Write it again with `
    + "rlviz.viz.write_html(trace, path), or open a complete copy of the file.";
}
