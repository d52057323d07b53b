"""The counts a page shows (node boxes, its node table, its lanes' levels), checked against Python's.

Shared by the browser tests that open one trace on every kind of page (saved, diff, notebook, live): each reads a
mounted Explorer (``[data-rlviz=explorer]``) and compares it with ``op_stats`` and the trace's columns.  Imported by
name (pytest puts ``tests/`` on sys.path for its conftest).
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from rlviz.trace import Trace
from rlviz.trace.analysis import op_stats
from rlviz.trace.rows import NOT_READY

__all__ = ["busy_text", "compact", "counted", "titles_in", "assert_counts_as_python", "assert_lanes_as_python",
           "assert_page_counts_as_python", "LANE_TOTALS"]


def busy_text(busy_ns: int) -> str:
    """Busy milliseconds as a node box writes them: whole and comma-grouped from 1000 ms, else 3 significant digits."""
    ms = Decimal(busy_ns) / 1_000_000                    # halves round up, as JavaScript's Math.round and toPrecision
    if ms >= 1000:
        return f"{int(ms.quantize(Decimal(1), ROUND_HALF_UP)):,}"
    return f"{ms.quantize(Decimal(1).scaleb(ms.adjusted() - 2), ROUND_HALF_UP)}"


def compact(count: int) -> str:
    """A count as a node box shortens it: 1.2k, 63k, 1.5M, 12M (JavaScript rounds halves up)."""
    def rounded(value: Decimal, places: int) -> Decimal:
        return value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    value = Decimal(count)
    for limit, scale, places in ((10**7, 10**6, 0), (10**6, 10**6, 1), (10**4, 10**3, 0), (10**3, 10**3, 1)):
        if value >= limit:
            return f"{rounded(value / scale, places)}{'M' if scale == 10**6 else 'k'}"
    return str(count)


def counted(count: int, word: str) -> str:
    """A count and its noun as a node box writes them: the short form, the noun plural but for 1 ("1 call")."""
    return f"{compact(count)} {word}{'' if count == 1 else 's'}"


def titles_in(root) -> list[str]:
    """Each node box's hover text (label, lane and both counter lines) in one explorer, in node order."""
    boxes = root.locator('[data-rlviz="node"]')
    return [boxes.nth(k).locator("title").first.text_content() for k in range(boxes.count())]


def assert_counts_as_python(titles: list[str], trace: Trace) -> None:
    """Every node box names the node's calls and busy time (not-ready polls included) as ``op_stats`` does."""
    rows = op_stats(trace)
    assert len(titles) == len(rows)
    for title, row in zip(titles, rows):
        assert f"{row['calls']} calls" in title, (title, row)
        assert f"{busy_text(row['busy_ns'])} ms busy" in title, (title, row)


#: Per lane of the long page's finest level: calls, not-ready polls and busy ns, summed over its buckets.
LANE_TOTALS = """async (element) => {
  const explorer = element.rlvizExplorer;
  await explorer.levelsReady;
  const { lanes, sets: [finest] } = explorer.lod.levels, unit = explorer.model.meta.unit_ns;
  return Array.from({ length: lanes }, (_, lane) => {
    let calls = 0, notReady = 0, busy = 0;
    for (let at = lane * finest.n; at < (lane + 1) * finest.n; at++) {
      calls += finest.count[at]; notReady += finest.notReady[at]; busy += finest.busy[at] * unit;
    }
    return [calls, notReady, busy];
  });
}"""


def assert_lanes_as_python(lanes: list[list[float]], trace: Trace) -> None:
    """The long page's lanes count ``op_stats``' calls and not-ready polls of their nodes, and a busy time that is
    ``op_stats``' less the polls' durations: a lane's shading leaves polls to their own marks (docs/design.md)."""
    c = trace.columns
    lane_of = np.array([node.where for node in trace.nodes])[c["node"]]          # a page's lanes: where nodes run
    polls = c["outcome"] == NOT_READY
    duration = c["end_ns"] - c["start_ns"]
    expected = sorted((int((lane_of == lane).sum()), int((polls & (lane_of == lane)).sum()),
                       int(duration[(lane_of == lane) & ~polls].sum())) for lane in np.unique(lane_of))
    shown = sorted(lanes)
    assert [lane[:2] for lane in shown] == [list(lane[:2]) for lane in expected]
    assert [lane[2] for lane in shown] == pytest.approx([lane[2] for lane in expected], rel=5e-3)


def assert_page_counts_as_python(root, trace: Trace) -> None:
    """The Explorer ``root`` shows ``trace``: its node table is ``op_stats``' own, its node boxes say the short forms
    of those counts, and its finest level's lanes count as ``assert_lanes_as_python`` says."""
    rows = op_stats(trace)
    nodes = root.evaluate("element => element.rlvizExplorer.model.meta.nodes.map((n) => "
                          "[n.calls, n.items, n.not_ready, n.busy_ms])")
    titles = titles_in(root)
    lanes = root.evaluate(LANE_TOTALS)
    assert_lanes_as_python(lanes, trace)
    assert [row["calls"] for row in rows] == [n[0] for n in nodes]
    assert [row["items"] for row in rows] == [n[1] for n in nodes]
    assert [row["not_ready"] for row in rows] == [n[2] for n in nodes]
    assert [n[3] for n in nodes] == pytest.approx([row["busy_ns"] / 1e6 for row in rows], rel=1e-9)
    for title, row in zip(titles, rows, strict=True):
        assert f"{counted(row['calls'], 'call')} · {counted(row['items'], 'item')}" in title, (title, row)
        assert f"{busy_text(row['busy_ns'])} ms busy" in title, (title, row)
        assert (f"{compact(row['not_ready'])} not ready" in title) == bool(row["not_ready"]), (title, row)
