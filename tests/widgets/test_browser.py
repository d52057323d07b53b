"""A real JupyterLab in headless chromium: run a notebook that shows a TraceStepper, click "next".

Loopback only: the server listens on 127.0.0.1 with an empty token, in a
temporary root; the fixture stops the browser, the server and its kernel.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from rlviz.trace import Trace

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
CELL = """from rlviz.trace import Trace
from rlviz.widgets import TraceStepper
TraceStepper(Trace.load("trace.json"))"""


def _records():
    """shard-0 produces a value that the driver's gather_sync then takes."""
    return [
        {"op": "from_items", "label": "from_items[0]", "op_id": "src", "where": "shard-0", "pid": 7,
         "start_ns": 0, "end_ns": 1_000, "outcome": "item", "item": "int 5", "item_id": 1, "inputs": []},
        {"op": "gather_sync", "label": "it.gather_sync()", "op_id": "g", "where": "driver", "pid": 7,
         "start_ns": 500, "end_ns": 2_000, "outcome": "item", "item": "int 5", "item_id": 2, "inputs": [1]},
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 serving ``tmp_path/root``; yields its URL."""
    root = tmp_path / "root"
    root.mkdir()
    Trace.from_records(_records()).save(str(root / "trace.json"))
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "id": "stepper", "metadata": {},
                           "outputs": [], "source": CELL}],
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    (root / "stepper.ipynb").write_text(json.dumps(notebook))
    settings = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')   # no news pop-up
    port = _free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"},
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"), "MPLBACKEND": "Agg"}
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
         f"--ServerApp.root_dir={root}", "--allow-root",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly"],                      # no package index look-ups
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{url}/api/status", server, tmp_path / "lab.log")
        yield url
    finally:
        server.send_signal(signal.SIGTERM)          # the server shuts its kernels down on the way out
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)   # the group this fixture started, nothing else
            server.wait(timeout=10)
        log.close()


@pytest.fixture
def page(lab):
    from playwright.sync_api import sync_playwright

    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: this test drives Debian's chromium (`apt-get install chromium`, "
                    f"which `make test` does); never `playwright install`")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1100})
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()


def test_next_button_shows_the_next_event(lab, page, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{lab}/lab/tree/stepper.ipynb")
    expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first).to_be_attached(
        timeout=180_000)                                               # the kernel is up (~5 s when quiet)
    cell = page.locator(".jp-Notebook .jp-Cell").first
    for _ in range(3):      # a Shift+Enter sent while the kernel connection is still settling is dropped
        cell.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        try:
            expect(cell.locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[(\*|\d+)\]"), timeout=20_000)
            break
        except AssertionError:
            continue
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


def _wait_for(url: str, server: subprocess.Popen, log_path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {server.returncode}:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"jupyter lab did not answer {url} within {timeout:.0f} s:\n{log_path.read_text()[-3000:]}")
