"""``SumMinTree``: the sum-and-min segment tree behind proportional prioritized replay, on numpy arrays.

Setting k leaves and drawing n rows by prefix sum each cost O((k or n) log
capacity) numpy work, vectorised level by level, as RLlib's
``SumSegmentTree``/``MinSegmentTree`` pair does one item at a time.
"""
from __future__ import annotations

import numpy as np

from rlviz.checks import check_int

__all__ = ["SumMinTree"]


class SumMinTree:
    """Leaf values (priorities) with their total and minimum kept up to date.

    Parameters
    ----------
    capacity : int
        Number of leaves; unset leaves count 0 towards the sum and are ignored by the minimum.

    Examples
    --------
    >>> tree = SumMinTree(4)
    >>> tree.set([0, 1, 2], [1.0, 3.0, 6.0])
    >>> tree.total(), tree.min(), tree.find_prefixsum_idx(np.array([0.5, 1.0, 3.9, 9.9])).tolist()
    (10.0, 1.0, [0, 1, 1, 2])
    """

    def __init__(self, capacity: int) -> None:
        check_int("capacity", capacity, minimum=1)
        self.capacity = capacity
        self.leaves = 1 << max(0, (capacity - 1).bit_length())
        self.sums = np.zeros(2 * self.leaves, np.float64)
        self.mins = np.full(2 * self.leaves, np.inf, np.float64)

    def set(self, indexes: np.ndarray | list, values: np.ndarray | list) -> None:
        """Set leaves ``indexes`` to ``values`` (for a repeated index the last value wins)."""
        nodes = np.asarray(indexes, np.int64) + self.leaves
        if nodes.size == 0:
            return
        values = np.broadcast_to(np.asarray(values, np.float64), nodes.shape)
        self.sums[nodes] = values
        self.mins[nodes] = values
        nodes = np.unique(nodes // 2)
        while nodes.size and nodes[-1] >= 1:
            self.sums[nodes] = self.sums[2 * nodes] + self.sums[2 * nodes + 1]
            self.mins[nodes] = np.minimum(self.mins[2 * nodes], self.mins[2 * nodes + 1])
            if nodes[0] <= 1:
                break
            nodes = np.unique(nodes // 2)

    def __getitem__(self, indexes: np.ndarray) -> np.ndarray:
        return self.sums[np.asarray(indexes, np.int64) + self.leaves]

    def total(self) -> float:
        """Sum of all leaves."""
        return float(self.sums[1])

    def min(self) -> float:
        """Smallest set leaf (inf when none is set)."""
        return float(self.mins[1])

    def find_prefixsum_idx(self, masses: np.ndarray) -> np.ndarray:
        """For each mass, the leaf i where the running sum of leaves 0..i first exceeds it."""
        masses = np.array(masses, np.float64)
        nodes = np.ones(masses.shape, np.int64)
        while self.leaves > 1 and nodes.size and nodes[0] < self.leaves:
            left = 2 * nodes
            right = masses >= self.sums[left]
            masses = np.where(right, masses - self.sums[left], masses)
            nodes = np.where(right, left + 1, left)
        return np.minimum(nodes - self.leaves, self.capacity - 1)
