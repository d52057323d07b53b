"""Shared parts of the browser tests: a loopback JupyterLab, Debian's headless chromium, notebook cells.

Imported by name (pytest puts ``tests/`` on sys.path for its conftest).  Every
context manager here stops what it started: the server (and its kernels), the
browser.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "jupyter_lab", "SharedLab", "chromium", "chromium_page", "write_notebook", "open_notebook",
           "run_cell", "kernel_env"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def kernel_env(scratch: Path) -> dict[str, str]:
    """This process's environment without its ``RAY_*`` settings, with Jupyter's state under ``scratch``.

    The kernel then starts its own Ray (if it needs one) instead of joining
    the session's, and reads no user configuration.
    """
    return {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"},
            "JUPYTER_CONFIG_DIR": str(scratch / "config"),
            "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(scratch / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(scratch / "workspaces"), "MPLBACKEND": "Agg"}


@contextlib.contextmanager
def jupyter_lab(root: Path, scratch: Path, extra_args: Sequence[str] = ()) -> Iterator[str]:
    """A JupyterLab server on 127.0.0.1 with an empty token serving ``root``; yields its URL.

    ``scratch`` holds the server's settings, runtime files and ``lab.log``;
    ``extra_args`` go to ``jupyter lab`` after the harness's own options.
    On exit the server gets SIGTERM (it shuts its kernels down), then SIGKILL
    for its process group if it is still there after 30 s.
    """
    settings = scratch / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')   # no news pop-up
    port = _free_port()
    log_path = scratch / "lab.log"
    log = open(log_path, "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
         f"--ServerApp.root_dir={root}", "--allow-root",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly", *extra_args],         # no package index look-ups
        cwd=root, env=kernel_env(scratch), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{url}/api/status", server, log_path)
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)   # the group this helper started, nothing else
            server.wait(timeout=10)
        log.close()


@dataclass(frozen=True)
class SharedLab:
    """One JupyterLab server (``jupyter_lab``) for the whole session, serving ``root``, at ``url``.

    A JupyterLab start costs about 10 s of CPU; the browser test files share
    this one (the ``shared_lab`` fixture) instead of starting their own.  Each
    test gets a folder of its own (``folder``), and leaves no kernel running.
    """
    url: str
    root: Path

    @contextlib.contextmanager
    def folder(self) -> Iterator[Path]:
        """A new, empty folder under ``root`` for one test's notebooks and files; yields its path.

        Open a notebook in it as ``f"{folder.name}/name.ipynb"``.  On exit every
        kernel of the server is shut down, as stopping a server of its own did.
        """
        folder = self.root / f"t{next(_FOLDER_NUMBERS)}"
        folder.mkdir()
        try:
            yield folder
        finally:
            self.shut_kernels_down()

    @contextlib.contextmanager
    def folder_of_notebooks(self, notebooks: dict[str, Sequence[str]]) -> Iterator[Path]:
        """A ``folder`` holding new notebooks ``{file name: code cells}``; yields its path."""
        with self.folder() as folder:
            for name, cells in notebooks.items():
                write_notebook(folder / name, cells)
            yield folder

    def shut_kernels_down(self) -> None:
        """Shut down every session and kernel of the server (its REST API; the server checks no XSRF)."""
        for kind in ("sessions", "kernels"):
            with urllib.request.urlopen(f"{self.url}/api/{kind}", timeout=30) as response:
                running = json.load(response)
            for item in running:
                request = urllib.request.Request(f"{self.url}/api/{kind}/{item['id']}", method="DELETE")
                with contextlib.suppress(urllib.error.HTTPError):      # gone with its session already
                    urllib.request.urlopen(request, timeout=60).close()


_FOLDER_NUMBERS = itertools.count()


@contextlib.contextmanager
def chromium(extra_args: Sequence[str] = ()) -> Iterator:
    """Debian's headless chromium driven by playwright; yields the ``Browser`` and closes it on exit.

    Fails (never skips) when ``/usr/bin/chromium`` is missing: ``make test``
    installs it with apt-get; ``playwright install`` is never used.
    """
    from playwright.sync_api import sync_playwright

    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: the browser tests drive Debian's chromium (`apt-get install "
                    f"chromium`, which `make test` does); never `playwright install`")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args], headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def chromium_page(width: int, height: int) -> Iterator:
    """A page of a fresh headless chromium (``chromium()``), ``width`` x ``height``, 60 s default timeout."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.set_default_timeout(60_000)
        yield page


def write_notebook(path: Path, cells: Sequence[str]) -> None:
    """Write a notebook of code ``cells`` (not run) for the python3 kernel."""
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"cell{k}", "metadata": {},
                           "outputs": [], "source": source} for k, source in enumerate(cells)],
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                            "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook))


def open_and_run_first_cell(page, url: str, name: str, timeout_ms: float = 180_000) -> list[str]:
    """Open notebook ``name``, run its first cell, and return the list the page's uncaught errors are added to."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_notebook(page, url, name)
    run_cell(page, 0, timeout_ms=timeout_ms)
    return errors


def open_notebook(page, url: str, name: str) -> None:
    """Open notebook ``name`` in JupyterLab at ``url`` and wait until its kernel is idle.

    The notebook's execution indicator reads "idle" once before any kernel
    is there ("No Kernel"), then "initializing", "connecting", ... and "idle"
    again: a Shift+Enter in between is dropped (``run_cell`` would wait 15 s
    to send it again), so this waits for the idle of a named kernel.
    """
    page.goto(f"{url}/lab/tree/{name}?reset")         # no tabs restored from a test before (a shared server)
    page.wait_for_function("""() => {
        const status = document.querySelector(".jp-Notebook-ExecutionIndicator");
        const kernel = document.querySelector(".jp-Toolbar-kernelName, .jp-KernelName");
        const named = kernel ? kernel.textContent.trim() : "";
        return status?.dataset.status === "idle" && named !== "" && named !== "No Kernel";
    }""", timeout=180_000)                                             # the kernel is up (~5 s when quiet)


def run_cell(page, index: int, timeout_ms: float = 180_000, attempts: int = 8):
    """Run code cell ``index`` (click into it, Shift+Enter) and wait until it has finished; returns the cell.

    A Shift+Enter sent while the kernel connection is still settling is
    dropped, so it is re-sent (up to ``attempts`` times, 15 s apart) until the
    prompt shows the cell was taken.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    prompt = cell.locator(".jp-InputPrompt")
    before = prompt.text_content()            # inner_text() reads "" before the prompt is laid out
    for _ in range(attempts):
        _clear_dialog(page)
        try:
            cell.locator(".cm-content").click(timeout=30_000)
        except PlaywrightTimeout:
            continue                          # something covered the cell: the next round names or clears it
        page.keyboard.press("Shift+Enter")
        try:
            expect(prompt).not_to_have_text(before, timeout=15_000)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError(f"cell {index} did not start after {attempts} Shift+Enter presses "
                             f"(prompt still {before!r})")
    expect(prompt).to_have_text(re.compile(r"\[\d+\]"), timeout=timeout_ms)
    return cell


# -- helpers ------------------------------------------------------------------
def _clear_dialog(page) -> None:
    """Accept JupyterLab's kernel picker if it is up (it can open late on a loaded machine); any other
    modal dialog over the notebook fails the test with its text, instead of a click timing out silently."""
    dialog = page.locator(".jp-Dialog")
    if not dialog.count() or not dialog.first.is_visible():
        return
    text = dialog.first.inner_text()
    if "Select Kernel" in text or "Select kernel" in text:
        dialog.first.locator(".jp-mod-accept").first.click()
        dialog.first.wait_for(state="detached", timeout=30_000)
        return
    raise AssertionError(f"a JupyterLab dialog covers the notebook: {text!r}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, server: subprocess.Popen, log_path: Path, timeout: float = 120.0) -> None:
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
