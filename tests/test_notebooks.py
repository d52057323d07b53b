"""The teaching notebooks: stored without outputs, and each runs top to bottom in its own kernel.

Each notebook runs in its own kernel with its own Ray, as a reader's would; the runs
start in the background when collection ends, beside the other tests
(``tests/notebook_runs.py``), and the test here checks each run's outputs.

Each executed copy is written to ``build/notebooks/``, where the docs build (``make docs``) renders
it with its outputs: the notebooks run once per CI run, here.
"""
import json
import re
from pathlib import Path

import nbformat
import pytest

from notebook_runs import EXECUTED, RUNS

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
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


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_errors(path):
    notebook, took = RUNS.result(path)   # raises CellExecutionError from the first failing cell
    print(f"{path.name}: {took:.1f} s")
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            _check_outputs(path.name, index, cell)
    nbformat.write(notebook, EXECUTED / path.name)


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
