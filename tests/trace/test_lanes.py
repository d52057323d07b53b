"""One lane order for every view: the driver first, then actors in natural order."""
from rlviz.trace import Trace
from rlviz.trace.lanes import lane_key, lane_order


def test_lane_order_puts_the_driver_first_and_numbers_in_natural_order():
    names = ["shard-10", "shard-2", "driver", "ReplayActor-1", "shard-2", "RolloutWorker-12", "RolloutWorker-3"]
    assert lane_order(names) == ["driver", "ReplayActor-1", "RolloutWorker-3", "RolloutWorker-12",
                                 "shard-2", "shard-10"]
    assert sorted(["driver", "a10b2", "a10b10", "a9"], key=lane_key) == ["driver", "a9", "a10b2", "a10b10"]


def test_summary_table_lists_lanes_in_lane_order():
    records = [{"op": "from_range", "label": "src", "op_id": f"s{k}", "where": f"shard-{k}", "pid": k,
                "start_ns": 0, "end_ns": 10, "outcome": "item", "item": None, "item_id": None, "inputs": []}
               for k in (10, 2)]
    lines = Trace.from_records(records).summary().splitlines()
    wheres = [line.split()[0] for line in lines if line.startswith("shard-")]
    assert wheres == ["shard-2", "shard-10"]


def test_repr_counts_the_processes_the_explorer_draws_as_lanes():
    """Lanes in one OS process (RLlib 2.x's local env runner and learner beside the driver) are processes too."""
    from rlviz.viz.explorer_payload import trace_structure
    from rlviz.viz.timeline import timeline_lanes

    places = [("driver", 100), ("EnvRunner-0", 100), ("Learner-0", 100), ("EnvRunner-1", 201), ("EnvRunner-2", 202)]
    records = [{"op": "sample", "label": where, "op_id": f"op{k}", "where": where, "pid": pid, "start_ns": k,
                "end_ns": k + 10, "outcome": "item", "item": None, "item_id": None, "inputs": []}
               for k, (where, pid) in enumerate(places)]
    trace = Trace.from_records(records)
    assert trace.processes == ["driver", "EnvRunner-0", "EnvRunner-1", "EnvRunner-2", "Learner-0"]
    assert trace.processes == timeline_lanes(trace).names
    assert [lane["name"] for lane in trace_structure(trace)["lanes"]] == trace.processes
    assert "5 processes" in repr(trace)
