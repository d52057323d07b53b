"""rlviz.watch in a real JupyterLab in headless chromium: DQN with two remote workers, watched as it trains.

A person's session: start the watch, run another cell for 8 s while the page
keeps growing (the kernel thread is busy: the updates come from the view's
threads, which ipykernel 7 must route), see the return curve, press stop in
the page, then check from Python that the run stopped, its thread is gone,
and its trace saves and loads.  Screenshots go to the ``artifacts`` folder
the test prints.
"""
import re
from contextlib import contextmanager

import pytest
from browser_harness import chromium_page, open_and_run_first_cell, run_cell
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

START = """import rlviz
rlviz.init(num_cpus=4)          # 2 rollout workers; fewer CPUs start faster on a loaded machine
trainer = rlviz.Trainer("dqn", env="CartPole-v1", num_workers=2,
                        config={"timesteps_per_iteration": 200, "learning_starts": 200})
live = rlviz.watch(trainer, seconds=600)
live"""
BUSY = """import time
time.sleep(8)
print("slept")"""
AFTER = """import threading
from rlviz.trace import Trace
live.join(timeout=180)
names = [t.name for t in threading.enumerate()]
live.trace.save("watched.json")
print("state", live.running, "rlviz-watch" in names, live.iterations, len(Trace.load("watched.json")), live.error)
trainer.stop()"""


LOCAL = """import time
import rlviz
from rlviz.iter.local import LocalIterator

with rlviz.record():                # an earlier plan in the same kernel: the watch's graph must not show it
    list(LocalIterator(lambda timeout: iter(range(5)), name="earlier").for_each(lambda x: x))

def numbers():
    i = 0
    while True:
        time.sleep(0.002)
        yield i
        i += 1

live = rlviz.watch(LocalIterator(lambda timeout: numbers(), name="numbers").for_each(lambda x: x * 2))
live"""
LOCAL_AFTER = """import threading
from rlviz.trace import Trace
live.join(timeout=60)
names = [t.name for t in threading.enumerate()]
live.trace.save("watched.json")
print("state", live.running, "rlviz-watch" in names, live.iterations, len(Trace.load("watched.json")), live.error)"""


INTERRUPTED_AFTER = LOCAL_AFTER.replace("live.error)", "live.error.split(':')[0])")


@pytest.fixture
def notebook(shared_lab):
    """The session's JupyterLab with a folder of this file's notebooks; yields (url, folder name)."""
    with shared_lab.folder_of_notebooks({"watch.ipynb": [START, BUSY, AFTER], "local.ipynb": [LOCAL, BUSY, LOCAL_AFTER],
                                         "interrupt.ipynb": [LOCAL, INTERRUPTED_AFTER]}) as folder:
        yield shared_lab.url, folder.name


@contextmanager
def _watching(notebook: tuple[str, str], name: str, height: int = 1100, start_ms: float = 120_000):
    """Open notebook ``name`` of the ``notebook`` fixture's folder, run its first cell (it starts a watch) and wait
    for the page's first events.

    Yields the page, the Explorer's root and its event count; fails if the page raised.
    """
    with chromium_page(1400, height) as page:
        url, folder = notebook
        errors = open_and_run_first_cell(page, url, f"{folder}/{name}", timeout_ms=max(180_000, start_ms))
        root = page.locator('[data-rlviz="explorer"]').first
        count = root.locator('[data-rlviz="live-count"]')
        expect(count).to_have_attribute("data-count", re.compile(r"^[1-9]\d*$"), timeout=start_ms)
        yield page, root, count
        assert errors == [], f"the page raised: {errors}"


def test_a_watched_local_pipeline_grows_while_another_cell_runs_follows_and_stops_from_the_page(notebook, tmp_path):
    """The same person's session on a driver-only pipeline (no Ray to start): growth, graph, follow, stop."""
    artifacts = tmp_path / "artifacts"
    with _watching(notebook, "local.ipynb") as (page, root, count):
        _grows_while_busy(page, count, artifacts / "local-1-growing.png", root)
        graph_text = root.locator('[data-rlviz="graph"]').evaluate("pane => pane.textContent")
        assert "numbers.for_each()" in graph_text and "earlier" not in graph_text, graph_text
        follow = root.locator('[data-rlviz="follow-box"]')
        expect(follow).to_be_checked()
        lanes = root.locator('[data-rlviz="lanes"]')
        box = lanes.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 10)
        page.mouse.wheel(0, -240)                               # a zoom by hand stops following
        expect(follow).not_to_be_checked()
        root.locator('[data-rlviz="stop"]').click()
        expect(root.locator('[data-rlviz="live-state"]')).to_have_text("stopped", timeout=120_000)
        _check_after(page, 2)
        _kept_through_the_pictures_rerender(page)
        root.screenshot(path=str(artifacts / "local-2-stopped.png"))


def _kept_through_the_pictures_rerender(page):
    """join() puts the run's picture into the output, and JupyterLab renders it again: the same Explorer moves over.

    Its zoom by hand stays (it still does not follow), and the kernel did not send the run's start a second time.
    """
    expect(page.locator('[data-rlviz="shown"]')).to_have_attribute("data-rlviz-renders", "2", timeout=30_000)
    expect(page.locator('[data-rlviz="explorer"]')).to_have_count(1)
    expect(page.locator('[data-rlviz="follow-box"]')).not_to_be_checked()
    starts = page.evaluate("() => performance.getEntriesByName('rlviz:mount').length")
    assert starts == 1, f"the page was sent the run's start {starts} times"


def test_the_kernels_interrupt_button_stops_a_watch_and_the_page_says_so(notebook, tmp_path):
    """With the kernel idle (the watch runs in its thread), the toolbar's interrupt stops the run, shown in the view."""
    artifacts = tmp_path / "artifacts"
    with _watching(notebook, "interrupt.ipynb") as (page, root, _count):
        expect(root.locator('[data-rlviz="live-state"]')).to_have_text("running")
        page.locator('.jp-NotebookPanel-toolbar [data-command="notebook:interrupt-kernel"]').first.click()
        expect(root.locator('[data-rlviz="live-state"]')).to_have_text("stopped by an error", timeout=60_000)
        expect(root.locator('[data-rlviz="error"]')).to_contain_text("KeyboardInterrupt: the kernel was interrupted")
        root.screenshot(path=str(artifacts / "interrupted.png"))
        running, thread_alive, _iterations, loaded, error = _state_after(page, 1)
        assert (running, thread_alive, error) == ("False", "False", "KeyboardInterrupt") and int(loaded) > 0


def _grows_while_busy(page, count, shot, root):
    """Run cell 1 (time.sleep(8)); while the kernel thread is busy, the page's count must grow."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    expect(cell.locator(".jp-InputPrompt")).to_have_text("[*]:", timeout=30_000)
    seen = [int(count.get_attribute("data-count"))]
    for _ in range(12):                                     # at most ~6 s, while the cell still runs
        page.wait_for_timeout(500)
        seen.append(int(count.get_attribute("data-count")))
        if seen[-1] > seen[0]:
            break
    busy = cell.locator(".jp-InputPrompt").text_content() == "[*]:"
    assert seen[-1] > seen[0] and busy, f"the count did not grow while another cell ran: {seen} (busy={busy})"
    shot.parent.mkdir(parents=True, exist_ok=True)
    root.screenshot(path=str(shot))
    expect(cell.locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[\d+\]"), timeout=60_000)


def _state_after(page, index):
    """Run cell ``index`` (it prints "state ..."); its fields: running, thread alive, iterations, events loaded, error."""
    cell = run_cell(page, index, timeout_ms=240_000)
    line = cell.locator(".jp-OutputArea-output", has_text=re.compile(r"state \w+"))
    try:                                    # the cell has ended; its output can be drawn a moment later
        expect(line).to_have_count(1, timeout=30_000)
    except AssertionError:
        raise AssertionError(f"the cell printed {cell.locator('.jp-OutputArea').inner_text()!r}") from None
    found = re.search(r"state (\w+) (\w+) (\d+) (\d+) (\S+)", line.inner_text())
    assert found, f"the cell printed {line.inner_text()!r}"
    return found.groups()


def _check_after(page, index):
    """Run the last cell: the run stopped, its thread is gone, it made steps, its trace saves and loads."""
    running, thread_alive, iterations, loaded, error = _state_after(page, index)
    assert (running, thread_alive, error) == ("False", "False", "None")
    assert int(iterations) >= 1 and int(loaded) > 0, (iterations, loaded)


def test_a_watched_dqn_run_grows_in_the_page_while_another_cell_runs_and_stops_from_the_page(notebook, tmp_path):
    artifacts = tmp_path / "artifacts"
    print(f"screenshots in {artifacts}")
    with _watching(notebook, "watch.ipynb", height=1300, start_ms=240_000) as (page, root, count):
        _grows_while_busy(page, count, artifacts / "1-growing.png", root)

        curve = root.locator('[data-rlviz="return-curve"]')
        expect(curve).to_have_attribute("data-points", re.compile(r"^[1-9]\d*$"), timeout=180_000)
        assert int(root.locator('[data-rlviz="lanes"]').evaluate("c => c.height")) > 0
        root.screenshot(path=str(artifacts / "2-curve.png"))

        root.locator('[data-rlviz="stop"]').click()
        expect(root.locator('[data-rlviz="live-state"]')).to_have_text("stopped", timeout=180_000)
        _check_after(page, 2)
        root.screenshot(path=str(artifacts / "3-stopped.png"))
