"""Arrays that grow while a run records, in memory that goes back to the system when they are let go.

A store's columns grow by an eighth each time they fill, so a long run
frees many old, large arrays. numpy takes memory from the C allocator, and
glibc's allocator keeps what numpy frees for later use: after the first large
free it raises its threshold for giving memory straight from the system
(up to 32 MiB), so the next columns come from its heaps and their old copies
stay there, free but resident. A real run then held about 60% more than its
arrays (docs/performance.md).

``zeros`` gives each large array a mapping of its own (a private anonymous
``mmap``): when the array and its views are gone the mapping is unmapped,
whatever the allocator's thresholds, and pages never written are never
resident. ``GrowingArray`` is a 1-d array grown that way.
"""
from __future__ import annotations

import mmap

import numpy as np

__all__ = ["zeros", "grown", "compact", "GrowingArray", "MAPPED_FROM_BYTES", "GROW", "COMPACT_BLOCK"]

#: Arrays this large or larger get their own mapping; smaller ones are numpy's (a mapping is whole pages).
MAPPED_FROM_BYTES = 1 << 18
#: A private mapping where the system has them (Python's default is a shared one, which Linux counts as shared
#: memory, ``RssShmem``, as if other processes could see it).
_PRIVATE = {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_PRIVATE") else {}
#: A full ``GrowingArray`` grows by this factor (at least to what is asked).
GROW = 1.125
#: ``compact`` moves values this many at a time, so its temporary copies stay small whatever the array's size.
COMPACT_BLOCK = 1 << 16


def zeros(shape: int | tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    """``np.zeros(shape, dtype)``, in an anonymous mapping of its own when it is ``MAPPED_FROM_BYTES`` or larger.

    The mapping is the array's base: it is unmapped when the array and every
    view of it are freed. Its pages are zero until written, and only written
    pages count in the resident set.
    """
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    length = int(np.prod(shape, dtype=np.int64))
    if length * dtype.itemsize < MAPPED_FROM_BYTES:
        return np.zeros(shape, dtype)
    mapping = mmap.mmap(-1, length * dtype.itemsize, **_PRIVATE)
    return np.frombuffer(mapping, dtype).reshape(shape)


class GrowingArray:
    """A 1-d array (int64 unless told) that grows by ``GROW`` when full, in memory from ``zeros``."""

    def __init__(self, dtype: np.dtype | type = np.int64) -> None:
        self._data = zeros(1024, dtype)
        self._size = 0

    @property
    def size(self) -> int:
        """How many values it holds."""
        return self._size

    @property
    def nbytes(self) -> int:
        """The bytes it has room for (held and spare)."""
        return self._data.nbytes

    def values(self) -> np.ndarray:
        """The values held (a view: valid until the next ``extend`` or ``keep``)."""
        return self._data[:self._size]

    def extend(self, values: np.ndarray) -> None:
        """Append ``values`` (cast to the array's dtype)."""
        end = self._size + len(values)
        if end > len(self._data):
            self._data = grown(self._data, self._size, end)
        self._data[self._size:end] = values
        self._size = end

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the values where ``mask`` (one flag per value held) is true, in order."""
        self._size = compact(self._data, self._size, mask)


def grown(array: np.ndarray, used: int, needed: int) -> np.ndarray:
    """A copy of ``array``'s first ``used`` values with room for at least ``needed``: ``GROW`` times more."""
    bigger = zeros(max(needed, int(len(array) * GROW) + 1), array.dtype)
    bigger[:used] = array[:used]
    return bigger


def compact(array: np.ndarray, used: int, keep: np.ndarray) -> int:
    """Move ``array``'s first ``used`` values where ``keep`` is true to its front, in order; return how many.

    Block by block: a block's kept values land at or before the block, so
    nothing is overwritten before it is read, and no temporary is larger
    than a block (a whole-array copy would be one more column at its
    largest, memory the allocator then keeps).
    """
    kept = 0
    for first in range(0, used, COMPACT_BLOCK):
        last = min(first + COMPACT_BLOCK, used)
        moved = array[first:last][keep[first:last]]
        array[kept:kept + len(moved)] = moved
        kept += len(moved)
    return kept
