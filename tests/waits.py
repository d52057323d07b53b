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


def mirrored_events(label: str) -> list:
    """The events the driver's mirror of actor ``label`` holds now (what survives if the actor dies now).

    Reads the mirror as the background pulls left it, without pulling: a live
    read of the trace would pull once more and hide whether the pulls happened.
    """
    with COLLECTOR.lock:
        mirror = COLLECTOR.mirrors.get(label)
        export = mirror.export() if mirror is not None and mirror.has_data else None
    return merge_exports([export]).events if export is not None else []


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
