"""``SampleBatch`` and ``MultiAgentBatch``: the columns of experience that flow between workers.

Plain numpy data, cheap to pickle across Ray actors.  A column is an array with
one entry per row, or a (nested) dict of such arrays, mapped leaf by leaf as
RLlib maps them with ``tree``.  Recurrent data carries ``seq_lens``: rows then
form sequences, slicing keeps whole sequences, and ``right_zero_pad`` pads each
sequence to ``max_seq_len`` rows, as in RLlib.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from rlviz.checks import check_int
from rlviz.rollout.compression import is_compressed, pack, unpack

__all__ = ["SampleBatch", "MultiAgentBatch", "DEFAULT_POLICY_ID", "concat_samples"]

#: The policy id a single-agent worker uses.
DEFAULT_POLICY_ID = "default_policy"

_REPR_COLUMNS = 3
_STATE_IN = "state_in_"
_COMPRESSED_COLUMNS = frozenset(["obs", "new_obs"])


class SampleBatch(dict):
    """A batch of experience: a dict of equally long columns, one row per step.

    As in RLlib, it is a dict of columns (iterating, ``in`` and ``keys()`` see
    column names) whose ``len()`` is its row count, the same as ``count``; a
    slice ``batch[a:b]`` is a batch of those rows.  A column may be a nested
    dict of arrays.  With a ``seq_lens`` column the rows form sequences:
    ``count`` is ``sum(seq_lens)``, ``state_in_*`` columns hold one row per
    sequence, and slices keep whole sequences.

    Parameters
    ----------
    columns : mapping of str to array-like or dict, optional
        The columns; each leaf is converted with ``np.asarray``.
    _time_major, _max_seq_len, _zero_padded, _is_training, _num_grad_updates
        RLlib's flags: time-major sequence columns, the padded sequence length
        (default ``max(seq_lens)``), whether ``right_zero_pad`` was applied, the
        ``is_training`` flag (default False) and the policy's gradient-update
        count when the batch was sampled.
    **more : array-like
        More columns given as keywords (``seq_lens=[...]`` among them).

    Raises
    ------
    ValueError
        If the row columns do not all have the same length.

    Examples
    --------
    >>> batch = SampleBatch(obs=[[0.0], [1.0], [2.0]], actions=[1, 0, 1], rewards=[1.0, 1.0, 0.0])
    >>> batch
    SampleBatch(3: ['obs', 'actions', 'rewards'])
    >>> len(batch), batch.count, list(batch), "obs" in batch
    (3, 3, ['obs', 'actions', 'rewards'], True)
    >>> batch[1:]["actions"].tolist()
    [0, 1]
    >>> SampleBatch(t=[0, 1, 2, 0, 1], seq_lens=[3, 2])[1:4]["t"].tolist()    # whole sequences
    [0, 1, 2]
    """

    OBS = "obs"
    CUR_OBS = "obs"
    NEXT_OBS = "new_obs"
    ACTIONS = "actions"
    REWARDS = "rewards"
    PREV_ACTIONS = "prev_actions"
    PREV_REWARDS = "prev_rewards"
    TERMINATEDS = "terminateds"
    TRUNCATEDS = "truncateds"
    DONES = "dones"
    INFOS = "infos"
    SEQ_LENS = "seq_lens"
    T = "t"
    EPS_ID = "eps_id"
    ENV_ID = "env_id"
    AGENT_INDEX = "agent_index"
    UNROLL_ID = "unroll_id"
    ACTION_DIST_INPUTS = "action_dist_inputs"
    ACTION_PROB = "action_prob"
    ACTION_LOGP = "action_logp"
    VF_PREDS = "vf_preds"
    VALUES_BOOTSTRAPPED = "values_bootstrapped"
    OBS_EMBEDS = "obs_embeds"
    ATTENTION_MASKS = "attention_masks"
    RETURNS_TO_GO = "returns_to_go"
    Q_VALUES = "q_values"
    ADVANTAGES = "advantages"
    VALUE_TARGETS = "value_targets"

    def __init__(self, columns: Mapping[str, object] | None = None, /, *, _time_major: bool | None = None,
                 _max_seq_len: int | None = None, _zero_padded: bool = False, _is_training: bool | None = None,
                 _num_grad_updates: float | None = None, **more: object) -> None:
        super().__init__()
        for key, value in {**(columns if columns is not None else {}), **more}.items():
            dict.__setitem__(self, key, _as_column(value))
        is_training = dict.pop(self, "is_training", None) if _is_training is None else _is_training
        self._set_flags(_time_major, _max_seq_len, _zero_padded, bool(is_training), _num_grad_updates)
        seq_lens = dict.get(self, self.SEQ_LENS)
        if seq_lens is not None and np.size(seq_lens) == 0:
            dict.pop(self, self.SEQ_LENS)
        elif seq_lens is not None:
            seq_lens = np.asarray(seq_lens, np.int32)
            dict.__setitem__(self, self.SEQ_LENS, seq_lens)
            if self.max_seq_len is None:
                self.max_seq_len = int(seq_lens.max())
        self.count = _count_rows(self)

    def _set_flags(self, time_major: bool | None, max_seq_len: int | None, zero_padded: bool,
                   is_training: bool, num_grad_updates: float | None) -> None:
        self.time_major = time_major
        self.max_seq_len = max_seq_len
        self.zero_padded = zero_padded
        self._is_training = is_training
        self.num_grad_updates = num_grad_updates
        self.get_interceptor: Callable | None = None
        self.intercepted_values: dict = {}
        self._slice_map: list[tuple[int, int]] = []

    def _flags(self) -> dict:
        return {"_time_major": self.time_major, "_max_seq_len": self.max_seq_len,
                "_zero_padded": self.zero_padded, "_is_training": self._is_training,
                "_num_grad_updates": self.num_grad_updates}

    def _derived(self, columns: dict, count: int, **flags: object) -> "SampleBatch":
        """A batch of already converted ``columns`` with this batch's flags (no checks: callers made them)."""
        batch = SampleBatch.__new__(SampleBatch)
        dict.update(batch, columns)
        merged = {**self._flags(), **flags}
        batch._set_flags(merged["_time_major"], merged["_max_seq_len"], merged["_zero_padded"],
                         merged["_is_training"], merged["_num_grad_updates"])
        batch.count = count
        return batch

    # -- dict behaviour -------------------------------------------------------
    def __len__(self) -> int:
        """Rows (steps) in the batch, as in RLlib; ``len(batch.keys())`` counts the columns."""
        return self.count

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._slice(key)
        value = dict.__getitem__(self, key)
        if self.get_interceptor is None:
            return value
        if key not in self.intercepted_values:
            self.intercepted_values[key] = self.get_interceptor(value)
        return self.intercepted_values[key]

    def get(self, key: str, default: object = None) -> object:
        """Column ``key`` (through the get-interceptor, if set), or ``default`` when absent."""
        try:
            return self[key]
        except KeyError:
            return default

    def __setitem__(self, key: str, value: object) -> None:
        column = _as_column(value)
        self.intercepted_values.pop(key, None)
        self._slice_map = []
        if key == self.SEQ_LENS:
            dict.__setitem__(self, key, np.asarray(column, np.int32))
            self.count = int(np.sum(column))
            return
        if _is_per_sequence(key):
            dict.__setitem__(self, key, column)
            return
        length = _column_length(key, column)
        if any(not _is_per_sequence(k) for k in dict.keys(self)) or self.SEQ_LENS in self:
            expected = self._stored_rows()
            if length != expected:
                raise ValueError(f"column {key!r} has {length} rows but the batch has {expected}; "
                                 f"every column needs one entry per row")
        else:
            self.count = length
        dict.__setitem__(self, key, column)

    def _stored_rows(self) -> int:
        """Rows a row column holds: ``count``, or sequences x ``max_seq_len`` once zero-padded."""
        if self.zero_padded and self.SEQ_LENS in self:
            return len(dict.__getitem__(self, self.SEQ_LENS)) * self.max_seq_len
        return self.count

    def __repr__(self) -> str:
        return f"SampleBatch({self.count}: {list(self)})"

    def __rlviz_summary__(self) -> str:
        """The short text rlviz traces show for this batch, e.g. ``SampleBatch(200: obs, actions, rewards, ...)``."""
        keys = list(self)
        shown = ", ".join(keys[:_REPR_COLUMNS]) + (", ..." if len(keys) > _REPR_COLUMNS else "")
        return f"SampleBatch({self.count}: {shown})" if keys else f"SampleBatch({self.count})"

    def __reduce__(self):
        return (_rebuild_batch, (dict(self), self._flags()))

    # -- flags and interception -------------------------------------------------
    def set_get_interceptor(self, fn: Callable[[Any], Any] | None) -> None:
        """Call ``fn`` on a column the first time it is read with ``batch[key]`` (cached), e.g. to make tensors.

        Examples
        --------
        >>> batch = SampleBatch(t=[1, 2])
        >>> batch.set_get_interceptor(lambda column: column * 10)
        >>> batch["t"].tolist(), dict.__getitem__(batch, "t").tolist()
        ([10, 20], [1, 2])
        """
        self.get_interceptor = fn
        self.intercepted_values = {}

    @property
    def is_training(self) -> bool:
        """Whether the batch is for a training step (vs. acting), through the get-interceptor if set."""
        if self.get_interceptor is None:
            return self._is_training
        if "_is_training" not in self.intercepted_values:
            self.intercepted_values["_is_training"] = self.get_interceptor(self._is_training)
        return self.intercepted_values["_is_training"]

    def set_training(self, training: bool = True) -> None:
        """Set the ``is_training`` flag."""
        self._is_training = training
        self.intercepted_values.pop("_is_training", None)

    # -- sizes ----------------------------------------------------------------
    def env_steps(self) -> int:
        """Environment steps in the batch (= rows for a single-agent batch)."""
        return self.count

    def agent_steps(self) -> int:
        """Agent steps in the batch (= rows for a single-agent batch)."""
        return self.count

    def size_bytes(self) -> int:
        """Bytes the columns' arrays hold (sum of ``nbytes`` over every leaf).

        Examples
        --------
        >>> SampleBatch(obs=np.zeros((4, 2), np.float32), t=np.zeros(4, np.int64)).size_bytes()
        64
        """
        return sum(_nbytes(leaf) for value in dict.values(self) for leaf in _leaves(value))

    def is_terminated_or_truncated(self) -> bool:
        """Whether the last row ends its episode (terminated or truncated).

        Examples
        --------
        >>> SampleBatch(terminateds=[False, True], truncateds=[False, False]).is_terminated_or_truncated()
        True
        """
        if self.count == 0:
            return False
        ends = [bool(self[k][-1]) for k in (self.TERMINATEDS, self.TRUNCATEDS) if k in self]
        return any(ends)

    def is_single_trajectory(self) -> bool:
        """Whether all rows belong to one episode (one ``eps_id``; else no episode end before the last row).

        Examples
        --------
        >>> SampleBatch(eps_id=[4, 4, 4]).is_single_trajectory(), SampleBatch(eps_id=[4, 5]).is_single_trajectory()
        (True, False)
        """
        if self.EPS_ID in self:
            ids = self[self.EPS_ID]
            return bool(self.count == 0 or np.all(ids == ids[0]))
        ends = [np.asarray(self[k][:-1], bool) for k in (self.TERMINATEDS, self.TRUNCATEDS) if k in self]
        if not ends:
            raise KeyError(f"is_single_trajectory needs an {self.EPS_ID!r} or {self.TERMINATEDS!r} column; "
                           f"this batch has {list(self)}")
        return not any(end.any() for end in ends)

    # -- making new batches ---------------------------------------------------
    @staticmethod
    def concat_samples(batches: Sequence["SampleBatch"]) -> "SampleBatch | MultiAgentBatch":
        """Concatenate batches row-wise (``MultiAgentBatch`` inputs concatenate per policy).

        Parameters
        ----------
        batches : sequence of SampleBatch or MultiAgentBatch
            Batches with the same columns; empty batches are skipped.

        Returns
        -------
        SampleBatch or MultiAgentBatch
            A new batch; an empty ``SampleBatch`` for no input.

        Raises
        ------
        ValueError
            If the batches do not share the same columns, or their ``zero_padded``,
            ``time_major`` or ``max_seq_len`` settings disagree (as in RLlib).

        Examples
        --------
        >>> a, b = SampleBatch(t=[0, 1]), SampleBatch(t=[2])
        >>> SampleBatch.concat_samples([a, b])["t"].tolist()
        [0, 1, 2]
        """
        return concat_samples(batches)

    def slice(self, start: int, end: int, state_start: int | None = None,
              state_end: int | None = None) -> "SampleBatch":
        """Rows ``start:end`` as a new batch (views, not copies).

        With ``seq_lens``, the sequences overlapping the rows are cut to fit:
        ``seq_lens`` and ``state_in_*`` cover them (or sequences
        ``state_start:state_end`` when given), as in RLlib.

        Examples
        --------
        >>> SampleBatch(t=[0, 1, 2, 3]).slice(1, 3)["t"].tolist()
        [1, 2]
        >>> SampleBatch(t=[0, 1, 2, 0, 1], seq_lens=[3, 2]).slice(1, 4)["seq_lens"].tolist()
        [2, 1]
        """
        if self.SEQ_LENS not in self:
            count = len(range(self.count)[start:end])
            return self._derived({k: v[start:end] if not isinstance(v, dict) else
                                  _map_leaves(lambda leaf: leaf[start:end], v) for k, v in dict.items(self)}, count)
        rows = {k: _map_leaves(lambda leaf: leaf[start:end], v) for k, v in dict.items(self)
                if not _is_per_sequence(k)}
        count = end - start
        if state_start is None:
            state_start, state_end, seq_lens = self._sequences_cut(start, end)
        else:
            seq_lens = dict.__getitem__(self, self.SEQ_LENS)[state_start:state_end].copy()
            seq_lens[-1] -= max(0, int(seq_lens.sum()) - count)
        states = {k: v[state_start:state_end] for k, v in dict.items(self) if k.startswith(_STATE_IN)}
        return SampleBatch({**rows, **states}, seq_lens=seq_lens, **{**self._flags(), "_max_seq_len": None})

    def _sequences_cut(self, start: int, end: int) -> tuple[int, int, np.ndarray]:
        """The sequences rows ``start:end`` overlap, and their lengths cut to those rows."""
        seq_lens = dict.__getitem__(self, self.SEQ_LENS)
        bounds = np.concatenate([[0], np.cumsum(seq_lens)])
        first = int(np.searchsorted(bounds, start, side="right")) - 1
        last = int(np.searchsorted(bounds, end, side="left"))
        cut = np.minimum(bounds[first + 1:last + 1], end) - np.maximum(bounds[first:last], start)
        return first, last, cut.astype(np.int32)

    def _slice(self, key: slice) -> "SampleBatch":
        if key.step not in (None, 1):
            raise ValueError(f"a SampleBatch slice takes consecutive rows; got step {key.step} in "
                             f"{key!r}; hint: use batch[{key.start}:{key.stop}] or shuffle()")
        start, stop, _ = key.indices(self.count)
        stop = max(start, stop)
        if self.SEQ_LENS not in self:
            return self.slice(start, stop)
        return self._whole_sequences(start, stop)

    def _whole_sequences(self, start: int, stop: int) -> "SampleBatch":
        """RLlib's ``batch[a:b]`` with ``seq_lens``: from the sequence holding row a to the one holding row b."""
        if not self._slice_map:
            seq_lens = dict.__getitem__(self, self.SEQ_LENS)
            offsets = np.concatenate([[0], np.cumsum(seq_lens)])
            self._slice_map = [(i, int(offsets[i])) for i, n in enumerate(seq_lens) for _ in range(int(n))]
            self._slice_map.append((len(seq_lens), int(offsets[-1])))
        first_seq, first_row = self._slice_map[start]
        last_seq, last_row = self._slice_map[stop]
        if self.zero_padded:
            first_row, last_row = first_seq * self.max_seq_len, last_seq * self.max_seq_len
        columns = {k: (v[first_seq:last_seq] if _is_per_sequence(k) else
                       _map_leaves(lambda leaf: leaf[first_row:last_row], v)) for k, v in dict.items(self)}
        count = int(np.sum(columns[self.SEQ_LENS]))
        return self._derived(columns, count)

    def timeslices(self, size: int | None = None, num_slices: int | None = None,
                   k: int | None = None) -> list["SampleBatch"]:
        """The batch cut into consecutive slices of ``size`` rows (or into ``num_slices`` slices).

        ``k`` is RLlib 1.x's name for ``size``.  With ``seq_lens`` each slice
        keeps whole sequences (``batch[a:b]``).

        Raises
        ------
        ValueError
            Unless exactly one of ``size`` and ``num_slices`` is given, as a positive int.

        Examples
        --------
        >>> [s["t"].tolist() for s in SampleBatch(t=[0, 1, 2, 3, 4]).timeslices(2)]
        [[0, 1], [2, 3], [4]]
        """
        size = k if size is None else size
        if (size is None) == (num_slices is None):
            raise ValueError(f"give exactly one of size= and num_slices=, got size={size!r}, "
                             f"num_slices={num_slices!r}")
        if num_slices is not None:
            size = max(1, int(math.ceil(self.count / num_slices)))
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive int, got {size!r}")
        return [self[start:start + size] for start in range(0, self.count, size)]

    def split_by_episode(self, key: str | None = None) -> list["SampleBatch"]:
        """Split into episodes: runs of one ``eps_id``, else cuts after each terminated/truncated row.

        Parameters
        ----------
        key : {"eps_id", "terminateds"}, optional
            Which column decides; by default ``eps_id`` when present.

        Returns
        -------
        list of SampleBatch
            One batch per episode segment, in row order (views).

        Raises
        ------
        KeyError
            If the batch has neither column (or not the one named).

        Examples
        --------
        >>> batch = SampleBatch(eps_id=[7, 7, 9, 9, 9], t=[3, 4, 0, 1, 2])
        >>> [part.count for part in batch.split_by_episode()]
        [2, 3]
        >>> [p.count for p in SampleBatch(terminateds=[False, True, False]).split_by_episode()]
        [2, 1]
        """
        if key not in (None, self.EPS_ID, self.TERMINATEDS):
            raise ValueError(f"split_by_episode splits by {self.EPS_ID!r} or {self.TERMINATEDS!r}, got {key!r}")
        key = key or (self.EPS_ID if self.EPS_ID in self else self.TERMINATEDS)
        if key not in self:
            raise KeyError(f"split_by_episode needs an {self.EPS_ID!r} or {self.TERMINATEDS!r} column; "
                           f"this batch has {list(self)}")
        if self.count == 0:
            return []
        if key == self.EPS_ID:
            ids = self[self.EPS_ID]
            cuts = np.flatnonzero(ids[1:] != ids[:-1]) + 1
        else:
            ends = np.asarray(self[self.TERMINATEDS], bool)
            if self.TRUNCATEDS in self:
                ends = ends | np.asarray(self[self.TRUNCATEDS], bool)
            cuts = np.flatnonzero(ends[:-1]) + 1
        bounds = [0, *cuts.tolist(), self.count]
        cut = self.slice if self.SEQ_LENS not in self else (lambda s, e: self[s:e])
        return [cut(s, e) for s, e in zip(bounds[:-1], bounds[1:])]

    def shuffle(self, seed: int | np.random.Generator | None = None) -> "SampleBatch":
        """Shuffle the rows in place (one permutation for every column) and return this batch, as RLlib does.

        ``seed`` (an rlviz addition) makes the order repeatable.

        Raises
        ------
        ValueError
            If the batch has ``seq_lens`` (shuffling would break its sequences).

        Examples
        --------
        >>> batch = SampleBatch(t=[0, 1, 2])
        >>> batch.shuffle(seed=0) is batch, sorted(batch["t"].tolist())
        (True, [0, 1, 2])
        """
        if self.SEQ_LENS in self:
            raise ValueError("SampleBatch.shuffle() is not possible with seq_lens (it would break the "
                             "sequences); shuffle whole sequences with timeslices() instead")
        order = np.random.default_rng(seed).permutation(self.count)
        for key, value in list(dict.items(self)):
            dict.__setitem__(self, key, _map_leaves(lambda leaf: leaf[order], value))
        self.intercepted_values = {}
        return self

    def columns(self, keys: Iterable[str]) -> list[np.ndarray]:
        """The named columns, in the order asked for.

        Raises
        ------
        KeyError
            Naming a missing column and the columns the batch has.

        Examples
        --------
        >>> rewards, = SampleBatch(rewards=[1.0, 0.5]).columns(["rewards"])
        >>> rewards.tolist()
        [1.0, 0.5]
        """
        out = []
        for key in keys:
            if key not in self:
                raise KeyError(f"no column {key!r}; the batch has {list(self)}")
            out.append(self[key])
        return out

    def rows(self) -> Iterator[dict]:
        """Yield each row as a dict of column -> value (nested columns as nested dicts).

        With ``seq_lens``, each row carries the whole ``seq_lens`` (as RLlib's
        rows do) and no ``state_in_*`` (those are per sequence).

        Examples
        --------
        >>> [int(row["t"]) for row in SampleBatch(t=[0, 1]).rows()]
        [0, 1]
        """
        row_columns = {k: v for k, v in dict.items(self) if not _is_per_sequence(k)}
        seq_lens = dict.get(self, self.SEQ_LENS)
        for i in range(self.count):
            row = {k: _map_leaves(lambda leaf: leaf[i], v) for k, v in row_columns.items()}
            if seq_lens is not None:
                row[self.SEQ_LENS] = seq_lens
            yield row

    def copy(self, shallow: bool = False) -> "SampleBatch":
        """A copy with the same flags and get-interceptor: new arrays, or (``shallow=True``) the same arrays.

        Examples
        --------
        >>> batch = SampleBatch(t=[0, 1])
        >>> batch.copy()["t"] is batch["t"], batch.copy(shallow=True)["t"] is batch["t"]
        (False, True)
        """
        columns = {k: v if shallow else _map_leaves(_copy_leaf, v) for k, v in dict.items(self)}
        out = self._derived(columns, self.count)
        out.set_get_interceptor(self.get_interceptor)
        return out

    def right_zero_pad(self, max_seq_len: int, exclude_states: bool = True) -> "SampleBatch":
        """Pad every sequence with zero rows to ``max_seq_len`` rows, in place (RLlib's layout for RNNs).

        ``count`` stays ``sum(seq_lens)``; the row columns then hold
        ``len(seq_lens) * max_seq_len`` rows, ``zero_padded`` is True and
        ``max_seq_len`` is set.  ``seq_lens`` (and ``state_in_*`` unless
        ``exclude_states=False``) are left as they are.

        Raises
        ------
        ValueError
            If the batch has no ``seq_lens`` or a sequence is longer than ``max_seq_len``.

        Examples
        --------
        >>> batch = SampleBatch(rewards=[1.0, 2.0, 3.0], seq_lens=[2, 1]).right_zero_pad(3)
        >>> batch["rewards"].tolist(), len(batch), batch.zero_padded
        ([1.0, 2.0, 0.0, 3.0, 0.0, 0.0], 3, True)
        """
        if self.SEQ_LENS not in self:
            raise ValueError("right_zero_pad pads each sequence, and this batch has no seq_lens; give it one "
                             "(e.g. SampleBatch(..., seq_lens=[len(rows)]) for a single sequence)")
        seq_lens = dict.__getitem__(self, self.SEQ_LENS)
        if len(seq_lens) and int(seq_lens.max()) > max_seq_len:
            raise ValueError(f"max_seq_len={max_seq_len} is less than the longest sequence "
                             f"({int(seq_lens.max())} rows); pad to at least that")
        starts = np.concatenate([[0], np.cumsum(seq_lens)[:-1]]).astype(np.int64)
        source = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, seq_lens)] or [np.zeros(0, int)])
        target = np.concatenate([np.arange(i * max_seq_len, i * max_seq_len + n) for i, n in enumerate(seq_lens)]
                                or [np.zeros(0, int)])
        length = len(seq_lens) * max_seq_len

        def pad(leaf: np.ndarray) -> np.ndarray:
            if leaf.dtype == object or leaf.dtype.kind in "US":
                out = np.full((length, *leaf.shape[1:]), None, dtype=object)
            else:
                out = np.zeros((length, *leaf.shape[1:]), dtype=leaf.dtype)
            out[target] = leaf[source]
            return out

        for key, value in list(dict.items(self)):
            if key == self.SEQ_LENS or (exclude_states and key.startswith(_STATE_IN)):
                continue
            dict.__setitem__(self, key, _map_leaves(pad, value))
        self.zero_padded, self.max_seq_len = True, max_seq_len
        self.intercepted_values, self._slice_map = {}, []
        return self

    def to_device(self, device: Any = "cpu", framework: str = "torch") -> "SampleBatch":
        """Turn the numeric columns into torch tensors on ``device``, in place (object/str columns stay numpy).

        Raises
        ------
        NotImplementedError
            For a framework other than torch.
        """
        if framework != "torch":
            raise NotImplementedError(f"to_device supports framework='torch' only, got {framework!r}")
        import torch

        def move(leaf: Any) -> Any:
            if isinstance(leaf, np.ndarray):
                if leaf.dtype == object or leaf.dtype.kind in "US":
                    return leaf
                leaf = torch.from_numpy(leaf if leaf.flags.writeable else leaf.copy())
            return leaf.to(device)

        for key, value in list(dict.items(self)):
            dict.__setitem__(self, key, _map_leaves(move, value))
        self.intercepted_values = {}
        return self

    def compress(self, bulk: bool = False, columns: Iterable[str] = _COMPRESSED_COLUMNS) -> "SampleBatch":
        """Pack ``columns`` (default obs, new_obs) in place: each row to text, or (``bulk``) the whole column.

        Examples
        --------
        >>> batch = SampleBatch(obs=np.ones((2, 3)), t=[0, 1]).compress()
        >>> type(batch["obs"][0]).__name__, batch.decompress_if_needed()["obs"].shape
        ('str_', (2, 3))
        """
        columns = set(columns)
        for key, value in list(dict.items(self)):
            if key in columns:
                packed = _map_leaves(lambda leaf: pack(leaf) if bulk else np.array([pack(row) for row in leaf]),
                                     value)
                dict.__setitem__(self, key, packed)
        self.intercepted_values = {}
        return self

    def decompress_if_needed(self, columns: Iterable[str] = _COMPRESSED_COLUMNS) -> "SampleBatch":
        """Unpack ``columns`` that ``compress`` packed (either way), in place; others are left alone."""
        columns = set(columns)
        for key, value in list(dict.items(self)):
            if key in columns:
                dict.__setitem__(self, key, _map_leaves(_unpacked, value))
        self.intercepted_values = {}
        return self

    def get_single_step_input_dict(self, view_requirements: Mapping[str, Any],
                                   index: str | int = "last") -> "SampleBatch":
        """A one-row input dict for computing the next action (``"last"``) or the action at row ``index``.

        ``view_requirements`` maps each input name to None or an object with a
        ``data_col`` (the column it reads; default the name) and optionally
        ``used_for_compute_actions``.  For ``"last"`` the inputs read what the
        next step would see: ``obs`` reads ``new_obs``, ``prev_actions`` reads
        ``actions``, ``prev_rewards`` reads ``rewards`` and ``state_in_i`` reads
        ``state_out_i`` of the last row.

        Examples
        --------
        >>> batch = SampleBatch(obs=[[0.0], [1.0]], new_obs=[[1.0], [2.0]], actions=[0, 1])
        >>> step = batch.get_single_step_input_dict({"obs": None, "prev_actions": None})
        >>> step["obs"].tolist(), step["prev_actions"].tolist(), step["seq_lens"].tolist()
        ([[2.0]], [1], [1])
        """
        inputs = {}
        for view_col, requirement in view_requirements.items():
            if getattr(requirement, "used_for_compute_actions", True) is False:
                continue
            data_col = getattr(requirement, "data_col", None) or view_col
            if index == "last":
                data_col = _NEXT_STEP_SOURCE.get(data_col, data_col)
                if data_col.startswith(_STATE_IN):
                    data_col = "state_out_" + data_col[len(_STATE_IN):]
                inputs[view_col] = _map_leaves(lambda leaf: leaf[-1:], self[data_col])
            else:
                inputs[view_col] = _map_leaves(lambda leaf: leaf[index:index + 1 if index != -1 else None],
                                               self[data_col])
        return SampleBatch(inputs, seq_lens=np.ones(1, np.int32))

    def as_multi_agent(self) -> "MultiAgentBatch":
        """This batch as a ``MultiAgentBatch`` with one policy, ``default_policy``."""
        return MultiAgentBatch({DEFAULT_POLICY_ID: self}, self.count)


_NEXT_STEP_SOURCE = {SampleBatch.OBS: SampleBatch.NEXT_OBS, SampleBatch.PREV_ACTIONS: SampleBatch.ACTIONS,
                     SampleBatch.PREV_REWARDS: SampleBatch.REWARDS}


class MultiAgentBatch:
    """Experience of several policies collected over the same environment steps.

    Parameters
    ----------
    policy_batches : dict of str to SampleBatch
        One batch per policy id; a step where three agents acted adds three rows.
    env_steps : int
        How many environment steps produced these rows.

    Examples
    --------
    >>> batch = MultiAgentBatch({"red": SampleBatch(t=[0, 1]), "blue": SampleBatch(t=[0, 1])}, env_steps=2)
    >>> batch
    MultiAgentBatch({'red': SampleBatch(2: ['t']), 'blue': SampleBatch(2: ['t'])}, env_steps=2)
    >>> len(batch), batch.count, batch.env_steps(), batch.agent_steps()
    (2, 2, 2, 4)
    """

    def __init__(self, policy_batches: dict[str, SampleBatch], env_steps: int) -> None:
        if not isinstance(policy_batches, dict):
            raise TypeError(f"policy_batches must be a dict of policy id -> SampleBatch, "
                            f"not {type(policy_batches).__name__}")
        self.policy_batches = policy_batches
        self.count = int(env_steps)

    def __len__(self) -> int:
        """Environment steps, as in RLlib (the same as ``count`` and ``env_steps()``)."""
        return self.count

    def env_steps(self) -> int:
        """Environment steps that produced the batch (as stored; several agents may act in one)."""
        return self.count

    def agent_steps(self) -> int:
        """Rows over all policies: one per agent per step it acted."""
        return sum(b.count for b in self.policy_batches.values())

    @staticmethod
    def wrap_as_needed(policy_batches: dict[str, SampleBatch], env_steps: int) -> "SampleBatch | MultiAgentBatch":
        """The default policy's ``SampleBatch`` alone if it is the only one, else a ``MultiAgentBatch``.

        Examples
        --------
        >>> MultiAgentBatch.wrap_as_needed({"default_policy": SampleBatch(t=[0])}, 1)
        SampleBatch(1: ['t'])
        """
        if len(policy_batches) == 1 and DEFAULT_POLICY_ID in policy_batches:
            return policy_batches[DEFAULT_POLICY_ID]
        return MultiAgentBatch(policy_batches, env_steps)

    def timeslices(self, k: int) -> list["MultiAgentBatch"]:
        """Slices of ``k`` environment steps each, every agent's rows of those steps in each slice.

        Rows are grouped into environment steps by ``(eps_id, t)`` (sorted, as
        RLlib does), so a slice's ``env_steps`` counts distinct steps.

        Raises
        ------
        KeyError
            If a policy batch lacks ``eps_id`` or ``t``.

        Examples
        --------
        >>> batch = MultiAgentBatch({"red": SampleBatch(eps_id=[1, 1], t=[0, 1]),
        ...                          "blue": SampleBatch(eps_id=[1], t=[1])}, env_steps=2)
        >>> [(s.env_steps(), s.agent_steps()) for s in batch.timeslices(1)]
        [(1, 1), (1, 2)]
        """
        check_int("k", k, minimum=1)
        steps = []
        for policy_id, batch in self.policy_batches.items():
            for column in (SampleBatch.EPS_ID, SampleBatch.T):
                if column not in batch:
                    raise KeyError(f"timeslices groups rows into env steps by eps_id and t; policy "
                                   f"{policy_id!r}'s batch has no {column!r} (it has {list(batch)})")
            agents = batch.get(SampleBatch.AGENT_INDEX, np.zeros(batch.count, np.int64))
            steps.extend(zip(batch[SampleBatch.EPS_ID].tolist(), batch[SampleBatch.T].tolist(),
                             np.asarray(agents).tolist(), itertools.repeat(str(policy_id)),
                             range(batch.count), itertools.repeat(policy_id)))
        steps.sort(key=lambda step: step[:5])
        slices, rows, size = [], {}, 0
        for _, group in itertools.groupby(steps, key=lambda step: step[:2]):
            for step in group:
                rows.setdefault(step[5], []).append(step[4])
            size += 1
            if size >= k:
                slices.append(self._take(rows, size))
                rows, size = {}, 0
        if size:
            slices.append(self._take(rows, size))
        return slices

    def _take(self, rows: dict, env_steps: int) -> "MultiAgentBatch":
        return MultiAgentBatch({pid: _take_rows(self.policy_batches[pid], np.asarray(idx))
                                for pid, idx in rows.items()}, env_steps)

    def copy(self) -> "MultiAgentBatch":
        """A deep copy."""
        return MultiAgentBatch({k: v.copy() for k, v in self.policy_batches.items()}, self.count)

    def size_bytes(self) -> int:
        """Bytes held by all policy batches' arrays."""
        return sum(b.size_bytes() for b in self.policy_batches.values())

    def compress(self, bulk: bool = False, columns: Iterable[str] = _COMPRESSED_COLUMNS) -> "MultiAgentBatch":
        """``SampleBatch.compress`` on every policy batch, in place."""
        for batch in self.policy_batches.values():
            batch.compress(bulk=bulk, columns=columns)
        return self

    def decompress_if_needed(self, columns: Iterable[str] = _COMPRESSED_COLUMNS) -> "MultiAgentBatch":
        """``SampleBatch.decompress_if_needed`` on every policy batch, in place."""
        for batch in self.policy_batches.values():
            batch.decompress_if_needed(columns)
        return self

    def to_device(self, device: Any = "cpu", framework: str = "torch") -> "MultiAgentBatch":
        """``SampleBatch.to_device`` on every policy batch, in place."""
        for batch in self.policy_batches.values():
            batch.to_device(device, framework)
        return self

    @staticmethod
    def concat_samples(batches: Sequence["MultiAgentBatch"]) -> "MultiAgentBatch":
        """Concatenate per policy; env steps add up.

        Examples
        --------
        >>> a = MultiAgentBatch({"p": SampleBatch(t=[0])}, 1)
        >>> MultiAgentBatch.concat_samples([a, a]).__rlviz_summary__()
        'MultiAgentBatch(2 env steps: p 2)'
        """
        grouped: dict[str, list[SampleBatch]] = {}
        env_steps = 0
        for batch in batches:
            multi = batch.as_multi_agent() if isinstance(batch, SampleBatch) else batch
            env_steps += multi.count
            for pid, part in multi.policy_batches.items():
                grouped.setdefault(pid, []).append(part)
        return MultiAgentBatch({pid: _concat_single(parts) for pid, parts in grouped.items()}, env_steps)

    def as_multi_agent(self) -> "MultiAgentBatch":
        """This batch (already multi-agent)."""
        return self

    def __repr__(self) -> str:
        return f"MultiAgentBatch({self.policy_batches}, env_steps={self.count})"

    def __rlviz_summary__(self) -> str:
        """Short text for traces, e.g. ``MultiAgentBatch(200 env steps: red 200, blue 200)``."""
        parts = ", ".join(f"{pid} {b.count}" for pid, b in self.policy_batches.items())
        return f"MultiAgentBatch({self.count} env steps: {parts})"


def concat_samples(batches: Sequence[SampleBatch | MultiAgentBatch]) -> SampleBatch | MultiAgentBatch:
    """Concatenate batches row-wise; see ``SampleBatch.concat_samples``."""
    batches = list(batches)
    if any(isinstance(b, MultiAgentBatch) for b in batches):
        return MultiAgentBatch.concat_samples(batches)
    return _concat_single(batches)


# -- helpers ------------------------------------------------------------------
def _rebuild_batch(columns: dict, flags: dict) -> SampleBatch:
    return SampleBatch(columns, **flags)


def _concat_single(batches: list[SampleBatch]) -> SampleBatch:
    batches = [b for b in batches if b.count > 0]
    if not batches:
        return SampleBatch()
    if len(batches) == 1:
        return batches[0]
    flags = _common_flags(batches)
    keys = list(batches[0])
    for i, batch in enumerate(batches[1:], start=1):
        if set(batch) != set(keys):
            raise ValueError(f"cannot concatenate: batch {i} has columns {sorted(batch)} "
                             f"but batch 0 has {sorted(keys)}")
    axis = 1 if flags["_time_major"] else 0
    columns = {k: _concat_leaves([dict.__getitem__(b, k) for b in batches],
                                 0 if _is_per_sequence(k) else axis) for k in keys}
    if SampleBatch.SEQ_LENS in columns:
        return SampleBatch(columns, **flags)
    return batches[0]._derived(columns, sum(b.count for b in batches), **flags)


def _common_flags(batches: list[SampleBatch]) -> dict:
    """RLlib's concat rules: zero_padded and time_major agree; max_seq_len is given by all or none."""
    first = batches[0]
    for batch in batches[1:]:
        if batch.zero_padded != first.zero_padded or batch.time_major != first.time_major:
            raise ValueError("cannot concatenate: all batches' zero_padded and time_major settings must agree, "
                             f"got {first.zero_padded}/{first.time_major} and {batch.zero_padded}/{batch.time_major}")
        if (batch.max_seq_len is None) != (first.max_seq_len is None):
            raise ValueError("cannot concatenate: either all batches have seq_lens (a max_seq_len) or none")
        if first.zero_padded and batch.max_seq_len != first.max_seq_len:
            raise ValueError(f"cannot concatenate zero-padded batches of max_seq_len {first.max_seq_len} "
                             f"and {batch.max_seq_len}; pad them to one length")
    lengths = [b.max_seq_len for b in batches if b.max_seq_len is not None]
    updates = [b.num_grad_updates for b in batches]
    mean_updates = (None if any(u is None for u in updates) else
                    sum(u * b.count for u, b in zip(updates, batches)) / sum(b.count for b in batches))
    return {"_time_major": first.time_major, "_zero_padded": first.zero_padded,
            "_max_seq_len": max(lengths) if lengths else None, "_is_training": first._is_training,
            "_num_grad_updates": mean_updates}


def _concat_leaves(values: list, axis: int) -> Any:
    if isinstance(values[0], dict):
        return {k: _concat_leaves([v[k] for v in values], axis) for k in values[0]}
    return np.concatenate(values, axis=axis)


def _take_rows(batch: SampleBatch, idx: np.ndarray) -> SampleBatch:
    return batch._derived({k: _map_leaves(lambda leaf: leaf[idx], v) for k, v in dict.items(batch)
                           if not _is_per_sequence(k)}, len(idx))


def _is_per_sequence(key: str) -> bool:
    return key == SampleBatch.SEQ_LENS or key.startswith(_STATE_IN)


def _as_column(value: object) -> Any:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Mapping):
        return {k: _as_column(v) for k, v in value.items()}
    return value if _is_tensor(value) else np.asarray(value)


def _is_tensor(value: object) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def _map_leaves(fn: Callable[[Any], Any], value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _map_leaves(fn, v) for k, v in value.items()}
    return fn(value)


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


def _copy_leaf(leaf: Any) -> Any:
    return leaf.clone() if _is_tensor(leaf) else np.array(leaf, copy=True)


def _unpacked(leaf: Any) -> Any:
    if is_compressed(leaf) or (isinstance(leaf, np.ndarray) and leaf.ndim == 0 and is_compressed(leaf.item())):
        return unpack(leaf if is_compressed(leaf) else leaf.item())
    if isinstance(leaf, np.ndarray) and leaf.ndim == 1 and len(leaf) and is_compressed(leaf[0]):
        return np.stack([unpack(row) for row in leaf])
    return leaf


def _nbytes(leaf: Any) -> int:
    if _is_tensor(leaf):
        return leaf.element_size() * leaf.nelement()
    return int(getattr(leaf, "nbytes", 0))


def _length(array: Any) -> int | str:
    return "no" if np.ndim(array) == 0 else len(array)


def _column_length(key: str, column: Any) -> int | str:
    lengths = {_length(leaf) for leaf in _leaves(column)}
    if len(lengths) > 1:
        raise ValueError(f"the leaves of column {key!r} have different lengths {sorted(map(str, lengths))}; "
                         f"every leaf needs one entry per row")
    return lengths.pop() if lengths else 0


def _count_rows(batch: SampleBatch) -> int:
    lengths = {k: _column_length(k, v) for k, v in dict.items(batch) if not _is_per_sequence(k)}
    distinct = set(lengths.values())
    if len(distinct) > 1 or "no" in distinct:
        raise ValueError(f"every column needs the same number of rows (one per step), got {lengths}")
    seq_lens = dict.get(batch, SampleBatch.SEQ_LENS)
    if seq_lens is None:
        return distinct.pop() if distinct else 0
    count = int(seq_lens.sum())
    stored = batch._stored_rows() if batch.zero_padded else count
    if distinct and distinct != {stored}:
        raise ValueError(f"the row columns have {distinct.pop()} rows but seq_lens {seq_lens.tolist()} "
                         f"{'padded to ' + str(batch.max_seq_len) + ' ' if batch.zero_padded else ''}"
                         f"need {stored}; seq_lens must add up to the rows")
    return count
