"""A kernel interrupt stops a watched run, during a cell and while the kernel is idle, and keeps its trace.

A real ipykernel (jupyter_client), interrupted the way Jupyter's button does
it (SIGINT to the kernel); the watched pipeline is driver-only, so no Ray.
"""
import os
import time

import pytest

pytestmark = pytest.mark.notebook

SETUP = """
import time
import rlviz
from rlviz.iter.local import LocalIterator

def pipeline():
    def numbers():
        i = 0
        while True:
            time.sleep(0.001)
            yield i
            i += 1
    return LocalIterator(lambda timeout: numbers(), name="numbers").for_each(lambda x: x * 2)
"""

REPORT = """
live.join(30)
print("RUNNING", live.running, "EVENTS", len(live.trace), "ERROR", live.error)
"""


@pytest.fixture
def kernel():
    from jupyter_client.manager import start_new_kernel

    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"}
    manager, client = start_new_kernel(kernel_name="python3", env=env)
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _run(client, code: str, timeout: float = 60) -> str:
    """Run ``code`` in the kernel; its stdout (fails on an error)."""
    out = []
    reply = client.execute_interactive(code, timeout=timeout, output_hook=lambda msg: out.append(
        msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None)
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(out)


def _wait_busy(client, msg_id: str) -> None:
    """Wait until the kernel says it is busy with the request ``msg_id``."""
    while True:
        msg = client.get_iopub_msg(timeout=30)
        if (msg["msg_type"] == "status" and msg["content"]["execution_state"] == "busy"
                and msg["parent_header"].get("msg_id") == msg_id):
            return


def _report(client) -> tuple[bool, int, str]:
    words = _run(client, REPORT).split()
    return words[1] == "True", int(words[3]), " ".join(words[5:])


def test_an_interrupt_during_a_cell_stops_the_watch_and_keeps_its_trace(kernel):
    manager, client = kernel
    _run(client, SETUP + "live = rlviz.watch(pipeline())\ntime.sleep(1)")
    sleeping = client.execute("time.sleep(60)")
    _wait_busy(client, sleeping)
    time.sleep(0.5)                                 # the cell is running
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=30)
    assert reply["parent_header"]["msg_id"] == sleeping and reply["content"]["ename"] == "KeyboardInterrupt"
    running, events, error = _report(client)
    assert not running and events > 0
    assert error.startswith("KeyboardInterrupt: the kernel was interrupted"), error


def test_an_interrupt_while_the_kernel_is_idle_stops_the_watch(kernel):
    manager, client = kernel
    _run(client, SETUP + "live = rlviz.watch(pipeline())\nother = rlviz.watch(pipeline())")
    time.sleep(2)                                   # no cell runs: only the watches' threads
    manager.interrupt_kernel()
    time.sleep(1)
    running, events, error = _report(client)
    assert not running and events > 0
    assert error.startswith("KeyboardInterrupt: the kernel was interrupted"), error
    assert _run(client, "other.join(30); print(other.running)").strip() == "False", "every watch stops"
    assert _run(client, "print(1 + 1)").strip() == "2", "the kernel goes on"
    _run(client, "again = rlviz.watch(pipeline(), seconds=1); again.join(30)")
    assert _run(client, "print(again.running, again.error)").strip() == "False None", "a new watch runs"


def test_an_interrupt_while_paused_at_a_breakpoint_stops_the_watch(kernel):
    manager, client = kernel
    _run(client, SETUP + "live = rlviz.watch(pipeline(), break_on='for_each')\n"
                         "while live.paused_at is None:\n    time.sleep(0.05)\nprint(live.paused_at.op)")
    time.sleep(1)                                   # paused, and no cell runs
    manager.interrupt_kernel()
    running, events, error = _report(client)
    assert not running and events > 0
    assert error.startswith("KeyboardInterrupt: the kernel was interrupted"), error
    assert _run(client, "print(live.paused_at, live.iterations)").strip() == "None 1", "it stopped after the paused step"
