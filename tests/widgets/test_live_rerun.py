"""Running a notebook cell again stops the watch that cell started before, instead of leaving it running unseen.

JupyterLab clears a cell's output when the cell runs again, so the view of a
watch started there leaves the page, and ``live`` names the new one: the old
run would go on with no stop button and no name to stop it by.  A real
ipykernel (jupyter_client), sent execute requests carrying the cell's id as
JupyterLab sends them; the watched pipeline is driver-only, so no Ray.
"""
import os

import pytest

pytestmark = pytest.mark.notebook

BUILD = """
import time
import rlviz
from rlviz.iter.local import LocalIterator

def numbers(timeout):
    i = 0
    while True:
        time.sleep(0.005)
        yield i
        i += 1

it = LocalIterator(numbers, name="numbers")
"""
WATCH = "views = globals().setdefault('views', [])\nlive = rlviz.watch(it)\nviews.append(live)"
REPORT = "print('RUNNING', [view.running for view in views])"


@pytest.fixture
def client():
    from jupyter_client.manager import start_new_kernel

    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"}
    manager, kernel_client = start_new_kernel(kernel_name="python3", env=env)
    try:
        yield kernel_client
    finally:
        kernel_client.stop_channels()
        manager.shutdown_kernel(now=True)


def _run_cell(client, code: str, cell_id: str | None) -> str:
    """Run ``code`` as JupyterLab runs a cell (its id in the request's metadata); its stdout (fails on an error)."""
    content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False,
               "stop_on_error": True}
    request = client.session.msg("execute_request", content, metadata={"cellId": cell_id} if cell_id else {})
    client.shell_channel.send(request)
    out, errors = [], []
    while True:
        msg = client.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != request["header"]["msg_id"]:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            errors.append("\n".join(msg["content"]["traceback"]))
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert not errors, errors
    return "".join(out)


def test_running_the_watch_cell_again_stops_the_watch_it_started_before(client):
    _run_cell(client, BUILD, "build")
    _run_cell(client, WATCH, "watch")
    _run_cell(client, BUILD, "build")                  # Run All again: a new iterator, then the watch cell
    _run_cell(client, WATCH, "watch")
    assert _run_cell(client, REPORT, "report").strip() == "RUNNING [False, True]"


def test_watches_started_in_other_cells_or_outside_a_notebook_go_on(client):
    _run_cell(client, BUILD, "build")
    _run_cell(client, WATCH, "watch")
    _run_cell(client, BUILD, "build")
    _run_cell(client, WATCH, "another watch")
    _run_cell(client, BUILD, None)                     # a client that names no cell (a console, nbclient)
    _run_cell(client, WATCH, None)
    _run_cell(client, BUILD, None)
    _run_cell(client, WATCH, None)
    assert _run_cell(client, REPORT, "report").strip() == "RUNNING [True, True, True, True]"
