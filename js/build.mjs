// Bundle the Explorer's ES modules (rlviz/viz/static/explorer.js and what it imports) into the one
// module the package ships: rlviz/viz/static/explorer.bundle.js. `make bundle` runs it;
// tests/viz/test_explorer_bundle.py rebuilds into a temporary file and checks the committed
// bundle is exactly that build. Usage: node js/build.mjs [outfile [metafile]]; a metafile names the
// modules that went into the bundle (esbuild's "inputs"), which the test checks against the sources.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outfile = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, "rlviz/viz/static/explorer.bundle.js");
const metafile = process.argv[3] ? path.resolve(process.argv[3]) : null;

const result = await build({
  entryPoints: [path.join(root, "rlviz/viz/static/explorer.js")],
  outfile,
  bundle: true,
  format: "esm",
  target: "es2020",
  platform: "browser",
  charset: "utf8",
  legalComments: "none",
  // Every saved page embeds the bundle, so its size is bytes per event on a short page (261 kB whole was 2.6
  // bytes an event at 100k events): whitespace and syntax are minified (176 kB), names kept, so an error
  // in the page still names the function it came from.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: "// Built by js/build.mjs (esbuild) from rlviz/viz/static/*.js and panes/*.js: edit those, then `make bundle`." },
  logLevel: "warning",
  metafile: Boolean(metafile),
});
if (metafile) writeFileSync(metafile, JSON.stringify(result.metafile));
