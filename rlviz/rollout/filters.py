"""Observation filters as RLlib's: ``NoFilter`` and ``MeanStdFilter`` (running mean/std normalisation).

A ``MeanStdFilter`` keeps two running statistics: ``running_stats`` (everything
it has seen, or been synced to) and ``buffer`` (what it saw since the last
flush). Workers send their buffers to the driver, which merges them into the
global statistics and syncs every worker back: RLlib's ``FilterManager`` cycle.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["RunningStat", "NoFilter", "MeanStdFilter", "get_filter", "FILTER_NAMES"]

FILTER_NAMES = ("NoFilter", "MeanStdFilter")


class RunningStat:
    """Count, mean and sum of squared deviations of the rows pushed so far (Welford, merged batch-wise).

    Examples
    --------
    >>> stat = RunningStat((2,))
    >>> stat.push(np.array([[1.0, 2.0], [3.0, 6.0]]))
    >>> stat.n, stat.mean.tolist(), stat.std.tolist()
    (2, [2.0, 4.0], [1.4142135623730951, 2.8284271247461903])
    """

    def __init__(self, shape: tuple[int, ...] = ()) -> None:
        self.shape = tuple(shape)
        self.n = 0
        self.mean_ = np.zeros(self.shape)
        self.sum_sq = np.zeros(self.shape)

    def push(self, rows: np.ndarray) -> None:
        """Add a batch of rows (axis 0), or one row of ``shape``."""
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, *self.shape)
        if len(rows):
            self._merge(len(rows), rows.mean(axis=0), ((rows - rows.mean(axis=0)) ** 2).sum(axis=0))

    def update(self, other: "RunningStat") -> None:
        """Merge another statistic into this one (parallel Welford)."""
        self._merge(other.n, other.mean_, other.sum_sq)

    def copy(self) -> "RunningStat":
        """An independent copy."""
        out = RunningStat(self.shape)
        out.n, out.mean_, out.sum_sq = self.n, self.mean_.copy(), self.sum_sq.copy()
        return out

    @property
    def mean(self) -> np.ndarray:
        """The running mean."""
        return self.mean_

    @property
    def var(self) -> np.ndarray:
        """Sample variance (RLlib's: the square of the mean while fewer than two rows were seen)."""
        return self.sum_sq / (self.n - 1) if self.n > 1 else np.square(self.mean_)

    @property
    def std(self) -> np.ndarray:
        """Square root of ``var``."""
        return np.sqrt(self.var)

    def _merge(self, n: int, mean: np.ndarray, sum_sq: np.ndarray) -> None:
        if n == 0:
            return
        total = self.n + n
        delta = mean - self.mean_
        self.mean_ = self.mean_ + delta * n / total
        self.sum_sq = self.sum_sq + sum_sq + delta ** 2 * self.n * n / total
        self.n = total


class NoFilter:
    """Passes observations through unchanged (RLlib's default ``observation_filter``)."""

    def __call__(self, obs: Any, update: bool = True) -> Any:
        return obs

    def apply_changes(self, other: "NoFilter", with_buffer: bool = False) -> None:
        """Nothing to merge."""

    def sync(self, other: "NoFilter") -> None:
        """Nothing to copy."""

    def clear_buffer(self) -> None:
        """Nothing buffered."""

    def copy(self) -> "NoFilter":
        return NoFilter()

    def as_serializable(self) -> "NoFilter":
        return self.copy()


class MeanStdFilter:
    """``y = clip((x - mean) / (std + 1e-8), -clip, clip)`` with running statistics, as RLlib's.

    Parameters
    ----------
    shape : tuple of int
        One observation's shape.
    demean, destd : bool
        Subtract the mean / divide by the standard deviation.
    clip : float or None
        Clip the result to ``[-clip, clip]`` (RLlib's default 10).

    Examples
    --------
    >>> f = MeanStdFilter((1,))
    >>> _ = f(np.array([[1.0], [3.0]]))
    >>> f.running_stats.n, f.buffer.n, f.running_stats.mean.tolist()
    (2, 2, [2.0])
    """

    def __init__(self, shape: tuple[int, ...], demean: bool = True, destd: bool = True,
                 clip: float | None = 10.0) -> None:
        self.shape = tuple(shape)
        self.demean, self.destd, self.clip = demean, destd, clip
        self.running_stats = RunningStat(self.shape)
        self.buffer = RunningStat(self.shape)

    def __call__(self, obs: Any, update: bool = True) -> np.ndarray:
        """Normalise one observation or a batch of them (axis 0), first counting them when ``update``."""
        x = np.asarray(obs)
        out_dtype = x.dtype if np.issubdtype(x.dtype, np.floating) else np.float32
        if update:
            self.running_stats.push(x)
            self.buffer.push(x)
        y = x.astype(np.float64)
        if self.demean:
            y = y - self.running_stats.mean
        if self.destd:
            y = y / (self.running_stats.std + 1e-8)
        if self.clip is not None:
            y = np.clip(y, -self.clip, self.clip)
        return y.astype(out_dtype)

    def apply_changes(self, other: "MeanStdFilter", with_buffer: bool = False) -> None:
        """Merge ``other``'s buffer (what it saw since its last flush) into this filter's statistics.

        With ``with_buffer`` the rows also enter this filter's own buffer, so
        they travel on at the next flush.
        """
        self.running_stats.update(other.buffer)
        if with_buffer:
            self.buffer.update(other.buffer)

    def sync(self, other: "MeanStdFilter") -> None:
        """Take ``other``'s settings and statistics; the rows this filter saw since its last flush are
        re-applied on top (rebased), so a sample taken between the flush and the sync is not lost."""
        self.demean, self.destd, self.clip = other.demean, other.destd, other.clip
        self.running_stats = other.running_stats.copy()
        self.running_stats.update(self.buffer)

    def clear_buffer(self) -> None:
        """Forget the rows counted since the last flush (they were sent)."""
        self.buffer = RunningStat(self.shape)

    def copy(self) -> "MeanStdFilter":
        """An independent copy with both statistics."""
        out = MeanStdFilter(self.shape, self.demean, self.destd, self.clip)
        out.running_stats, out.buffer = self.running_stats.copy(), self.buffer.copy()
        return out

    def as_serializable(self) -> "MeanStdFilter":
        """A copy to send to another process."""
        return self.copy()

    def __repr__(self) -> str:
        return f"MeanStdFilter({self.shape}, n={self.running_stats.n}, buffered={self.buffer.n})"


def get_filter(name: str, shape: tuple[int, ...]) -> NoFilter | MeanStdFilter:
    """The filter called ``name`` (``"NoFilter"`` or ``"MeanStdFilter"``) for observations of ``shape``.

    Raises
    ------
    ValueError
        For any other name, listing the valid ones.
    """
    if name == "MeanStdFilter":
        return MeanStdFilter(shape, clip=None)
    if name == "NoFilter":
        return NoFilter()
    raise ValueError(f"unknown observation_filter {name!r}; use one of {list(FILTER_NAMES)}")
