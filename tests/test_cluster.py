"""rlviz on a real two-node Ray cluster started on this machine with Ray's own tools.

Both nodes run on this machine and listen on its own address (Ray resolves 127.0.0.1 to the machine's
address when a driver joins, so a loopback-only cluster cannot be joined); nothing leaves the machine.
"""
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

ON_A_CLUSTER = textwrap.dedent("""
    import ray
    from ray.cluster_utils import Cluster

    import rlviz
    from rlviz.iter import from_range

    from rlviz.iter.actors import COLLECTOR

    def error_ns(lane):
        # each lane's clock offset comes from its quickest ping, so it is off by at most half that round trip
        return COLLECTOR.clock_error_ns(lane)

    # Cluster() writes /tmp/ray/ray_current_cluster, which makes any plain ray.init() on this machine
    # (other test runs included) join this test cluster: keep the address to ourselves
    ray._private.utils.write_ray_address = lambda *args, **kwargs: None


    def start_head():
        # Ray gives a node 30 s to register; on a loaded machine that can fail: retry, cleaning up our own
        import psutil

        for attempt in range(3):
            try:
                return Cluster(initialize_head=True, connect=False,
                               head_node_args={"num_cpus": 2, "include_dashboard": False})
            except Exception:
                for child in psutil.Process().children(recursive=True):     # only what this script started
                    child.kill()
                if attempt == 2:
                    raise

    cluster = start_head()
    try:
        sampler = cluster.add_node(num_cpus=2, resources={"sampler": 4})
        cluster.wait_for_nodes()
        rlviz.init(address=cluster.address)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        head_id, sampler_id = cluster.head_node.node_id, sampler.node_id

        # 1. a recorded DQN iteration, the rollout workers on the second node
        trainer = rlviz.Trainer("dqn", num_workers=2, config={
            "custom_resources_per_worker": {"sampler": 1}, "learning_starts": 32, "train_batch_size": 16,
            "timesteps_per_iteration": 64, "seed": 0})
        with rlviz.record() as trace:
            result = trainer.train()
        lanes = trainer.workers.lanes()
        assert lanes == [f"RolloutWorker-1@{sampler_id[:6]}", f"RolloutWorker-2@{sampler_id[:6]}"], lanes
        wheres = {e.where for e in trace.events}
        assert set(lanes) <= wheres, wheres
        samples = [e for e in trace.events if e.where in lanes and e.op == "sample" and e.outcome == "item"]
        assert len(samples) >= 2
        assert result["timesteps_total"] == trainer.metrics.counters["num_steps_sampled"]
        # clocks: each remote sample call lies inside the driver call that waited for it
        events = trace.events
        producers, consumers = trace.links()
        nested = 0
        for p, c in zip(producers.tolist(), consumers.tolist()):
            if events[p].where in lanes and events[c].where == "driver":
                tolerance = error_ns(events[p].where)
                assert events[p].start_ns >= events[c].start_ns - tolerance, (events[p], events[c], tolerance)
                assert events[p].end_ns <= events[c].end_ns + tolerance, (events[p], events[c], tolerance)
                nested += 1
        assert nested >= len(samples), (nested, len(samples))
        trainer.stop()

        # 2. a gather_async pipeline whose shards run on the second node
        it = from_range(200, num_shards=2).gather_async()
        with rlviz.record() as trace:
            out = it.take(200)
        assert sorted(out) == list(range(200))                         # nothing lost, nothing twice
        driver_items = [e for e in trace.events if e.where == "driver" and e.op == "gather_async"
                        and e.outcome == "item"]
        shard_items = [e for e in trace.events if e.where.startswith("shard") and e.op == "from_range"
                       and e.outcome == "item"]
        assert len(driver_items) == 200 and len(shard_items) >= 200
        assert all("@" in e.where for e in shard_items)               # shard lanes name their node
        events = trace.events
        producers, consumers = trace.links()
        linked = 0
        for p, c in zip(producers.tolist(), consumers.tolist()):
            if events[p].where.startswith("shard") and events[c].where == "driver":
                tolerance = error_ns(events[p].where)
                assert events[p].end_ns <= events[c].end_ns + tolerance, (events[p], events[c], tolerance)
                linked += 1
        assert linked >= 200
        print("CLUSTER OK", lanes, sorted({e.where for e in shard_items}))
    finally:
        ray.shutdown()
        cluster.shutdown()
""")


def test_two_node_cluster_runs_recorded_dqn_and_gather_async():
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run([sys.executable, "-c", ON_A_CLUSTER], capture_output=True, text=True, env=env,
                            timeout=900)
    assert result.returncode == 0 and "CLUSTER OK" in result.stdout, (result.stdout[-2000:], result.stderr[-4000:])
