"""Recorders that report themselves: a thread in an actor pushes its events to a hub actor.

For actors whose class rlviz does not create (RLlib's EnvRunners and
Learners), so it cannot declare a control concurrency group: a control call
would queue behind a long ``sample()``.  Instead ``start_reporter`` runs a
thread inside the actor that long-polls the ``RecorderHub``: the hub's reply
carries the recording switch, and each call carries the increment since the
last one (``Recorder.export_since``), applied to a ``RecorderMirror`` kept by
the hub.  ``HubCollector`` is the driver's side, plugged into ``record()``.
"""
from __future__ import annotations

import os
import threading
import time

import ray

from rlviz.trace.event import Node, RESTART_OP
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import ExportCursor, get_recorder
from rlviz.trace.rows import ITEM
from rlviz.trace.session import COLLECT_EVERY_S
from rlviz.iter.control import set_recording

__all__ = ["RecorderHub", "HubCollector", "start_reporter", "hub_handle", "HUB_NAME",
           "IDLE_POLL_S", "ACK_TIMEOUT_S"]

#: The name of the hub actor in the driver's namespace.
HUB_NAME = "rlviz-hub"
#: The op of the event a restarted actor records on its lane (the views draw it as a restart).
#: How long a reporter's call waits at the hub for news while no block records (seconds).
IDLE_POLL_S = 5.0
_HUB_THREADS = 64                # reporters long-poll; each holds one of the hub's threads
#: How long a flush (``record()`` entry, a read, the exit) waits for the reporters taken for alive (seconds).
ACK_TIMEOUT_S = 5.0
_LIVE_S = IDLE_POLL_S + 5.0      # a reporter silent for longer is taken for dead
_RETRY_S = 1.0
_REUSE_S = 0.5                   # a read this soon after a flush reuses its answer
_KEPT: dict[tuple, object] = {}  # (node id, job id) of the Ray it lives in -> the hub this driver created


class RecorderHub:
    """Holds the recording switch and a mirror of every reporting process, by ``(label, tag)``.

    A label that reports from a second process (a new recorder tag) is a
    restart: both processes' mirrors are kept, and the new one is told so.
    """

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.epoch = 0                      # one per record() block; 0: none yet
        self.recording = False
        self.capacity: int | None = None
        self.every_s: float | None = COLLECT_EVERY_S
        self.flush = 0
        self.mirrors: dict[tuple[str, int], RecorderMirror] = {}
        self.offsets: dict[tuple[str, int], int] = {}
        self.seen: dict[tuple[str, int], tuple[int, int, float]] = {}   # (epoch, flush, when) last reported
        self.tags: dict[str, list[int]] = {}
        self.silent: set[tuple[str, int]] = set()   # missed a flush: not waited for again until it reports

    def clock(self) -> int:
        """The hub's clock (ns)."""
        return time.time_ns()

    def begin(self, capacity: int | None, every_s: float | None) -> int:
        """A block starts: reporters switch recording on and push every ``every_s``; returns the epoch."""
        with self.cond:
            self.epoch += 1
            self.recording, self.capacity, self.every_s = True, capacity, every_s
            self.mirrors = {}
            self.cond.notify_all()
            return self.epoch

    def end(self) -> None:
        """The block ends: reporters switch recording off."""
        with self.cond:
            self.recording = False
            self.cond.notify_all()

    def exchange(self, label: str, tag: int, offset_ns: int, epoch: int, flush: int, recording: bool,
                 increment: dict | None) -> dict:
        """One reporter call: apply its ``increment`` (taken in ``epoch``), wait for news, reply with the switch.

        News is a new block, a recording switch the reporter has not applied,
        a flush it has not answered, or its push period (``every_s``) passing.
        """
        key = (label, tag)
        with self.cond:
            tags = self.tags.setdefault(label, [])
            restarted = bool(tags) and tag not in tags
            if tag not in tags:
                tags.append(tag)
            if increment is not None and epoch == self.epoch and self.recording:
                self.mirrors.setdefault(key, RecorderMirror()).update(increment)
                self.offsets[key] = offset_ns
            self.seen[key] = (epoch, flush, time.monotonic())
            self.silent.discard(key)
            self.cond.notify_all()          # a flush waiting in ``acknowledged`` may now be answered
            wait_s = (self.every_s or IDLE_POLL_S) if self.recording else IDLE_POLL_S
            self.cond.wait_for(lambda: restarted or (self.epoch, self.recording, self.flush) != (epoch, recording, flush),
                               timeout=wait_s)
            return {"epoch": self.epoch, "recording": self.recording, "capacity": self.capacity,
                    "flush": self.flush, "restarted": restarted}

    def acknowledged(self, timeout: float) -> int:
        """Wait until every live reporter has reported in the current epoch and flush; return how many did.

        A reporter that misses the deadline (its process died, or was
        replaced) is not waited for again until it reports, so a dead actor
        costs one ``timeout``, not one per read of a live trace.
        """
        with self.cond:
            self.flush += 1
            target = (self.epoch, self.flush)
            self.cond.notify_all()
            self.cond.wait_for(lambda: all(seen[:2] == target for seen in self._live().values()), timeout=timeout)
            late = {key for key, seen in self._live().items() if seen[:2] != target}
            self.silent |= late
            return len(self._live())

    def exports(self) -> list[dict]:
        """Every mirrored process of the current block, in ``RecorderMirror.export_parts()`` form (offset: hub minus it)."""
        with self.cond:
            exports = []
            for key, mirror in self.mirrors.items():
                if mirror.has_data:
                    export = mirror.export_parts()
                    export["offset_ns"] = self.offsets.get(key, 0)
                    exports.append(export)
            return exports

    def forget_ended_before(self, end_ns: int) -> None:
        """The block keeps no event that ended before ``end_ns`` (hub clock): the mirrors let go of them."""
        with self.cond:
            for key, mirror in self.mirrors.items():
                mirror.forget_ended_before(end_ns - self.offsets.get(key, 0))

    def _live(self) -> dict[tuple[str, int], tuple[int, int, float]]:
        """Reporters to wait for: heard from lately, not silent, not replaced by a newer process of their lane."""
        now = time.monotonic()
        return {key: seen for key, seen in self.seen.items()
                if now - seen[2] < _LIVE_S and key not in self.silent and self.tags[key[0]][-1] == key[1]}


def hub_handle(create: bool = False):
    """The hub actor of the connected Ray (None if there is none and ``create`` is False).

    The driver that creates the hub keeps its handle for the life of its Ray
    job: a named actor still ends when its last handle goes.  The handle is
    kept per Ray (node and job ids), so after ``ray.shutdown()`` and a new
    ``ray.init()`` in the same process the hub of the old Ray, dead with it,
    is replaced (a new local Ray may reuse the old job id, never the node id).
    """
    key = _ray_key()
    if create and key not in _KEPT:      # the creating handle owns the actor: keep that one, not a look-up
        _KEPT.clear()                    # hubs of Rays this process left are dead
        remote_cls = ray.remote(num_cpus=0, max_concurrency=_HUB_THREADS)(RecorderHub)
        _KEPT[key] = remote_cls.options(name=HUB_NAME, get_if_exists=True).remote()
    if key in _KEPT:
        return _KEPT[key]
    try:
        return ray.get_actor(HUB_NAME)
    except ValueError:
        return None


def _ray_key() -> tuple[str, str]:
    """Identifies the Ray this process is connected to: its node and job ids are new each time."""
    context = ray.get_runtime_context()
    return context.get_node_id(), context.get_job_id()


def start_reporter(label: str) -> threading.Thread:
    """Name this process's lane ``label`` and start the thread that reports its recorder to the hub.

    Call it once in an actor's ``__init__``.  The thread is a daemon: it
    ends with the process.  Until a hub exists it looks for one every few
    seconds; while no block records, it waits at the hub (one call per
    ``IDLE_POLL_S``), so recording off costs one idle thread.
    """
    get_recorder().where = label
    thread = threading.Thread(target=_Reporter(label).run, name="rlviz-reporter", daemon=True)
    thread.start()
    return thread


class _Reporter:
    def __init__(self, label: str) -> None:
        self.label = label
        self.started_ns = time.time_ns()
        self.epoch = 0
        self.flush = 0
        self.cursor = ExportCursor()

    def run(self) -> None:
        hub, offset_ns = None, 0
        while True:
            if hub is None:
                hub = hub_handle()
                if hub is None:
                    time.sleep(IDLE_POLL_S)
                    continue
                offset_ns = _offset(lambda: ray.get(hub.clock.remote()))
            try:
                self._report(hub, offset_ns)
            except ray.exceptions.RayActorError:      # the hub is gone (its driver ended): look again
                hub = None
            except Exception:                         # noqa: BLE001 - a reporter must never kill its actor
                time.sleep(_RETRY_S)

    def _report(self, hub, offset_ns: int) -> None:
        recorder = get_recorder()
        increment = recorder.export_since(self.cursor) if recorder.enabled else None
        reply = ray.get(hub.exchange.remote(self.label, recorder.tag, offset_ns, self.epoch, self.flush,
                                            recorder.enabled, increment))
        if increment is not None:
            self.cursor = increment["cursor"]
        if reply["epoch"] != self.epoch:
            self.epoch, self.cursor = reply["epoch"], ExportCursor()     # a new block: its mirror starts empty
        if reply["recording"] != recorder.enabled:
            set_recording(reply["recording"], reply["capacity"])
        self.flush = reply["flush"]
        if reply["restarted"] and recorder.enabled:
            node = recorder.register(Node(f"{RESTART_OP}@{self.label}", RESTART_OP,
                                          "this process replaced a dead one", self.label))
            recorder.record(node, self.started_ns, time.time_ns(), ITEM, f"{self.label} restarted (pid {os.getpid()})")


def _offset(read_clock, pings: int = 3) -> int:
    """Other clock minus this one, from the quickest of a few round trips (NTP-style)."""
    best = None
    for _ in range(pings):
        before = time.time_ns()
        other = read_clock()
        after = time.time_ns()
        if best is None or after - before < best[0]:
            best = (after - before, other - (before + after) // 2)
    return best[1]


class HubCollector:
    """The driver's side of the hub, a ``record()`` collector: switch, flush and read the reporters."""

    def __init__(self) -> None:
        self.hub = None
        self.offset_ns = 0              # driver clock minus hub clock
        self.ray_key: tuple | None = None
        self.cached: list[dict] = []
        self.fresh_until = 0.0          # before this (monotonic) a read reuses ``cached``

    def begin(self, capacity: int | None, collect_every_s: float | None) -> None:
        """Switch every reporter's recording on and wait (bounded) until the live ones have."""
        hub = self._hub()
        if hub is None:
            return
        self.offset_ns = -_offset(lambda: ray.get(hub.clock.remote()))
        ray.get(hub.begin.remote(capacity, collect_every_s))
        ray.get(hub.acknowledged.remote(ACK_TIMEOUT_S))
        self.cached, self.fresh_until = [], 0.0

    def collect(self, final: bool = False) -> list[dict]:
        """Every reporter's recording in the running block, after asking each to push what it has now.

        A flush costs a round trip to every reporter, so reads that follow
        each other closely (a live trace read event by event) reuse the last
        answer for at least ``_REUSE_S`` and twice as long as it took.  The
        block's ``final`` read always flushes: it must hold every event
        recorded before the block ended.
        """
        hub = self._hub()
        if hub is None:
            return []
        if not final and time.monotonic() < self.fresh_until:
            return [dict(export) for export in self.cached]
        started = time.monotonic()
        try:
            ray.get(hub.acknowledged.remote(ACK_TIMEOUT_S))
            exports = ray.get(hub.exports.remote())
        except ray.exceptions.RayActorError:
            return []
        for export in exports:
            export["offset_ns"] += self.offset_ns
        took = time.monotonic() - started
        self.cached, self.fresh_until = exports, time.monotonic() + max(_REUSE_S, 2 * took)
        return [dict(export) for export in exports]

    def forget_ended_before(self, end_ns: int) -> None:
        """The block keeps no event that ended before ``end_ns`` (driver clock): the hub's mirrors let go of them."""
        hub = self._hub()
        if hub is not None:
            hub.forget_ended_before.remote(end_ns - self.offset_ns)

    def release_taken(self, taken) -> None:
        """Nothing to release here: the mirrors live in the hub's process, not the driver's."""

    def end(self) -> None:
        """Switch every reporter's recording off."""
        self.cached, self.fresh_until = [], 0.0
        hub = self._hub()
        if hub is not None:
            hub.end.remote()

    def _hub(self):
        """The hub of the Ray this driver is connected to, if one was started (by ``rlviz.rllib.instrument``)."""
        if not ray.is_initialized():
            return None
        key = _ray_key()
        if key != self.ray_key:
            self.ray_key, self.hub = key, None
        if self.hub is None:
            self.hub = hub_handle()
        return self.hub
