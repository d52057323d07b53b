"""A page that watched a run live and a page opened on its saved trace hold the same events, rounds, whys, notes
and gauges.

Both pages run the Explorer's own data path in node (``openStream`` /
``appendChunk`` / ``liveModel``): the live one is fed the chunks a
``LiveEncoder`` sent while the run went on, the saved one the chunks of
``encode_trace`` of the finished trace.  Events are compared by op and
their rank among that op's calls (ids differ: arrival order live, start
order saved).  The notes are read from both pages drawn in chromium.
"""
import base64
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
from rlviz.viz.explorer_html import explorer_js
from rlviz.viz.explorer_stream import LiveEncoder, encode_trace

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
const live = createLive(stream.start, 0);
let at = 0;
for (const chunk of stream.chunks) {
  const buffers = [];
  for (const spec of chunk.tables) { buffers.push(bytes.subarray(at, at + spec.bytes)); at += spec.bytes; }
  appendChunk(live, chunk, buffers);
  liveModel(live);                                   // the page draws after every chunk: the model grows
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


def _live_run() -> tuple[dict, list, "rlviz.trace.Trace"]:
    """A [2, 1, "*"] Concurrently run watched by a page: its start meta, the chunks sent, the finished trace.

    Six refreshes while it runs; the last, as a watch's last refresh after
    the run ended, brings the notes as of the end.
    """
    random.seed(11)
    plan = iter(Concurrently([_op("Store"), _op("Train", not_ready_first=4, gaps=True), _op("Log")],
                             round_robin_weights=[2, 1, "*"], output_indexes=[1]))
    with rlviz.record() as trace:
        encoder = LiveEncoder(trace.store)
        start, sent = encoder.start(), []
        for refresh in range(6):                         # six refreshes while the run goes on
            for _ in range(5):
                next(plan)
            trace.pull()
            sent.append(encoder.next_chunk(notes_now=refresh == 5))
    return start, [chunk for chunk in sent if chunk is not None], trace.snapshot()


def test_the_live_page_and_the_saved_page_show_the_same_events_rounds_and_whys(tmp_path):
    start, sent, final = _live_run()
    saved = encode_trace(final, chunk_events=128)
    assert len(saved.meta["chunks"]) > 1
    live_page = _page(tmp_path, "live", start, sent)
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


_LIVE_DRIVER = """
window.rlvizLive = (meta, chunks) => {
  const view = window.view = mountExplorer(document.getElementById("rlviz-root"), meta, []);
  for (const { meta: chunk, buffers } of chunks) view.append(chunk, buffers.map((text) => base64Bytes(text)));
  view.drawNow();
};
"""


@pytest.mark.browser
def test_the_live_page_and_the_saved_page_show_the_same_notes(tmp_path):
    """The notes (where a scheduling rule dominates) reach both pages from the one Python implementation."""
    from browser_harness import chromium_page
    from explorer_checks import wait_ready

    start, sent, final = _live_run()
    expected = order_notes(final)
    assert len(expected) >= 2 and any("not ready" in note for note in expected), expected
    saved_html = write_html(final, tmp_path / "saved.html")
    live_html = tmp_path / "live.html"
    live_html.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0'>"
                         "<div id='rlviz-root' style='width:1200px'></div>"
                         f"<script type='module'>{explorer_js()}\n{_LIVE_DRIVER}</script></body></html>")
    chunks = [{"meta": chunk.meta, "buffers": [base64.b64encode(bytes(b)).decode() for b in chunk.buffers]}
              for chunk in sent]
    with chromium_page(1400, 1000) as page:
        page.goto(saved_html.as_uri())
        saved = wait_ready(page).locator('[data-rlviz="notes"] li').all_inner_texts()
        page.goto(live_html.as_uri())
        page.wait_for_function("typeof window.rlvizLive === 'function'")
        page.evaluate("([meta, chunks]) => window.rlvizLive(meta, chunks)", [start, chunks])
        live = page.locator('[data-rlviz="notes"] li').all_inner_texts()
    assert saved == expected
    assert live == expected


def _saved_chunks(payload) -> list:
    """``encode_trace``'s payload as its list of chunks (each a Payload of its meta and buffers)."""
    buffers = iter(payload.buffers)
    return [type(payload)(meta, [next(buffers) for _ in meta["tables"]])
            for meta in payload.meta["chunks"]]
