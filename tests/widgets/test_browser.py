"""A real JupyterLab in headless chromium: run a notebook that shows a TraceStepper, click "next".

Loopback only: the server listens on 127.0.0.1 with an empty token, in a
test's own folder of the session's server; the fixtures stop the browser and the kernel.
"""
import pytest
from browser_harness import chromium_page, open_notebook, run_cell, write_notebook

from rlviz.trace import Trace

pytestmark = pytest.mark.browser

CELL = """from rlviz.trace import Trace
from rlviz.widgets import TraceStepper
TraceStepper(Trace.load("trace.rlviz"))"""


def _records():
    """shard-0 produces a value that the driver's gather_sync then takes."""
    return [
        {"op": "from_items", "label": "from_items[0]", "op_id": "src", "where": "shard-0", "pid": 7,
         "start_ns": 0, "end_ns": 1_000, "outcome": "item", "item": "int 5", "item_id": 1, "inputs": []},
        {"op": "gather_sync", "label": "it.gather_sync()", "op_id": "g", "where": "driver", "pid": 7,
         "start_ns": 500, "end_ns": 2_000, "outcome": "item", "item": "int 5", "item_id": 2, "inputs": [1]},
    ]


@pytest.fixture
def lab(shared_lab):
    """The session's JupyterLab with a folder holding ``trace.rlviz`` and ``stepper.ipynb``; yields (url, notebook)."""
    with shared_lab.folder() as root:
        Trace.from_records(_records()).save(str(root / "trace.rlviz"))
        write_notebook(root / "stepper.ipynb", [CELL])
        yield shared_lab.url, f"{root.name}/stepper.ipynb"


@pytest.fixture
def page(lab):
    with chromium_page(1300, 1100) as page:
        yield page


def test_next_button_shows_the_next_event(lab, page, tmp_path):
    from playwright.sync_api import expect

    open_notebook(page, *lab)
    run_cell(page, 0)
    panel = page.locator(".jp-OutputArea-output .widget-html pre").first
    try:
        expect(panel).to_contain_text("step 1 of 2", timeout=180_000)  # ~10 s when quiet
    except AssertionError:
        page.screenshot(path=str(tmp_path / "failed.png"))
        outputs = page.locator(".jp-OutputArea").all_inner_texts()
        raise AssertionError(f"no stepper after running the cell; outputs: {outputs!r}, "
                             f"screenshot: {tmp_path / 'failed.png'}") from None
    expect(panel).to_contain_text("op       from_items")
    page.locator(".jp-OutputArea-output button", has_text="next").first.click()
    expect(panel).to_contain_text("step 2 of 2", timeout=10_000)
    expect(panel).to_contain_text("op       gather_sync")
    expect(panel).to_contain_text("inputs   #1 from_items @ shard-0: int 5")
    page.locator(".jp-OutputArea-output").first.screenshot(path=str(tmp_path / "stepper.png"))
