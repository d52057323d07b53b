"""Each teaching notebook is stored exactly as JupyterLab saves it, so opening one never marks it modified.

A learner who opens a notebook and sees it "modified" before touching it
wonders what changed.  The test opens every notebook in a real JupyterLab
(its kernel started, as a reader's would), saves it with Ctrl+S and checks
the file on disk did not change.  Copies are opened, never the originals.
"""
import json
import shutil
import time
from pathlib import Path

import pytest
from browser_harness import chromium, jupyter_lab, wait_for_kernel

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


#: Notebooks open side by side, each in its own browser context: their kernels start at the same time.
AT_ONCE = 4


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 over copies of the notebooks."""
    root = tmp_path_factory.mktemp("root")
    for notebook in NOTEBOOKS:
        shutil.copy(notebook, root / notebook.name)
    with jupyter_lab(root, tmp_path_factory.mktemp("lab")) as url:
        yield url, root


@pytest.fixture(scope="module")
def saved(lab) -> dict:
    """Every copy opened in JupyterLab and saved with Ctrl+S: name -> None, or the error that stopped it.

    A browser context per notebook keeps their workspaces apart, as separate
    readers' would be; ``AT_ONCE`` of them are open at a time.
    """
    url, root = lab
    untouched = {notebook.name: (root / notebook.name).stat().st_mtime_ns for notebook in NOTEBOOKS}
    outcome = {}
    with chromium() as browser:
        for first in range(0, len(NOTEBOOKS), AT_ONCE):
            batch = NOTEBOOKS[first:first + AT_ONCE]
            pages = [_page(browser, url, notebook) for notebook in batch]
            for notebook, page in zip(batch, pages):
                outcome[notebook.name] = _save(page, root / notebook.name, untouched[notebook.name])
            for page in pages:
                page.context.close()
    return outcome


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name[:2])
def test_opening_and_saving_a_notebook_changes_nothing(saved, lab, notebook):
    if saved[notebook.name] is not None:
        raise saved[notebook.name]
    saved_text, original = (lab[1] / notebook.name).read_text(), notebook.read_text()
    assert json.loads(saved_text) == json.loads(original), (
        f"{notebook.name} changed when JupyterLab saved it: store it as JupyterLab saves it "
        f"(open it, save, commit); differing top-level keys: "
        f"{_differing(json.loads(saved_text), json.loads(original))}")
    assert saved_text == original, f"{notebook.name}: same content, different formatting than JupyterLab writes"


def _page(browser, url: str, notebook: Path):
    """A new context's page that starts opening ``notebook`` (reset: no tabs restored from another test)."""
    page = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{url}/lab/tree/{notebook.name}?reset")
    return page


def _save(page, copy: Path, before_ns: int) -> Exception | None:
    """Wait for the notebook's kernel, press Ctrl+S and wait for the file to be rewritten; the error, if any."""
    try:
        wait_for_kernel(page)
        page.locator(".jp-Notebook:visible").first.click()
        page.keyboard.press("Control+s")
        _wait_until_rewritten(copy, before_ns)
    except Exception as error:          # handed to that notebook's test; the other notebooks still get saved
        return error
    return None


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
