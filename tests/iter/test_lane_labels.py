"""Shard lane labels: each iterator's shards read from 0; a second live set is marked, never merged."""
import gc
import re

import pytest

import rlviz
from rlviz.iter import from_range

pytestmark = pytest.mark.usefixtures("ray_local")


def _copy(labels):
    """The copy mark every label of one set shares: '' or '#n'."""
    marks = {re.fullmatch(r"shard-\d+(#\d+)?", label)[1] or "" for label in labels}
    assert len(marks) == 1, labels
    return marks.pop()


def test_every_set_numbers_its_shards_from_zero_and_a_second_live_set_gets_its_own_mark():
    gc.collect()                                          # sets dropped by earlier tests give their labels back
    first = from_range(6, num_shards=3)
    second = from_range(4, num_shards=2)
    mark = _copy(first.shard_set.labels)
    assert first.shard_set.labels == (f"shard-0{mark}", f"shard-1{mark}", f"shard-2{mark}")
    other = _copy(second.shard_set.labels)
    assert other != mark and second.shard_set.labels == (f"shard-0{other}", f"shard-1{other}")
    labels = first.shard_set.labels
    del first
    gc.collect()
    again = from_range(6, num_shards=3)
    assert again.shard_set.labels == labels, "a dropped set's labels are free again"


def test_within_a_block_a_dropped_sets_labels_are_not_reused_so_both_lanes_stay_apart():
    gc.collect()
    shards = from_range(4, num_shards=2)
    early_labels = shards.shard_set.labels
    early = shards.gather_sync()
    with rlviz.record() as trace:
        assert early.take(4) == [0, 2, 1, 3]
        del shards, early                                 # dropped mid-block: its events still belong here
        gc.collect()
        late = from_range(4, num_shards=2)
        assert late.gather_sync().take(4) == [0, 2, 1, 3]
    assert set(late.shard_set.labels).isdisjoint(early_labels)
    lanes = {event.where for event in trace.events}
    assert set(early_labels) | set(late.shard_set.labels) <= lanes, lanes
