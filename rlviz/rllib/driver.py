"""The driver's side: an Algorithm subclass that records ``training_step()`` and its calls into both groups.

Inside ``training_step`` the calls into the ``EnvRunnerGroup``
(``foreach_env_runner``: what ``synchronous_parallel_sample`` and weight sync
call; ``sync_weights``; ``probe_unhealthy_env_runners``: RLlib's restarts) and
into the ``LearnerGroup`` (``update``) are spans on the driver's lane, so the
graph reads driver -> runners -> learner -> weight sync.  Each algorithm
claims a lane mark when it is built (``rlviz.rllib.lanes``), so two
algorithms in one driver never share lanes.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

from rlviz.iter.reporter import hub_handle
from rlviz.rllib.lanes import MARK_ATTR, claim_mark, driver_lane, lane_mark, release_mark
from rlviz.rllib.learner import LEARNER_LANE
from rlviz.rllib.links import Summary, episodes_in, link_ids, tag_episodes
from rlviz.rllib.runners import runner_label
from rlviz.trace.recorder import get_recorder
from rlviz.trace.spans import span

__all__ = ["recorded_algorithm_class"]


@functools.cache
def recorded_algorithm_class(base: type) -> type:
    """The recorded subclass of the Algorithm class ``base`` (one class per base).

    Parameters
    ----------
    base : type
        A subclass of RLlib's ``Algorithm`` (``PPO``, ``DQN``, ...).

    Returns
    -------
    type
        ``Recorded<base name>`` (``base`` itself if it records already).

    Raises
    ------
    TypeError
        If ``base`` is not an ``Algorithm`` class.
    """
    if not (isinstance(base, type) and issubclass(base, Algorithm)):
        raise TypeError(f"the config's algo_class must be a subclass of ray.rllib.algorithms.Algorithm, got "
                        f"{base!r}; start from the algorithm's own config (PPOConfig(), DQNConfig(), ...)")
    if issubclass(base, _Recording):
        return base
    return type(f"Recorded{base.__name__}", (_Recording, base), {"__module__": __name__})


class _Recording:
    def __init__(self, config: Any = None, *args: Any, **kwargs: Any) -> None:
        if isinstance(config, AlgorithmConfig):     # the mark reaches every EnvRunner and Learner in the config
            config = config.copy(copy_frozen=False)
            setattr(config, MARK_ATTR, claim_mark(self))
        super().__init__(config, *args, **kwargs)

    def setup(self, config: Any) -> None:
        hub_handle(create=True)            # before the EnvRunners start, so their reporters find it at once
        super().setup(config)
        mark = lane_mark(self.config)
        self.rlviz_lane = driver_lane(mark)
        group = self.env_runner_group
        if group is not None:
            runners = tuple(f"sample@{runner_label(i, mark)}" for i in range(1, self.config.num_env_runners + 1))
            group.foreach_env_runner = _received(group.foreach_env_runner, self.rlviz_lane,
                                                 runners or (f"sample@{runner_label(0, mark)}",))
            group.sync_weights = _spanned("sync_weights", "EnvRunnerGroup.sync_weights()", group.sync_weights,
                                          self.rlviz_lane, (f"get_state@{LEARNER_LANE}{mark}",))
            group.probe_unhealthy_env_runners = _spanned(
                "probe_unhealthy_env_runners", "EnvRunnerGroup.probe_unhealthy_env_runners() (restores)",
                group.probe_unhealthy_env_runners, self.rlviz_lane)
        if self.learner_group is not None:
            self.learner_group.update = _training(self.learner_group.update, self.rlviz_lane)

    def training_step(self) -> Any:
        with span("training_step", f"{_base_name(type(self))}.training_step()", where=self.rlviz_lane):
            return super().training_step()

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            release_mark(self)


def _received(foreach: Callable, lane: str, runners: tuple[str, ...]) -> Callable:
    """``foreach_env_runner`` recorded as the driver call that receives the runners' results."""

    @functools.wraps(foreach)
    def recorded(*args: Any, **kwargs: Any):
        with span("foreach_env_runner", "EnvRunnerGroup.foreach_env_runner()", where=lane,
                  parents=runners) as call:
            results = foreach(*args, **kwargs)
            if not get_recorder().enabled:
                return results
            episodes = episodes_in(results)
            call.consumed(*link_ids(episodes))
            call.produced(Summary(f"{len(results)} results, {len(episodes)} episodes"))
        tag_episodes(episodes, call.item_id)
        return results

    return recorded


def _training(update: Callable, lane: str) -> Callable:
    """``LearnerGroup.update`` recorded with the driver calls whose episodes it trains on."""

    @functools.wraps(update)
    def recorded(*args: Any, **kwargs: Any):
        with span("LearnerGroup.update", "LearnerGroup.update()", where=lane,
                  parents=(f"foreach_env_runner@{lane}",)) as call:
            if get_recorder().enabled:
                call.consumed(*link_ids(episodes_in(list(kwargs.get("episodes") or ()))))
            return update(*args, **kwargs)

    return recorded


def _spanned(op: str, label: str, method: Callable, lane: str, parents: tuple[str, ...] = ()) -> Callable:
    @functools.wraps(method)
    def recorded(*args: Any, **kwargs: Any):
        with span(op, label, where=lane, parents=parents) as call:
            result = method(*args, **kwargs)
            if result is not None and get_recorder().enabled:
                call.produced(result)
            return result

    return recorded


def _base_name(cls: type) -> str:
    """The name of the RLlib algorithm under the recorded subclass (``PPO``)."""
    return next(base.__name__ for base in cls.__mro__ if not issubclass(base, _Recording))
