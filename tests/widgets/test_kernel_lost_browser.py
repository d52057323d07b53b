"""The kernel dies while a view is open in JupyterLab: the view says so and keeps what it shows.

A person's session in headless chromium: show a trace, then a cell kills
the kernel's process (JupyterLab restarts it, and the widgets lose their
connection).  The view asks the kernel, gets no answer, and says the kernel
is gone (``[data-rlviz=kernel]``) over everything it still shows: the same
calls, the lanes, a selection that still works.
"""
import pytest
from browser_harness import chromium_page, open_and_run_first_cell
from explorer_checks import press_right, wait_ready

pytestmark = pytest.mark.browser

SHOW = """import rlviz
from rlviz.viz.examples import sharded_trace
rlviz.show(sharded_trace())"""
DIE = """import os
os._exit(1)"""


@pytest.fixture
def notebook(shared_lab):
    """The session's JupyterLab with a folder holding ``die.ipynb``; yields (url, notebook path).

    The cell that kills a kernel kills only this notebook's own (``os._exit`` in
    its process); the folder's exit then shuts down the kernel the server
    restarted in its place, so the next test meets none.
    """
    with shared_lab.folder_of_notebooks({"die.ipynb": [SHOW, DIE]}) as folder:
        yield shared_lab.url, f"{folder.name}/die.ipynb"


def test_a_view_whose_kernel_died_says_so_and_keeps_what_it_shows(notebook, tmp_path):
    from playwright.sync_api import expect

    with chromium_page(1400, 1000) as page:
        errors = open_and_run_first_cell(page, *notebook)
        root = wait_ready(page)
        title = root.locator(".rlviz-title").inner_text()
        assert title.startswith("81 calls")
        expect(root.locator('[data-rlviz="kernel"]')).to_have_count(0)
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        cell.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")                    # the kernel's process exits; JupyterLab restarts it
        note = root.locator('[data-rlviz="kernel"]')
        expect(note).to_be_visible(timeout=90_000)
        assert note.inner_text().startswith("The kernel restarted or stopped, so this view lost its connection: "
                                            "it keeps the 81 events it shows.")
        assert root.locator(".rlviz-title").inner_text() == title          # what it showed stays
        expect(root.locator('[data-rlviz="lanes"]')).to_be_visible()
        dialog = page.locator(".jp-Dialog")                                # JupyterLab's own "Kernel Restarting"
        if dialog.count() and dialog.first.is_visible():
            dialog.first.locator(".jp-mod-accept").first.click()
        press_right(page, root, 1)                                          # and it still steps, in the page alone
        expect(root).not_to_have_attribute("data-rlviz-selected", "-1")
        root.screenshot(path=str(tmp_path / "kernel-lost.png"))
        assert errors == [], errors
