"""A self-contained HTML report of a trace, and the ``rlviz report`` command that writes one.

The interactive Explorer sits on top; below it the printable part: the
per-node table and the matplotlib pictures (SVG graph with tooltips, base64
PNG timeline and order strip).  No external URL, so it opens offline; every
text from the trace is HTML-escaped.  matplotlib is imported inside functions.
"""
from __future__ import annotations

import argparse
import base64
import html
import io
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rlviz.trace import Trace, TraceFormatError
from rlviz.viz.canvas import check_trace
from rlviz.viz.explorer_html import explorer_html
from rlviz.viz.graph import NODE_GID, dataflow_graph, plot_graph
from rlviz.viz.order import merge_inputs, plot_order, stream_op
from rlviz.viz.palette import short_text
from rlviz.viz.timeline import plot_timeline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["write_report", "report_html", "report_main"]

_LABEL_CHARS = 48       # labels in the table are cut to this; the full text is the cell's tooltip
_CSS = """
h1 { font-size: 1.4em; margin: 0 0 0.4em 0; } h2 { font-size: 1.15em; margin-top: 2em; }
.printable { margin-top: 2.5em; border-top: 2px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.warn { background: #fff4e0; border-left: 4px solid #e69500; padding: 0.5em 1em; }
.figure { overflow-x: auto; } .figure svg, .figure img { max-width: none; }
p.hint { color: #666; font-size: 0.85em; }
"""


def write_report(trace: Trace, path: str | Path, title: str = "rlviz trace report") -> Path:
    """Write ``trace`` as one HTML file: the interactive Explorer, then table, graph, timeline, order strip.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    path : str or Path
        The HTML file to write.
    title : str, default "rlviz trace report"
        Page title and heading (escaped).

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
    path.write_text(report_html(trace, title), encoding="utf-8")
    return path


def report_html(trace: Trace, title: str = "rlviz trace report") -> str:
    """The report as an HTML string (see ``write_report``).

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    title : str, default "rlviz trace report"
        Page title and heading.

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
               plot_order(trace, ops=order_ops).figure]
    try:
        graph_svg = _svg_with_tooltips(figures[0], trace)
        timeline_png, order_png = _png(figures[1]), _png(figures[2])
    finally:
        for figure in figures:
            plt.close(figure)
    esc = html.escape
    dropped = (f'<p class="warn">{trace.dropped:,} events were dropped by the bounded buffers '
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
        "<h2>Completion order</h2>", f'<p class="hint">Cells are {order_note}.</p>',
        f'<div class="figure"><img alt="completion order" src="data:image/png;base64,{order_png}"></div>',
        "</div>"])
    return explorer_html(trace, above=f"<h1>{esc(title)}</h1>", below=printable, title=title, css=_CSS)


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
    print(f"wrote {output} ({len(trace):,} events, {len(trace.nodes)} nodes)")
    return 0


# -- helpers ----------------------------------------------------------------
def _stats_table(trace: Trace) -> str:
    rows = sorted(trace.op_stats(), key=lambda r: (r["where"] != "driver", r["where"], -r["busy_ns"]))
    head = "".join(f"<th>{h}</th>" for h in ("where", "op", "label", "calls", "items",
                                              "not ready", "errors", "busy ms"))
    esc = html.escape
    body = []
    for r in rows:
        numbers = (r["calls"], r["items"], r["not_ready"], r["errors"])
        cells = [f"<td>{esc(r[k])}</td>" for k in ("where", "op")]
        cells.append(f'<td title="{esc(r["label"])}">{esc(short_text(r["label"], _LABEL_CHARS))}</td>')
        cells += [f'<td class="n">{n:,}</td>' for n in numbers]
        cells.append(f'<td class="n">{r["busy_ns"] / 1e6:,.2f}</td>')
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
