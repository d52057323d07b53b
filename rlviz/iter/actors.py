"""Actors that run rlviz code: naming their lanes, and collecting their recordings.

``track_actor`` registers an actor (a shard, a rollout worker) so that every
``rlviz.record()`` block switches its recorder on and gathers its events.
Collection happens at the end of a block or when a live trace is read.
"""
from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections.abc import Callable

import ray

from rlviz.iter.ray_compat import actor_class_name, actor_id
from rlviz.iter.worker import CONTROL_GROUP
from rlviz.trace.event import LOST_OP, Node
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import get_recorder
from rlviz.trace.rows import ERROR
from rlviz.trace.session import COLLECT_EVERY_S, add_collector

__all__ = ["track_actor", "release_actor", "actor_label", "has_rlviz_groups", "next_label", "set_labels", "ActorCollector",
           "COLLECTOR"]

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


def set_labels(prefix: str, count: int) -> list[str]:
    """Lane labels for a new set of ``count`` actors, numbered from 0 within the set.

    ``shard-0``, ``shard-1``, ... when free; while another live set, or the
    running block's trace, holds one of them, the whole set is marked with the
    lowest free copy number instead: ``shard-0#2``, ``shard-1#2``, ...  So each
    trace reads "shard 0, shard 1" however many iterators a notebook made, and
    no two actors ever share a lane within a trace.
    """
    return COLLECTOR.free_set_labels(prefix, count)


class ActorCollector:
    """Switches tracked actors' recorders on and off and mirrors their recordings on the driver.

    During a recording block a background thread pulls each actor's new
    events every ``collect_every_s`` seconds into a ``RecorderMirror``, so an
    actor that dies abruptly keeps its lane up to the last pull.  Handles are
    held weakly, except during a block, when they are pinned so that an actor
    whose iterator was dropped still hands in its events.
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
        self.offset_errors: dict[str, int] = {}  # bound on each offset's error: half its quickest ping
        self.pinned: list = []
        self.final_exports: list[dict] = []      # of actors stopped inside the running block
        self.mirrors: dict[str, RecorderMirror] = {}   # each tracked actor's recording in the running block
        self.pending: dict[str, ray.ObjectRef] = {}    # the increment each mirror is waiting for
        self.lock = threading.RLock()            # the poller thread and the caller share the mirrors
        self.poller: _Poller | None = None

    def track(self, handle, label: str, control_group: bool) -> str:
        """Register ``handle`` under ``label`` (made unique) and tell it its lane name; return the label."""
        self._same_ray()
        if control_group:
            self.grouped.add(actor_id(handle))
        if len([node for node in ray.nodes() if node["Alive"]]) > 1:     # a cluster: say which node
            label = f"{label}@{ray.get(self._control(handle, 'rlviz_node').remote())[:NODE_ID_CHARS]}"
        with self.lock:
            label = self._unused(label)
            self.handles[label] = handle
            self.labels[actor_id(handle)] = label
        ray.get(self._control(handle, "rlviz_attach").remote(label, self.active, self.capacity))
        self.offsets[label], self.offset_errors[label] = self._clock_offset(handle)
        if self.active:
            with self.lock:
                self.dropped_before[label] = 0
                self.mirrors[label] = RecorderMirror()
                self.pinned.append(handle)
        return label

    def free_set_labels(self, prefix: str, count: int) -> list[str]:
        """``prefix-0`` ... ``prefix-{count-1}`` with the lowest copy mark (none, ``#2``, ...) no label in use has."""
        self._same_ray()
        with self.lock:
            held = [*self.handles, *self.mirrors, *(export["where"] for export in self.final_exports)]
        taken = {label.partition("@")[0] for label in held}          # on a cluster labels end with @node
        for copy in itertools.count(1):
            labels = [f"{prefix}-{k}{'' if copy == 1 else f'#{copy}'}" for k in range(count)]
            if taken.isdisjoint(labels):
                return labels

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
            self._stop_poller()
            with self.lock:
                self.ray_key = key
                self.labels.clear()
                self.grouped.clear()
                self.handles = weakref.WeakValueDictionary()
                self.offsets.clear()
                self.offset_errors.clear()
                self.dropped_before = {}
                self.pinned = []
                self.final_exports = []
                self.mirrors = {}
                self.pending = {}
            _LABEL_COUNTERS.clear()
        return key is not None

    def begin(self, capacity: int | None, collect_every_s: float | None = COLLECT_EVERY_S) -> None:
        """A block starts: switch every tracked actor's recording on, and pull its events every ``collect_every_s``."""
        self._same_ray()
        self.capacity = capacity
        self.active = True
        with self.lock:
            self.pinned = list(self.handles.values())
            self.final_exports = []
            self.mirrors = {label: RecorderMirror() for label in self.handles}
            self.pending = {}
        self.dropped_before = self._call_all("rlviz_set_recording", lambda label: (True, capacity),
                                             _BEGIN_TIMEOUT_S)
        if collect_every_s is not None and self.ray_key is not None:
            self.poller = _Poller(self, collect_every_s, self.ray_key)

    def collect(self, final: bool = False) -> list[dict]:
        """Every tracked actor's recording in the running block, fresh from a pull now (so also when ``final``)."""
        if not self._same_ray():
            return list(self.final_exports)
        if self.pull(_COLLECT_TIMEOUT_S):           # some answers were asked for before now: ask again
            self.pull(_COLLECT_TIMEOUT_S)
        with self.lock:
            mirrored = [self._aligned(label, mirror.export_parts()) for label, mirror in self.mirrors.items()
                        if mirror.has_data]
            return [*mirrored, *self.final_exports]

    def pull(self, timeout: float, labels: list[str] | None = None) -> bool:
        """Bring the mirrors (of ``labels``, default all) up to date; True if an answer predates this pull.

        Each mirror has at most one increment in flight, so an actor busy in
        its default queue (no control group) is never sent a pile of calls.
        A dead actor's mirror is marked ``lost`` and keeps what it had.
        """
        with self.lock:
            chosen = [label for label in (labels or list(self.mirrors)) if label in self.mirrors]
            stale = {label for label in chosen if label in self.pending}
            for label in chosen:
                handle = self.handles.get(label)
                if label not in self.pending and handle is not None and not self.mirrors[label].lost:
                    self.pending[label] = self._control(handle, "rlviz_export_since").remote(
                        self.mirrors[label].cursor)
            asked = {label: self.pending[label] for label in chosen if label in self.pending}
        ready = set(ray.wait(list(asked.values()), num_returns=len(asked), timeout=timeout)[0]) if asked else set()
        answered_stale = False
        for label, ref in asked.items():
            if ref not in ready:
                continue
            try:
                increment, died = ray.get(ref), False
            except ray.exceptions.RayActorError:
                increment, died = None, True
            with self.lock:
                if self.pending.get(label) is not ref:     # the other thread applied it already
                    continue
                del self.pending[label]
                mirror = self.mirrors[label]
                if died and not mirror.lost:
                    mirror.lost = True
                    _record_lost(label)
                elif not died:
                    mirror.update(increment)
                answered_stale |= label in stale
        return answered_stale

    def release(self, handle) -> None:
        """``handle`` is about to stop: keep what it recorded in the running block, then forget it."""
        label = self.labels.get(actor_id(handle))
        if label is None or not self._same_ray():
            return
        if self.active and label in self.mirrors:
            if self.pull(_COLLECT_TIMEOUT_S, [label]):
                self.pull(_COLLECT_TIMEOUT_S, [label])
            with self.lock:
                mirror = self.mirrors.pop(label)
                self.pending.pop(label, None)
                if mirror.has_data:
                    self.final_exports.append(self._aligned(label, mirror.export()))
        with self.lock:
            del self.labels[actor_id(handle)]
            self.grouped.discard(actor_id(handle))
            if self.handles.get(label) is handle:
                del self.handles[label]
            self.pinned = [pinned for pinned in self.pinned if pinned is not handle]

    def release_taken(self, taken) -> None:
        """The running block's store holds every chunk ``taken`` says it took: the mirrors keep stubs of them."""
        with self.lock:
            for mirror in self.mirrors.values():
                mirror.release_taken(taken)

    def forget_ended_before(self, end_ns: int) -> None:
        """The running block keeps no event that ended before ``end_ns`` (driver clock): the mirrors let go of them."""
        with self.lock:
            for label, mirror in self.mirrors.items():
                mirror.forget_ended_before(end_ns - self.offsets.get(label, 0))

    def _aligned(self, label: str, export: dict) -> dict:
        export["offset_ns"] = self.offsets.get(label, 0)
        export["dropped"] -= self.dropped_before.get(label, 0)
        return export

    def end(self) -> None:
        """The block ends: stop pulling and switch every tracked actor's recording off."""
        self.active = False
        self._stop_poller()
        if not self._same_ray():
            self.pinned = []
            return
        for handle in list(self.handles.values()):
            self._control(handle, "rlviz_set_recording").remote(False)
        with self.lock:
            self.pinned = []
            self.pending = {}

    def _stop_poller(self) -> None:
        if self.poller is not None:
            self.poller.stop()
            self.poller = None

    def clock_error_ns(self, label: str) -> int | None:
        """How far off, at most, lane ``label``'s times can be from the driver's clock (None if not tracked).

        The offset is taken from the quickest of a few pings, so its error is at
        most half that ping's round trip (whatever the two clocks are).
        """
        return self.offset_errors.get(label)

    def _clock_offset(self, handle, pings: int = 3) -> tuple[int, int]:
        """Driver clock minus actor clock from the quickest of a few pings (NTP-style), and its error bound."""
        best = None
        for _ in range(pings):
            before = time.time_ns()
            actor_ns = ray.get(self._control(handle, "rlviz_clock").remote())
            after = time.time_ns()
            if best is None or after - before < best[0]:
                best = (after - before, (before + after) // 2 - actor_ns)
        round_trip, offset = best
        return offset, (round_trip + 1) // 2

    def _control(self, handle, method: str):
        """``handle.method``, in the control concurrency group if the actor has one."""
        bound = getattr(handle, method)
        return bound.options(concurrency_group=CONTROL_GROUP) if actor_id(handle) in self.grouped else bound

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


class _Poller:
    """The thread that pulls increments every ``every_s`` seconds while a block runs (and this Ray lives)."""

    def __init__(self, collector: ActorCollector, every_s: float, ray_key: tuple) -> None:
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(collector, every_s, ray_key),
                                       name="rlviz-collector", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread is not threading.current_thread():
            self.thread.join(timeout=_COLLECT_TIMEOUT_S)

    def _run(self, collector: ActorCollector, every_s: float, ray_key: tuple) -> None:
        while not self.stopped.wait(every_s):
            if _ray_key() != ray_key:
                return
            try:
                collector.pull(every_s)
            except Exception:        # Ray going down under the thread: the block's end collects what is left
                if _ray_key() != ray_key:
                    return
                raise


def _ray_key() -> tuple | None:
    """Identifies the Ray this driver is connected to (None if none): its node and job ids are new each time."""
    if not ray.is_initialized():
        return None
    context = ray.get_runtime_context()
    return context.get_node_id(), context.get_job_id()


COLLECTOR = ActorCollector()
add_collector(COLLECTOR)


def _record_lost(label: str) -> None:
    """An error event on lane ``label``, now: the driver found its actor dead (what it recorded so far is kept).

    So a death shows where it happened, in the live page and the saved trace,
    even while nothing calls the actor (a paused run), before anything restarts it.
    """
    recorder = get_recorder()
    if recorder.enabled:
        node = recorder.register(Node(f"{LOST_OP}@{label}", LOST_OP, f"{label} died", label))
        now = time.time_ns()
        recorder.record(node, now, now, ERROR)


def has_rlviz_groups(handle) -> bool:
    """True if ``handle``'s class declared rlviz's concurrency groups (so it can stream safely)."""
    return actor_id(handle) in COLLECTOR.grouped


def actor_label(handle) -> str | None:
    """The lane label of ``handle``, or None if it is not tracked."""
    return COLLECTOR.labels.get(actor_id(handle))


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
    label = label or next_label(actor_class_name(handle))
    return COLLECTOR.track(handle, label, control_group)
