"""``RecorderControl``: the calls a driver makes to an actor's recorder, for any actor class.

A class that mixes it in can be tracked: the driver names its lane, switches
its recording on and off, aligns its clock and pulls what it recorded.  These
calls queue behind the actor's own work unless its class declares rlviz's
control concurrency group; actors that cannot declare it (RLlib's) report
through ``rlviz.iter.reporter`` instead.
"""
from __future__ import annotations

import time

from rlviz.trace.recorder import ExportCursor, get_recorder

__all__ = ["RecorderControl", "set_recording", "CONTROL_GROUP"]

#: The concurrency group of rlviz's control calls (recording on/off, export).
CONTROL_GROUP = "rlviz"


class RecorderControl:
    """Mixin: the control protocol of the process's recorder (no state of its own, no ``__init__``)."""

    def rlviz_attach(self, label: str, recording: bool, capacity: int | None) -> int:
        """Name this process's lane, set recording, and report the clock (ns)."""
        get_recorder().where = label
        self.rlviz_set_recording(recording, capacity)
        return time.time_ns()

    def rlviz_set_recording(self, on: bool, capacity: int | None = None) -> int:
        """Switch recording; return how many events were dropped so far (the session's baseline)."""
        return set_recording(on, capacity)

    def rlviz_export_since(self, cursor: ExportCursor) -> dict:
        """What this process recorded since ``cursor`` (``Recorder.export_since``), for the driver's mirror."""
        return get_recorder().export_since(cursor)

    def rlviz_clock(self) -> int:
        """This process's clock (ns), for aligning lanes."""
        return time.time_ns()

    def rlviz_node(self) -> str:
        """The id of the Ray node this actor runs on (its lane names it on a multi-node cluster)."""
        import ray

        return ray.get_runtime_context().get_node_id()


def set_recording(on: bool, capacity: int | None = None, since_ns: int | None = None) -> int:
    """Switch this process's recorder; return its ``dropped`` count (a block's baseline).

    Parameters
    ----------
    on : bool
        Record from now on, or stop.
    capacity : int, optional
        The block's bound on held events.
    since_ns : int, optional
        When the block started (this process's clock); default now.

    Returns
    -------
    int
        Events dropped so far in this block.
    """
    recorder = get_recorder()
    if capacity is not None:
        recorder.set_capacity(capacity)
    if on:
        recorder.start_block(time.time_ns() if since_ns is None else since_ns)
    recorder.enabled = on
    return recorder.dropped
