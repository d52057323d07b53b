"""TraceView in a real JupyterLab in headless chromium, on a trace recorded from two remote shards.

A person's session: zoom with the wheel, hover a span, click it, step with →,
set ``view.selected`` from Python, read the view's traits back.  Loopback
only; the fixtures stop the browser and the kernel (the session's server stays).  Screenshots
go to the ``artifacts`` folder the test prints.
"""
import re

import pytest
from browser_harness import chromium_page, open_notebook, run_cell, write_notebook
from explorer_checks import (Expected, check_selected, press_right, record_sharded_trace, select_a_gather, shot,
                             wait_ready, wheel_zoom, window_of)

pytestmark = pytest.mark.browser

SHOW = """from rlviz.trace import Trace
from rlviz.widgets import TraceView
view = TraceView(Trace.load("trace.rlviz"))
view"""
STATE = 'print("state", view.selected, *view.window)'


@pytest.fixture
def notebook(ray_local, shared_lab):
    """The session's JupyterLab with ``trace.rlviz`` (a real two-shard run) and ``view.ipynb`` in a folder of
    its own; yields (url, notebook, Expected, K).

    The notebook's cells: show the view; ``view.selected = K`` for a shard
    event K; print the view's selected index and window.
    """
    with shared_lab.folder() as root:
        trace = record_sharded_trace(root / "trace.rlviz")
        target = next(i for i, e in enumerate(trace.events) if e.op == "for_each" and e.outcome == "item")
        write_notebook(root / "view.ipynb", [SHOW, f"view.selected = {target}", STATE])
        yield shared_lab.url, f"{root.name}/view.ipynb", Expected.of(trace), target


@pytest.fixture
def page(notebook):
    with chromium_page(1400, 1200) as page:
        yield page


def test_traceview_zooms_hovers_selects_steps_and_follows_python(notebook, page, tmp_path):
    url, name, expected, target = notebook
    artifacts = tmp_path / "artifacts"
    print(f"screenshots in {artifacts}")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_notebook(page, url, name)
    run_cell(page, 0)
    try:
        root = wait_ready(page)
    except AssertionError:
        page.screenshot(path=str(artifacts / "failed.png"))
        raise AssertionError(f"no Explorer after running the cell; outputs: "
                             f"{page.locator('.jp-OutputArea').all_inner_texts()!r}; page errors: {errors}") from None
    shot(root, artifacts, "1-ready")

    index, _ = select_a_gather(page, root, expected, artifacts)
    assert _state(page)[0] == index, "a click in the page did not reach view.selected"

    press_right(page, root, 3)
    fourth = expected.steps_after(index, 3)
    check_selected(root, expected, fourth)
    shot(root, artifacts, "4-stepped")

    run_cell(page, 1)                                     # view.selected = target, from Python
    check_selected(root, expected, target)
    shot(root, artifacts, "5-set-from-python")

    wheel_zoom(page, root)
    page.wait_for_timeout(500)                            # the page tells the kernel once the wheel rests
    shown = window_of(root)
    _, a, b = _state(page)
    assert a == pytest.approx(shown[0], abs=1e-3 + 1e-3 * abs(shown[0])), (a, b, shown)
    assert b == pytest.approx(shown[1], abs=1e-3 + 1e-3 * abs(shown[1])), (a, b, shown)
    shot(root, artifacts, "6-zoomed")
    page.screenshot(path=str(artifacts / "notebook.png"), full_page=True)
    assert errors == [], f"the page raised: {errors}"


def _state(page) -> tuple[int, float, float]:
    """Run the cell printing ``view.selected`` and ``view.window``; parse what it printed."""
    cell = run_cell(page, 2)
    text = cell.locator(".jp-OutputArea-output").last.inner_text()
    found = re.search(r"state (-?\d+) (\S+) (\S+)", text)
    assert found, f"the state cell printed {text!r}"
    return int(found.group(1)), float(found.group(2)), float(found.group(3))
