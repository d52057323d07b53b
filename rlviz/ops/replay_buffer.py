"""``LocalReplayBuffer`` and ``ReplayActor``: RLlib 1.x's replay buffer, with its keywords, locally or as an actor.

One rlviz buffer (``ReplayBuffer``, or ``PrioritizedReplayBuffer`` on a
sum-tree) per policy in ``"independent"`` mode; whole multi-agent time slices
in ``"lockstep"`` mode.  ``replay_sequence_length > 1`` stores zero-padded
sequences with ``replay_burn_in`` rows of overlap, as RLlib's R2D2 replay did.
``ReplayActor`` is ``LocalReplayBuffer`` as a Ray actor class:
``ReplayActor.remote(num_shards, learning_starts, buffer_size, ...)``.
"""
from __future__ import annotations

import difflib
import inspect
import platform
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import ray

from rlviz.checks import check_int, check_number
from rlviz.iter import ParallelIteratorWorker
from rlviz.iter.metrics import Timer
from rlviz.iter.worker import CONCURRENCY_GROUPS
from rlviz.ops.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlviz.ops.errors import OpInputError
from rlviz.rollout.rnn_sequencing import timeslice_along_seq_lens_with_overlap
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch, concat_samples
from rlviz.trace import gauge
from rlviz.trace.gauges import LEARNING_STARTS, REPLAY_ADDED, REPLAY_HELD

__all__ = ["LocalReplayBuffer", "ReplayActor", "ALL_POLICIES"]

#: The key lockstep mode stores every policy's rows under (RLlib's ``_ALL_POLICIES``).
ALL_POLICIES = "__all__"
_REPLAY_MODES = ("independent", "lockstep")
_SEQ_LEN_COLUMN = "replay_seq_len"          # one sequence per stored row: its unpadded length
_instance: "LocalReplayBuffer | None" = None


class LocalReplayBuffer(ParallelIteratorWorker):
    """RLlib 1.x's replay buffer: per-policy (prioritized) buffers, sharded, replayed as ``MultiAgentBatch``es.

    Parameters
    ----------
    num_shards : int
        Shards the whole buffer is split over; this one holds
        ``buffer_size // num_shards`` items and starts replaying after
        ``learning_starts // num_shards`` added steps.
    learning_starts : int
        Steps (over all shards) to add before ``replay()`` returns batches.
    buffer_size : int
        Items (rows, or sequences) held over all shards.
    replay_batch_size : int
        Rows per policy per ``replay()`` (sequences: ``replay_batch_size // replay_sequence_length``).
    prioritized_replay_alpha, prioritized_replay_beta, prioritized_replay_eps : float
        Priority exponent (0 gives a uniform buffer), importance-weight
        exponent, and what ``update_priorities`` adds to ``|td_error|``.
    replay_mode : {"independent", "lockstep"}
        Each policy its own buffer and sample, or whole multi-agent steps
        together (uniform, no priorities), as in RLlib.
    replay_sequence_length, replay_burn_in, replay_zero_init_states
        Store sequences of this many rows (burn-in rows included), zero-padded;
        ``state_in_*`` start at zero or at the previous ``state_out_*``.
    seed : int, optional
        Seeds sampling (an rlviz addition).
    idle_sleep_s : float
        How long the actor's replay stream waits after a ``None`` (before
        ``learning_starts``) so an idle shard does not spin (an rlviz addition).

    Raises
    ------
    TypeError
        For an unknown keyword, naming RLlib's nearest one.
    ValueError
        For an unsupported ``replay_mode`` or out-of-range sizes.

    Examples
    --------
    >>> buffer = LocalReplayBuffer(num_shards=1, learning_starts=2, buffer_size=10, replay_batch_size=3, seed=0)
    >>> buffer.replay() is None
    True
    >>> buffer.add_batch(SampleBatch(obs=[[0.0], [1.0]], rewards=[1.0, 0.0]))
    >>> buffer.replay()
    MultiAgentBatch({'default_policy': SampleBatch(3: ['obs', 'rewards', 'weights', 'batch_indexes'])}, env_steps=3)
    """

    def __init__(self, num_shards: int = 1, learning_starts: int = 1000, buffer_size: int = 10000,
                 replay_batch_size: int = 1, prioritized_replay_alpha: float = 0.6,
                 prioritized_replay_beta: float = 0.4, prioritized_replay_eps: float = 1e-6,
                 replay_mode: str = "independent", replay_sequence_length: int = 1, replay_burn_in: int = 0,
                 replay_zero_init_states: bool = True, *, seed: int | None = None, idle_sleep_s: float = 0.01,
                 **unknown: Any) -> None:
        _reject_unknown(unknown, LocalReplayBuffer.__init__)
        for name, value, low in (("num_shards", num_shards, 1), ("learning_starts", learning_starts, 0),
                                 ("buffer_size", buffer_size, num_shards), ("replay_batch_size", replay_batch_size, 1),
                                 ("replay_sequence_length", replay_sequence_length, 1),
                                 ("replay_burn_in", replay_burn_in, 0)):
            check_int(name, value, minimum=low)
        for name, value in (("prioritized_replay_alpha", prioritized_replay_alpha),
                            ("prioritized_replay_beta", prioritized_replay_beta),
                            ("prioritized_replay_eps", prioritized_replay_eps)):
            check_number(name, value, minimum=0)
        if replay_mode not in _REPLAY_MODES:
            raise ValueError(f"Unsupported replay mode: {replay_mode!r}; use one of {list(_REPLAY_MODES)}")
        if replay_sequence_length > 1 and replay_burn_in >= replay_sequence_length:
            raise ValueError(f"replay_burn_in ({replay_burn_in}) must be less than replay_sequence_length "
                             f"({replay_sequence_length}): each sequence needs rows after its burn-in")
        self.num_shards = num_shards
        self.replay_starts = learning_starts // num_shards
        self.buffer_size = buffer_size // num_shards
        self.replay_batch_size = (max(1, replay_batch_size // replay_sequence_length) if replay_sequence_length > 1
                                  else replay_batch_size)
        self.prioritized_replay_alpha = prioritized_replay_alpha
        self.prioritized_replay_beta = prioritized_replay_beta
        self.prioritized_replay_eps = prioritized_replay_eps
        self.replay_mode = replay_mode
        self.replay_sequence_length = replay_sequence_length
        self.replay_burn_in = replay_burn_in
        self.replay_zero_init_states = replay_zero_init_states
        self.idle_sleep_s = idle_sleep_s
        self.rng = np.random.default_rng(seed)
        self.replay_buffers: dict[str, ReplayBuffer] = {}
        self.lockstep_items: list[MultiAgentBatch] = []
        self.lockstep_next = 0
        self.add_batch_timer, self.replay_timer, self.update_priorities_timer = Timer(), Timer(), Timer()
        self.num_added = 0
        self.steps_added: dict[str, int] = {}
        self.steps_sampled: dict[str, int] = {}
        ParallelIteratorWorker.__init__(self, self._replay_forever, False)
        global _instance
        _instance = self

    @staticmethod
    def get_instance_for_testing() -> "LocalReplayBuffer | None":
        """The buffer last built in this process (RLlib's test hook)."""
        return _instance

    def get_host(self) -> str:
        """The name of the host this buffer runs on."""
        return platform.node()

    # -- adding ---------------------------------------------------------------
    def add_batch(self, batch: SampleBatch | MultiAgentBatch) -> None:
        """Add a batch (copied first); a ``SampleBatch`` counts as the default policy's.

        Raises
        ------
        OpInputError
            If ``batch`` is not a SampleBatch or MultiAgentBatch.
        """
        if not isinstance(batch, (SampleBatch, MultiAgentBatch)):
            raise OpInputError(f"add_batch expects a SampleBatch or MultiAgentBatch, got {type(batch).__name__}")
        batch = batch.copy().as_multi_agent()
        with self.add_batch_timer:
            if self.replay_mode == "lockstep":
                self._add_lockstep(batch)
            else:
                for policy_id, policy_batch in batch.policy_batches.items():
                    if policy_batch.count:
                        self._add_policy_rows(policy_id, policy_batch)
        self.num_added += batch.count
        self.record_progress()

    add = add_batch

    def _add_policy_rows(self, policy_id: str, batch: SampleBatch) -> None:
        buffer = self.replay_buffers.get(policy_id) or self.replay_buffers.setdefault(policy_id, self._new_buffer())
        rows = batch if self.replay_sequence_length == 1 else _stack_sequences(
            timeslice_along_seq_lens_with_overlap(batch, zero_pad_max_seq_len=self.replay_sequence_length,
                                                  pre_overlap=self.replay_burn_in,
                                                  zero_init_states=self.replay_zero_init_states))
        first = buffer.next_index
        buffer.add_batch(rows)
        if "weights" in rows and isinstance(buffer, PrioritizedReplayBuffer):
            stored = (first + np.arange(rows.count)[-buffer.capacity:]) % buffer.capacity
            weights = np.asarray(rows["weights"], np.float64).reshape(rows.count, -1).mean(axis=1)
            buffer.set_priorities(stored, np.maximum(weights[-buffer.capacity:], np.finfo(float).tiny))
        self.steps_added[policy_id] = self.steps_added.get(policy_id, 0) + batch.count

    def _add_lockstep(self, batch: MultiAgentBatch) -> None:
        for piece in batch.timeslices(self.replay_sequence_length):
            if len(self.lockstep_items) < self.buffer_size:
                self.lockstep_items.append(piece)
            else:
                self.lockstep_items[self.lockstep_next] = piece
            self.lockstep_next = (self.lockstep_next + 1) % self.buffer_size
        self.steps_added[ALL_POLICIES] = self.steps_added.get(ALL_POLICIES, 0) + batch.count
        gauge(REPLAY_HELD, len(self.lockstep_items))

    def _new_buffer(self) -> ReplayBuffer:
        seed = int(self.rng.integers(2**31))
        if self.prioritized_replay_alpha == 0:
            return ReplayBuffer(self.buffer_size, learning_starts=0, replay_batch_size=self.replay_batch_size,
                                seed=seed)
        return PrioritizedReplayBuffer(self.buffer_size, learning_starts=0, replay_batch_size=self.replay_batch_size,
                                       seed=seed, alpha=self.prioritized_replay_alpha,
                                       beta=self.prioritized_replay_beta, eps=self.prioritized_replay_eps)

    # -- replaying --------------------------------------------------------------
    def replay(self) -> MultiAgentBatch | None:
        """``replay_batch_size`` rows per policy as a ``MultiAgentBatch``, or None before ``learning_starts``.

        Prioritized buffers add ``weights`` and ``batch_indexes`` columns
        (``update_priorities`` takes those indexes back).
        """
        if self.num_added < self.replay_starts:
            return None
        with self.replay_timer:
            if self.replay_mode == "lockstep":
                return self._replay_lockstep()
            samples = {}
            for policy_id, buffer in self.replay_buffers.items():
                rows = buffer.replay()
                samples[policy_id] = rows if self.replay_sequence_length == 1 else _unstack_sequences(rows)
                self.steps_sampled[policy_id] = self.steps_sampled.get(policy_id, 0) + samples[policy_id].count
            return MultiAgentBatch(samples, self.replay_batch_size)

    def _replay_lockstep(self) -> MultiAgentBatch | None:
        if not self.lockstep_items:
            return None
        picks = self.rng.integers(0, len(self.lockstep_items), size=self.replay_batch_size)
        batch = concat_samples([self.lockstep_items[i] for i in picks])
        self.steps_sampled[ALL_POLICIES] = self.steps_sampled.get(ALL_POLICIES, 0) + batch.count
        return batch

    def update_priorities(self, prio_dict: dict) -> None:
        """Set priorities to ``|td_errors| + prioritized_replay_eps``: ``{policy_id: (batch_indexes, td_errors)}``.

        Raises
        ------
        TypeError
            If ``prio_dict`` is not a dict (RLlib 1.x passes one, keyed by policy id).
        """
        if not isinstance(prio_dict, dict):
            raise TypeError(f"update_priorities takes {{policy_id: (batch_indexes, td_errors)}}, got "
                            f"{type(prio_dict).__name__}; e.g. {{'{DEFAULT_POLICY_ID}': (indexes, td_errors)}}")
        with self.update_priorities_timer:
            for policy_id, (batch_indexes, td_errors) in prio_dict.items():
                buffer = self.replay_buffers.get(policy_id)
                if isinstance(buffer, PrioritizedReplayBuffer):
                    new = np.abs(np.asarray(td_errors, np.float64)) + self.prioritized_replay_eps
                    buffer.set_priorities(batch_indexes, new)

    # -- reporting ------------------------------------------------------------
    def stats(self, debug: bool = False) -> dict:
        """RLlib's figures: mean add/replay/update times (ms) and, per ``policy_<id>``, its buffer's counts."""
        out = {"add_batch_time_ms": round(1000 * self.add_batch_timer.mean_s, 3),
               "replay_time_ms": round(1000 * self.replay_timer.mean_s, 3),
               "update_priorities_time_ms": round(1000 * self.update_priorities_timer.mean_s, 3)}
        for policy_id, buffer in self.replay_buffers.items():
            out[f"policy_{policy_id}"] = self._buffer_stats(policy_id, len(buffer), buffer.num_evicted > 0,
                                                            sum(c.nbytes for c in buffer.columns.values()), debug)
        if self.replay_mode == "lockstep":
            size = sum(item.size_bytes() for item in self.lockstep_items)
            evicted = self.steps_added.get(ALL_POLICIES, 0) > len(self.lockstep_items) * self.replay_sequence_length
            out[f"policy_{ALL_POLICIES}"] = self._buffer_stats(ALL_POLICIES, len(self.lockstep_items), evicted,
                                                               size, debug)
        return out

    def _buffer_stats(self, policy_id: str, entries: int, evicting: bool, size: int, debug: bool) -> dict:
        stats = {"added_count": self.steps_added.get(policy_id, 0), "eviction_started": evicting,
                 "sampled_count": self.steps_sampled.get(policy_id, 0), "est_size_bytes": int(size),
                 "num_entries": entries}
        if debug and policy_id in self.replay_buffers:
            stats["buffer"] = self.replay_buffers[policy_id].stats()
        return stats

    def record_progress(self) -> None:
        """Record steps added and the ``learning_starts`` they must reach, as gauges (when recording)."""
        gauge(REPLAY_ADDED, self.num_added)
        gauge(LEARNING_STARTS, self.replay_starts)

    def ping(self) -> str:
        """Liveness check."""
        return "pong"

    def _replay_forever(self) -> Iterator:
        while True:
            batch = self.replay()
            if batch is None:
                self.record_progress()          # why this shard yields None, read on its lane
                time.sleep(self.idle_sleep_s)
            yield batch


#: ``LocalReplayBuffer`` as a Ray actor class, as RLlib 1.x defined it: ``ReplayActor.remote(...)``.
ReplayActor = ray.remote(num_cpus=0, concurrency_groups=CONCURRENCY_GROUPS)(LocalReplayBuffer)


# -- helpers ------------------------------------------------------------------
def _reject_unknown(unknown: dict, function: Any) -> None:
    if not unknown:
        return
    known = [p for p in inspect.signature(function).parameters if p not in ("self", "unknown")]
    name = next(iter(unknown))
    near = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else f"; RLlib's keywords are {known}"
    raise TypeError(f"LocalReplayBuffer got an unexpected keyword {name!r}{hint}")


def _stack_sequences(slices: list[SampleBatch]) -> SampleBatch:
    """Zero-padded sequences of equal length as one batch with one row per sequence."""
    columns: dict[str, Any] = {_SEQ_LEN_COLUMN: np.array([int(s[SampleBatch.SEQ_LENS][0]) for s in slices])}
    for key in slices[0]:
        if key == SampleBatch.SEQ_LENS:
            continue
        parts = [dict.__getitem__(s, key) for s in slices]
        columns[key] = np.concatenate(parts) if key.startswith("state_in_") else np.stack(parts)
    return SampleBatch(columns)


def _unstack_sequences(rows: SampleBatch) -> SampleBatch:
    """The stored sequences back as one zero-padded batch with ``seq_lens`` (per-sequence weights repeated per row)."""
    length = next(v.shape[1] for k, v in dict.items(rows) if v.ndim >= 2 and not k.startswith("state_in_"))
    data = {}
    for key, value in dict.items(rows):
        if key == _SEQ_LEN_COLUMN or key.startswith("state_in_"):
            continue
        data[key] = value.reshape(-1, *value.shape[2:]) if value.ndim >= 2 else np.repeat(value, length)
    data.update({k: v for k, v in dict.items(rows) if k.startswith("state_in_")})
    return SampleBatch(data, seq_lens=rows[_SEQ_LEN_COLUMN], _zero_padded=True, _max_seq_len=length)
