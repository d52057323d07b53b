"""Held rows behind a movable front: taking rows out keeps the rest in order and moves only the near side."""
import numpy as np
import pytest

from rlviz.trace.growing import COMPACT_BLOCK, GROW
from rlviz.trace.held import RECLAIM, HeldColumns, compact_back, move


def _rows(n: int) -> HeldColumns:
    rows = HeldColumns({"id": np.int64, "small": np.uint16})
    rows.append({"id": np.arange(n), "small": np.arange(n) % 1000}, n)
    return rows


def _check(rows: HeldColumns, expected: list[int]) -> None:
    assert len(rows) == len(expected)
    assert rows.column("id").tolist() == expected
    assert rows.column("small").tolist() == [value % 1000 for value in expected]


def _address(rows: HeldColumns, name: str, position: int) -> int:
    return rows.column(name)[position:].ctypes.data


@pytest.mark.parametrize("seed", range(6))
def test_random_masks_keep_the_kept_rows_in_order_whichever_side_moves(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 3 * COMPACT_BLOCK + 17
    rows, expected = _rows(n), list(range(n))
    for _ in range(8):
        held = len(expected)
        start = int(rng.integers(0, held))
        span = int(rng.integers(0, held - start + 1))
        keep = rng.random(span) < rng.choice([0.1, 0.5, 0.95])      # scattered, not a prefix
        expected = expected[:start] + [v for v, k in zip(expected[start:start + span], keep) if k] \
            + expected[start + span:]
        assert rows.compact(keep, start) == int((~keep).sum())
        _check(rows, expected)
        more = int(rng.integers(0, COMPACT_BLOCK))
        rows.append({"id": np.arange(n, n + more), "small": np.arange(n, n + more) % 1000}, more)
        expected += list(range(n, n + more))
        n += more
        _check(rows, expected)


def test_rows_leaving_near_the_front_move_only_the_rows_before_them() -> None:
    rows = _rows(100_000)
    after = _address(rows, "id", 1_000)
    keep = np.ones(1_000, bool)
    keep[[3, 500, 999]] = False                    # old rows leave, interleaved with rows that stay
    assert rows.compact(keep) == 3
    assert rows.front == 3 and _address(rows, "id", 997) == after
    assert rows.column("id")[:5].tolist() == [0, 1, 2, 4, 5] and rows.column("id")[997] == 1_000


def test_rows_leaving_near_the_back_move_only_the_rows_after_them() -> None:
    rows = _rows(100_000)
    before = _address(rows, "small", 0)
    keep = np.ones(100, bool)
    keep[[0, 50]] = False
    assert rows.compact(keep, 99_000) == 2
    assert rows.front == 0 and _address(rows, "small", 0) == before
    assert rows.column("id")[98_999:99_002].tolist() == [98_999, 99_001, 99_002] and len(rows) == 99_998


def test_drop_front_moves_nothing_and_appends_follow_the_last_row() -> None:
    rows = _rows(5_000)
    rows.drop_front(4_000)
    rows.append({"id": np.arange(5_000, 5_010)}, 10)
    assert rows.column("id").tolist() == list(range(4_000, 5_010))
    assert rows.column("small")[-10:].tolist() == [0] * 10          # a column left out gets zeros
    with pytest.raises(ValueError, match="count=2000 must be between 0 and the 1010 rows held"):
        rows.drop_front(2_000)


def test_the_dead_front_is_taken_back_in_place_when_that_frees_enough() -> None:
    rows = _rows(10_000)
    capacity = rows.capacity
    rows.drop_front(len(rows) - 10)                 # far more dead than RECLAIM of the columns
    fresh = capacity - rows.front - len(rows) + 1    # one more than the room left at the back
    rows.append({"id": np.arange(10_000, 10_000 + fresh)}, fresh)
    assert rows.capacity == capacity and rows.front == 0
    assert rows.column("id").tolist() == list(range(9_990, 10_000 + fresh))


def test_the_columns_grow_past_a_small_dead_front_and_leave_it_behind() -> None:
    rows = _rows(10_000)
    capacity = rows.capacity
    rows.drop_front(int(capacity * RECLAIM) // 2)
    fresh = capacity - rows.front - len(rows) + 1
    expected = rows.column("id").tolist() + list(range(10_000, 10_000 + fresh))
    needed = len(rows) + fresh
    rows.append({"id": np.arange(10_000, 10_000 + fresh)}, fresh)
    assert rows.capacity == int(needed / (1 - 2 * RECLAIM)) + 1 < capacity * GROW     # only to 2 * RECLAIM free
    assert rows.front == 0 and rows.column("id").tolist() == expected


def test_rows_that_fill_the_columns_grow_them_by_the_growth_factor() -> None:
    rows = _rows(10)
    capacity = rows.capacity
    rows.append({"id": np.arange(10, capacity + 1)}, capacity - 9)
    assert rows.capacity == int(capacity * GROW) + 1 and rows.column("id").tolist() == list(range(capacity + 1))


def test_memory_counts_whole_arrays_dead_front_and_spare_room_included() -> None:
    rows = _rows(10_000)
    rows.drop_front(9_000)
    assert rows.memory() == {"id": rows.capacity * 8, "small": rows.capacity * 2}


def test_a_mask_past_the_held_rows_is_refused() -> None:
    rows = _rows(10)
    with pytest.raises(ValueError, match="keep covers rows 5..14 but 10 rows are held"):
        rows.compact(np.ones(10, bool), 5)


def test_move_and_compact_back_handle_overlap_across_blocks() -> None:
    n = 3 * COMPACT_BLOCK
    array = np.arange(n + 100)
    move(array, 0, 100, n)
    assert array[100:].tolist() == list(range(n))
    move(array, 100, 7, n)
    assert array[7:n + 7].tolist() == list(range(n))
    keep = np.arange(n) % 3 == 0
    values = np.arange(n)
    assert compact_back(values, keep) == n // 3
    assert values[-(n // 3):].tolist() == list(range(0, n, 3))


def test_drop_in_takes_out_rows_holding_the_values_and_stops_reading_once_it_has_them_all() -> None:
    rows = HeldColumns({"owner": np.uint32, "value": np.int64})
    owner = np.repeat(np.arange(2 * COMPACT_BLOCK), 2).astype(np.uint32)     # two rows per owner, old ones first
    rows.append({"owner": owner, "value": np.arange(len(owner))}, len(owner))
    gone = np.array([3, 5, 6])
    assert rows.drop_in("owner", gone, 6) == 6
    assert rows.column("owner")[:6].tolist() == [0, 0, 1, 1, 2, 2] and rows.column("owner")[6:8].tolist() == [4, 4]
    assert len(rows) == len(owner) - 6 and rows.column("value")[-1] == len(owner) - 1
    rows.append({"owner": np.array([7])}, 1)                 # blocks away from the front
    assert rows.drop_in("owner", np.array([7]), 2) == 2      # the two at the front are all it was told of: it stops
    assert rows.column("owner")[-1] == 7 and 7 not in rows.column("owner")[:COMPACT_BLOCK].tolist()
    assert rows.drop_in("owner", np.array([7]), 3) == 1 and len(rows) == len(owner) - 8
    assert rows.drop_in("owner", np.array([7]), 1) == 0


def test_find_in_gives_the_positions_from_the_front_and_reads_no_further_than_told() -> None:
    rows = HeldColumns({"owner": np.uint32})
    owner = np.repeat(np.arange(2 * COMPACT_BLOCK), 2).astype(np.uint32)
    rows.append({"owner": owner}, len(owner))
    rows.append({"owner": np.array([1])}, 1)                 # one more row of owner 1, far from the front
    assert rows.find_in("owner", np.array([1, 4]), 4).tolist() == [2, 3, 8, 9]
    assert rows.find_in("owner", np.array([1, 4]), 5).tolist() == [2, 3, 8, 9, len(owner)]
    assert rows.find_in("owner", np.array([1]), 0).tolist() == []
