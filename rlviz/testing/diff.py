"""``diff``: two recorded runs side by side: per-op counts and busy time, and where their op order parts.

Reads traces only; matplotlib is imported inside ``TraceDiff.plot``, and the
page of both runs (``rlviz.viz.explorer_html.diff_frame``) when a notebook shows one.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlviz.checks import check_int
from rlviz.testing.strip import check_ops, op_items, strip_window, symbols
from rlviz.trace import DRIVER, Trace
from rlviz.trace.analysis import order_notes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["diff", "TraceDiff", "OpDiff"]

_SHORT_NAME = 8          # longer run names are written A and B in the table's header


@dataclass(frozen=True)
class OpDiff:
    """One op in both runs: each field is a pair ``(first run, second run)``.

    ``op`` is the op name for driver nodes and ``"op @ where"`` for nodes
    inside actors; nodes with the same name are summed.
    """

    op: str
    calls: tuple[int, int]
    items: tuple[int, int]
    busy_ns: tuple[int, int]


class TraceDiff:
    """The comparison ``diff`` returns; its repr is a readable report.

    A notebook shows it as the Explorer of both runs, one above the other,
    zoom and selection linked, the first divergence marked in each;
    ``rlviz.viz.write_html(diff, path)`` saves that page.

    Attributes
    ----------
    names : tuple of str
        What the two runs are called in the report and figure.
    traces : tuple of Trace
        The two runs compared.
    rows : list of OpDiff
        Per-op counts, in order of first appearance (first run, then second).
    sequences : tuple of list of str
        The op that made each item, in completion order, for each run.
    divergence : int or None
        Index of the first item where the two sequences name different ops;
        None when one sequence is a prefix of the other (or they are equal).
    item_events : tuple of ndarray
        For each run, the trace index of the call that completed each item of
        its sequence: item ``divergence`` was made when that call ended.
    notes : tuple of list of str
        Each run's ``order_notes``: where a scheduling rule dominated (an op
        mostly not ready, a "*" op at its cap, a ratio far from the weights).
    """

    def __init__(self, names: tuple[str, str], rows: list[OpDiff], traces: tuple[Trace, Trace],
                 items: tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]],
                 ops: list[str] | None, notes: tuple[list[str], list[str]] = ([], [])) -> None:
        self.names = names
        self.rows = rows
        self.traces = traces
        self.sequences = (items[0][0], items[1][0])
        self.item_events = (items[0][1], items[1][1])
        self.divergence = _first_difference(*self.sequences)
        self.notes = notes
        self._ops = ops

    def __getitem__(self, op: str) -> OpDiff:
        """The row of ``op`` (``"op"`` or ``"op @ where"``); ``KeyError`` lists the known ones."""
        for row in self.rows:
            if row.op == op:
                return row
        raise KeyError(f"no op {op!r} in either run; ops: {', '.join(row.op for row in self.rows)}")

    def __repr__(self) -> str:
        a, b = self.names
        short = (a, b) if max(len(a), len(b)) <= _SHORT_NAME else ("A", "B")
        width = max([len("op"), *(len(row.op) for row in self.rows)])
        titles = [f"{field} {name}" for field in ("calls", "items", "busy ms") for name in short]
        column = max(10, *(len(title) for title in titles))
        header = f"{'op':<{width}}" + "".join(f" {title:>{column}}" for title in titles)
        lines = [f"TraceDiff({a} vs {b})"]
        if short != (a, b):
            lines.append(f"A = {a}, B = {b}")
        lines += [header, "-" * len(header)]
        for row in self.rows:
            cells = [*map(str, row.calls), *map(str, row.items), *(f"{ns / 1e6:.2f}" for ns in row.busy_ns)]
            lines.append(f"{row.op:<{width}}" + "".join(f" {cell:>{column}}" for cell in cells))
        lines.append(self._order_text())
        for name, notes in zip((a, b), self.notes):
            lines += [f"note on {name}: {note}" for note in notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The Explorer of both runs, for a notebook (a frame holding ``write_html``'s page)."""
        from rlviz.viz.explorer_html import diff_frame

        return diff_frame(self)

    def plot(self, ax: "Axes | None" = None, *, max_items: int = 60) -> "Axes":
        """Draw the two order strips one above the other, item k of each in column k.

        The window starts a little before the first divergence, columns where
        the runs differ are marked, and every label is drawn literally.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Axes to draw on; by default a new figure.
        max_items : int, default 60
            Columns drawn at most.

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        TypeError
            If ``ax`` is not a matplotlib Axes or ``max_items`` not an int.
        ValueError
            If ``max_items`` is below 1.
        """
        from rlviz.testing.strip_figure import draw_strips

        check_int("max_items", max_items, minimum=1)
        start = max(0, self.divergence - max_items // 3) if self.divergence is not None else 0
        return draw_strips(ax, list(zip(self.names, self.sequences)), start, max_items,
                           self.divergence, self._order_title())

    def _order_title(self) -> str:
        return (f"Order of items ({'the driver’s ops' if self._ops is None else ', '.join(self._ops)}): "
                f"{self.names[0]} vs {self.names[1]}")

    def _order_text(self) -> str:
        (a, b), (seq_a, seq_b) = self.names, self.sequences
        which = "the driver's ops" if self._ops is None else "ops " + ", ".join(self._ops)
        if self.divergence is None:
            common = min(len(seq_a), len(seq_b))
            return (f"order of {which}: the same for all {common} items both runs made "
                    f"({a} made {len(seq_a)}, {b} made {len(seq_b)})")
        k = self.divergence
        key = symbols([*seq_a, *seq_b])
        strip = strip_window([(a, seq_a), (b, seq_b)], k, key, f"first divergence, index {k}")
        return (f"order of {which}: diverges at index {k}: {a} made {_at(seq_a, k)}, "
                f"{b} made {_at(seq_b, k)}\n{strip}")


def diff(trace_a: Trace, trace_b: Trace, *, ops: Sequence[str] | None = None,
         names: tuple[str, str] = ("A", "B")) -> TraceDiff:
    """Compare two recorded runs: per-op calls, items and busy time, and the first order divergence.

    Parameters
    ----------
    trace_a, trace_b : Trace
        The two runs.
    ops : sequence of str, optional
        Entries (op name, label or op_id) whose items make the compared
        order, each item named by its entry; every entry must match a node
        in both traces.  By default every op on the driver, by op name.
    names : tuple of two str, default ("A", "B")
        What to call the runs in the report and the figure.

    Returns
    -------
    TraceDiff

    Raises
    ------
    TypeError
        If a trace is not a Trace, ``ops`` is not a list of str, or ``names``
        is not two strings.
    ValueError
        If an ``ops`` entry matches no node of a non-empty trace.

    Examples
    --------
    >>> from rlviz.viz.examples import concurrently_trace
    >>> result = diff(concurrently_trace((1, 2)), concurrently_trace((1, 3)), ops=["store", "train"])
    >>> result["TrainOneStep"].items
    (18, 27)
    >>> result.divergence
    6
    """
    for position, trace in (("trace_a", trace_a), ("trace_b", trace_b)):
        if not isinstance(trace, Trace):
            raise TypeError(f"{position} must be a Trace (from rlviz.record() or Trace.load), "
                            f"not {type(trace).__name__}")
    if (not isinstance(names, tuple) or len(names) != 2
            or not all(isinstance(name, str) for name in names)):
        raise TypeError(f"names must be a tuple of two str, got {names!r}; hint: names=('before', 'after')")
    ops = check_ops(ops)
    stats = [_per_op(trace_a), _per_op(trace_b)]
    order = list(dict.fromkeys([*stats[0], *stats[1]]))
    zero = {"calls": 0, "items": 0, "busy_ns": 0}
    rows = [OpDiff(op, *((stats[0].get(op, zero)[f], stats[1].get(op, zero)[f])
                         for f in ("calls", "items", "busy_ns"))) for op in order]
    return TraceDiff(names, rows, (trace_a, trace_b), (op_items(trace_a, ops), op_items(trace_b, ops)), ops,
                     (order_notes(trace_a), order_notes(trace_b)))


def _per_op(trace: Trace) -> dict[str, dict[str, int]]:
    totals: dict[str, dict[str, int]] = {}
    for row in trace.op_stats():
        name = row["op"] if row["where"] == DRIVER else f"{row['op']} @ {row['where']}"
        into = totals.setdefault(name, {"calls": 0, "items": 0, "busy_ns": 0})
        for field in into:
            into[field] += row[field]
    return totals


def _first_difference(a: list[str], b: list[str]) -> int | None:
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), None)


def _at(sequence: list[str], index: int) -> str:
    return sequence[index] if index < len(sequence) else "nothing (its trace had ended)"
