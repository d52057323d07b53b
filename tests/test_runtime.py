"""rlviz.init() refuses settings a running Ray can no longer take, instead of ignoring them (own process: it starts Ray)."""
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import ray, rlviz
    from rlviz.iter import from_range

    it = from_range(4, num_shards=1)                  # builds shard actors: starts a default Ray implicitly
    cpus = ray.cluster_resources()["CPU"]
    try:
        rlviz.init(num_cpus=int(cpus) + 3)
    except ValueError as err:
        print("IMPLICIT:", err)
    rlviz.init()                                      # asks for nothing new: fine
    rlviz.init(num_cpus=int(cpus))                    # what it already runs with: fine
    ray.shutdown()
    rlviz.init(num_cpus=1)
    rlviz.init(num_cpus=1)                            # a notebook's first cell run again
    try:
        rlviz.init(num_cpus=2, object_store_memory=80_000_000)
    except ValueError as err:
        print("EXPLICIT:", err)
    from rlviz.rollout import RandomPolicy, WorkerSet
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                        config={"rollout_fragment_length": 5}, num_workers=1)
    ray.shutdown()                                    # a notebook's last cell; the WorkerSet is still referenced
    try:
        workers.foreach_worker(lambda w: w.sample())
    except RuntimeError as err:
        print("SHUTDOWN:", err)
    rlviz.init(num_cpus=1)
    try:
        workers.sync_weights()
    except RuntimeError as err:
        print("RESTARTED:", err)
    workers.stop()                                    # still fine: nothing left to end
    gathering = from_range(6, num_shards=2).gather_sync()
    next(gathering)                                   # its shards are serving
    unstarted = from_range(6, num_shards=2)
    ray.shutdown()
    rlviz.init(num_cpus=1)
    for name, pull in [("GATHERING", lambda: list(gathering)),      # its next round needs the gone actors
                       ("UNSTARTED", lambda: next(iter(unstarted.gather_async())))]:
        try:
            pull()
        except RuntimeError as err:
            print(name + ":", err)
    ray.shutdown()
""")


@pytest.mark.slow
def test_init_names_settings_that_can_no_longer_take_effect():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stderr[-3000:]
    implicit = next(line for line in done.stdout.splitlines() if line.startswith("IMPLICIT:"))
    assert "num_cpus=" in implicit and "implicitly" in implicit and "ray.shutdown() first" in implicit
    explicit = next(line for line in done.stdout.splitlines() if line.startswith("EXPLICIT:"))
    assert "started by rlviz.init(num_cpus=1)" in explicit
    assert "num_cpus=2, object_store_memory=80000000" in explicit and "ray.shutdown() first" in explicit
    shut = next(line for line in done.stdout.splitlines() if line.startswith("SHUTDOWN:"))
    assert shut == ("SHUTDOWN: WorkerSet(local + 1 remote RolloutWorkers) was built on a Ray that has shut down "
                    "(Ray is not running now), so its actors are gone; hint: build it again after rlviz.init() "
                    "(re-run the cell that creates it)")
    restarted = next(line for line in done.stdout.splitlines() if line.startswith("RESTARTED:"))
    assert "a new Ray has started since" in restarted
    for name in ("GATHERING", "UNSTARTED"):             # iterators built before the shutdown say so too
        said = next(line for line in done.stdout.splitlines() if line.startswith(name + ":"))
        assert "The ParallelIterator over lanes shard-" in said and "a new Ray has started since" in said
        assert "build it again" in said
