"""The teaching notebooks: stored without outputs, and each runs top to bottom in its own kernel.

Each executed copy is written to ``build/notebooks/``, where the docs build (``make docs``) renders
it with its outputs: the notebooks run once per CI run, here.
"""
import json
import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXECUTED = ROOT / "build" / "notebooks"


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


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_errors(path):
    import nbformat
    from nbclient import NotebookClient

    (EXECUTED / path.name).unlink(missing_ok=True)   # a failed run leaves no stale copy for the docs
    notebook = nbformat.read(path, as_version=4)
    # the kernel starts its own Ray: drop what this session's in-process Ray put into the environment
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"}
    env.pop("MPLBACKEND", None)                 # the kernel draws inline, so the executed copies keep the figures
    env["RLVIZ_EMBED_EXPLORER"] = "1"           # each Explorer output also carries its kernel-free page, for the site
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    started = time.perf_counter()
    client.execute(env=env)                     # raises CellExecutionError on the first failing cell
    took = time.perf_counter() - started
    print(f"{path.name}: {took:.1f} s")
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, EXECUTED / path.name)
