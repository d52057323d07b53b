"""Which algorithm a lane belongs to: each recorded algorithm in one driver gets its own lanes.

The first live recorded algorithm in a driver records on ``driver``,
``EnvRunner-1``, ``Learner``, ...; while it lives, a second one records on
``driver#2``, ``EnvRunner-1#2``, ``Learner#2``, ... (the lowest mark no live
algorithm holds).  The mark travels in the algorithm's config (under
``MARK_ATTR``), which RLlib hands to every EnvRunner and Learner it starts.
"""
from __future__ import annotations

import itertools
import threading
import weakref

from rlviz.trace.event import DRIVER

__all__ = ["MARK_ATTR", "lane_mark", "claim_mark", "release_mark", "driver_lane"]

#: The config attribute that carries an algorithm's lane mark ("" for the first algorithm).
MARK_ATTR = "rlviz_lane_mark"
_HELD: weakref.WeakValueDictionary = weakref.WeakValueDictionary()     # mark -> the live algorithm holding it
_LOCK = threading.Lock()


def lane_mark(config: object) -> str:
    """The lane mark an algorithm's ``config`` carries: ``""`` or ``"#2"``, ``"#3"``, ...."""
    return getattr(config, MARK_ATTR, "") or ""


def claim_mark(algorithm: object) -> str:
    """The lowest lane mark no live algorithm of this driver holds, now held by ``algorithm``."""
    with _LOCK:
        for copy in itertools.count(1):
            mark = "" if copy == 1 else f"#{copy}"
            if mark not in _HELD:
                _HELD[mark] = algorithm
                return mark


def release_mark(algorithm: object) -> None:
    """``algorithm`` stopped: its mark is free for the next algorithm."""
    with _LOCK:
        for mark, holder in list(_HELD.items()):
            if holder is algorithm:
                del _HELD[mark]


def driver_lane(mark: str) -> str:
    """The lane of an algorithm's calls on the driver: ``driver``, ``driver#2``, ..."""
    return f"{DRIVER}{mark}"
