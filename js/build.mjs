// Bundle the Explorer's ES modules (rlviz/viz/static/explorer.js and what it imports) into the one
// module the package ships: rlviz/viz/static/explorer.bundle.js. `make bundle` runs it;
// tests/viz/test_explorer_bundle.py rebuilds into a temporary file and checks the committed
// bundle is exactly that build. Usage: node js/build.mjs [outfile]
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outfile = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, "rlviz/viz/static/explorer.bundle.js");

await build({
  entryPoints: [path.join(root, "rlviz/viz/static/explorer.js")],
  outfile,
  bundle: true,
  format: "esm",
  target: "es2020",
  platform: "browser",
  charset: "utf8",
  legalComments: "none",
  minify: false,            // readable in the browser's debugger, and diffs of the bundle stay small
  banner: { js: "// Built by js/build.mjs (esbuild) from rlviz/viz/static/*.js and panes/*.js: edit those, then `make bundle`." },
  logLevel: "warning",
});
