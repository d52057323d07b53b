"""A notebook's life cycle in one kernel: run, ray.shutdown(), record again, run again from the top."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

NOTEBOOK_LIKE = textwrap.dedent("""
    import ray
    import rlviz
    from rlviz.iter import from_range
    from rlviz.widgets import RoundRobinPlayground

    def notebook():
        rlviz.init(num_cpus=2)
        it = from_range(8, num_shards=2).gather_sync()
        with rlviz.record() as trace:
            out = it.take(8)
        assert sorted(out) == list(range(8)), out
        pg = RoundRobinPlayground(weights=[2, 1], items=6)
        pg.weight_boxes[1].value = "2"
        assert pg.error is None, pg.error
        return it, sorted({e.where for e in trace.events}), pg     # notebook variables keep them alive

    it, first_lanes, pg = notebook()
    ray.shutdown()                                         # the notebook's last cell
    with rlviz.record() as trace:                          # the old shards' handles are still referenced
        pass
    assert not ray.is_initialized(), "record() started a new Ray by itself"
    assert len(trace) == 0
    pg.weight_boxes[0].value = "3"                         # the playground runs local ops: it still works
    assert pg.error is None and pg.pattern.startswith("S S S T T"), (pg.error, pg.pattern)
    it2, second_lanes, pg2 = notebook()                    # run all cells again, same kernel
    assert second_lanes == first_lanes == ["driver", "shard-0", "shard-1"], (first_lanes, second_lanes)
    ray.shutdown()
    print("LIFECYCLE OK")
""")


@pytest.mark.slow
def test_a_notebook_sequence_runs_twice_in_one_process_with_shutdown_between(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run([sys.executable, "-c", NOTEBOOK_LIKE], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=600)
    assert result.returncode == 0 and "LIFECYCLE OK" in result.stdout, result.stderr[-3000:]


@pytest.mark.notebook
def test_one_notebook_runs_twice_in_one_kernel():
    import nbformat
    from nbclient import NotebookClient

    path = Path(__file__).parent.parent / "notebooks" / "02_concurrently_round_robin.ipynb"
    notebook = nbformat.read(path, as_version=4)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONBREAKPOINT"}
    env["MPLBACKEND"] = "Agg"
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    with client.setup_kernel(env=env):
        for _ in range(2):                           # "Run All" twice without restarting the kernel
            for index, cell in enumerate(notebook.cells):
                if cell.cell_type == "code":
                    client.execute_cell(cell, index)      # raises CellExecutionError on a failing cell
            errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
                      if o.output_type == "error"]
            assert not errors
