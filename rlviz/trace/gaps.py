"""Where a bounded recorder's evicted events lay: one ``Gap`` per process that dropped some.

Past ``capacity`` a process's recorder evicts its oldest chunks and counts
their events in ``dropped``; it also keeps the time span they covered
(``Recorder.gap_ns``).  The store turns each process's span into a ``Gap``
on the driver's clock, so a view can mark on that process's lane where
events are missing and how many.
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["Gap"]


class Gap(NamedTuple):
    """``dropped`` events of lane ``where`` were evicted from between ``start_ns`` and ``end_ns`` (driver clock).

    Examples
    --------
    >>> Gap("driver", 100, 30_815, 3072).dropped
    3072
    """

    where: str
    start_ns: int
    end_ns: int
    dropped: int
