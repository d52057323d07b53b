"""What the tests of rules written twice share: small named ops to record, and the page's own data path run in node.

``replay_in_node`` encodes a finished trace the way every page gets it (the
start meta of ``long_start`` and each detail chunk as ``detail_chunk`` sends
it), then runs a script that builds the page's model of the whole run through
``modelOf`` (the chunks replayed, as a page holding the run whole does in the
browser) and prints what the test asks of it as JSON.  Imported by name (pytest
puts this folder on sys.path).
"""
import json
import shutil
import subprocess
from pathlib import Path

import rlviz
from rlviz.iter import LocalIterator
from rlviz.iter.sentinel import NOT_READY
from rlviz.viz.explorer_long import detail_chunk, long_start
from rlviz.viz.explorer_stream import TraceChunks

ROOT = Path(__file__).resolve().parents[2]
STATIC = (ROOT / "rlviz/viz/static").as_uri()
NODE = shutil.which("node")

#: Reads the page's data (argv 2: {start, chunks} JSON, argv 3: the chunks' table bytes) into ``model``; argv 4 is
#: the test's JSON.
_REPLAY = """
import { readFileSync } from "node:fs";
import { modelOf } from "%(static)s/explorer_long.js";
%(imports)s
const { start, chunks } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const bytes = new Uint8Array(readFileSync(process.argv[3]));
const asked = JSON.parse(process.argv[4]);
let at = 0;
const buffers = chunks.map((chunk) => chunk.tables.map((spec) => bytes.subarray(at, at += spec.bytes)));
const model = modelOf(start, chunks, buffers);        // the page's own path: every chunk replayed
%(body)s
"""


def replay_in_node(trace, tmp_path: Path, imports: str, body: str, asked: object = None, **encode) -> object:
    """Run ``body`` (JS that prints one JSON value) on the page's model of ``trace``; return what it printed.

    ``imports`` are the script's import lines (``%(static)s`` is the Explorer's
    module folder); ``asked`` reaches the script as ``asked``; ``encode`` goes to
    ``TraceChunks`` (``chunk_events=64`` cuts a small trace into several chunks).
    """
    chunks = TraceChunks(trace, **encode)
    start, _ = long_start(chunks)
    parts = [detail_chunk(chunks, k) for k in range(len(chunks))]
    (tmp_path / "meta.json").write_text(json.dumps({"start": start, "chunks": [part.meta for part in parts]}))
    (tmp_path / "columns.bin").write_bytes(b"".join(bytes(b) for part in parts for b in part.buffers))
    script = tmp_path / "replay.mjs"
    script.write_text(_REPLAY % {"static": STATIC, "imports": imports % {"static": STATIC}, "body": body})
    run = subprocess.run([NODE, str(script), str(tmp_path / "meta.json"), str(tmp_path / "columns.bin"),
                          json.dumps(asked)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def named_op(name: str, not_ready_first: int = 0, gaps: bool = False, items=None, gauge: bool = False) -> LocalIterator:
    """A driver op ``name`` (its op and label): ``not_ready_first`` not-readies, then its items.

    ``items`` default to ``"<name>0"``, ``"<name>1"``, ... (10,000 of them);
    ``gaps`` puts a not-ready after every item; ``gauge`` records the gauge
    ``"<name> made"`` (items so far) before each item.
    """
    def source(timeout):
        yield from [NOT_READY] * not_ready_first
        for i, item in enumerate(items if items is not None else (f"{name}{k}" for k in range(10_000))):
            if gauge:
                rlviz.gauge(f"{name} made", i + 1)
            yield item
            if gaps:
                yield NOT_READY
    return LocalIterator(source, name=name).named(name)
