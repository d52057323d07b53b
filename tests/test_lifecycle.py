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


@pytest.mark.slow
def test_init_starts_a_local_ray_even_when_a_stale_cluster_address_is_on_disk():
    """A cluster started earlier on this machine leaves its address in ray_current_cluster; ignore it."""
    import shutil
    import tempfile

    ray_tmp = tempfile.mkdtemp(prefix="rl", dir="/tmp")        # short: Ray's socket paths must fit
    try:
        os.makedirs(os.path.join(ray_tmp, "ray"))
        with open(os.path.join(ray_tmp, "ray", "ray_current_cluster"), "w") as stale:
            stale.write("127.0.0.1:1")                          # nothing listens there any more
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env["RAY_TMPDIR"] = ray_tmp
        code = "import ray, rlviz; rlviz.init(num_cpus=1); print('LOCAL', len(ray.nodes())); ray.shutdown()"
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0 and "LOCAL 1" in result.stdout, result.stderr[-3000:]
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


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


STALE_GATHER = textwrap.dedent("""
    import ray, rlviz
    from rlviz.iter import from_range

    rlviz.init(num_cpus=1)
    gathering = from_range(6, num_shards=2).gather_sync()
    print(gathering.take(2))                          # its shards are serving, its next round is pending
    ray.shutdown()                                    # the notebook's last cell; then the take() cell is run again
    try:
        gathering.take(2)
    except RuntimeError as err:
        print("STALE:", err)
    print("RAY AFTER:", ray.is_initialized())
""")


@pytest.mark.slow
def test_pulling_a_gather_after_ray_shutdown_says_so_and_starts_no_ray():
    """Ray's own actor calls start a default Ray for the gone shards; the gather must refuse before them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    result = subprocess.run([sys.executable, "-c", STALE_GATHER], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    stale = next((line for line in lines if line.startswith("STALE:")), None)
    assert stale is not None, result.stdout + result.stderr[-2000:]
    assert "was built on a Ray that has shut down (Ray is not running now)" in stale and "build it again" in stale
    assert "RAY AFTER: False" in lines, result.stdout


SHUTDOWN_WHILE_WATCHED = textwrap.dedent("""
    import time
    import ray, rlviz

    rlviz.init(num_cpus=2)
    trainer = rlviz.Trainer("dqn", env="CartPole-v1", num_workers=1, config={"learning_starts": 50})
    live = rlviz.watch(trainer)
    deadline = time.monotonic() + 120
    while live.iterations < 1 and live.running and time.monotonic() < deadline:
        time.sleep(0.2)
    ray.shutdown()                                    # the notebook's last cell, run while the watch goes on
    live.join(60)
    print("RUNNING:", live.running)
    print("ERROR:", live.error)
    print("KEPT:", len(live.trace) > 0)
""")


@pytest.mark.slow
def test_ray_shutdown_during_a_watch_ends_it_saying_so_and_keeps_its_trace():
    """The run's thread met Ray going away mid-call; its view said only ``SystemExit: 0``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run([sys.executable, "-c", SHUTDOWN_WHILE_WATCHED], capture_output=True, text=True, env=env,
                            timeout=400)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert "RUNNING: False" in lines and "KEPT: True" in lines, result.stdout
    (error,) = [line for line in lines if line.startswith("ERROR:")]
    assert "Ray was shut down while the run went on" in error and "live.stop()" in error, error


STUCK_AFTER_SHUTDOWN = textwrap.dedent("""
    import threading, time
    import ray, rlviz
    from rlviz.iter.local import LocalIterator

    rlviz.init(num_cpus=1)
    release = threading.Event()

    def stuck(timeout):
        yield 0
        release.wait()                                # as a ray.get() on workers gone with their Ray never returns
        yield 1

    def flowing(timeout):
        n = 0
        while True:
            time.sleep(0.01)
            n += 1
            yield n

    live = rlviz.watch(LocalIterator(stuck, name="stuck"))
    other = rlviz.watch(LocalIterator(flowing, name="flowing"))   # needs no Ray: it goes on, and says nothing
    deadline = time.monotonic() + 60
    while live.iterations < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    ray.shutdown()
    while live.error is None and time.monotonic() < deadline:
        time.sleep(0.1)
    print("RUNNING:", live.running)
    print("ERROR:", live.error)
    print("OTHER:", other.running, other.error)
    release.set()
    live.stop()
    other.stop()
""")


@pytest.mark.slow
def test_a_watch_stuck_in_a_call_after_ray_shutdown_says_so_while_it_hangs():
    """A watched DQN's thread stayed in ray.get() for ever after ray.shutdown(); its view said "running"."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run([sys.executable, "-c", STUCK_AFTER_SHUTDOWN], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert "RUNNING: True" in lines, result.stdout
    (error,) = [line for line in lines if line.startswith("ERROR:")]
    assert "Ray was shut down while the run went on" in error and "restart the kernel" in error, error
    assert "OTHER: True None" in lines, result.stdout
