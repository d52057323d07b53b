"""Waiting for a condition with a bound, never for a fixed time: what a loaded CI machine needs."""
import time

import pytest

from rlviz.iter.actors import COLLECTOR
from rlviz.trace.store import merge_exports


def wait_for(condition, what: str, timeout_s: float = 60.0, every_s: float = 0.05):
    """Return ``condition()``'s first true value, checked every ``every_s``; fail the test after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout_s:.0f} s for {what}")
        time.sleep(every_s)


def mirrored_events(label: str, trace) -> list:
    """The events of actor ``label`` the driver holds now in ``trace``'s block (what survives if the actor dies now).

    Those are the events the block's store took of that lane, plus the rows
    the driver's mirror of the actor holds that the store has not taken yet.
    Once the store took a chunk whole the mirror keeps only a stub of it
    (``rlviz.trace.rows.released_stub``), so the mirror alone under-counts.
    Reads both as the background pulls left them, without pulling: a live
    read of the trace would pull once more and hide whether the pulls happened.
    """
    with COLLECTOR.lock:
        mirror = COLLECTOR.mirrors.get(label)
        export = mirror.export() if mirror is not None and mirror.has_data else None
        offset_ns = COLLECTOR.offsets.get(label, 0)         # the store put the mirror's rows on the driver's clock
    taken = [event for event in trace.store.view().events if event.where == label]
    held = {(e.op_id, e.start_ns, e.end_ns) for e in taken}
    mirrored = merge_exports([{**export, "offset_ns": offset_ns}]).events if export is not None else []
    return taken + [e for e in mirrored if (e.op_id, e.start_ns, e.end_ns) not in held]


def wait_until_dead(handle, timeout_s: float = 60.0) -> None:
    """Wait until calls to actor ``handle`` fail: ``ray.kill`` is asynchronous, so a call sent just after it may still run."""
    import ray

    def dead() -> bool:
        try:
            ray.get(handle.rlviz_clock.remote(), timeout=timeout_s)
        except ray.exceptions.RayActorError:
            return True
        except ray.exceptions.GetTimeoutError:
            pass
        return False

    wait_for(dead, "the killed actor to be gone", timeout_s=timeout_s, every_s=0.1)
