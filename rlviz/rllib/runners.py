"""EnvRunner subclasses that record ``sample``, ``get_state``, ``set_state`` and ``get_metrics``.

Each call is one span on the runner's lane (``EnvRunner-<worker_index>``,
with its algorithm's mark, ``rlviz.rllib.lanes``).
A remote runner reports its recorder to the driver through a thread
(``rlviz.iter.reporter``), so collection never waits behind ``sample()``;
the local runner (index 0) lives in the driver and records there.

``set_state`` is the weight sync's arrival: it lists the recorded call the
weights came from (the Learner's ``update``, or the driver's push to APPO's
and IMPALA's ``EnvRunnerStateServer``), read from a keyword the driver adds,
from the state itself, or, for the driver's local runner, from
``weights_source`` (``rlviz.rllib.links``).  A ``set_state`` inside
``sample`` is a pull from the state server.  A state that carries RLlib's
``WEIGHTS_SEQ_NO`` records it as the runner's ``"weights version"`` gauge.
"""
from __future__ import annotations

import functools
from typing import Any

import ray
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

from rlviz.iter.reporter import start_reporter
from rlviz.rllib.lanes import driver_lane, lane_mark
from rlviz.rllib.links import LINK_KEY, episodes_in, sample_summary, tag_episodes, take_link, weights_source
from rlviz.trace.gauges import WEIGHTS_VERSION, gauge
from rlviz.trace.recorder import get_recorder
from rlviz.trace.spans import span

__all__ = ["RecordedSingleAgentEnvRunner", "RecordedMultiAgentEnvRunner", "recorded_runner_class", "runner_label"]


def runner_label(worker_index: int | None, mark: str = "") -> str:
    """The lane of the runner with this index: ``EnvRunner-1``; the driver's local runner is ``EnvRunner-0``.

    ``mark`` is its algorithm's lane mark (``rlviz.rllib.lanes``): ``EnvRunner-1#2``.
    """
    return f"EnvRunner-{worker_index or 0}{mark}"


class _Recording:
    """What both recorded runners add to their RLlib base class (listed first in their bases)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        mark = lane_mark(kwargs.get("config"))
        self.rlviz_lane = runner_label(kwargs.get("worker_index"), mark)
        self.rlviz_sync = f"sync_weights@{driver_lane(mark)}"
        self.rlviz_sampling = False
        if ray.get_runtime_context().get_actor_id() is not None:
            start_reporter(self.rlviz_lane)
        super().__init__(*args, **kwargs)

    def sample(self, *args: Any, **kwargs: Any):
        with span("sample", f"{type(self).__name__}.sample()", where=self.rlviz_lane) as call:
            self.rlviz_sampling = True
            try:
                episodes = super().sample(*args, **kwargs)
            finally:
                self.rlviz_sampling = False
            if get_recorder().enabled:
                call.produced(sample_summary(episodes))
        if call.item_id >= 0:
            tag_episodes(episodes_in(episodes), call.item_id)
        return episodes

    def get_state(self, *args: Any, **kwargs: Any):
        with span("get_state", "EnvRunner.get_state()", where=self.rlviz_lane):
            return super().get_state(*args, **kwargs)

    def set_state(self, *args: Any, **kwargs: Any):
        source = kwargs.pop(LINK_KEY, -1)
        if "state" in kwargs:
            kwargs["state"], carried = take_link(kwargs["state"])
        elif args:
            state, carried = take_link(args[0])
            args = (state, *args[1:])
        else:
            carried = -1
        source = max(source, carried, weights_source.get())
        how = "pulled from the EnvRunnerStateServer" if self.rlviz_sampling else "weight sync"
        with span("set_state", f"EnvRunner.set_state() ({how})", where=self.rlviz_lane,
                  parents=(self.rlviz_sync,)) as call:
            call.consumed(*((source,) if source >= 0 else ()))
            result = super().set_state(*args, **kwargs)
        state = kwargs.get("state", args[0] if args else None)
        if isinstance(state, dict) and state.get(WEIGHTS_SEQ_NO, 0) > 0:    # the weights' version, as RLlib numbers it
            gauge(WEIGHTS_VERSION, state[WEIGHTS_SEQ_NO], where=self.rlviz_lane)
        return result

    def get_metrics(self, *args: Any, **kwargs: Any):
        with span("get_metrics", "EnvRunner.get_metrics()", where=self.rlviz_lane):
            return super().get_metrics(*args, **kwargs)


class RecordedSingleAgentEnvRunner(_Recording, SingleAgentEnvRunner):
    """``SingleAgentEnvRunner`` whose calls are recorded inside ``rlviz.record()``."""


class RecordedMultiAgentEnvRunner(_Recording, MultiAgentEnvRunner):
    """``MultiAgentEnvRunner`` whose calls are recorded inside ``rlviz.record()``."""


@functools.cache
def recorded_runner_class(base: type) -> type:
    """The recorded subclass of a user's EnvRunner class ``base`` (itself if it already records)."""
    if issubclass(base, _Recording):
        return base
    if base is SingleAgentEnvRunner:
        return RecordedSingleAgentEnvRunner
    if base is MultiAgentEnvRunner:
        return RecordedMultiAgentEnvRunner
    return type(f"Recorded{base.__name__}", (_Recording, base), {"__module__": __name__})
