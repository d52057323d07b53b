"""Texts from a trace are drawn literally: a ``$`` in an op name is never parsed as mathtext."""
import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text
from viz_helpers import record

from rlviz.trace import Trace
from rlviz.viz import plot_graph, plot_order, plot_timeline, report_main, write_report

ODD = r"cost$\bad{$"
PLAIN = r"$x^2$ mean"


def _dollar_trace():
    return Trace.from_records([
        record(ODD, 0, 10, op_id="s", label=f"{ODD} label", item_id=1, where="shard$0$"),
        record(PLAIN, 20, 30, op_id="m", label=PLAIN, item_id=2, inputs=[1]),
        record(ODD, 40, 50, op_id="s", label=f"{ODD} label", item_id=3, where="shard$0$"),
        record(PLAIN, 60, 70, op_id="m", label=PLAIN, item_id=4, inputs=[3]),
    ])


def _shown_texts(figure):
    """What each drawn text displays, after matplotlib's own mathtext preprocessing."""
    figure.canvas.draw()
    shown = []
    for text in figure.findobj(Text):
        if text.get_text() and text.get_visible():
            displayed, is_math = text._preprocess_math(text.get_text())
            assert not is_math, f"{text.get_text()!r} would be parsed as mathtext"
            shown.append(displayed)
    return shown


@pytest.mark.parametrize("view", [
    lambda trace: plot_graph(trace),
    lambda trace: plot_timeline(trace),
    lambda trace: plot_order(trace, ops=[ODD, PLAIN], weights=[1, 1]),
], ids=["graph", "timeline", "order"])
def test_every_view_draws_dollar_names_literally(view):
    ax = view(_dollar_trace())
    shown = " | ".join(_shown_texts(ax.figure))
    assert "cost$" in shown             # the name as typed (views may shorten the rest)
    plt.close(ax.figure)


def test_report_and_cli_survive_dollar_names(tmp_path, capsys):
    trace = _dollar_trace()
    page = write_report(trace, tmp_path / "r.html").read_text()
    assert "cost$\\bad{$" in page
    trace.save(tmp_path / "t.json")
    assert report_main([str(tmp_path / "t.json"), "-o", str(tmp_path / "cli.html")]) == 0
    assert (tmp_path / "cli.html").read_text().count("<svg") == 1
