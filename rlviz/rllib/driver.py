"""The driver's side: an Algorithm subclass that records ``training_step()`` and its calls into both groups.

Inside ``training_step`` the calls into the ``EnvRunnerGroup``
(``foreach_env_runner``: what ``synchronous_parallel_sample`` and weight sync
call; ``sync_weights``; ``probe_unhealthy_env_runners``: RLlib's restarts) and
into the ``LearnerGroup`` (``update``) are spans on the driver's lane, so the
graph reads driver -> runners -> learner -> weight sync.  APPO and IMPALA
call ``training_step`` (and ``probe_unhealthy_env_runners``) thousands of
times a second, mostly to find nothing ready: a call that returns nothing and
records nothing is gathered into one event per ``IDLE_EVERY_S`` carrying how
many such calls it stands for (``IdleCalls``).  Each algorithm
claims a lane mark when it is built (``rlviz.rllib.lanes``), so two
algorithms in one driver never share lanes.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

from rlviz.iter.reporter import hub_handle
from rlviz.rllib.lanes import MARK_ATTR, claim_mark, driver_lane, lane_mark, release_mark
from rlviz.rllib.learner import LEARNER_LANE
from rlviz.rllib.links import Summary, episodes_in, link_ids, tag_episodes
from rlviz.rllib.runners import runner_label
from rlviz.trace.event import Node
from rlviz.trace.recorder import get_recorder
from rlviz.trace.rows import ERROR, ITEM
from rlviz.trace.spans import span

__all__ = ["recorded_algorithm_class", "IdleCalls", "IDLE_EVERY_S"]

#: How long one event of gathered idle calls lasts at most (seconds).
IDLE_EVERY_S = 0.5


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
            group.probe_unhealthy_env_runners = IdleCalls(
                "probe_unhealthy_env_runners", "EnvRunnerGroup.probe_unhealthy_env_runners() (restores)",
                self.rlviz_lane).wrap(group.probe_unhealthy_env_runners)
        if self.learner_group is not None:
            self.learner_group.update = _training(self.learner_group.update, self.rlviz_lane)
        self.rlviz_steps = IdleCalls("training_step", f"{_base_name(type(self))}.training_step()",
                                     self.rlviz_lane).wrap(super().training_step)

    def training_step(self) -> Any:
        return self.rlviz_steps()

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            release_mark(self)


class IdleCalls:
    """Records calls of one op, gathering those that return nothing and record nothing into one event per interval.

    A call that returns something (not None, not empty) or during which this
    process recorded another event is one event, as ``span`` records it.  Idle
    calls in a row make one event from the first one's start to the last
    one's end, at most ``every_s`` long, whose item says how many calls it
    stands for; it is recorded when the interval is full or a busy call
    follows (the idle calls at the very end of a block are not).

    Parameters
    ----------
    op, label, lane : str
        The op, label and lane of the events.
    every_s : float
        The longest span of idle calls one event covers (seconds).
    """

    def __init__(self, op: str, label: str, lane: str, every_s: float = IDLE_EVERY_S) -> None:
        self.op, self.label, self.lane = op, label, lane
        self.every_ns = int(every_s * 1e9)
        self.count, self.first_ns, self.last_ns = 0, 0, 0

    def wrap(self, method: Callable) -> Callable:
        """``method`` recorded this way."""

        @functools.wraps(method)
        def recorded(*args: Any, **kwargs: Any):
            recorder = get_recorder()
            if not recorder.enabled:
                self.count = 0                   # a block's idle tail does not leak into the next one
                return method(*args, **kwargs)
            held, start = recorder.held, time.time_ns()
            try:
                result = method(*args, **kwargs)
            except BaseException:
                self._flush()
                recorder.record(self._node(), start, time.time_ns(), ERROR)
                raise
            end = time.time_ns()
            if _is_empty(result) and recorder.held == held:
                self._add(start, end)
                return result
            self._flush()
            if result is None:
                recorder.record(self._node(), start, end, ITEM)
            else:
                recorder.record(self._node(), start, end, ITEM, result)
            return result

        return recorded

    def _add(self, start_ns: int, end_ns: int) -> None:
        if self.count and end_ns - self.first_ns > self.every_ns:
            self._flush()
        if not self.count:
            self.first_ns = start_ns
        self.count, self.last_ns = self.count + 1, end_ns

    def _flush(self) -> None:
        if not self.count:
            return
        get_recorder().record(self._node(), self.first_ns, self.last_ns, ITEM,
                              Summary(f"{self.count} idle calls (returned nothing, recorded nothing)"))
        self.count = 0

    def _node(self) -> int:
        return get_recorder().register(Node(f"{self.op}@{self.lane}", self.op, self.label, self.lane))


def _is_empty(result: object) -> bool:
    return result is None or (isinstance(result, (list, tuple, dict, set)) and not result)


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
