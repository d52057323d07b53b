"""The teaching notebooks' runs, started in the background as soon as pytest knows it will check them.

A notebook kernel spends much of its time waiting (its own Ray starting, actors
starting, remote calls coming back), and so does the rest of the suite: run one
after the other, a quarter of the machine's two cores sat idle.  So
``tests/conftest.py`` starts the selected notebooks here when collection ends,
one kernel at a time beside the other tests, and ``tests/test_notebooks.py``
only waits for each run's result and checks it.
"""
import asyncio
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import nbformat

ROOT = Path(__file__).parent.parent
EXECUTED = ROOT / "build" / "notebooks"
#: Kernels run side by side, beside the rest of the suite.
NOTEBOOKS_AT_ONCE = 1


class NotebookRuns:
    """Each selected notebook's run: a future of (executed notebook, seconds), run ``NOTEBOOKS_AT_ONCE`` at a time."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._futures: dict[Path, Future] = {}

    def start(self, paths: list[Path]) -> None:
        """Start running ``paths`` in the background (their stale executed copies removed first)."""
        EXECUTED.mkdir(parents=True, exist_ok=True)
        for path in paths:
            (EXECUTED / path.name).unlink(missing_ok=True)   # a failed run leaves no stale copy for the docs
        self._pool = ThreadPoolExecutor(max_workers=NOTEBOOKS_AT_ONCE, thread_name_prefix="notebook")
        self._futures = {path: self._pool.submit(execute, path) for path in paths}

    def result(self, path: Path) -> tuple:
        """``path``'s executed notebook and seconds, waiting for its run; raises the first failing cell's error."""
        if path not in self._futures:
            raise LookupError(f"{path.name} was not started: run it through pytest's collection (tests/conftest.py)")
        return self._futures[path].result()

    def stop(self) -> None:
        """Drop the runs not yet started (an interrupted session waits only for the one running)."""
        for future in self._futures.values():
            future.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def execute(path: Path) -> tuple:
    """Run ``path`` top to bottom in a new python3 kernel, on this thread's own event loop; (notebook, seconds)."""
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    # the kernel starts its own Ray: drop what this session's in-process Ray put into the environment
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"}
    env.pop("MPLBACKEND", None)                 # the kernel draws inline, so the executed copies keep the figures
    env["RLVIZ_EMBED_EXPLORER"] = "1"           # each Explorer output also carries its kernel-free page, for the site
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    started = time.perf_counter()
    asyncio.run(client.async_execute(env=env))
    return notebook, time.perf_counter() - started


#: The session's runs (started by ``tests/conftest.py``'s ``pytest_collection_finish``).
RUNS = NotebookRuns()
