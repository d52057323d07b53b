"""A Learner subclass that records each ``update`` (batch size, loss) and ``get_state`` on the Learner's lane.

``update`` lists the ``sample`` calls whose episodes it trains on (APPO and
IMPALA hand it references to the episodes, which it resolves first), and
the state ``get_state`` returns carries the id of the last recorded update
(``rlviz.rllib.links``), so the weight sync links back to it.  That state's
``WEIGHTS_SEQ_NO`` (RLlib's count of the Learner's updates) is recorded as
the Learner's ``"weights version"`` gauge, beside each runner's.

With ``num_learners=0`` the Learner lives in the driver and its lane is
drawn from the driver's recorder; a remote Learner reports like a remote
EnvRunner.  The subclass is made per algorithm, since each has its own
Learner class (``PPOTorchLearner``, ``DQNTorchLearner``, ...).
"""
from __future__ import annotations

import functools
import math
from numbers import Number
from typing import Any

import ray
from ray.rllib.core.learner.learner import Learner
from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

from rlviz.iter.reporter import start_reporter
from rlviz.rllib.lanes import driver_lane, lane_mark
from rlviz.rllib.links import Summary, episodes_in, link_ids, with_link
from rlviz.trace.gauges import WEIGHTS_VERSION, gauge
from rlviz.trace.recorder import get_recorder
from rlviz.trace.spans import span

__all__ = ["recorded_learner_class", "LEARNER_LANE", "update_summary"]

#: The lane of the (single) Learner; with several remote Learners each adds its actor id (and each
#: algorithm after the first its mark, ``rlviz.rllib.lanes``).
LEARNER_LANE = "Learner"
_LOSS_KEYS = ("total_loss", "policy_loss", "qf_loss")


@functools.cache
def recorded_learner_class(base: type) -> type:
    """The recorded subclass of the Learner class ``base`` (one class per base).

    Parameters
    ----------
    base : type
        A subclass of RLlib's ``Learner``.

    Returns
    -------
    type
        ``Recorded<base name>``, a subclass of ``base`` (``base`` itself if it records already).

    Raises
    ------
    TypeError
        If ``base`` is not a ``Learner`` class.
    """
    if not (isinstance(base, type) and issubclass(base, Learner)):
        raise TypeError(f"learner_class must be a subclass of ray.rllib.core.learner.Learner, got {base!r}; "
                        f"pass the algorithm's Learner class (config.learner_class)")
    if issubclass(base, _Recording):
        return base
    return type(f"Recorded{base.__name__}", (_Recording, base), {"__module__": __name__})


class _Recording:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        mark = lane_mark(self.config)
        actor_id = ray.get_runtime_context().get_actor_id()
        many = actor_id is not None and self.config.num_learners > 1
        self.rlviz_lane = f"{LEARNER_LANE}-{actor_id[:6]}{mark}" if many else f"{LEARNER_LANE}{mark}"
        self.rlviz_update = f"LearnerGroup.update@{driver_lane(mark)}"
        self.rlviz_weights_of = -1          # the id of the last recorded update: the weights' source
        if actor_id is not None:
            start_reporter(self.rlviz_lane)

    def update(self, *args: Any, **kwargs: Any):
        with span("update", f"{_recorded_name(type(self))}.update()", where=self.rlviz_lane,
                  parents=(self.rlviz_update,)) as call:
            recording = get_recorder().enabled
            episodes = _episodes_of(kwargs) if recording else []
            call.consumed(*link_ids(episodes))
            results = super().update(*args, **kwargs)
            if recording:
                call.produced(update_summary(episodes, results))
        if call.item_id >= 0:
            self.rlviz_weights_of = call.item_id
        return results

    def get_state(self, *args: Any, **kwargs: Any):
        with span("get_state", "Learner.get_state() (weights out)", where=self.rlviz_lane,
                  parents=(f"update@{self.rlviz_lane}",)) as call:
            call.consumed(*((self.rlviz_weights_of,) if self.rlviz_weights_of >= 0 else ()))
            state = super().get_state(*args, **kwargs)
        if isinstance(state, dict) and WEIGHTS_SEQ_NO in state:   # the version its weights leave with
            gauge(WEIGHTS_VERSION, state[WEIGHTS_SEQ_NO], where=self.rlviz_lane)
        return with_link(state, self.rlviz_weights_of) if get_recorder().enabled else state


def _recorded_name(cls: type) -> str:
    """``RecordedPPOTorchLearner``: the recorded class, also when Ray Train runs it under a wrapper subclass."""
    return next(klass.__name__ for klass in cls.__mro__ if _Recording in klass.__bases__)


def update_summary(episodes: list, results: object) -> Summary:
    """``"batch 4000 env steps, loss 0.31"`` (the loss when the results carry one)."""
    steps = sum(episode.env_steps() for episode in episodes)
    loss = _find_loss(results)
    text = f"batch {steps} env steps" if episodes else "batch"
    return Summary(text if loss is None else f"{text}, loss {loss:.4g}")


def _episodes_of(kwargs: dict) -> list:
    """The episodes an ``update`` call trains on; references to them (APPO, IMPALA) are resolved first."""
    episodes = kwargs.get("episodes")
    data = kwargs.get("training_data")
    if episodes is None and data is not None:
        if getattr(data, "episodes_refs", None) is not None:
            data.solve_refs()              # RLlib's own first step of the update; a second call does nothing
        episodes = getattr(data, "episodes", None)
    return episodes_in(list(episodes)) if episodes else []


def _find_loss(results: object, depth: int = 0) -> float | None:
    """The first loss number in RLlib's (nested) result dict, or None."""
    if not isinstance(results, dict) or depth > 3:
        return None
    for key in _LOSS_KEYS:
        value = _number(results.get(key))
        if value is not None:
            return value
    for value in results.values():
        found = _find_loss(value, depth + 1)
        if found is not None:
            return found
    return None


def _number(value: object) -> float | None:
    if value is not None and hasattr(value, "peek"):     # RLlib's Stats objects
        try:
            value = value.peek()
        except Exception:  # noqa: BLE001 - a stats object that cannot be read has no loss to show
            return None
    if hasattr(value, "item") and not isinstance(value, Number):
        try:
            value = value.item()
        except (TypeError, ValueError):
            return None
    if isinstance(value, Number) and not isinstance(value, bool) and math.isfinite(float(value)):
        return float(value)
    return None
