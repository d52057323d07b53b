"""The supported-algorithm matrix of the RLlib 2.x bridge, checked on real runs; docs/rllib2.md shows it.

Each entry builds one tiny instrumented algorithm, records a few ``train()``
calls and checks, on the recorded trace:

* lanes: ``driver``, ``Learner`` and one lane per EnvRunner that samples;
* spans: ``sample`` on every runner lane, ``update`` on the Learner,
  ``sync_weights`` on the driver;
* sample -> update: every runner's ``sample`` is linked (directly or through
  the driver's receiving call) to a Learner ``update``;
* weight sync: every runner lane has a ``set_state`` linked from a Learner
  ``update`` (PPO, DQN, SAC: through the driver's ``sync_weights``; APPO,
  IMPALA: through the driver's push to the state server, then the runner's pull).

``render_table()`` turns ``MATRIX`` into the table in docs/rllib2.md, and
``test_the_docs_show_this_matrix`` fails when the two differ: regenerate with
``python tests/rllib/test_matrix.py``.  An entry is in the table only if its
test here passes, so the table cannot claim what the tests do not hold.
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rllib2.md"
CHECKS = ("lanes", "sample / update / sync_weights spans", "links sample -> update", "sync arrows update -> runners")


@dataclass(frozen=True)
class Entry:
    """One supported combination: algorithm, runners, where the Learner runs."""

    algorithm: str
    runners: int
    remote_learner: bool = False
    multi_agent: bool = False
    iterations: int = 2
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        agents = "multi-agent " if self.multi_agent else ""
        learner = "remote" if self.remote_learner else "local"
        return f"{agents}{self.algorithm}, {self.runners} env runners, {learner} learner"

    @property
    def sync(self) -> str:
        if self.algorithm in ("APPO", "IMPALA") and self.runners:
            return "push to state server, runners pull"
        return "driver sets each runner's state"


MATRIX = (
    Entry("PPO", 0), Entry("PPO", 2), Entry("PPO", 2, remote_learner=True),
    Entry("PPO", 2, multi_agent=True),
    Entry("APPO", 0), Entry("APPO", 2), Entry("APPO", 2, remote_learner=True),
    Entry("IMPALA", 0), Entry("IMPALA", 2),
    Entry("DQN", 0), Entry("DQN", 2),
    Entry("SAC", 0), Entry("SAC", 2),
)
_MORE_ITERATIONS = 6
#: Combinations the bridge refuses at ``instrument()``, with the error it raises.
REFUSED = (("APPO/IMPALA with aggregator actors (num_aggregator_actors_per_learner > 0)", "ValueError"),)


def config_of(entry: Entry):
    """The tiny RLlib config of ``entry`` (CartPole, or Pendulum for SAC; few steps per iteration)."""

    if entry.algorithm == "PPO":
        from ray.rllib.algorithms.ppo import PPOConfig
        config = PPOConfig().training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1)
    elif entry.algorithm in ("APPO", "IMPALA"):
        from ray.rllib.algorithms.appo import APPOConfig
        from ray.rllib.algorithms.impala import IMPALAConfig
        config = (APPOConfig() if entry.algorithm == "APPO" else IMPALAConfig())
        config = config.training(train_batch_size_per_learner=100, broadcast_interval=1).reporting(
            min_time_s_per_iteration=2)
    elif entry.algorithm == "DQN":
        from ray.rllib.algorithms.dqn import DQNConfig
        config = DQNConfig().training(num_steps_sampled_before_learning_starts=50, train_batch_size=32,
                                      target_network_update_freq=50)
        config = config.reporting(min_sample_timesteps_per_iteration=100)
    else:
        from ray.rllib.algorithms.sac import SACConfig
        config = SACConfig().training(num_steps_sampled_before_learning_starts=50, train_batch_size=32)
        config = config.reporting(min_sample_timesteps_per_iteration=100)
    if entry.multi_agent:
        from ray.rllib.examples.envs.classes.multi_agent import MultiAgentCartPole
        config = config.environment(MultiAgentCartPole, env_config={"num_agents": 2}).multi_agent(
            policies={"p0", "p1"}, policy_mapping_fn=lambda agent_id, episode, **kw: f"p{agent_id}")
    else:
        config = config.environment("Pendulum-v1" if entry.algorithm == "SAC" else "CartPole-v1")
    fragment = 25 if entry.algorithm in ("APPO", "IMPALA", "DQN", "SAC") else 50
    return (config.env_runners(num_env_runners=entry.runners, rollout_fragment_length=fragment)
            .learners(num_learners=1 if entry.remote_learner else 0))


def recorded(entry: Entry):
    """The trace of ``entry.iterations`` recorded ``train()`` calls of ``entry``'s instrumented algorithm, and up to
    ``_MORE_ITERATIONS`` more while its checks do not hold yet."""
    import rlviz
    import rlviz.rllib

    algo = rlviz.rllib.instrument(config_of(entry)).build_algo()
    try:
        if entry.algorithm in ("APPO", "IMPALA"):
            _warm_up(algo)
        with rlviz.record() as trace:
            for _ in range(entry.iterations):
                algo.train()
            # APPO's and IMPALA's Learner thread hands out weights when an update is done, which a loaded machine
            # may not reach within two short iterations: a few more, until the checks hold or the tries run out
            for _ in range(_MORE_ITERATIONS):
                if not failed_checks(entry, trace):
                    break
                algo.train()
    finally:
        algo.stop()
    return trace


def _warm_up(algo, within_s: float = 120.0) -> None:
    """Train outside ``record()`` until the Learner trained once: APPO's first samples wait seconds for the
    state server's process to start (longer on a loaded machine), and a test recording only that wait sees nothing."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        result = algo.train()
        if result.get("learners", {}).get("__all_modules__", {}).get("num_env_steps_trained_lifetime", 0) > 0:
            return
    raise AssertionError(f"{type(algo).__name__} trained nothing in {within_s:.0f} s")


def runner_lanes(entry: Entry) -> list[str]:
    return [f"EnvRunner-{i}" for i in (range(1, entry.runners + 1) if entry.runners else (0,))]


def failed_checks(entry: Entry, trace) -> dict[str, str]:
    """Each of ``CHECKS`` that does not hold on ``trace``, with what was found instead.

    A live trace (read inside its block) is read from one snapshot: two reads of it may see two refreshes,
    and event indices from one would not match the links of the other.
    """
    if hasattr(trace, "snapshot"):
        trace = trace.snapshot()
    events = trace.events
    lanes: dict[str, set[str]] = {}
    for event in events:
        lanes.setdefault(event.where, set()).add(event.op)
    runners = runner_lanes(entry)
    failed = {}
    missing = {"driver", "Learner", *runners} - set(lanes)
    if missing:
        failed["lanes"] = f"missing {sorted(missing)} in {sorted(lanes)}"
    spans = [f"sample on {lane}" for lane in runners if "sample" not in lanes.get(lane, ())]
    spans += [] if "update" in lanes.get("Learner", ()) else ["update on Learner"]
    spans += [] if "sync_weights" in lanes.get("driver", ()) else ["sync_weights on driver"]
    if spans:
        failed["sample / update / sync_weights spans"] = f"missing {spans}"
    reached = _reached_from(trace, lambda e: e.op == "update" and e.where == "Learner")
    fed = {events[i].where for i in _reaching(trace, lambda e: e.op == "update" and e.where == "Learner")
           if events[i].op == "sample"}
    if not set(runners) <= fed:
        failed["links sample -> update"] = f"samples of {sorted(fed)} reach an update, not all of {runners}"
    synced = {events[i].where for i in reached if events[i].op == "set_state"}
    through = {events[i].op for i in reached if events[i].where == "driver"}
    if not set(runners) <= synced or "sync_weights" not in through:
        failed["sync arrows update -> runners"] = (f"set_state linked from an update on {sorted(synced)}, "
                                                    f"driver calls on the way {sorted(through)}")
    return failed


def _links(trace) -> list[tuple[int, int]]:
    producers, consumers = trace.links()
    return list(zip(producers, consumers))


def _walk(start: set[int], step: dict[int, list[int]]) -> set[int]:
    seen, todo = set(start), list(start)
    while todo:
        for nxt in step.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen - start


def _reached_from(trace, is_start) -> set[int]:
    """Events a link path leads to from an event ``is_start`` accepts."""
    forward: dict[int, list[int]] = {}
    for producer, consumer in _links(trace):
        forward.setdefault(producer, []).append(consumer)
    return _walk({i for i, e in enumerate(trace.events) if is_start(e)}, forward)


def _reaching(trace, is_end) -> set[int]:
    """Events a link path leads from to an event ``is_end`` accepts."""
    backward: dict[int, list[int]] = {}
    for producer, consumer in _links(trace):
        backward.setdefault(consumer, []).append(producer)
    return _walk({i for i, e in enumerate(trace.events) if is_end(e)}, backward)


def render_table() -> str:
    """The matrix as the Markdown table docs/rllib2.md shows."""
    rows = ["| algorithm | env runners | learner | weight sync | " + " | ".join(CHECKS) + " |",
            "|---|---|---|---|" + "---|" * len(CHECKS)]
    for entry in MATRIX:
        algorithm = f"{entry.algorithm} (multi-agent)" if entry.multi_agent else entry.algorithm
        learner = "remote (`num_learners=1`)" if entry.remote_learner else "local (`num_learners=0`)"
        rows.append(f"| {algorithm} | {entry.runners} | {learner} | {entry.sync} | "
                    + " | ".join("yes" for _ in CHECKS) + " |")
    for combination, error in REFUSED:
        rows.append(f"| {combination} | | | refused at `instrument()` with a `{error}` naming what is supported |"
                    + " |" * len(CHECKS))
    return "\n".join(rows)


_START, _END = "<!-- matrix:start -->", "<!-- matrix:end -->"


def docs_table(text: str) -> str:
    """The table between the matrix markers of docs/rllib2.md."""
    found = re.search(re.escape(_START) + r"\n(.*?)\n" + re.escape(_END), text, re.S)
    return found.group(1) if found else ""


def test_the_docs_show_this_matrix():
    assert docs_table(DOCS.read_text()) == render_table(), "regenerate it: python tests/rllib/test_matrix.py"


@pytest.mark.slow
@pytest.mark.parametrize("entry", MATRIX, ids=[entry.name for entry in MATRIX])
def test_matrix_entry_holds(ray_local, entry):
    pytest.importorskip("ray.rllib", reason="the RLlib 2.x bridge needs the rllib extra")
    trace = recorded(entry)
    assert failed_checks(entry, trace) == {}


def test_aggregator_actors_are_refused_naming_what_is_supported():
    pytest.importorskip("ray.rllib", reason="the RLlib 2.x bridge needs the rllib extra")
    import rlviz.rllib
    from ray.rllib.algorithms.appo import APPOConfig

    config = APPOConfig().environment("CartPole-v1").learners(num_aggregator_actors_per_learner=1)
    with pytest.raises(ValueError, match=r"aggregator actors.*num_aggregator_actors_per_learner=0"):
        rlviz.rllib.instrument(config)


if __name__ == "__main__":
    text = DOCS.read_text()
    if _START not in text:
        sys.exit(f"{DOCS} has no {_START} ... {_END} markers to write the matrix between")
    block = re.compile(re.escape(_START) + r".*?" + re.escape(_END), re.S)
    DOCS.write_text(block.sub(lambda _: f"{_START}\n{render_table()}\n{_END}", text, count=1))
