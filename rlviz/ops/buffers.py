"""Replay buffers: a uniform ring buffer and a proportional prioritized one (columnar storage).

Columnar numpy storage; ``replay()`` returns None until ``learning_starts``
rows were added.
"""
from __future__ import annotations

import numpy as np

from rlviz.checks import check_int
from rlviz.ops.errors import OpInputError
from rlviz.ops.segment_tree import SumMinTree
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch
from rlviz.trace import gauge
from rlviz.trace.gauges import LEARNING_STARTS, REPLAY_ADDED, REPLAY_HELD

__all__ = ["ReplayBuffer", "PrioritizedReplayBuffer"]


class ReplayBuffer:
    """A bounded FIFO of rows, sampled uniformly.

    Parameters
    ----------
    capacity : int
        Rows kept; the oldest are overwritten (``num_evicted`` counts them).
    learning_starts : int
        ``replay()`` returns None until this many rows were added.
    replay_batch_size : int
        Rows per ``replay()``.
    seed : int, optional
        Seeds the sampling.

    Examples
    --------
    >>> buf = ReplayBuffer(capacity=4, learning_starts=3, replay_batch_size=2, seed=0)
    >>> buf.add_batch(SampleBatch(t=[0, 1])); buf.replay() is None
    True
    >>> buf.add_batch(SampleBatch(t=[2, 3, 4])); len(buf), buf.num_evicted, buf.replay().count
    (4, 1, 2)
    """

    def __init__(self, capacity: int = 50_000, learning_starts: int = 1000, replay_batch_size: int = 32,
                 seed: int | None = None) -> None:
        for name, value, low in (("capacity", capacity, 1), ("learning_starts", learning_starts, 0),
                                 ("replay_batch_size", replay_batch_size, 1)):
            check_int(name, value, minimum=low)
        self.capacity = capacity
        self.learning_starts = learning_starts
        self.replay_batch_size = replay_batch_size
        self.rng = np.random.default_rng(seed)
        self.columns: dict[str, np.ndarray] = {}
        self.size = 0
        self.next_index = 0
        self.num_added = 0
        self.num_evicted = 0
        self.num_replayed = 0

    def __len__(self) -> int:
        return self.size

    def add_batch(self, batch: SampleBatch | MultiAgentBatch) -> None:
        """Add every row of ``batch`` (a multi-agent batch: its default policy's rows, or its only policy)."""
        batch = _single(batch)
        if batch.count == 0:
            return
        if not self.columns:
            self.columns = {k: np.zeros((self.capacity, *np.asarray(v).shape[1:]), np.asarray(v).dtype)
                            for k, v in batch.items()}
        idx = (self.next_index + np.arange(batch.count)) % self.capacity
        for key, store in self.columns.items():
            store[idx] = batch[key]
        self._on_added(idx)
        self.num_evicted += max(0, self.size + batch.count - self.capacity)
        self.size = min(self.capacity, self.size + batch.count)
        self.next_index = int((self.next_index + batch.count) % self.capacity)
        self.num_added += batch.count
        gauge(REPLAY_HELD, self.size)
        self.record_progress()

    def replay(self) -> SampleBatch | None:
        """``replay_batch_size`` random rows, or None before ``learning_starts`` rows were added."""
        if self.num_added < self.learning_starts or self.size == 0:
            return None
        idx = self._sample_indexes(self.replay_batch_size)
        self.num_replayed += len(idx)
        return self._rows(idx)

    def record_progress(self) -> None:
        """Record the rows added so far and the ``learning_starts`` they must reach, as gauges (when recording).

        Called on every add, and by ``Replay`` each time it finds the buffer
        not ready, so the not-ready event holds its cause.
        """
        gauge(REPLAY_ADDED, self.num_added)
        gauge(LEARNING_STARTS, self.learning_starts)

    def stats(self) -> dict:
        """Sizes and counts (added, evicted, replayed) as plain data."""
        return {"size": self.size, "capacity": self.capacity, "num_added": self.num_added,
                "num_evicted": self.num_evicted, "num_replayed": self.num_replayed}

    def _sample_indexes(self, n: int) -> np.ndarray:
        return self.rng.integers(0, self.size, size=n)

    def _rows(self, idx: np.ndarray) -> SampleBatch:
        return SampleBatch({k: v[idx] for k, v in self.columns.items()})

    def _on_added(self, idx: np.ndarray) -> None:
        """Hook for subclasses: rows ``idx`` were just written."""


class PrioritizedReplayBuffer(ReplayBuffer):
    """Proportional prioritized replay: row i is drawn with probability ``p_i**alpha / sum``, from a sum-tree.

    New rows get the largest priority seen so far.  ``replay()`` adds
    ``batch_indexes`` and importance ``weights`` columns: ``(N * P(i))**-beta``
    normalised by the largest possible weight (that of the smallest
    priority), as RLlib does; ``update_priorities`` takes TD errors and stores
    ``|td_error| + eps``.  A ``SumMinTree`` keeps sampling and updates at
    O(log capacity) per row.

    Examples
    --------
    >>> buf = PrioritizedReplayBuffer(capacity=8, learning_starts=0, replay_batch_size=4, seed=0)
    >>> buf.add_batch(SampleBatch(t=[0, 1, 2, 3]))
    >>> buf.update_priorities(np.array([0, 1, 2, 3]), np.array([0.0, 0.0, 0.0, 10.0]))
    >>> sorted(set(buf.replay()["t"].tolist()))
    [3]
    """

    def __init__(self, capacity: int = 50_000, learning_starts: int = 1000, replay_batch_size: int = 32,
                 seed: int | None = None, alpha: float = 0.6, beta: float = 0.4, eps: float = 1e-6) -> None:
        super().__init__(capacity, learning_starts, replay_batch_size, seed)
        if not alpha >= 0:
            raise ValueError(f"alpha must be >= 0, got {alpha!r}")
        self.alpha, self.beta, self.eps = alpha, beta, eps
        self.tree = SumMinTree(capacity)
        self.max_priority = 1.0

    def update_priorities(self, batch_indexes: np.ndarray, td_errors: np.ndarray) -> None:
        """Set the priorities of rows ``batch_indexes`` to ``|td_errors| + eps``."""
        self.set_priorities(batch_indexes, np.abs(np.asarray(td_errors, np.float64)) + self.eps)

    def set_priorities(self, batch_indexes: np.ndarray, priorities: np.ndarray) -> None:
        """Set the priorities of rows ``batch_indexes`` as given (RLlib's buffer-level ``update_priorities``).

        Raises
        ------
        ValueError
            If a priority is not positive or an index is outside the rows held.
        """
        idx = np.asarray(batch_indexes, np.int64)
        priorities = np.asarray(priorities, np.float64)
        if priorities.size and not (priorities > 0).all():
            raise ValueError(f"priorities must be > 0, got {priorities[priorities <= 0][:5].tolist()}; "
                             f"add an eps (prioritized_replay_eps) to |td_error|")
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise ValueError(f"batch_indexes must lie in 0..{self.size - 1} (the rows held), got "
                             f"{idx.min()}..{idx.max()}; pass the batch_indexes column of a replayed batch")
        self.tree.set(idx, priorities ** self.alpha)
        self.max_priority = max(self.max_priority, float(priorities.max(initial=0.0)))

    def priorities_of(self, batch_indexes: np.ndarray) -> np.ndarray:
        """The priorities (before ``** alpha``) of rows ``batch_indexes``."""
        scaled = self.tree[batch_indexes]
        return scaled if self.alpha == 0 else scaled ** (1.0 / self.alpha)

    def _on_added(self, idx: np.ndarray) -> None:
        self.tree.set(idx, self.max_priority ** self.alpha)

    def _sample_indexes(self, n: int) -> np.ndarray:
        idx = self.tree.find_prefixsum_idx(self.rng.random(n) * self.tree.total())
        return np.minimum(idx, self.size - 1)

    def _rows(self, idx: np.ndarray) -> SampleBatch:
        batch = super()._rows(idx)
        total = self.tree.total()
        max_weight = (self.tree.min() / total * self.size) ** -self.beta
        weights = (self.tree[idx] / total * self.size) ** -self.beta / max_weight
        batch["weights"] = weights.astype(np.float32)
        batch["batch_indexes"] = idx.astype(np.int64)
        return batch


def _single(batch: SampleBatch | MultiAgentBatch) -> SampleBatch:
    if isinstance(batch, SampleBatch):
        return batch
    if isinstance(batch, MultiAgentBatch):
        if len(batch.policy_batches) == 1:
            return next(iter(batch.policy_batches.values()))
        raise ValueError(f"replay buffers here hold one policy's rows; got {batch!r}: "
                         f"SelectExperiences([...]) one policy first")
    raise OpInputError(f"expected a SampleBatch or MultiAgentBatch, got {type(batch).__name__}")

