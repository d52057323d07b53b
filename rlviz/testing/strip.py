"""The order strip as data and as text: which op made each item, in completion order.

Shared by the assertions and the run diff, so both print the same strip.
Reads traces only.
"""
from __future__ import annotations

import string
from collections.abc import Iterable, Sequence

import numpy as np

from rlviz.trace import DRIVER, Trace
from rlviz.trace.order import completion_categories

__all__ = ["op_sequence", "op_items", "symbols", "strip_window", "check_ops"]

#: Cells shown before and after the point a message is about.
_BEFORE, _AFTER = 24, 12


def check_ops(ops: object, parameter: str = "ops") -> list[str] | None:
    """``ops`` as a list of strings (None stays None), or a ``TypeError`` naming ``parameter``.

    Parameters
    ----------
    ops : object
        The value passed; a list (or other non-string iterable) of str, or None.
    parameter : str, default "ops"
        The parameter's name, for the message.

    Returns
    -------
    list of str or None

    Raises
    ------
    TypeError
        If ``ops`` is a single string or holds something other than strings.
    """
    if ops is None:
        return None
    if isinstance(ops, str):
        raise TypeError(f"{parameter} must be a list of op names, labels or op_ids, not the string "
                        f"{ops!r}; hint: {parameter}=[{ops!r}]")
    if not isinstance(ops, Iterable):
        raise TypeError(f"{parameter} must be a list of op names, labels or op_ids, "
                        f"not {type(ops).__name__}")
    entries = list(ops)
    bad = [entry for entry in entries if not isinstance(entry, str)]
    if bad:
        raise TypeError(f"{parameter} entries must be str (an op name, label or op_id), got {bad[0]!r} "
                        f"in {entries!r}")
    return entries


def op_sequence(trace: Trace, ops: Sequence[str] | None = None) -> list[str]:
    """The name of the op that made each item, in completion order.

    Parameters
    ----------
    trace : Trace
        A recorded trace.
    ops : sequence of str, optional
        Entries selecting nodes by op name, label or op_id (as ``Trace.sequence``
        does); each item is named by the entry that selected its node, the
        first entry winning.  By default every node on the driver, named by its op.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If an ``ops`` entry matches no node of a non-empty trace.
    """
    return op_items(trace, ops)[0]


def op_items(trace: Trace, ops: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """``op_sequence`` and, for each of its items, the trace index of the event that made it.

    Parameters
    ----------
    trace : Trace
        A recorded trace.
    ops : sequence of str, optional
        As for ``op_sequence``.

    Returns
    -------
    names : list of str
        ``op_sequence(trace, ops)``.
    events : ndarray of int64
        ``events[k]`` is the index (``trace.event(events[k])``) of the call
        that completed item ``k``: its end time is when the item was made.

    Raises
    ------
    ValueError
        If an ``ops`` entry matches no node of a non-empty trace.
    """
    if ops is None:
        driver = [node for node in trace.nodes if node.where == DRIVER]
        cells = completion_categories(trace, [node.op_id for node in driver])
        names = [node.op for node in driver]
    else:
        cells = completion_categories(trace, ops)
        names = list(ops)
    return [names[k] for k in cells.category.tolist()], cells.event.astype(np.int64)


def symbols(names: Iterable[str]) -> dict[str, str]:
    """One distinct character per name: its first letter in upper case when free, else another.

    Parameters
    ----------
    names : iterable of str
        Names in the order they should choose; repeats are fine.

    Returns
    -------
    dict of str to str
    """
    chosen: dict[str, str] = {}
    spare = string.ascii_uppercase + string.digits + string.ascii_lowercase
    for name in names:
        if name in chosen:
            continue
        taken = set(chosen.values())
        wanted = [c.upper() for c in name if c.isalnum()] + list(spare)
        chosen[name] = next((c for c in wanted if c not in taken), "?")
    return chosen


def strip_window(rows: Sequence[tuple[str, Sequence[str]]], at: int, key: dict[str, str],
                 marker: str | None = None) -> str:
    """Rows of the strip as text, cells around index ``at`` aligned, with a key.

    Parameters
    ----------
    rows : sequence of (str, sequence of str)
        A title and the names of the items of each row, all indexed alike.
    at : int
        The index the window is centred on.
    key : dict of str to str
        The character drawn for each name (see ``symbols``).
    marker : str, optional
        Text put under the cell at ``at`` after a caret.

    Returns
    -------
    str
        The lines, ending with the key.
    """
    longest = max((len(cells) for _, cells in rows), default=0)
    start = max(0, at - _BEFORE)
    stop = min(longest, at + _AFTER + 1)
    width = max(len("index"), *(len(title) for title, _ in rows)) + 2
    lines = [f"{'index':<{width}} {_ruler(start, at)}"]
    for title, cells in rows:
        shown = " ".join(key.get(name, " ") for name in cells[start:stop])
        before = "\u2026" if start > 0 and len(cells) > 0 else " "
        after = " \u2026" if len(cells) > stop else ""
        if len(cells) <= start:
            shown, after = "(ended before this)", ""
        lines.append(f"{title:<{width}}{before}{shown}{after}")
    if marker is not None:
        lines.append(f"{'':<{width}} {' ' * (2 * (at - start))}^ {marker}")
    lines.append("key: " + ", ".join(f"{symbol} = {name}" for name, symbol in key.items()))
    return "\n".join(lines)


def _ruler(start: int, at: int) -> str:
    """The index of the first cell shown, and of cell ``at`` above its column (cells are 2 wide)."""
    first = str(start)
    gap = 2 * (at - start) - len(first)
    if at == start:
        return first
    if gap < 1:
        return " " * (2 * (at - start)) + str(at)
    return first + " " * gap + str(at)
