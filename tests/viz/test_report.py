"""write_report / report_main: a self-contained, escaped HTML page and the CLI around it."""
import re

import pytest
from viz_helpers import record

from rlviz.trace import Trace
from rlviz.viz import report_main, write_report
from rlviz.viz.examples import concurrently_trace
from rlviz.viz.explorer_html import explorer_js

EVIL = "<script>alert(1)</script>"


def _evil_trace():
    return Trace.from_records([
        record("source", 0, 10, op_id="s", label=EVIL, item_id=1),
        record("<b>op</b>", 20, 30, op_id="m", label="map & <i>x</i>", item_id=2, inputs=[1],
               where="shard-0"),
    ])


def test_trace_text_is_escaped(tmp_path):
    page = write_report(_evil_trace(), tmp_path / "r.html", title="<title> & co").read_text()
    # the viewer's own five scripts (meta, first view, overview, one detail chunk, code) and nothing from the trace
    assert page.count("<script") == 5 and "<script>alert" not in page
    assert "<b>op" not in page and "<i>x" not in page
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in page          # in the embedded JSON
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "map &amp; &lt;i&gt;x&lt;/i&gt;" in page
    assert "<h1>&lt;title&gt; &amp; co</h1>" in page


def test_page_is_self_contained(tmp_path):
    page = write_report(concurrently_trace(), tmp_path / "r.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert not re.search(r"url\((?!#)", page) and "<link" not in page and "@import" not in page
    assert page.count("<svg") == 1
    assert page.count('src="data:image/png;base64,') == 2


def test_summary_table_has_a_row_per_node_and_graph_has_tooltips(tmp_path):
    trace = concurrently_trace()
    page = write_report(trace, tmp_path / "r.html").read_text()
    table = page[page.index("<table>"):page.index("</table>")]
    assert table.count("<tr>") == 1 + len(trace.nodes)
    tooltips = re.findall(r'<g id="rlviz-node-\d+"><title>([^<]*)</title>', page)
    assert sorted(tooltips) == sorted(n.label.replace("'", "&#x27;") for n in trace.nodes)


def test_order_strip_uses_the_last_merge_node_inputs(tmp_path):
    page = write_report(concurrently_trace(), tmp_path / "r.html").read_text()
    assert "Cells are items of StoreToReplayBuffer, TrainOneStep, the inputs of the last node" in page
    assert not re.search(r"\bn\d+\b", page[page.index('class="printable"'):].split("<svg")[0])


def test_viewer_sits_above_the_printable_part(tmp_path):
    page = write_report(concurrently_trace(), tmp_path / "r.html").read_text()
    assert page.index('id="rlviz-root"') < page.index('class="printable"') < page.index("<table>")
    # the Explorer's whole script, started by the saved page's mount, over the page's chunks
    assert explorer_js() in page and "mountSaved(host, document)" in page and 'id="rlviz-detail-0"' in page


def test_table_shows_short_labels_with_the_full_label_on_hover(tmp_path):
    """Cut in the middle: Ray's names differ at their ends (where they come from, which step)."""
    long_label = "LocalIterator[" + ", ".join(f"op_{k}" for k in range(20)) + ".for_each()]"
    trace = Trace.from_records([record("Concurrently", 0, 10, op_id="c", label=long_label)])
    page = write_report(trace, tmp_path / "r.html").read_text()
    table = page[page.index("<table>"):page.index("</table>")]
    assert f'title="{long_label}"' in table
    cell = re.search(r'title="[^"]*">([^<]*)</td>', table).group(1)
    head, tail = cell.split("\u2026")
    assert len(cell) <= 48 and long_label.startswith(head) and long_label.endswith(tail)
    assert tail.endswith(".for_each()]") and head.startswith("LocalIterator[")


def test_dropped_events_are_reported(tmp_path):
    trace = _evil_trace()
    trace.dropped = 7
    page = write_report(trace, tmp_path / "r.html").read_text()
    assert "7 events were dropped" in page


def test_empty_trace_report(tmp_path):
    page = write_report(Trace.empty(), tmp_path / "r.html").read_text()
    assert "empty trace: nothing was recorded" in page


def test_not_a_trace_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="write_report"):
        write_report({"events": []}, tmp_path / "r.html")


def test_cli_writes_the_report(tmp_path, capsys):
    saved = tmp_path / "run.json"
    concurrently_trace().save(saved)
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    assert report_main([str(saved), "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert f"wrote {out}" in capsys.readouterr().out


def test_cli_default_output_is_next_to_the_trace(tmp_path):
    saved = tmp_path / "run.json"
    concurrently_trace().save(saved)
    assert report_main([str(saved)]) == 0
    assert "rlviz report: run.json" in (tmp_path / "run.html").read_text()


@pytest.mark.parametrize("content", ["not json", '{"format": "something-else"}', None])
def test_cli_bad_trace_file_exits_2_with_a_message(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert report_main([str(path), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rlviz report: cannot read the trace: ") and "bad.json" in err
    assert not (tmp_path / "r.html").exists()


def test_cli_unwritable_output_exits_1(tmp_path, capsys):
    saved = tmp_path / "run.json"
    _evil_trace().save(saved)
    assert report_main([str(saved), "-o", str(tmp_path / "missing" / "r.html")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_cli_usage_errors_and_help(capsys):
    assert report_main([]) == 2
    assert report_main(["--help"]) == 0
    assert "rlviz report" in capsys.readouterr().out


def test_report_leads_with_the_run_and_opens_the_explorer_on_one_typical_output_call(tmp_path):
    """Header (settings, duration, final return, curve), legend, and a first view on one call, not the whole run."""
    import json
    import re

    from rlviz.viz.examples import sharded_trace
    from rlviz.viz.report import representative_call

    trace = sharded_trace()
    page = write_report(trace, tmp_path / "r.html", run={"plan": "dqn on CartPole-v1", "workers": 2},
                        returns=[(100, 12.0), (200, 40.25)]).read_text()
    head = page[:page.index('id="rlviz-root"')]
    assert "<dt>plan</dt><dd>dqn on CartPole-v1</dd>" in head and "<dt>workers</dt><dd>2</dd>" in head
    assert "<dt>final return</dt><dd>40.2" in head and 'alt="return curve"' in head
    assert re.search(r"<dd>\d+(\.\d+)? ms · 81 calls · 3 processes</dd>", head)
    for op in {n.op for n in trace.nodes}:
        assert f"</i>{op}</span>" in head, f"no legend swatch for {op}"
    call = representative_call(trace)
    event = trace.event(call)
    assert event.op == "batch" and event.where == "driver" and event.outcome == "item"
    calls = [i for i, e in enumerate(trace.events) if e.op == "batch" and e.outcome == "item"]
    assert calls[0] != call != calls[-1], "warm-up and the last call are not the typical one"
    view = json.loads(re.search(r'id="rlviz-view">([^<]*)</script>', page).group(1))
    assert view["selected"] == call
    start_ms = (event.start_ns - trace.start_ns) / 1e6
    assert view["window"][0] <= start_ms < view["window"][1] < (trace.columns["end_ns"].max() - trace.start_ns) / 1e6
    assert "reset zoom" in head


def test_report_without_a_plan_output_shows_everything_and_units_read_well(tmp_path):
    from rlviz.viz.palette import duration_text
    from rlviz.viz.report import representative_call

    trace = _evil_trace()
    assert representative_call(trace) is None
    page = write_report(trace, tmp_path / "r.html").read_text()
    assert 'id="rlviz-view">{}</script>' in page and "shows the whole run" in page
    assert [duration_text(v) for v in (1.54e9, 1.54e12 / 1e3 * 60, 3_300, 12)] == ["1.54 s", "1.54 min",
                                                                                  "3.3 µs", "12 ns"]
    assert "e+" not in page[page.index("<h2>Per node"):page.index("<h2>Dataflow")]


def test_a_driver_span_is_not_taken_for_the_plan_output():
    """learn_on_batch (a span: no parents, no children) makes more items than train(), yet is not the output."""
    from rlviz.trace import Node
    from rlviz.viz.report import representative_call

    records = [record("source", 10 * k, 10 * k + 5, op_id="s", item_id=100 + k) for k in range(4)]
    records += [record("CollectMetrics", 10 * k, 10 * k + 9, op_id="m", item_id=200 + k, inputs=[100 + k])
                for k in range(4)]
    records += [record("learn_on_batch", 10 * k + 1, 10 * k + 2, op_id="l", item_id=300 + k) for k in range(8)]
    nodes = [Node("s", "source", "source"), Node("m", "CollectMetrics", "train", parents=("s",)),
             Node("l", "learn_on_batch", "learn_on_batch")]
    trace = Trace.from_records(records, nodes)
    assert trace.event(representative_call(trace)).op == "CollectMetrics"
