"""How a batch is followed from an EnvRunner's ``sample`` to the driver and the Learner.

RLlib's episodes carry no rlviz ids, so a recorded call writes the id of
the value it produced into each episode's ``custom_data`` under ``LINK_KEY``;
the next recorded call that receives those episodes (in any process: episodes
travel by pickling, ``custom_data`` with them) lists the ids as its inputs
and, if it passes the episodes on, writes its own id over them.

Weights travel the same way: the Learner writes the id of its last
``update`` into the state dicts its ``get_state`` returns (under
``LINK_KEY``); the driver takes it out before RLlib reads the state and
hands it to each EnvRunner's ``set_state`` (a keyword for a remote runner,
``weights_source`` for the driver's local one), or, when RLlib passes a state
on whole (APPO's and IMPALA's state server), the key travels in the state
and the receiving ``set_state`` takes it out (``take_link``).
"""
from __future__ import annotations

import contextvars
from collections.abc import Iterable

from rlviz.trace.words import counted

__all__ = ["LINK_KEY", "Summary", "episodes_in", "link_ids", "tag_episodes", "sample_summary", "take_link",
           "with_link", "weights_source"]

#: The ``custom_data`` key an episode's latest rlviz id travels under.
LINK_KEY = "rlviz_id"
_MAX_DEPTH = 3
#: The id of the update whose weights the driver is syncing right now (-1: none), for the driver's local runner.
weights_source: contextvars.ContextVar[int] = contextvars.ContextVar("rlviz_weights_source", default=-1)


class Summary:
    """A value whose only content is its text in the trace (a call's item summary)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __rlviz_summary__(self) -> str:
        return self.text


def episodes_in(value: object, depth: int = 0) -> list:
    """The RLlib episodes in ``value``: an episode, or lists/tuples of them (a few levels deep)."""
    if hasattr(value, "custom_data") and hasattr(value, "env_steps"):
        return [value]
    if depth < _MAX_DEPTH and isinstance(value, (list, tuple)):
        return [episode for element in value for episode in episodes_in(element, depth + 1)]
    return []


def link_ids(episodes: Iterable) -> tuple[int, ...]:
    """The distinct rlviz ids written on ``episodes``, in first-seen order."""
    seen: dict[int, None] = {}
    for episode in episodes:
        item_id = episode.custom_data.get(LINK_KEY)
        if isinstance(item_id, int) and item_id >= 0:
            seen[item_id] = None
    return tuple(seen)


def tag_episodes(episodes: Iterable, item_id: int) -> None:
    """Write ``item_id`` on each episode (nothing if the call was not recorded, ``item_id == -1``)."""
    if item_id < 0:
        return
    for episode in episodes:
        episode.custom_data[LINK_KEY] = item_id


def sample_summary(episodes: list) -> Summary:
    """``"5 episodes, 2000 env steps"``: the item summary of a ``sample`` call."""
    steps = sum(episode.env_steps() for episode in episodes)
    return Summary(f"{counted(len(episodes), 'episode')}, {counted(steps, 'env step')}")


def take_link(state: object) -> tuple[object, int]:
    """``state`` without its ``LINK_KEY`` (a copy; ``state`` is unchanged) and the id it carried (-1: none)."""
    if not (isinstance(state, dict) and LINK_KEY in state):
        return state, -1
    rest = {key: value for key, value in state.items() if key != LINK_KEY}
    item_id = state[LINK_KEY]
    return rest, item_id if isinstance(item_id, int) else -1


def with_link(state: object, item_id: int) -> object:
    """A copy of the dict ``state`` carrying ``item_id`` under ``LINK_KEY`` (``state`` itself if there is no id)."""
    if item_id < 0 or not isinstance(state, dict):
        return state
    return {**state, LINK_KEY: item_id}
