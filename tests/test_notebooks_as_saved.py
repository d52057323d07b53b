"""Each teaching notebook is stored exactly as JupyterLab saves it, so opening one never marks it modified.

A learner who opens a notebook and sees it "modified" before touching it
wonders what changed.  The test opens every notebook in a real JupyterLab
(its kernel started, as a reader's would), saves it with Ctrl+S and checks
the file on disk did not change.  Copies are opened, never the originals.

One JupyterLab page serves all the notebooks: each is opened from the file
browser (a double click, as a reader would), saved, and its tab closed.
Loading JupyterLab anew for each one took two thirds of the file's time.
"""
import json
import shutil
import time
from pathlib import Path

import pytest
from browser_harness import chromium_page, jupyter_lab

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 over copies of the notebooks, shown in one page at its file browser."""
    root = tmp_path_factory.mktemp("root")
    for notebook in NOTEBOOKS:
        shutil.copy(notebook, root / notebook.name)
    with jupyter_lab(root, tmp_path_factory.mktemp("lab")) as url, chromium_page(1300, 900) as page:
        page.goto(f"{url}/lab?reset")                        # reset: no tabs restored from an earlier session
        page.wait_for_selector(".jp-DirListing-item", timeout=180_000)
        yield page, root


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name[:2])
def test_opening_and_saving_a_notebook_changes_nothing(lab, notebook):
    page, root = lab
    copy = root / notebook.name
    before = copy.stat().st_mtime_ns
    _open_from_the_file_browser(page, notebook.name)
    try:
        page.locator(".jp-Notebook:visible").first.click()
        page.keyboard.press("Control+s")
        _wait_until_rewritten(copy, before)
    finally:
        _close_tab(page, notebook.name)
    saved, original = copy.read_text(), notebook.read_text()
    assert json.loads(saved) == json.loads(original), (
        f"{notebook.name} changed when JupyterLab saved it: store it as JupyterLab saves it "
        f"(open it, save, commit); differing top-level keys: "
        f"{_differing(json.loads(saved), json.loads(original))}")
    assert saved == original, f"{notebook.name}: same content, different formatting than JupyterLab writes"


def _open_from_the_file_browser(page, name: str) -> None:
    """Double-click ``name`` in the file browser; wait until its tab is the current one and its kernel is idle.

    The kernel must be up before saving: it gives the notebook's ``language_info``. The status bar reads
    "idle" before any kernel is there ("No Kernel"), so this waits for a named kernel.
    """
    page.locator(f'.jp-DirListing-item[title^="Name: {name}"]').dblclick()
    page.wait_for_function("""(name) => {
        const tab = document.querySelector("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel");
        const status = document.querySelector(".jp-Notebook-ExecutionIndicator");
        const kernel = document.querySelector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-kernelName");
        const named = kernel ? kernel.textContent.trim() : "";
        return tab?.textContent === name && status?.dataset.status === "idle" && named !== "" && named !== "No Kernel";
    }""", arg=name, timeout=180_000)


def _close_tab(page, name: str) -> None:
    """Close the current tab (Alt+W) and wait until no tab of ``name`` is left."""
    page.keyboard.press("Alt+w")
    page.wait_for_function("""(name) => ![...document.querySelectorAll("#jp-main-dock-panel .lm-TabBar-tabLabel")]
        .some((label) => label.textContent === name)""", arg=name)


def _wait_until_rewritten(path: Path, mtime_ns: int, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while path.stat().st_mtime_ns == mtime_ns:
        if time.monotonic() > deadline:
            raise AssertionError(f"JupyterLab did not save {path.name} within {timeout_s:.0f} s of Ctrl+S")
        time.sleep(0.2)


def _differing(saved: dict, original: dict) -> list[str]:
    keys = sorted(set(saved) | set(original))
    differing = [key for key in keys if saved.get(key) != original.get(key)]
    cells = [i for i, (a, b) in enumerate(zip(saved.get("cells", []), original.get("cells", []))) if a != b]
    return differing + ([f"cells {cells[:5]}"] if cells else [])
