"""Two runs side by side in the Explorer: the streams of what ``rlviz.diff`` compared, and its divergence in each.

Each run travels as a saved page's long trace does (``encode_long``: an
overview of levels and packed detail chunks, each checked by its Adler-32),
its lanes labelled with the run's name.  The first
divergence (``TraceDiff.divergence``, an index into the compared op order)
is placed in each run at the time its item was made: when the call that
completed it ended, in ms since that run's own start.  The page
(``rlviz.viz.explorer_html.diff_html``) mounts one Explorer per run and
links them (``mountDiff`` in ``static/explorer.js``).

This module reads a diff through the ``ComparedRuns`` protocol, so the
views never import ``rlviz.testing``, the layer above them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from rlviz.trace import Trace
from rlviz.viz.explorer_long import LongPayload, encode_long

__all__ = ["ComparedRuns", "RunPayload", "diff_payloads", "divergence_in", "LANE_SEPARATOR"]

#: Between a run's name and a lane's name in the lane labels of a diff page.
LANE_SEPARATOR = " · "


@runtime_checkable
class ComparedRuns(Protocol):
    """What a diff page draws: the attributes of ``rlviz.diff``'s ``TraceDiff`` it reads.

    ``names`` and ``traces`` are the two runs; ``sequences[r][k]`` names the
    op that made item ``k`` of run ``r`` (completion order) and
    ``item_events[r][k]`` is the trace index of the call that completed it;
    ``divergence`` is the first ``k`` where the two sequences differ (None
    when they never do).
    """

    names: tuple[str, str]
    traces: tuple[Trace, Trace]
    sequences: tuple[list[str], list[str]]
    item_events: tuple[np.ndarray, np.ndarray]
    divergence: int | None


@dataclass
class RunPayload:
    """One run of a diff page: its name, its long trace and the first divergence in it (None: no divergence).

    ``divergence`` holds ``index`` (into the op order), ``event`` (the
    trace index of the call that made that item), ``op`` (its op) and
    ``ms`` (when that call ended, in ms since the run's start).
    """

    name: str
    long: LongPayload
    divergence: dict | None


def diff_payloads(compared: ComparedRuns) -> list[RunPayload]:
    """The two runs of ``compared`` as a diff page embeds them (long traces, as any saved page), first run first.

    Parameters
    ----------
    compared : ComparedRuns
        What ``rlviz.diff(a, b)`` returned.

    Returns
    -------
    list of RunPayload
        Each is ``encode_long``'s, with its meta's lanes' ``label`` set to
        ``"<run name> · <lane>"`` and ``meta["run"]`` to the run's name.

    Raises
    ------
    TypeError
        If ``compared`` is not a diff.

    Examples
    --------
    >>> from rlviz.testing import diff
    >>> from rlviz.viz.examples import concurrently_trace
    >>> first, second = diff_payloads(diff(concurrently_trace((1, 2)), concurrently_trace((1, 3)),
    ...                                    ops=["store", "train"], names=("w12", "w13")))
    >>> first.divergence["index"], first.long.meta["lanes"][0]["label"]
    (6, 'w12 · driver')
    """
    if not isinstance(compared, ComparedRuns):
        raise TypeError(f"diff_payloads needs what rlviz.diff(a, b) returns, not {type(compared).__name__}")
    runs = []
    for r, (name, trace) in enumerate(zip(compared.names, compared.traces)):
        long = encode_long(trace)
        long.meta["run"] = name
        for lane in long.meta["lanes"]:
            lane["label"] = f"{name}{LANE_SEPARATOR}{lane['name']}"
        runs.append(RunPayload(name, long, divergence_in(compared, r)))
    return runs


def divergence_in(compared: ComparedRuns, run: int) -> dict | None:
    """Where the first divergence of ``compared`` lies in run ``run`` (0 or 1); None when the runs never diverge.

    Parameters
    ----------
    compared : ComparedRuns
        What ``rlviz.diff(a, b)`` returned.
    run : int
        0 for the first run, 1 for the second.

    Returns
    -------
    dict or None
        ``index`` (into the op order), ``event`` (trace index of the call
        that made that item), ``op`` (the op that made it) and ``ms`` (when
        that call ended, in ms since the run's start).
    """
    index = compared.divergence
    if index is None:
        return None
    trace = compared.traces[run]
    event = int(compared.item_events[run][index])
    end_ns = int(trace.columns["end_ns"][event])
    return {"index": index, "event": event, "op": compared.sequences[run][index],
            "ms": (end_ns - trace.start_ns) / 1e6}
