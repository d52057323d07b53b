"""Arrays that grow while a run records: values kept in order, and large ones in mappings that are let go."""
import gc
import mmap
import os
import weakref

import numpy as np
import pytest

from rlviz.trace.growing import COMPACT_BLOCK, MAPPED_FROM_BYTES, GrowingArray, compact, grown, zeros


def _mapping_of(array: np.ndarray) -> mmap.mmap | None:
    """The anonymous mapping behind ``array``, if it has one (behind the memoryview that ends the ``base`` chain)."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    owner = base.obj if isinstance(base, memoryview) else base
    return owner if isinstance(owner, mmap.mmap) else None


def test_a_large_array_has_its_own_mapping_and_a_small_one_does_not() -> None:
    large = zeros(MAPPED_FROM_BYTES // 8, np.int64)
    small = zeros(MAPPED_FROM_BYTES // 8 - 1, np.int64)
    assert isinstance(_mapping_of(large), mmap.mmap)
    assert _mapping_of(small) is None
    for array in (large, small):
        assert not array.any() and array.flags.writeable
    large[-1] = 7
    assert large[-1] == 7


def _shared_memory_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssShmem:"))


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads Linux's /proc")
def test_the_mapping_is_private_memory_not_shared_memory() -> None:
    before = _shared_memory_kib()
    array = zeros(8 << 20, np.int64)
    array[:] = 1                      # 64 MiB written: resident
    assert _shared_memory_kib() - before < 8 << 10


def test_zeros_takes_a_shape_and_keeps_it() -> None:
    table = zeros((300, 200), np.int32)
    assert table.shape == (300, 200) and table.dtype == np.int32 and not table.any()
    table[299, 199] = 1
    assert table.sum() == 1


def test_the_mapping_is_let_go_with_the_last_view_of_it() -> None:
    array = zeros(1 << 20, np.int64)
    mapping = weakref.ref(_mapping_of(array))
    view = array[10:20]
    del array
    gc.collect()
    assert mapping() is not None, "a view still uses the mapping"
    del view
    gc.collect()
    assert mapping() is None


def test_grown_keeps_the_values_used_and_makes_room() -> None:
    array = zeros(1000, np.uint16)
    array[:600] = np.arange(600)
    bigger = grown(array, 600, 1001)
    assert len(bigger) >= 1001 and bigger.dtype == np.uint16
    assert np.array_equal(bigger[:600], np.arange(600)) and not bigger[600:].any()


@pytest.mark.parametrize("used", [0, 1, COMPACT_BLOCK - 1, COMPACT_BLOCK, 3 * COMPACT_BLOCK + 17])
def test_compact_keeps_what_a_mask_keeps_in_order(used: int) -> None:
    rng = np.random.default_rng(used)
    values = rng.integers(0, 1 << 40, used + 5)
    array = values.copy()
    keep = rng.random(used) < 0.7
    kept = compact(array, used, keep)
    assert kept == keep.sum()
    assert np.array_equal(array[:kept], values[:used][keep])
    assert np.array_equal(array[used:], values[used:]), "nothing past what is used is touched"


def test_a_growing_array_extends_and_keeps() -> None:
    growing = GrowingArray(np.uint32)
    for first in range(0, 5000, 700):
        growing.extend(np.arange(first, first + 700))
    assert growing.size == 5600 and np.array_equal(growing.values(), np.arange(5600))
    assert growing.values().dtype == np.uint32 and growing.nbytes >= 5600 * 4
    growing.keep(growing.values() % 3 == 0)
    assert np.array_equal(growing.values(), np.arange(0, 5600, 3))
    growing.extend(np.array([1, 2]))
    assert growing.values()[-2:].tolist() == [1, 2]
