"""The order of a trace's lanes (processes): the driver first, then the actors in natural order."""
from __future__ import annotations

import re
from collections.abc import Iterable

from rlviz.trace.event import DRIVER

__all__ = ["lane_key", "lane_order"]


_NAME = re.compile(r"(?P<name>[^#@]*)(?:#(?P<copy>\d+))?(?P<rest>.*)")


def lane_key(where: str) -> tuple:
    """Sort key of a lane name: the driver first, then natural order (``shard-2`` before ``shard-10``).

    A set of actors marked as a later copy (``shard-0#2``, ``shard-1#2``: a
    second iterator's shards while the first is alive) follows the first set
    whole, instead of interleaving with it.

    Parameters
    ----------
    where : str
        A process name as in ``Node.where`` (``"driver"``, ``"shard-0"``, ...).

    Returns
    -------
    tuple
        Whether it is an actor, its kind (the name without its number), its
        copy number, then the name's alternating text and integer parts.

    Examples
    --------
    >>> sorted(["shard-10", "driver", "shard-2"], key=lane_key)
    ['driver', 'shard-2', 'shard-10']
    >>> sorted(["shard-1#2", "shard-0#2", "shard-1", "shard-0"], key=lane_key)
    ['shard-0', 'shard-1', 'shard-0#2', 'shard-1#2']
    """
    parts = _NAME.fullmatch(where)
    name = parts["name"]
    kind = re.sub(r"\d+$", "", name)
    return where != DRIVER, _natural(kind), int(parts["copy"] or 1), _natural(name), _natural(parts["rest"])


def _natural(text: str) -> tuple:
    """``text`` as alternating text and integer parts, so numbers compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


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
