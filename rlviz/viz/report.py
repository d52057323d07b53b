"""A self-contained HTML report of a trace, and the ``rlviz report`` command that writes one.

A short header (the run's settings, duration, final return, the return
curve and a colour legend) leads into the interactive Explorer, which opens
on one representative call of the plan's output (one ``train()``); below it
the printable part: the per-node table and the matplotlib pictures (SVG graph
with tooltips, base64 PNG timeline and a bounded order strip).  No external
URL, so it opens offline; every text from the trace is HTML-escaped.
matplotlib is imported inside functions.
"""
from __future__ import annotations

import argparse
import base64
import html
import io
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace import DRIVER, Trace, TraceFormatError
from rlviz.viz.canvas import check_trace
from rlviz.viz.explorer_html import explorer_html
from rlviz.viz.graph import NODE_GID, dataflow_graph, plot_graph
from rlviz.trace.order import merge_inputs, stream_op
from rlviz.viz.order import plot_order
from rlviz.viz.palette import ERROR_COLOR, NOT_READY_COLOR, duration_text, middle_text, op_colors, where_colors
from rlviz.viz.timeline import plot_timeline
from rlviz.trace.words import counted

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["write_report", "report_html", "report_main", "representative_call", "ORDER_ITEMS"]

_LABEL_CHARS = 48       # labels in the table are cut to this; the full text is the cell's tooltip
#: The printable completion-order picture shows at most this many items (the earliest).
ORDER_ITEMS = 240
_CSS = """
h1 { font-size: 1.4em; margin: 0 0 0.4em 0; } h2 { font-size: 1.15em; margin-top: 2em; }
.printable { margin-top: 2.5em; border-top: 2px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.warn { background: #fff4e0; border-left: 4px solid #e69500; padding: 0.5em 1em; }
.figure svg, .figure img { max-width: 100%; height: auto; }
p.hint { color: #666; font-size: 0.85em; }
.run { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; margin-bottom: 0.8em; }
.run dl { display: grid; grid-template-columns: auto auto; gap: 0.15em 1em; margin: 0; font-size: 0.92em; }
.run dt { color: #666; } .run dd { margin: 0; font-variant-numeric: tabular-nums; }
.run img { max-width: 420px; }
.legend { font-size: 0.85em; margin: 0.4em 0; } .legend span { white-space: nowrap; margin-right: 1em; }
.legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em; }
.opening { background: #eef5fb; border-left: 4px solid #1f77b4; padding: 0.4em 1em; margin: 0.6em 0; }
"""


def write_report(trace: Trace, path: str | Path, title: str = "rlviz trace report", *,
                 run: Mapping[str, object] | None = None,
                 returns: Sequence[tuple[float, float]] | None = None) -> Path:
    """Write ``trace`` as one HTML file: header, the interactive Explorer, then table, graph, timeline, order strip.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    path : str or Path
        The HTML file to write.
    title : str, default "rlviz trace report"
        Page title and heading (escaped).
    run : mapping of str to object, optional
        What the header lists about the run (plan, workers, the config that
        matters), in order; values are shown as text.
    returns : sequence of (steps, mean return) pairs, optional
        The return curve drawn above the Explorer; its last value is the
        header's final return.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace.
    OSError
        If ``path`` cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rlviz.viz.examples import sharded_trace
    >>> out = write_report(sharded_trace(), pathlib.Path(tempfile.mkdtemp()) / "r.html")
    >>> "<svg" in out.read_text()
    True
    """
    trace = check_trace(trace, "write_report")
    path = Path(path)
    path.write_text(report_html(trace, title, run=run, returns=returns), encoding="utf-8")
    return path


def report_html(trace: Trace, title: str = "rlviz trace report", *,
                run: Mapping[str, object] | None = None,
                returns: Sequence[tuple[float, float]] | None = None) -> str:
    """The report as an HTML string (see ``write_report``).

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    title : str, default "rlviz trace report"
        Page title and heading.
    run : mapping of str to object, optional
        The run's settings for the header.
    returns : sequence of (steps, mean return) pairs, optional
        The return curve.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace.
    """
    trace = check_trace(trace, "report_html")
    import matplotlib.pyplot as plt

    graph = trace.graph()
    merge = merge_inputs(graph)
    order_ops = merge[1] if merge else None
    figures = [plot_graph(trace).figure, plot_timeline(trace).figure,
               plot_order(trace, ops=order_ops, max_items=ORDER_ITEMS).figure]
    try:
        graph_svg = _svg_with_tooltips(figures[0], trace)
        timeline_png, order_png = _png(figures[1]), _png(figures[2])
    finally:
        for figure in figures:
            plt.close(figure)
    esc = html.escape
    dropped = (f'<p class="warn">{counted(trace.dropped, "event")} {"was" if trace.dropped == 1 else "were"} dropped by the bounded buffers '
               f'(the oldest); raise <code>rlviz.record(capacity=...)</code> to keep them.</p>'
               if trace.dropped else "")
    by_id = {node.op_id: node for node in trace.nodes}
    order_note = (f"items of {', '.join(esc(stream_op(by_id[o], by_id)) for o in order_ops)}, the inputs of "
                  f"the last node that merges several streams ({esc(graph.nodes[merge[0]]['op'])})"
                  if order_ops else "every node that produced items")
    printable = "\n".join([
        '<div class="printable">', f"<p>{esc(repr(trace))}</p>", dropped,
        "<h2>Per node</h2>", '<p class="hint">Hover a label for the full text.</p>', _stats_table(trace),
        "<h2>Dataflow graph</h2>", '<p class="hint">Hover a node for its full label.</p>',
        f'<div class="figure">{graph_svg}</div>',
        "<h2>Timeline</h2>", f'<div class="figure"><img alt="timeline" src="data:image/png;base64,{timeline_png}"></div>',
        "<h2>Completion order</h2>", f'<p class="hint">Cells are {order_note}; the first {ORDER_ITEMS} at most '
        f'(the Explorer\'s completion-order pane follows the window).</p>',
        f'<div class="figure"><img alt="completion order" src="data:image/png;base64,{order_png}"></div>',
        "</div>"])
    call = representative_call(trace)
    above = "\n".join([f"<h1>{esc(title)}</h1>", _header(trace, run, returns), _legend(trace),
                        _opening(trace, call)])
    view = {"window": _around(trace, call), "selected": call} if call is not None else None
    return explorer_html(trace, above=above, below=printable, title=title, css=_CSS, view=view)


def representative_call(trace: Trace) -> int | None:
    """The trace index of one typical call of the plan's output (one ``train()``), or None.

    The output is the driver node that is fed by others, feeds none, and made
    the most items (a span such as ``learn_on_batch`` is fed by nothing); of its item calls, the one of median length among the middle half
    (warm-up and the end left out).  None when it made fewer than 3 items.

    Parameters
    ----------
    trace : Trace
        The recorded trace.

    Returns
    -------
    int or None
    """
    fed = {parent for node in trace.nodes for parent in node.parents}
    sinks = [k for k, node in enumerate(trace.nodes)     # spans (sample, learn_on_batch) have no parents
             if node.where == DRIVER and node.parents and node.op_id not in fed]
    c = trace.columns
    is_item = c["outcome"] == 0
    best = max(sinks, key=lambda k: int(np.count_nonzero(is_item & (c["node"] == k))), default=None)
    if best is None:
        return None
    calls = np.flatnonzero(is_item & (c["node"] == best))
    if len(calls) < 3:
        return None
    middle = calls[len(calls) // 4: len(calls) - len(calls) // 4]
    lengths = c["end_ns"][middle] - c["start_ns"][middle]
    return int(middle[np.argsort(lengths, kind="stable")[len(middle) // 2]])


def report_main(argv: list[str]) -> int:
    """``rlviz report TRACE.json -o report.html``: the command-line entry point.

    Parameters
    ----------
    argv : list of str
        The arguments after ``rlviz report``.

    Returns
    -------
    int
        0 on success, 2 if the trace cannot be read (or the arguments are
        wrong), 1 if the report cannot be written.
    """
    parser = argparse.ArgumentParser(
        prog="rlviz report", description="Write a self-contained HTML report of a saved trace.")
    parser.add_argument("trace", help="trace JSON file written by Trace.save")
    parser.add_argument("-o", "--output", help="HTML file to write (default: the trace path with .html)")
    parser.add_argument("--title", default=None, help="report title (default: the trace file name)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:          # --help or a usage error; argparse has printed why
        return int(stop.code or 0)
    try:
        trace = Trace.load(args.trace)
    except TraceFormatError as err:
        print(f"rlviz report: cannot read the trace: {err}", file=sys.stderr)
        return 2
    output = Path(args.output) if args.output else Path(args.trace).with_suffix(".html")
    import matplotlib

    matplotlib.use("Agg")
    try:
        write_report(trace, output, title=args.title or f"rlviz report: {Path(args.trace).name}")
    except OSError as err:
        print(f"rlviz report: cannot write {output}: {err}", file=sys.stderr)
        return 1
    print(f"wrote {output} ({counted(len(trace), 'event')}, {counted(len(trace.nodes), 'node')})")
    return 0


# -- helpers ----------------------------------------------------------------
def _header(trace: Trace, run: Mapping[str, object] | None,
            returns: Sequence[tuple[float, float]] | None) -> str:
    """The run at a glance: its settings, duration and final return, beside the return curve."""
    esc = html.escape
    c = trace.columns
    span = int(c["end_ns"].max() - c["start_ns"].min()) if len(trace) else 0
    facts = [(str(k), str(v)) for k, v in (run or {}).items()]
    facts.append(("recorded", f"{duration_text(span)} · {counted(len(trace), 'call')} · "
                              f"{counted(len(trace.processes), 'process')}"))
    curve = ""
    if returns:
        facts.append(("final return", f"{returns[-1][1]:.1f} (mean of recent episodes)"))
        curve = f'<img alt="return curve" src="data:image/png;base64,{_return_png(returns)}">'
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    return f'<div class="run"><dl>{rows}</dl>{curve}</div>'


def _legend(trace: Trace) -> str:
    """What the Explorer's colours mean: one per op, the not-ready haze, errors, and the lanes' bars."""
    esc = html.escape
    ops = op_colors(n.op for n in trace.nodes)
    lanes = where_colors(n.where for n in trace.nodes)
    swatch = '<span><i style="background:{}"></i>{}</span>'.format
    parts = [swatch(color, esc(op)) for op, color in ops.items()]
    parts += [swatch(NOT_READY_COLOR, "not ready (a poll that found nothing)"), swatch(ERROR_COLOR, "error")]
    lane_parts = [swatch(color, esc(name)) for name, color in lanes.items()]
    return (f'<div class="legend"><b>Spans, by op:</b> {"".join(parts)}</div>'
            f'<div class="legend"><b>Lanes, by process:</b> {"".join(lane_parts)}</div>')


def _opening(trace: Trace, call: int | None) -> str:
    """The line that says where the Explorer opens and how to see everything."""
    if call is None:
        return '<p class="opening">The Explorer shows the whole run: wheel to zoom, drag to pan.</p>'
    event = trace.event(call)
    origin = trace.start_ns
    calls = int(np.count_nonzero((trace.columns["node"] == trace.columns["node"][call])
                                 & (trace.columns["outcome"] == 0)))
    return (f'<p class="opening">The Explorer opens on one typical call of the plan\'s output, '
            f'<b>{html.escape(event.op)}</b> ({duration_text(event.duration_ns)} from '
            f'{duration_text(event.start_ns - origin)} on, one of {calls:,}; for a Trainer, one '
            f'<code>train()</code>).  Press <b>reset zoom</b> (or wheel out) to see the whole run.</p>')


def _around(trace: Trace, call: int) -> list[float]:
    """The window (ms since the trace start) that shows ``call`` with a little room on each side."""
    event = trace.event(call)
    start, end = (event.start_ns - trace.start_ns) / 1e6, (event.end_ns - trace.start_ns) / 1e6
    room = max((end - start) * 0.05, 1e-3)
    return [max(start - room, 0.0), end + room]


def _return_png(returns: Sequence[tuple[float, float]]) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.6, 2.4))
    try:
        steps, values = zip(*returns)
        ax.plot(steps, values, marker="o", markersize=2.5)
        ax.set_xlabel("env steps sampled")
        ax.set_ylabel("mean return")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        return _png(fig)
    finally:
        plt.close(fig)


def _stats_table(trace: Trace) -> str:
    rows = sorted(trace.op_stats(), key=lambda r: (r["where"] != "driver", r["where"], -r["busy_ns"]))
    head = "".join(f"<th>{h}</th>" for h in ("where", "op", "label", "calls", "items",
                                              "not ready", "errors", "busy"))
    esc = html.escape
    body = []
    for r in rows:
        numbers = (r["calls"], r["items"], r["not_ready"], r["errors"])
        cells = [f"<td>{esc(r[k])}</td>" for k in ("where", "op")]
        cells.append(f'<td title="{esc(r["label"])}">{esc(middle_text(r["label"], _LABEL_CHARS))}</td>')
        cells += [f'<td class="n">{n:,}</td>' for n in numbers]
        cells.append(f'<td class="n">{duration_text(r["busy_ns"])}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    if not body:
        body.append('<tr><td colspan="8">empty trace: nothing was recorded</td></tr>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _svg_with_tooltips(figure: "Figure", trace: Trace) -> str:
    """The figure as inline SVG; each node's box gets its escaped label as a <title>."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "rlviz"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg[svg.index("<svg"):], flags=re.S)
    graph = dataflow_graph(trace)
    labels = [graph.nodes[n]["label"] for n in graph.nodes]
    for i, label in enumerate(labels):
        anchor = f'<g id="{NODE_GID.format(i)}">'
        svg = svg.replace(anchor, f"{anchor}<title>{html.escape(label)}</title>", 1)
    return svg


def _png(figure: "Figure") -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return base64.b64encode(buffer.getvalue()).decode("ascii")
