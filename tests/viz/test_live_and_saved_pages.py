"""A page that watched a run live and a page opened on its saved trace hold the same events, rounds, whys, notes
and gauges.

Both pages run the Explorer's own data path in node (``openStream`` /
``appendChunk`` / ``liveModel``): the live one is fed the chunks of the
run's ``GrowingChunks`` (cut as they arrived while the run went on), the
saved one the chunks of ``encode_trace`` of the finished trace.  Events are compared by op and
their rank among that op's calls (ids differ: arrival order live, start
order saved).  The notes are read from both pages drawn in chromium.
"""
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from page_replay import named_op

import rlviz
from rlviz.ops import Concurrently
from rlviz.trace.analysis import order_notes
from rlviz.viz import write_html
from rlviz.viz.explorer_stream import encode_trace
from rlviz.viz.growing_chunks import Extent, GrowingChunks

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (make test installs it)")

SCRIPT = """
import { readFileSync } from "node:fs";
import { OUTCOMES, decisionIndex, itemText, roundRows } from "%s/explorer_core.js";
import { eventWhy } from "%s/explorer_gauges.js";
import { appendChunk, createLive, liveModel } from "%s/explorer_live.js";
const stream = JSON.parse(readFileSync(process.argv[2], "utf8"));
const bytes = new Uint8Array(readFileSync(process.argv[3]));
const live = createLive(stream.start);
let at = 0;
for (const chunk of stream.chunks) {
  const buffers = [];
  for (const spec of chunk.tables) { buffers.push(bytes.subarray(at, at + spec.bytes)); at += spec.bytes; }
  appendChunk(live, chunk, buffers);
}
const model = liveModel(live), decisions = model.meta.decisions, index = decisionIndex(decisions);
const order = Array.from({ length: model.n }, (_, i) => i).sort((a, b) =>
  model.node[a] - model.node[b] || model.start[a] - model.start[b] || a - b);
const key = new Array(model.n), seen = new Map();
for (const i of order) {
  const op = model.nodes[model.node[i]].op, rank = seen.get(op) ?? 0;
  seen.set(op, rank + 1);
  key[i] = `${op}#${rank}`;
}
const events = {};
for (let i = 0; i < model.n; i++) {
  events[key[i]] = [OUTCOMES[model.flags[i] & 3], itemText(model, i), eventWhy(model, decisions, index, i)];
}
const rounds = decisions.specs.map((spec, union) => [spec.op,
  roundRows(decisions, union).rounds.map((r) => [r.round, r.cells.map((c) => key[c.event])])]);
const gauges = model.gauges.tracks.map((t) => [t.name, t.where, t.value]).sort();
console.log(JSON.stringify({ events, rounds, gauges }));
"""


def _op(name, not_ready_first=0, gaps=False):
    return named_op(name, not_ready_first, gaps, gauge=True)


def _page(tmp_path: Path, name: str, start: dict, chunks: list) -> dict:
    (tmp_path / f"{name}.json").write_text(json.dumps({"start": start, "chunks": [c.meta for c in chunks]}))
    (tmp_path / f"{name}.bin").write_bytes(b"".join(bytes(b) for c in chunks for b in c.buffers))
    static = (ROOT / "rlviz/viz/static").as_uri()
    script = tmp_path / "page.mjs"
    script.write_text(SCRIPT % (static, static, static))
    run = subprocess.run([NODE, str(script), str(tmp_path / f"{name}.json"), str(tmp_path / f"{name}.bin")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _live_run() -> tuple[GrowingChunks, "rlviz.trace.Trace"]:
    """A [2, 1, "*"] Concurrently run watched by a page: its growing source and the finished trace.

    Six refreshes while it runs, each closing a chunk or more (64 events
    each); the last, as a watch's last refresh after the run ended, works
    the notes out as of the end.
    """
    random.seed(11)
    plan = iter(Concurrently([_op("Store"), _op("Train", not_ready_first=4, gaps=True), _op("Log")],
                             round_robin_weights=[2, 1, "*"], output_indexes=[1]))
    with rlviz.record() as trace:
        source = GrowingChunks(trace.store, chunk_events=64)
        for refresh in range(6):                         # six refreshes while the run goes on
            for _ in range(5):
                next(plan)
            trace.pull()
            source.advance(final=refresh == 5)
    return source, trace.snapshot()


def test_the_live_page_and_the_saved_page_show_the_same_events_rounds_and_whys(tmp_path):
    source, final = _live_run()
    saved = encode_trace(final, chunk_events=128)
    assert len(saved.meta["chunks"]) > 1 and len(source) > 1
    start, _ = source.start(Extent())
    live_page = _page(tmp_path, "live", start, [source.chunk(k) for k in range(len(source))])
    saved_page = _page(tmp_path, "saved", {key: value for key, value in saved.meta.items() if key != "chunks"},
                       _saved_chunks(saved))
    assert live_page["events"] == saved_page["events"]
    assert live_page["rounds"] == saved_page["rounds"]
    assert live_page["gauges"] == saved_page["gauges"]
    assert [[name, where, len(values)] for name, where, values in saved_page["gauges"]] == [
        [name, "driver", len(gauge)] for name, gauge in sorted(final.gauges.items())]
    assert {name for name, _, _ in saved_page["gauges"]} == {"Store made", "Train made", "Log made"}
    whys = [why for _, _, why in saved_page["events"].values() if why]
    assert len(whys) == sum(1 for e in final.events if e.why) > 30
    assert any("not ready" in why for why in whys) and any("the cap" in why for why in whys)


@pytest.mark.browser
def test_the_live_page_and_the_saved_page_show_the_same_notes(tmp_path):
    """The notes (where a scheduling rule dominates) reach both pages from the one Python implementation."""
    from browser_harness import chromium_page
    from explorer_checks import wait_ready
    from growing_page import GrowingPage

    source, final = _live_run()
    expected = order_notes(final)
    assert len(expected) >= 2 and any("not ready" in note for note in expected), expected
    saved_html = write_html(final, tmp_path / "saved.html")
    with chromium_page(1400, 1000) as page:
        page.goto(saved_html.as_uri())
        saved = wait_ready(page).locator('[data-rlviz="notes"] li').all_inner_texts()
        GrowingPage(page, source).mount()
        live = page.locator('[data-rlviz="notes"] li').all_inner_texts()
    assert saved == expected
    assert live == expected


def _saved_chunks(payload) -> list:
    """``encode_trace``'s payload as its list of chunks (each a Payload of its meta and buffers)."""
    buffers = iter(payload.buffers)
    return [type(payload)(meta, [next(buffers) for _ in meta["tables"]])
            for meta in payload.meta["chunks"]]
