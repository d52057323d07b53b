"""The order of a trace's lanes (processes): the driver first, then the actors in natural order."""
from __future__ import annotations

import re
from collections.abc import Iterable

from rlviz.trace.event import DRIVER

__all__ = ["lane_key", "lane_order"]


def lane_key(where: str) -> tuple:
    """Sort key of a lane name: the driver first, then natural order (``shard-2`` before ``shard-10``).

    Parameters
    ----------
    where : str
        A process name as in ``Node.where`` (``"driver"``, ``"shard-0"``, ...).

    Returns
    -------
    tuple
        Whether it is an actor, then its alternating text and integer parts.

    Examples
    --------
    >>> sorted(["shard-10", "driver", "shard-2"], key=lane_key)
    ['driver', 'shard-2', 'shard-10']
    """
    return where != DRIVER, *(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", where))


def lane_order(wheres: Iterable[str]) -> list[str]:
    """The distinct lane names of ``wheres`` in lane order (see ``lane_key``).

    Parameters
    ----------
    wheres : iterable of str
        Process names; repeats are fine.

    Returns
    -------
    list of str

    Examples
    --------
    >>> lane_order(["RolloutWorker-10", "driver", "RolloutWorker-9", "driver"])
    ['driver', 'RolloutWorker-9', 'RolloutWorker-10']
    """
    return sorted(set(wheres), key=lane_key)
