"""A notebook run, saved with its widget state and reopened shows each widget's picture, not an error.

JupyterLab prefers a widget's view to the output's ``image/png``; reopened,
it restores the widget models from the state saved in the notebook (the
"Save Widget State Automatically" setting, which the docs page "Sharing a
notebook" tells users to turn on) and shows "Error displaying widget: model
not found" for a model it does not have.  rlviz's widgets keep their picture
in a synced trait (a ``LiveView`` from the end of its run, a ``TraceView``
once its page drew its first frame), so the restored view shows it; the
saved output carries the same picture as ``image/png``.
"""
import json
import re

import pytest
from browser_harness import chromium_page, jupyter_lab, open_notebook, run_cell, write_notebook
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CELLS = [
    "import rlviz\n"
    "from rlviz.viz.examples import concurrently_trace\n"
    "from rlviz.widgets import RoundRobinPlayground, TraceStepper\n"
    "trace = concurrently_trace()",
    "view = rlviz.show(trace)\nview",
    "TraceStepper(trace)",
    "RoundRobinPlayground()",
    "from rlviz.iter.local import LocalIterator\n"
    "live = rlviz.watch(LocalIterator(lambda timeout: iter(range(300)), name='numbers').for_each(lambda x: 2 * x))\n"
    "live",
    "live.join(timeout=120)\nprint('picture', len(live._picture) > 0 and view.wait_for_picture(120))",
]


def _save_widget_state(scratch) -> None:
    """JupyterLab's setting "Save Widget State Automatically", as a user turns it on."""
    folder = scratch / "settings" / "@jupyter-widgets" / "jupyterlab-manager"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.jupyterlab-settings").write_text('{"saveState": true}')


def _shut_kernels_down(page, url: str) -> None:
    xsrf = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "_xsrf")
    for session in page.request.get(f"{url}/api/sessions").json():
        response = page.request.delete(f"{url}/api/sessions/{session['id']}", headers={"X-XSRFToken": xsrf})
        assert response.ok, response.status


def test_a_saved_notebook_reopened_shows_the_widgets_pictures_not_errors(tmp_path):
    root, scratch = tmp_path / "root", tmp_path / "scratch"
    root.mkdir()
    _save_widget_state(scratch)
    write_notebook(root / "saved.ipynb", CELLS)
    with jupyter_lab(root, scratch) as url, chromium_page(1300, 1800) as page:
        open_notebook(page, url, "saved.ipynb")
        for index in range(len(CELLS)):
            run_cell(page, index)
        expect(page.locator("[data-rlviz=timeline]")).to_have_count(2, timeout=60_000)   # both live Explorers
        expect(page.get_by_text("picture True")).to_be_visible()
        page.keyboard.press("Control+s")
        expect(page.locator(".jp-mod-dirty")).to_have_count(0, timeout=30_000)
        saved = json.loads((root / "saved.ipynb").read_text())
        assert "application/vnd.jupyter.widget-state+json" in saved["metadata"]["widgets"]
        (shown,) = saved["cells"][1]["outputs"]              # drawn after the page's first frame, then put in
        assert "image/png" in shown["data"] and "application/vnd.jupyter.widget-view+json" in shown["data"]
        _shut_kernels_down(page, url)

        page.goto(f"{url}/lab/tree/saved.ipynb")                    # reopened: a fresh kernel, no models
        pictures = page.locator("[data-rlviz=picture] img")
        expect(pictures).to_have_count(2, timeout=120_000)           # TraceView's and LiveView's
        for k in range(2):
            expect(pictures.nth(k)).to_be_visible()
            assert page.locator("[data-rlviz=picture]").nth(k).inner_text().startswith("A picture of this view")
            width = pictures.nth(k).evaluate("img => img.naturalWidth")
            assert width > 200, width                                # a decoded PNG, not a broken image
        expect(page.locator(".jp-OutputArea-output", has_text="Step")).not_to_have_count(0)   # the stepper
        expect(page.get_by_text(re.compile("Concurrently"))).not_to_have_count(0)           # the playground
        page.screenshot(path=str(tmp_path / "reopened.png"))
        assert page.get_by_text("Error displaying widget").count() == 0
