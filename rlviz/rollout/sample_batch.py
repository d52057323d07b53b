"""``SampleBatch`` and ``MultiAgentBatch``: the columns of experience that flow between workers.

Plain numpy data, cheap to pickle across Ray actors.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["SampleBatch", "MultiAgentBatch", "DEFAULT_POLICY_ID", "concat_samples"]

#: The policy id a single-agent worker uses.
DEFAULT_POLICY_ID = "default_policy"

_REPR_COLUMNS = 3


class SampleBatch(dict):
    """A batch of experience: a dict of equally long numpy columns, one row per step.

    As in RLlib 1.x, it is a dict of columns (iterating, ``in`` and ``keys()``
    see column names) whose ``len()`` is its row count, the same as ``count``;
    a slice ``batch[a:b]`` is a batch of those rows.

    Parameters
    ----------
    columns : mapping of str to array-like, optional
        The columns; each is converted with ``np.asarray``.
    **more : array-like
        More columns given as keywords.

    Raises
    ------
    ValueError
        If the columns do not all have the same length.

    Examples
    --------
    >>> batch = SampleBatch(obs=[[0.0], [1.0], [2.0]], actions=[1, 0, 1], rewards=[1.0, 1.0, 0.0])
    >>> batch
    SampleBatch(3: ['obs', 'actions', 'rewards'])
    >>> len(batch), batch.count, list(batch), "obs" in batch
    (3, 3, ['obs', 'actions', 'rewards'], True)
    >>> batch[1:]["actions"].tolist()
    [0, 1]
    """

    OBS = "obs"
    ACTIONS = "actions"
    REWARDS = "rewards"
    TERMINATEDS = "terminateds"
    TRUNCATEDS = "truncateds"
    NEXT_OBS = "new_obs"
    EPS_ID = "eps_id"
    AGENT_INDEX = "agent_index"
    T = "t"
    ACTION_LOGP = "action_logp"
    VF_PREDS = "vf_preds"
    Q_VALUES = "q_values"
    ADVANTAGES = "advantages"
    VALUE_TARGETS = "value_targets"

    def __init__(self, columns: Mapping[str, object] | None = None, **more: object) -> None:
        super().__init__()
        for key, value in {**(columns if columns is not None else {}), **more}.items():
            dict.__setitem__(self, key, np.asarray(value))
        self.count = _common_length(self)

    # -- dict behaviour -------------------------------------------------------
    def __len__(self) -> int:
        """Rows (steps) in the batch, as in RLlib; ``len(batch.keys())`` counts the columns."""
        return self.count

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise ValueError(f"a SampleBatch slice takes consecutive rows; got step {key.step} in "
                                 f"{key!r}; hint: use batch[{key.start}:{key.stop}] or shuffle()")
            start, stop, _ = key.indices(self.count)
            return self.slice(start, max(start, stop))
        return dict.__getitem__(self, key)

    def __setitem__(self, key: str, value: object) -> None:
        array = np.asarray(value)
        if dict.__len__(self) and (array.ndim == 0 or len(array) != self.count):
            raise ValueError(f"column {key!r} has {_length(array)} rows but the batch has "
                             f"{self.count}; every column needs one entry per row")
        dict.__setitem__(self, key, array)
        self.count = len(array)

    def __repr__(self) -> str:
        return f"SampleBatch({self.count}: {list(self)})"

    def __rlviz_summary__(self) -> str:
        """The short text rlviz traces show for this batch, e.g. ``SampleBatch(200: obs, actions, rewards, ...)``."""
        keys = list(self)
        shown = ", ".join(keys[:_REPR_COLUMNS]) + (", ..." if len(keys) > _REPR_COLUMNS else "")
        return f"SampleBatch({self.count}: {shown})" if keys else f"SampleBatch({self.count})"

    def __reduce__(self):
        return (SampleBatch, (dict(self),))

    # -- sizes ----------------------------------------------------------------
    def env_steps(self) -> int:
        """Environment steps in the batch (= rows for a single-agent batch)."""
        return self.count

    def agent_steps(self) -> int:
        """Agent steps in the batch (= rows for a single-agent batch)."""
        return self.count

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
            If the batches do not share the same columns.

        Examples
        --------
        >>> a, b = SampleBatch(t=[0, 1]), SampleBatch(t=[2])
        >>> SampleBatch.concat_samples([a, b])["t"].tolist()
        [0, 1, 2]
        """
        return concat_samples(batches)

    def slice(self, start: int, end: int) -> "SampleBatch":
        """Rows ``start:end`` as a new batch (its columns are views, not copies).

        Examples
        --------
        >>> SampleBatch(t=[0, 1, 2, 3]).slice(1, 3)["t"].tolist()
        [1, 2]
        """
        return SampleBatch({k: v[start:end] for k, v in self.items()})

    def split_by_episode(self) -> list["SampleBatch"]:
        """Split into runs of consecutive rows sharing one ``eps_id``.

        Returns
        -------
        list of SampleBatch
            One batch per episode segment, in row order (views).

        Raises
        ------
        KeyError
            If the batch has no ``eps_id`` column.

        Examples
        --------
        >>> batch = SampleBatch(eps_id=[7, 7, 9, 9, 9], t=[3, 4, 0, 1, 2])
        >>> [part.count for part in batch.split_by_episode()]
        [2, 3]
        """
        if self.EPS_ID not in self:
            raise KeyError(f"split_by_episode needs an {self.EPS_ID!r} column; this batch has {list(self)}")
        ids = self[self.EPS_ID]
        if self.count == 0:
            return []
        cuts = np.flatnonzero(ids[1:] != ids[:-1]) + 1
        bounds = [0, *cuts.tolist(), self.count]
        return [self.slice(s, e) for s, e in zip(bounds[:-1], bounds[1:])]

    def shuffle(self, seed: int | np.random.Generator | None = None) -> "SampleBatch":
        """The rows in a random order, as a new batch (this one is left as it is).

        Examples
        --------
        >>> sorted(SampleBatch(t=[0, 1, 2]).shuffle(seed=0)["t"].tolist())
        [0, 1, 2]
        """
        order = np.random.default_rng(seed).permutation(self.count)
        return SampleBatch({k: v[order] for k, v in self.items()})

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
        """Yield each row as a dict of column -> value.

        Examples
        --------
        >>> [int(row["t"]) for row in SampleBatch(t=[0, 1]).rows()]
        [0, 1]
        """
        for i in range(self.count):
            yield {k: v[i] for k, v in self.items()}

    def copy(self) -> "SampleBatch":
        """A deep copy (new arrays)."""
        return SampleBatch({k: v.copy() for k, v in self.items()})

    def right_zero_pad(self, max_len: int) -> "SampleBatch":
        """A new batch padded with zero rows at the end up to ``max_len`` rows.

        Raises
        ------
        ValueError
            If the batch already has more than ``max_len`` rows.

        Examples
        --------
        >>> SampleBatch(rewards=[1.0, 2.0]).right_zero_pad(4)["rewards"].tolist()
        [1.0, 2.0, 0.0, 0.0]
        """
        if max_len < self.count:
            raise ValueError(f"max_len={max_len} is less than the batch's {self.count} rows; "
                             f"slice the batch first")
        padded = {}
        for key, value in self.items():
            out = np.zeros((max_len, *value.shape[1:]), dtype=value.dtype)
            out[:self.count] = value
            padded[key] = out
        return SampleBatch(padded)

    def as_multi_agent(self) -> "MultiAgentBatch":
        """This batch as a ``MultiAgentBatch`` with one policy, ``default_policy``."""
        return MultiAgentBatch({DEFAULT_POLICY_ID: self}, self.count)


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
        """Environment steps that produced the batch."""
        return self.count

    def agent_steps(self) -> int:
        """Rows over all policies: one per agent per step it acted."""
        return sum(b.count for b in self.policy_batches.values())

    def copy(self) -> "MultiAgentBatch":
        """A deep copy."""
        return MultiAgentBatch({k: v.copy() for k, v in self.policy_batches.items()}, self.count)

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
def _concat_single(batches: list[SampleBatch]) -> SampleBatch:
    batches = [b for b in batches if b.count > 0]
    if not batches:
        return SampleBatch()
    if len(batches) == 1:
        return batches[0]
    keys = list(batches[0])
    for i, batch in enumerate(batches[1:], start=1):
        if set(batch) != set(keys):
            raise ValueError(f"cannot concatenate: batch {i} has columns {sorted(batch)} "
                             f"but batch 0 has {sorted(keys)}")
    return SampleBatch({k: np.concatenate([b[k] for b in batches]) for k in keys})


def _length(array: np.ndarray) -> int | str:
    return "no" if array.ndim == 0 else len(array)


def _common_length(columns: dict) -> int:
    lengths = {k: _length(v) for k, v in columns.items()}
    distinct = set(lengths.values())
    if not distinct:
        return 0
    if len(distinct) > 1 or "no" in distinct:
        raise ValueError(f"every column needs the same number of rows (one per step), got {lengths}")
    return distinct.pop()
