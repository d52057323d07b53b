"""Two runs side by side: the diff page's long traces, where its first divergence lies in each run, and bad input."""
import html
import json
import re
import zlib

import numpy as np
import pytest

from rlviz.testing import diff
from rlviz.viz import write_html
from rlviz.viz.examples import concurrently_trace, sharded_trace
from rlviz.viz.explorer_diff import diff_payloads, divergence_in
from rlviz.viz.explorer_html import decode_blob, diff_frame, diff_html
from rlviz.viz.explorer_long import encode_long, unpack_chunk
from rlviz.viz.explorer_payload import Payload, decode_stream

OPS = ["store", "train"]


@pytest.fixture(scope="module")
def compared():
    return diff(concurrently_trace((1, 2)), concurrently_trace((1, 3), seed=1), ops=OPS, names=("w12", "w13"))


def _made_at(trace, ops, k):
    """The end time (ms since the trace's start) and op_id of the call that made the k-th item of ``ops``'s nodes."""
    c = trace.columns
    ids = [trace.nodes[n].op_id for n in c["node"].tolist()]
    made = [i for i in range(len(trace)) if ids[i] in ops and trace.event(i).outcome == "item"]
    made.sort(key=lambda i: (int(c["end_ns"][i]), i))
    return (int(c["end_ns"][made[k]]) - trace.start_ns) / 1e6, ids[made[k]]


def test_the_divergence_lies_in_each_run_when_the_call_that_made_that_item_ended(compared):
    k = compared.divergence
    assert k is not None and k > 0
    ops_made = []
    for run, trace in enumerate(compared.traces):
        where = divergence_in(compared, run)
        ms, op_id = _made_at(trace, OPS, k)
        assert where["index"] == k and where["ms"] == pytest.approx(ms, abs=1e-9)
        assert trace.event(where["event"]).op == trace.nodes[[n.op_id for n in trace.nodes].index(op_id)].op
        assert where["op"] == op_id == compared.sequences[run][k]
        ops_made.append(where["op"])
    assert ops_made[0] != ops_made[1], "at the divergence the two runs made items of different ops"


def test_each_run_is_its_saved_long_trace_with_its_lanes_labelled_by_its_name(compared):
    runs = diff_payloads(compared)
    assert [run.name for run in runs] == ["w12", "w13"]
    for run, trace in zip(runs, compared.traces):
        plain = encode_long(trace)
        assert run.long.detail == plain.detail and run.long.overview == plain.overview   # as a saved page holds it
        assert run.long.meta["detail"] == plain.meta["detail"] and run.long.meta["long"]
        assert run.long.meta["run"] == run.name
        lanes = run.long.meta["lanes"]
        assert [lane["name"] for lane in lanes] == [lane["name"] for lane in plain.meta["lanes"]]
        assert [lane["label"] for lane in lanes] == [f"{run.name} · {lane['name']}" for lane in lanes]


def test_no_divergence_leaves_no_mark():
    same = diff(concurrently_trace((1, 2)), concurrently_trace((1, 2), rounds=6), ops=OPS)
    assert same.divergence is None
    assert [run.divergence for run in diff_payloads(same)] == [None, None]


def _runs_embedded(page):
    runs = json.loads(re.search(r'id="rlviz-runs">(.*?)</script>', page, re.S).group(1))
    embedded = []
    for k in range(len(runs)):
        meta = json.loads(re.search(rf'id="rlviz-meta-{k}">(.*?)</script>', page, re.S).group(1))
        assert re.search(rf'id="rlviz-overview-{k}" data-adler32="\d+"', page), "each run has its own overview"
        chunks, buffers = [], []
        for j, chunk in enumerate(meta["detail"]):
            data = re.search(rf'id="rlviz-detail-{k}-{j}" data-adler32="(\d+)">(.*?)</script>', page, re.S)
            packed = decode_blob(data.group(2))
            assert int(data.group(1)) == zlib.adler32(packed)     # what the page checks before it draws
            chunks.append({key: value for key, value in chunk.items() if key != "packed"})
            buffers.extend(unpack_chunk(chunk, packed))
        chunks[0]["texts"] = meta["texts"]                        # the page keeps every text in its start meta
        embedded.append(({**meta, "chunks": chunks}, buffers))
    return runs, embedded


def test_write_html_saves_both_runs_and_their_divergence(compared, tmp_path):
    page = write_html(compared, tmp_path / "diff.html").read_text()
    runs, embedded = _runs_embedded(page)
    assert [run["name"] for run in runs] == ["w12", "w13"]
    assert [run["divergence"] for run in runs] == [divergence_in(compared, 0), divergence_in(compared, 1)]
    for (meta, chunks), trace in zip(embedded, compared.traces):
        columns = decode_stream(Payload(meta, chunks))
        np.testing.assert_array_equal(columns["node"], trace.columns["node"])
    assert "mountDiff(" in page and "<title>rlviz: w12 vs w13</title>" in page
    assert html.escape(repr(compared)) in page                # the text report is the printable part


def test_run_names_are_escaped_everywhere():
    evil = ("</script><b>a</b>", "b&<i>")
    page = diff_html(diff(concurrently_trace((1, 2)), concurrently_trace((1, 3)), ops=OPS, names=evil))
    for name in evil:
        assert name not in page
    assert "&lt;/script&gt;&lt;b&gt;a&lt;/b&gt; vs b&amp;&lt;i&gt;" in page     # the title
    runs, _ = _runs_embedded(page)
    assert [run["name"] for run in runs] == list(evil)        # the page sets them as text


def test_a_notebook_shows_the_page_in_a_frame(compared):
    from IPython.core.formatters import DisplayFormatter

    shown, _ = DisplayFormatter().format(compared)
    frame = shown["text/html"]
    assert shown["text/plain"] == repr(compared)              # the text report where no HTML is shown
    assert frame == diff_frame(compared) and frame.startswith("<iframe ")
    srcdoc = re.search(r'srcdoc="(.*?)"></iframe>$', frame, re.S).group(1)
    assert '"' not in srcdoc and html.unescape(srcdoc) == diff_html(compared)
    height = int(re.search(r"height: (\d+)px", frame).group(1))
    assert 800 < height < 3000


def test_bad_input_is_refused_early(tmp_path, compared):
    with pytest.raises(TypeError, match=r"write_html needs a Trace .* or a TraceDiff .*, not int"):
        write_html(42, tmp_path / "x.html")
    with pytest.raises(TypeError, match="write_html's path must be a str or Path, not int"):
        write_html(compared, 42)
    with pytest.raises(TypeError, match="diff_html needs what rlviz.diff"):
        diff_html(sharded_trace())
    assert not (tmp_path / "x.html").exists()
