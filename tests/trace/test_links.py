"""``Trace.links()`` finds each input's producer the same way whether item ids are dense (a table by id) or spread
wide (a sort), the first event of a repeated id producing it."""
import numpy as np

from rlviz.trace import Node, Trace
from rlviz.viz.examples import large_trace


def _respaced(trace: Trace, factor: int) -> Trace:
    """``trace`` with every item id (and input id) multiplied by ``factor``: the same links, ids spread wide."""
    c = dict(trace.columns)
    c["item_id"] = np.where(c["item_id"] >= 0, c["item_id"] * factor, -1)
    c["input_ids"] = c["input_ids"] * factor
    return Trace(trace.nodes, c)


def test_dense_and_spread_ids_give_the_same_links():
    trace = large_trace(5_000)
    dense, spread = trace.links(), _respaced(trace, 10**9).links()
    assert len(dense[0]) > 4_000
    for a, b in zip(dense, spread):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(dense.dropped, spread.dropped)


def test_a_repeated_id_is_produced_by_its_first_event_and_an_unknown_one_by_none():
    n = 4
    columns = {"node": np.zeros(n, np.int32), "pid": np.ones(n, np.int64), "start_ns": np.arange(n, dtype=np.int64),
               "end_ns": np.arange(n, dtype=np.int64) + 1, "outcome": np.zeros(n, np.uint8),
               "item_kind": np.zeros(n, np.uint8), "item_num": np.zeros(n, np.int64),
               "item_id": np.array([10, 10, -1, -1], np.int64),            # events 0 and 1 both claim id 10
               "input_offsets": np.array([0, 0, 0, 1, 2], np.int64),
               "input_ids": np.array([10, 99], np.int64)}                  # event 2 took id 10, event 3 an id none made
    trace = Trace([Node("a", "op", "op()", "driver")], columns)
    for each in (trace, _respaced(trace, 10**9)):
        producers, consumers = each.links()
        assert producers.tolist() == [0] and consumers.tolist() == [2]
