"""Actors that run rlviz code: naming their lanes, and collecting their recordings.

``track_actor`` registers an actor (a shard, a rollout worker) so that every
``rlviz.record()`` block switches its recorder on and gathers its events.
Collection happens at the end of a block or when a live trace is read.
"""
from __future__ import annotations

import itertools
import time
import weakref
from collections.abc import Callable

import ray

from rlviz.iter.worker import CONTROL_GROUP
from rlviz.trace.session import add_collector

__all__ = ["track_actor", "release_actor", "actor_label", "has_rlviz_groups", "next_label", "ActorCollector", "COLLECTOR"]

#: How many hex digits of a Ray node id a lane shows on a multi-node cluster (``RolloutWorker-1@3f2a1c``).
NODE_ID_CHARS = 6
_LABEL_COUNTERS: dict[str, itertools.count] = {}
_BEGIN_TIMEOUT_S = 2.0     # an actor busy in its default queue answers later; the time window covers it
_COLLECT_TIMEOUT_S = 10.0


def next_label(prefix: str) -> str:
    """A fresh lane label: ``shard-0``, ``shard-1``, ... per prefix (counting anew in each new Ray)."""
    COLLECTOR._same_ray()
    counter = _LABEL_COUNTERS.setdefault(prefix, itertools.count())
    return f"{prefix}-{next(counter)}"


class ActorCollector:
    """Switches tracked actors' recorders on and off and gathers their exports.

    Handles are held weakly, except during a recording block, when they are
    pinned so that an actor whose iterator was dropped still hands in its events.
    """

    def __init__(self) -> None:
        self.ray_key: tuple | None = None        # which Ray the actors below belong to (see _ray_key)
        self.labels: dict[object, str] = {}
        self.grouped: set = set()                # actor ids whose class declared rlviz's groups
        self.handles: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.active = False
        self.capacity: int | None = None
        self.dropped_before: dict[str, int] = {}
        self.offsets: dict[str, int] = {}
        self.pinned: list = []
        self.final_exports: list[dict] = []    # of actors stopped inside the running block
        self.latest: dict[str, dict] = {}      # each actor's latest export in the running block

    def track(self, handle, label: str, control_group: bool) -> str:
        """Register ``handle`` under ``label`` (made unique) and tell it its lane name; return the label."""
        self._same_ray()
        if control_group:
            self.grouped.add(handle._actor_id)
        if len([node for node in ray.nodes() if node["Alive"]]) > 1:     # a cluster: say which node
            label = f"{label}@{ray.get(self._control(handle, 'rlviz_node').remote())[:NODE_ID_CHARS]}"
        label = self._unused(label)
        self.handles[label] = handle
        self.labels[handle._actor_id] = label
        ray.get(self._control(handle, "rlviz_attach").remote(label, self.active, self.capacity))
        self.offsets[label] = self._clock_offset(handle)
        if self.active:
            self.dropped_before[label] = 0
            self.pinned.append(handle)
        return label

    def _unused(self, label: str) -> str:
        """``label``, or ``label#2``, ``label#3``, ... while a live tracked actor has it (two WorkerSets)."""
        candidate, n = label, 1
        while candidate in self.handles:
            n += 1
            candidate = f"{label}#{n}"
        return candidate

    def _same_ray(self) -> bool:
        """True if Ray is up; actors tracked under a Ray that is gone (shut down, restarted) are forgotten.

        A notebook variable can keep an old actor handle alive after ``ray.shutdown()``; calling
        it would fail ("Can't find actor") or, with Ray down, quietly start a new Ray.
        """
        key = _ray_key()
        if key != self.ray_key:
            self.ray_key = key
            self.labels.clear()
            self.grouped.clear()
            self.handles = weakref.WeakValueDictionary()
            self.offsets.clear()
            self.dropped_before = {}
            self.pinned = []
            self.final_exports = []
            self.latest = {}
            _LABEL_COUNTERS.clear()
        return key is not None

    def begin(self, capacity: int | None) -> None:
        self._same_ray()
        self.capacity = capacity
        self.active = True
        self.pinned = list(self.handles.values())
        self.final_exports = []
        self.latest = {}
        self.dropped_before = self._call_all("rlviz_set_recording", lambda label: (True, capacity),
                                             _BEGIN_TIMEOUT_S)

    def collect(self) -> list[dict]:
        if not self._same_ray():
            return list(self.final_exports)
        answered = {label: self._aligned(label, export) for label, export in
                    self._call_all("rlviz_export", lambda label: (), _COLLECT_TIMEOUT_S).items()}
        self.latest.update(answered)
        # an actor that died (or is stuck) keeps the lane it had at the latest collection
        kept = [export for label, export in self.latest.items() if label not in answered and label in self.handles]
        return [*answered.values(), *kept, *self.final_exports]

    def release(self, handle) -> None:
        """``handle`` is about to stop: keep what it recorded in the running block, then forget it."""
        label = self.labels.get(handle._actor_id)
        if label is None or not self._same_ray():
            return
        if self.active:
            try:
                export = ray.get(self._control(handle, "rlviz_export").remote(), timeout=_COLLECT_TIMEOUT_S)
                self.final_exports.append(self._aligned(label, export))
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                if label in self.latest:                # already dead: keep what the latest collection saw
                    self.final_exports.append(self.latest[label])
            self.latest.pop(label, None)
        del self.labels[handle._actor_id]
        self.grouped.discard(handle._actor_id)
        if self.handles.get(label) is handle:
            del self.handles[label]
        self.pinned = [pinned for pinned in self.pinned if pinned is not handle]

    def _aligned(self, label: str, export: dict) -> dict:
        export["offset_ns"] = self.offsets.get(label, 0)
        export["dropped"] -= self.dropped_before.get(label, 0)
        return export

    def end(self) -> None:
        self.active = False
        if not self._same_ray():
            self.pinned = []
            return
        for handle in list(self.handles.values()):
            self._control(handle, "rlviz_set_recording").remote(False)
        self.pinned = []

    def _clock_offset(self, handle, pings: int = 3) -> int:
        """Driver clock minus actor clock, from the quickest of a few pings (NTP-style)."""
        best = None
        for _ in range(pings):
            before = time.time_ns()
            actor_ns = ray.get(self._control(handle, "rlviz_clock").remote())
            after = time.time_ns()
            if best is None or after - before < best[0]:
                best = (after - before, (before + after) // 2 - actor_ns)
        return best[1]

    def _control(self, handle, method: str):
        """``handle.method``, in the control concurrency group if the actor has one."""
        bound = getattr(handle, method)
        return bound.options(concurrency_group=CONTROL_GROUP) if handle._actor_id in self.grouped else bound

    def _call_all(self, method: str, args: Callable[[str], tuple], timeout: float) -> dict[str, object]:
        """Call ``method`` on every live tracked actor; dead or busy ones are skipped."""
        refs = {label: self._control(handle, method).remote(*args(label))
                for label, handle in list(self.handles.items())}
        results = {}
        deadline = time.monotonic() + timeout
        for label, ref in refs.items():
            try:
                results[label] = ray.get(ref, timeout=max(0.0, deadline - time.monotonic()))
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                continue
        return results


def _ray_key() -> tuple | None:
    """Identifies the Ray this driver is connected to (None if none): its node and job ids are new each time."""
    if not ray.is_initialized():
        return None
    context = ray.get_runtime_context()
    return context.get_node_id(), context.get_job_id()


COLLECTOR = ActorCollector()
add_collector(COLLECTOR)


def has_rlviz_groups(handle) -> bool:
    """True if ``handle``'s class declared rlviz's concurrency groups (so it can stream safely)."""
    return handle._actor_id in COLLECTOR.grouped


def actor_label(handle) -> str | None:
    """The lane label of ``handle``, or None if it is not tracked."""
    return COLLECTOR.labels.get(handle._actor_id)


def release_actor(handle) -> None:
    """Stop tracking ``handle`` because it is about to stop.

    Inside a ``rlviz.record()`` block its events so far are collected first,
    so a worker stopped mid-block keeps its lane in the trace.
    """
    COLLECTOR.release(handle)


def track_actor(handle, label: str | None = None, control_group: bool = False) -> str:
    """Record what actor ``handle`` does in every ``rlviz.record()`` block.

    The actor's class must subclass ``ParallelIteratorWorker``.  Tracking an
    actor twice keeps its first label; a label another live tracked actor
    has gets a suffix (``RolloutWorker-1#2``), so lanes never merge.

    Parameters
    ----------
    handle : ray.actor.ActorHandle
        The actor.
    label : str, optional
        Its lane name in traces (default: its class name and a number).
    control_group : bool
        True if the actor class was declared with
        ``ray.remote(concurrency_groups=rlviz.iter.CONCURRENCY_GROUPS)``; then
        recordings are collected even while the actor streams.  Leave False
        otherwise: calling an undeclared group kills the actor.

    Returns
    -------
    str
        The label in use.
    """
    known = actor_label(handle)
    if known is not None:
        return known
    if not hasattr(handle, "rlviz_attach"):
        raise TypeError(f"actor {handle!r} cannot be tracked: its class must subclass "
                        f"rlviz.iter.ParallelIteratorWorker")
    label = label or next_label(handle._ray_actor_creation_function_descriptor.class_name)
    return COLLECTOR.track(handle, label, control_group)
