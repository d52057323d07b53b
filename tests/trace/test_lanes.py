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
