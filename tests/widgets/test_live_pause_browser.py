"""Pause, advance and break here in a real JupyterLab (headless chromium), on a watched driver-only pipeline.

A person's session: pause from the page (the run stops at an op boundary and
the inspector shows the call it stopped after), advance with the button and
with the N key, set a breakpoint with "Break here" (the graph marks the op),
resume with Space until the breakpoint pauses the run again, then stop.
"""
import re

import pytest
from browser_harness import chromium_page, open_and_run_first_cell, run_cell
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LOCAL = """import time
import rlviz
from rlviz.iter.local import LocalIterator

def numbers():
    i = 0
    while True:
        time.sleep(0.002)
        yield i
        i += 1

live = rlviz.watch(LocalIterator(lambda timeout: numbers(), name="numbers").for_each(lambda x: x * 2))
live"""
AFTER = """live.join(timeout=60)
print("state", live.running, live.break_on, live.iterations > 0, live.error)"""


@pytest.fixture
def notebook(shared_lab):
    """The session's JupyterLab with a folder holding ``pause.ipynb``; yields (url, notebook path)."""
    with shared_lab.folder_of_notebooks({"pause.ipynb": [LOCAL, AFTER]}) as folder:
        yield shared_lab.url, f"{folder.name}/pause.ipynb"


def _paused_text(root):
    return root.locator('[data-rlviz="paused-at"]')


def _inspected(root):
    """The op and item of the call the inspector shows."""
    inspector = root.locator('[data-rlviz="inspector"]')
    return inspector.locator('dd[data-rlviz="op"]').text_content(), inspector.locator('dd[data-rlviz="item"]').text_content()


def test_pause_advance_and_break_here_from_the_page(notebook, tmp_path):
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    with chromium_page(1400, 1100) as page:
        errors = open_and_run_first_cell(page, *notebook, timeout_ms=120_000)
        root = page.locator('[data-rlviz="explorer"]').first
        count = root.locator('[data-rlviz="live-count"]')
        expect(count).to_have_attribute("data-count", re.compile(r"^[1-9]\d*$"), timeout=120_000)
        advance = root.locator('[data-rlviz="advance"]')
        expect(advance).to_be_disabled()                       # running: nothing to advance from

        root.locator('[data-rlviz="pause"]').click()
        expect(_paused_text(root)).to_have_text(re.compile(r"^paused after (numbers|for_each) \(item: int \d+\)$"),
                                                timeout=30_000)
        expect(advance).to_be_enabled()
        first = _paused_text(root).text_content()
        op, item = _inspected(root)
        expect(root.locator('[data-rlviz="inspector"] dd[data-rlviz="item"]')).to_have_text(first.split(": ")[-1][:-1],
                                                                                             timeout=10_000)
        root.screenshot(path=str(artifacts / "1-paused.png"))

        advance.click()                                         # no union: one call of the outermost op
        expect(_paused_text(root)).to_have_text(re.compile(r"^paused after for_each \(item: int \d+\)$"), timeout=30_000)
        expect(_paused_text(root)).not_to_have_text(first)
        second = _paused_text(root).text_content()
        expect(root.locator('[data-rlviz="inspector"] dd[data-rlviz="item"]')).to_have_text(second.split(": ")[-1][:-1],
                                                                                              timeout=10_000)
        root.focus()
        page.keyboard.press("n")                                 # N advances too
        expect(_paused_text(root)).not_to_have_text(second, timeout=30_000)
        expect(_paused_text(root)).to_have_text(re.compile(r"^paused after for_each"))
        root.screenshot(path=str(artifacts / "2-advanced.png"))

        root.locator('[data-rlviz="inspector"] [data-rlviz="break"]').click()     # on the selected call's op: for_each
        node = root.locator('[data-rlviz="node"][data-op="for_each"]')
        expect(node).to_have_attribute("data-break", "1", timeout=30_000)
        expect(root.locator('[data-rlviz="inspector"] [data-rlviz="break"]')).to_have_text("remove breakpoint")
        before = _paused_text(root).text_content()
        root.focus()
        page.keyboard.press(" ")                                # Space resumes; the breakpoint pauses again
        expect(_paused_text(root)).not_to_have_text(before, timeout=30_000)
        expect(_paused_text(root)).to_have_text(re.compile(r"^paused after for_each"), timeout=30_000)
        root.screenshot(path=str(artifacts / "3-breakpoint.png"))

        root.locator('[data-rlviz="stop"]').click()
        expect(root.locator('[data-rlviz="live-state"]')).to_have_text("stopped", timeout=60_000)
        run_cell(page, 1, timeout_ms=120_000)
        text = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea").inner_text()
        found = re.search(r"state (\S+) (\S+) (\S+) (.+)", text)
        assert found and found.groups() == ("False", "for_each", "True", "None"), f"the cell printed {text!r}"
        assert errors == [], f"the page raised: {errors}"
