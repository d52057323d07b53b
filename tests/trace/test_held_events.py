"""The store's held events on their own: values too wide for a narrow column come back whole, and leave with their rows."""
import numpy as np
import pytest

from rlviz.trace.held_events import MAX_ID, NO_ITEM, HeldEvents
from rlviz.trace.held_links import HeldLinks
from rlviz.trace.rows import FIELDS, NO_INPUT


def _events() -> HeldEvents:
    """Five events of one chunk (key 1000, pid 7): the second lasts 2**33 ns, the fourth's number is 2**40."""
    events = HeldEvents()
    events.add_chunk(1000, 7)
    start = np.arange(5, dtype=np.int64) * 10
    end = start + np.array([1, 2**33, 3, 4, 5])
    number = np.array([1, 2, 3, 2**40, -5])
    events.append(start, end, 3, np.zeros(5, np.int64), number, 0, np.array([0, 1, NO_ITEM, 2, 3]))
    return events


def test_wide_values_round_trip_and_leave_with_their_rows() -> None:
    events = _events()
    columns = events.columns(np.arange(5))
    assert (columns["end_ns"] - columns["start_ns"]).tolist() == [1, 2**33, 3, 4, 5]
    assert columns["item_num"].tolist() == [1, 2, 3, 2**40, -5]
    assert columns["item_id"].tolist() == [1000, 1001, -1, 1002, 1003]
    assert columns["pid"].tolist() == [7] * 5
    gone = events.compact(np.array([True, False, True, False, True]), 0)
    assert gone.tolist() == [1, 3] and events.compacted_to == 4
    assert events.ids_at(np.arange(3)).tolist() == [0, 2, 4]
    assert events.positions_of(np.array([1, 2, 4])).tolist() == [-1, 1, 2]
    events.append(np.array([60]), np.array([60 + 2**34]), 3, np.zeros(1, np.int64), np.array([2**41]), 0,
                  np.array([4]))
    columns = events.columns(np.arange(4))
    assert (columns["end_ns"] - columns["start_ns"]).tolist() == [1, 3, 5, 2**34]
    assert columns["item_num"].tolist() == [1, 3, -5, 2**41]
    assert events.memory()["side tables"] > 0


def test_drop_front_moves_the_first_id_and_refuses_too_many_ids() -> None:
    events = _events()
    events.drop_front(2)
    assert events.first_id == 2 and len(events) == 3
    events.drop_front(3)
    assert events.first_id == events.next_id == 5
    events.next_id = MAX_ID
    with pytest.raises(OverflowError, match="record\\(\\) block"):
        events.append(np.array([0]), np.array([1]), 0, np.zeros(1, np.int64), np.zeros(1, np.int64), 0,
                      np.array([NO_ITEM]))


def test_links_answer_inputs_per_event_in_arrival_order_and_leave_with_them() -> None:
    links = HeldLinks()
    rows = np.full((3, FIELDS), NO_INPUT, np.int64)
    rows[0, 4], rows[1, 4] = 500, 501                 # two events' first inputs
    rows[2, 1:3] = [502, 503]                         # a continuation row: more inputs of the second event
    assert links.add_inputs(rows, np.array([True, True, False]), np.array([10, 11, 11]), first_id=0) == 4
    offsets, values = links.csr(np.array([11, 10, 12]))
    assert offsets.tolist() == [0, 3, 4, 4] and values.tolist() == [501, 502, 503, 500]
    links.drop_before(11)
    assert links.inputs_gone == 1 and links.input_count == 4
    assert links.csr(np.array([10, 11]))[0].tolist() == [0, 0, 3]
