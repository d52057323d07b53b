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

The weight sync is a ``sync_weights`` span on the driver's lane linked to
the Learner's ``update`` whose weights it carries (``WeightSync``): PPO, DQN
and SAC call ``EnvRunnerGroup.sync_weights``, whose ``set_state`` on each
runner links to that update too; APPO and IMPALA push the state to RLlib's
``EnvRunnerStateServer`` (recorded as the ``sync_weights`` span that builds
the pushed state), and each runner's pull at the top of ``sample`` links to
that push.  DQN's and SAC's replay buffer is recorded on the driver too
(``ReplayLinks``), so a replayed batch links back to the samples that fed it.
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
from rlviz.rllib.links import LINK_KEY, Summary, episodes_in, link_ids, tag_episodes, take_link, weights_source, with_link
from rlviz.rllib.runners import runner_label
from rlviz.trace.event import Node
from rlviz.trace.recorder import get_recorder
from rlviz.trace.rows import ERROR, ITEM
from rlviz.trace.spans import span
from rlviz.trace.words import counted

__all__ = ["recorded_algorithm_class", "IdleCalls", "IDLE_EVERY_S", "WeightSync", "ReplayLinks"]

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
            WeightSync(self.rlviz_lane, mark).plug(group, self.learner_group)
            group.probe_unhealthy_env_runners = IdleCalls(
                "probe_unhealthy_env_runners", "EnvRunnerGroup.probe_unhealthy_env_runners() (restores)",
                self.rlviz_lane).wrap(group.probe_unhealthy_env_runners)
        if getattr(self, "local_replay_buffer", None) is not None:       # DQN, SAC
            ReplayLinks(self.rlviz_lane).plug(self.local_replay_buffer)
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
            call.produced(Summary(f"{counted(len(results), 'result')}, {counted(len(episodes), 'episode')}"))
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


class WeightSync:
    """One algorithm's weight sync on the driver: ``sync_weights`` spans linked from the update to the runners.

    Parameters
    ----------
    lane : str
        The algorithm's driver lane.
    mark : str
        The algorithm's lane mark (``rlviz.rllib.lanes``).
    """

    def __init__(self, lane: str, mark: str) -> None:
        self.lane = lane
        self.parents = (f"get_state@{LEARNER_LANE}{mark}", f"update@{LEARNER_LANE}{mark}")
        self.source = -1            # the update whose weights the running sync carries (-1: none)
        self.syncing = False

    def plug(self, group: Any, learner_group: Any) -> None:
        """Wrap the methods of ``group`` (EnvRunnerGroup) and ``learner_group`` the weights pass through."""
        group.sync_weights = self._sync(group.sync_weights)
        group.foreach_env_runner_async_fetch_ready = self._addressed(group.foreach_env_runner_async_fetch_ready)
        group.get_merged_env_runner_state = self._push(group.get_merged_env_runner_state)
        group.sync_env_runner_states = self._passed_on(group.sync_env_runner_states)
        if learner_group is not None:
            learner_group.get_state = self._weights_out(learner_group.get_state)

    def _sync(self, sync_weights: Callable) -> Callable:
        """``EnvRunnerGroup.sync_weights`` (PPO, DQN, SAC): its runners' ``set_state`` calls link to the update."""

        @functools.wraps(sync_weights)
        def recorded(*args: Any, **kwargs: Any):
            with span("sync_weights", "EnvRunnerGroup.sync_weights() (Learner -> EnvRunners)", where=self.lane,
                      parents=self.parents) as call:
                self.source, self.syncing = -1, True
                token = weights_source.set(-1)
                try:
                    result = sync_weights(*args, **kwargs)
                finally:
                    weights_source.reset(token)
                    self.syncing = False
                call.consumed(*((self.source,) if self.source >= 0 else ()))
                return result

        return recorded

    def _weights_out(self, get_state: Callable) -> Callable:
        """``LearnerGroup.get_state``: takes the update's id out of the state before RLlib reads it."""

        @functools.wraps(get_state)
        def recorded(*args: Any, **kwargs: Any):
            state = get_state(*args, **kwargs)
            learner_state, source = take_link(state.get("learner") if isinstance(state, dict) else None)
            if source < 0:
                return state
            if self.syncing:
                self.source = source
                weights_source.set(source)           # for the driver's local runner, until the sync ends
            return {**state, "learner": learner_state}

        return recorded

    def _addressed(self, fetch: Callable) -> Callable:
        """``foreach_env_runner_async_fetch_ready``: a sync's remote ``set_state`` calls get the update's id."""

        @functools.wraps(fetch)
        def recorded(*args: Any, **kwargs: Any):
            func = kwargs.get("func", args[0] if args else None)
            if func == "set_state" and self.syncing and self.source >= 0 and isinstance(kwargs.get("kwargs"), dict):
                kwargs["kwargs"] = {**kwargs["kwargs"], LINK_KEY: self.source}
            return fetch(*args, **kwargs)

        return recorded

    def _push(self, merge: Callable) -> Callable:
        """``get_merged_env_runner_state`` (APPO, IMPALA): the state pushed to the state server, linked to the update."""

        @functools.wraps(merge)
        def recorded(*args: Any, **kwargs: Any):
            kwargs["rl_module_state"], source = take_link(kwargs.get("rl_module_state"))
            with span("sync_weights", "push to the EnvRunnerStateServer (Learner -> server; EnvRunners pull)",
                      where=self.lane, parents=self.parents) as call:
                call.consumed(*((source,) if source >= 0 else ()))
                state = merge(*args, **kwargs)
            return with_link(state, call.item_id)

        return recorded

    def _passed_on(self, sync_states: Callable) -> Callable:
        """``sync_env_runner_states`` with weights (APPO, IMPALA without a state server): the id travels in the state."""

        @functools.wraps(sync_states)
        def recorded(*args: Any, **kwargs: Any):
            if not kwargs.get("rl_module_state"):
                return sync_states(*args, **kwargs)
            _, source = take_link(kwargs["rl_module_state"])
            with span("sync_weights", "EnvRunnerGroup.sync_env_runner_states() (Learner -> EnvRunners)",
                      where=self.lane, parents=self.parents) as call:
                call.consumed(*((source,) if source >= 0 else ()))
                return sync_states(*args, **kwargs)

        return recorded


class ReplayLinks:
    """A replay buffer's ``add`` and ``sample`` as spans on the driver, so a replayed batch links back to its samples.

    RLlib's buffers build new episode objects when they sample, with no trace
    of the stored episodes they came from, so ids cannot ride on the episodes
    through the buffer.  Instead ``add`` is a span that consumes the ids the
    added episodes carry, and ``sample`` a span that consumes the ``add``
    calls since the previous ``sample`` (the data new in the buffer; a batch
    may also draw on older data, whose ``add`` links to an earlier ``sample``)
    and writes its own id on the episodes it returns, which the update then
    consumes.

    Parameters
    ----------
    lane : str
        The algorithm's driver lane.
    """

    def __init__(self, lane: str) -> None:
        self.lane = lane
        self.added: list[int] = []

    def plug(self, buffer: Any) -> None:
        """Wrap ``buffer.add`` and ``buffer.sample``."""
        name = type(buffer).__name__
        buffer.add = self._added(buffer.add, f"{name}.add()")
        buffer.sample = self._sampled(buffer.sample, f"{name}.sample()")

    def _added(self, add: Callable, label: str) -> Callable:
        @functools.wraps(add)
        def recorded(episodes: Any, *args: Any, **kwargs: Any):
            with span("replay_buffer.add", label, where=self.lane, parents=(f"foreach_env_runner@{self.lane}",)) as call:
                if get_recorder().enabled:
                    call.consumed(*link_ids(episodes_in(episodes if isinstance(episodes, (list, tuple)) else [episodes])))
                result = add(episodes, *args, **kwargs)
            if call.item_id >= 0:
                self.added.append(call.item_id)
            return result

        return recorded

    def _sampled(self, sample: Callable, label: str) -> Callable:
        @functools.wraps(sample)
        def recorded(*args: Any, **kwargs: Any):
            with span("replay_buffer.sample", label, where=self.lane,
                      parents=(f"replay_buffer.add@{self.lane}",)) as call:
                call.consumed(*self.added)
                result = sample(*args, **kwargs)
                if get_recorder().enabled:
                    call.produced(Summary(f"{len(result)} replayed episode pieces"))
            if call.item_id >= 0:
                self.added = []
                tag_episodes(episodes_in(result), call.item_id)
            return result

        return recorded


def _base_name(cls: type) -> str:
    """The name of the RLlib algorithm under the recorded subclass (``PPO``)."""
    return next(base.__name__ for base in cls.__mro__ if not issubclass(base, _Recording))
