"""The teaching notebooks: stored without outputs, and each runs top to bottom in its own kernel.

Two notebooks run at a time, each in its own kernel with its own Ray.

Each executed copy is written to ``build/notebooks/``, where the docs build (``make docs``) renders
it with its outputs: the notebooks run once per CI run, here.
"""
import asyncio
import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import nbformat
import pytest
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXECUTED = ROOT / "build" / "notebooks"
#: Kernels run side by side (see ``executions``).
NOTEBOOKS_AT_ONCE = 2
#: A cell that shows a mistake on purpose carries Jupyter's standard tag and must really raise.
RAISES = "raises-exception"
_DRAWS = re.compile(r"\b(plot_\w+|plt\.subplots|show_at_natural_size)\(")
_WIDGET = re.compile(r"^(\w+)\s*=\s*(?:rlviz\.)?(?:widgets\.)?(TraceStepper|RoundRobinPlayground|TraceView|watch)\(")


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs_and_stop_the_ray_they_start(path):
    cells = json.loads(path.read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert all(not c["outputs"] and c["execution_count"] is None for c in code), \
        f"{path.name} has outputs; clear them before committing (Kernel > Restart and Clear Outputs)"
    sources = ["".join(c["source"]) for c in code]
    if any("rlviz.init(" in s for s in sources):    # a notebook that starts Ray shares the cores and stops it
        assert any("rlviz.init(num_cpus=8)" in s for s in sources)
        assert sources[-1].strip().endswith("ray.shutdown()"), f"{path.name} must end by shutting Ray down"


@pytest.fixture(scope="module")
def executions(request) -> Iterator[dict]:
    """The selected notebooks' runs, two at a time: notebook path -> future of (executed notebook, seconds).

    Each notebook runs in its own kernel with its own Ray, as a reader's would.
    A kernel spends much of a notebook waiting (Ray and its actors starting up,
    a remote call coming back), so two kernels side by side keep the machine's
    two cores busier and the notebooks take about half as long in all.
    """
    selected = [item.callspec.params["path"] for item in request.session.items
                if item.originalname == "test_notebook_runs_without_errors"]
    EXECUTED.mkdir(parents=True, exist_ok=True)
    for path in selected:
        (EXECUTED / path.name).unlink(missing_ok=True)   # a failed run leaves no stale copy for the docs
    with ThreadPoolExecutor(max_workers=NOTEBOOKS_AT_ONCE) as pool:
        futures = {path: pool.submit(_execute, path) for path in selected}
        yield futures
        for future in futures.values():
            future.cancel()                                  # an interrupted session waits for no more runs


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_errors(path, executions):
    notebook, took = executions[path].result()   # raises CellExecutionError from the first failing cell
    print(f"{path.name}: {took:.1f} s")
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            _check_outputs(path.name, index, cell)
    nbformat.write(_as_jupyterlab_shows_it(notebook), EXECUTED / path.name)


def _as_jupyterlab_shows_it(notebook):
    """The notebook with each cell's consecutive prints as one output, as JupyterLab shows them.

    The kernel sends stdout on a timer, so one ``print`` can arrive in two pieces, the second a bare
    newline; left apart, the site would show that newline as an output box with nothing in it."""
    merged, _ = CoalesceStreamsPreprocessor().preprocess(notebook, {})
    return merged


def _execute(path: Path) -> tuple:
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_mistake_is_shown_by_letting_it_raise_not_by_catching_it(path):
    """A ``try/except`` that prints the error would pass silently once the error stopped happening."""
    for index, cell in enumerate(json.loads(path.read_text())["cells"]):
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and re.search(r"^\s*except\b", source, re.M):
            pytest.fail(f"{path.name} cell {index} catches an exception to show it; let it raise and tag the cell "
                        f"'{RAISES}' (View > Cell Toolbar > Tags) so the test checks that it still raises")


def _check_outputs(name: str, index: int, cell) -> None:
    """The cell raised if and only if tagged so; a top-level plot call drew a picture; a shown widget is a view."""
    errors = [o for o in cell.outputs if o.output_type == "error"]
    tagged = RAISES in cell.metadata.get("tags", [])
    assert not errors or tagged, f"{name} cell {index} raised {errors[0].ename}: {errors[0].evalue}"
    assert errors or not tagged, f"{name} cell {index} is tagged '{RAISES}' but raised nothing: the mistake it shows is gone"
    data = [key for o in cell.outputs if o.output_type in ("display_data", "execute_result") for key in o.data]
    top_level = [line for line in cell.source.splitlines()
                 if line.strip() and not line[0].isspace() and not line.startswith(("from ", "import ", "def ", "#"))]
    if any(_DRAWS.search(line) for line in top_level):
        assert "image/png" in data, f"{name} cell {index} calls a plot function but drew no picture"
    widgets = {m.group(1) for line in top_level if (m := _WIDGET.match(line))}
    last = top_level[-1].strip() if top_level else ""
    if last in widgets or last.startswith("rlviz.show("):
        assert "application/vnd.jupyter.widget-view+json" in data, f"{name} cell {index} shows no widget"
