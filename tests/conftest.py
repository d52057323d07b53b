"""Shared fixtures: one local Ray for the whole session (num_cpus=8 so several actors fit on 2 cores).

Processes the tests start (Ray's workers, notebook kernels) get
``tests/worker_path`` first on their ``PYTHONPATH``: it hides
``rfc3987_syntax``, whose import is 3/4 of a Ray worker's start-up CPU, and
two more of jsonschema's optional format checkers (see that folder's modules).  Set before any Ray starts, so every worker inherits it.
"""
import os
from pathlib import Path

import pytest

#: Put first on the PYTHONPATH of every process the tests start.
WORKER_PATH = str(Path(__file__).parent / "worker_path")
os.environ["PYTHONPATH"] = os.pathsep.join(
    [WORKER_PATH, *(entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                    if entry and entry != WORKER_PATH)])


@pytest.fixture(scope="session")
def ray_local():
    """A local Ray instance, started once and stopped at the end of the session."""
    import ray

    import rlviz

    rlviz.init(num_cpus=8)
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def shared_lab(tmp_path_factory):
    """One JupyterLab server for every browser test that opens notebooks (``browser_harness.SharedLab``).

    Started on first use, stopped at the end of the session.  Cross-site
    request checks are off: the server listens on 127.0.0.1 only, and the
    tests shut its kernels down through its REST API between tests.
    """
    from browser_harness import SharedLab, jupyter_lab

    scratch = tmp_path_factory.mktemp("shared-lab")
    root = scratch / "root"
    root.mkdir()
    with jupyter_lab(root, scratch, ["--ServerApp.disable_check_xsrf=True"]) as url:
        yield SharedLab(url, root)


#: The long trace of the browser tests and the page benchmark: 10M events on 64 lanes over 3 hours.
LONG_TRACE = (10_000_000, 64, 3 * 3600.0)


@pytest.fixture(scope="session")
def long_trace():
    """``benchmarks.synthetic.pipeline_trace(*LONG_TRACE)``, built once per session (about 0.7 GB)."""
    from benchmarks.synthetic import pipeline_trace

    return pipeline_trace(*LONG_TRACE)


@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler for the test, so ``_thread.interrupt_main()`` raises KeyboardInterrupt.

    A process started as a background job of a non-interactive shell inherits
    SIGINT ignored; then Python installs no handler and ``interrupt_main`` does
    nothing, and a test of Ctrl-C would wait for a loop that never ends.
    """
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


_FILE_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    """Add each phase's time to its test file's total (shown at the end of the session)."""
    path = report.nodeid.partition("::")[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    """The slowest test files, next to ``--durations``: some files have a time budget (Ray's parity file: 2 min)."""
    slowest = sorted(_FILE_SECONDS.items(), key=lambda kv: kv[1], reverse=True)[:15]
    if slowest:
        terminalreporter.write_sep("=", "slowest test files")
        for path, seconds in slowest:
            terminalreporter.write_line(f"{seconds:8.1f}s {path}")

