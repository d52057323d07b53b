"""The RLlib 2.x bridge: bad input, the install hint, and real PPO runs recorded (lanes, ops, links, a restart)."""
import subprocess
import sys
import time

import pytest

pytest.importorskip("ray.rllib", reason="the RLlib 2.x bridge needs the rllib extra")

import ray  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402

import rlviz  # noqa: E402
import rlviz.rllib  # noqa: E402
from rlviz.rllib.instrument import check_ray_version  # noqa: E402
from rlviz.widgets.live import train_progress  # noqa: E402


def _ppo_config(**runners):
    return (PPOConfig().environment("CartPole-v1")
            .env_runners(num_env_runners=2, rollout_fragment_length=100, **runners)
            .training(train_batch_size_per_learner=400, minibatch_size=100, num_epochs=1))


def test_import_without_rllib_says_how_to_install():
    code = "import sys; sys.modules['ray.rllib'] = None; import rlviz.rllib"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    assert "pip install 'rlviz[rllib]'" in out.stderr


def test_import_rlviz_does_not_load_rllib():
    code = "import sys, rlviz; print('ray.rllib' in sys.modules, 'ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("config", [{"env": "CartPole-v1"}, "PPOConfig", None, PPOConfig])
def test_not_a_config_is_a_type_error(config):
    with pytest.raises(TypeError, match=r"config must be an RLlib AlgorithmConfig.*PPOConfig\(\)"):
        rlviz.rllib.instrument(config)


def test_old_api_stack_is_a_value_error_naming_the_new_one():
    old = PPOConfig().api_stack(enable_rl_module_and_learner=False, enable_env_runner_and_connector_v2=False)
    with pytest.raises(ValueError, match=r"new API stack.*enable_rl_module_and_learner=True"):
        rlviz.rllib.instrument(old)


def _base_config():
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

    return AlgorithmConfig().environment("CartPole-v1")


def _bc_config():
    from ray.rllib.algorithms.bc import BCConfig

    return BCConfig().environment("CartPole-v1")


@pytest.mark.parametrize("make", [_base_config, _bc_config], ids=["base AlgorithmConfig", "BC"])
def test_an_unsupported_algorithm_is_refused_with_the_supported_ones(make):
    with pytest.raises(ValueError, match=r"records PPO, APPO, IMPALA, DQN, SAC.*start from"):
        rlviz.rllib.instrument(make())


def test_a_subclass_of_a_supported_algorithm_is_accepted():
    from ray.rllib.algorithms.ppo import PPO

    class MyPPO(PPO):
        pass

    config = _ppo_config()
    config.algo_class = MyPPO
    assert rlviz.rllib.instrument(config).algo_class.__name__ == "RecordedMyPPO"


def test_a_runner_class_rlviz_cannot_record_is_a_type_error():
    with pytest.raises(TypeError, match="env_runner_cls must be a subclass of SingleAgentEnvRunner"):
        rlviz.rllib.instrument(PPOConfig().env_runners(env_runner_cls=object))


@pytest.mark.parametrize("version", ["2.9.3", "2.59.0", "3.0.0"])
def test_an_untested_ray_version_is_refused_with_the_tested_ones(version):
    with pytest.raises(RuntimeError, match=r"tested with Ray/RLlib 2\.60\.x.*pip install 'rlviz\[rllib\]'"):
        check_ray_version(version)


def test_instrument_returns_a_recording_copy_and_leaves_the_config_alone():
    config = _ppo_config()
    copy = rlviz.rllib.instrument(config)
    assert config.env_runner_cls is None and config.algo_class.__name__ == "PPO"
    assert copy.env_runner_cls.__name__ == "RecordedSingleAgentEnvRunner"
    assert copy.algo_class.__name__ == "RecordedPPO"
    assert copy.learner_class.__name__ == "RecordedPPOTorchLearner"
    assert rlviz.rllib.instrument(copy).algo_class is copy.algo_class      # instrumenting twice changes nothing


def _lane_ops(trace):
    lanes = {}
    for event in trace.events:
        lanes.setdefault(event.where, set()).add(event.op)
    return lanes


@pytest.mark.slow
def test_ppo_iteration_recorded_with_lanes_ops_and_links(ray_local):
    algo = rlviz.rllib.instrument(_ppo_config()).build_algo()
    try:
        with rlviz.record() as trace:
            result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled"] >= 400
    lanes = _lane_ops(trace)
    assert {"EnvRunner-1", "EnvRunner-2", "Learner", "driver"} <= set(lanes)
    for runner in ("EnvRunner-1", "EnvRunner-2"):
        assert {"sample", "get_metrics", "set_state"} <= lanes[runner], lanes[runner]
    assert {"training_step", "foreach_env_runner", "LearnerGroup.update", "sync_weights"} <= lanes["driver"]
    assert "update" in lanes["Learner"] and "get_state" in lanes["Learner"]

    events = trace.events
    samples = [e for e in events if e.op == "sample" and e.where.startswith("EnvRunner-") and e.where != "EnvRunner-0"]
    assert all("env steps" in e.item for e in samples)
    producers, consumers = trace.links()
    links = {(events[p].op, events[c].op) for p, c in zip(producers, consumers)}
    assert ("sample", "foreach_env_runner") in links
    assert ("foreach_env_runner", "update") in links and ("foreach_env_runner", "LearnerGroup.update") in links
    # the batch is followed from each remote runner's sample into the update that trained on it
    update = next(i for i, e in enumerate(events) if e.op == "update")
    fed = {events[p].item_id for p, c in zip(producers, consumers) if c == update}
    receivers = [i for i, e in enumerate(events) if e.item_id in fed]
    sources = {events[p].where for p, c in zip(producers, consumers) if c in receivers}
    assert {"EnvRunner-1", "EnvRunner-2"} <= sources
    assert "loss" in events[update].item and "batch 4" in events[update].item
    versions = trace.gauges["weights version"]                # RLlib's WEIGHTS_SEQ_NO, as each runner received it
    assert {"EnvRunner-1", "EnvRunner-2"} <= set(versions.lanes()) and versions.value.min() >= 1
    learner = versions.value[versions.where == events[update].where]  # and as the Learner's weights left it
    assert len(learner) >= 1 and learner.max() >= versions.value[versions.where == "EnvRunner-1"].max()


@pytest.mark.slow
def test_a_killed_runner_keeps_its_lane_and_its_restart_shows(ray_local):
    config = _ppo_config().fault_tolerance(restart_failed_env_runners=True)
    algo = rlviz.rllib.instrument(config).build_algo()
    try:
        with rlviz.record(collect_every_s=0.2) as trace:
            algo.train()
            before = sum(1 for e in trace.events if e.where == "EnvRunner-1" and e.op == "sample")
            victim = algo.env_runner_group._worker_manager._actors[1]
            ray.kill(victim, no_restart=False)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                result = algo.train()
                if any(e.op == "worker_restarted" for e in trace.events):
                    break
    finally:
        algo.stop()
    assert before >= 1
    lane = [e for e in trace.events if e.where == "EnvRunner-1"]
    assert len({e.pid for e in lane}) == 2, "the dead runner's events and its successor's share the lane"
    restarts = [e for e in lane if e.op == "worker_restarted"]
    assert len(restarts) == 1
    dead_pid = next(e.pid for e in lane if e.op == "sample")
    assert restarts[0].pid != dead_pid
    assert result["env_runners"]["num_env_steps_sampled"] > 0


@pytest.mark.slow
def test_an_instrumented_algorithm_can_be_watched(ray_local):
    algo = rlviz.rllib.instrument(_ppo_config()).build_algo()
    try:
        live = rlviz.watch(algo, iterations=2)
        live.join(timeout=300)
        assert live.error is None, live.error
        assert live.iterations == 2 and not live.running
        progress = train_progress(live.result)              # what the page's counters and return curve show
        assert progress["sampled"] >= 800 and progress["trained"] > 0 and progress["reward"] > 0
        lanes = _lane_ops(live.trace)
        assert {"EnvRunner-1", "EnvRunner-2", "Learner"} <= set(lanes), sorted(lanes)
        assert "sample" in lanes["EnvRunner-1"] and "update" in lanes["Learner"]
    finally:
        algo.stop()


def _one_recorded_iteration(config):
    """The trace of one ``train()`` of the instrumented ``config``'s algorithm (stopped afterwards)."""
    algo = rlviz.rllib.instrument(config).build_algo()
    try:
        with rlviz.record() as trace:
            algo.train()
    finally:
        algo.stop()
    return trace


def _sample_sources_of_update(trace):
    """The lanes whose sample() fed the first update, walking the links back through the driver's receivers."""
    events = trace.events
    producers, consumers = trace.links()
    update = next(i for i, e in enumerate(events) if e.op == "update")
    fed = {events[p].item_id for p, c in zip(producers, consumers) if c == update}
    receivers = [i for i, e in enumerate(events) if e.item_id in fed]
    return update, {events[p].where for p, c in zip(producers, consumers) if c in receivers and events[p].op == "sample"}


@pytest.mark.slow
def test_a_remote_learner_records_its_updates_on_its_own_lane_fed_by_the_runners(ray_local):
    trace = _one_recorded_iteration(_ppo_config().learners(num_learners=1))
    lanes = _lane_ops(trace)
    assert {"update", "get_state"} <= lanes["Learner"], lanes
    update, sources = _sample_sources_of_update(trace)
    driver_pid = next(e.pid for e in trace.events if e.where == "driver")
    assert trace.events[update].pid != driver_pid, "the update ran in the Learner actor, not the driver"
    assert {"EnvRunner-1", "EnvRunner-2"} <= sources
    # named after the Learner, not after the wrapper class Ray Train runs it in
    assert {e.label for e in trace.events if e.op == "update"} == {"RecordedPPOTorchLearner.update()"}


def _sources_of(trace, update):
    """The lanes whose sample() fed event ``update``, through the driver's receivers."""
    events = trace.events
    producers, consumers = trace.links()
    fed = {events[p].item_id for p, c in zip(producers, consumers) if c == update}
    receivers = {i for i, e in enumerate(events) if e.item_id in fed}
    return {events[p].where for p, c in zip(producers, consumers) if c in receivers and events[p].op == "sample"}


@pytest.mark.slow
def test_two_algorithms_in_one_driver_each_have_their_own_lanes(ray_local):
    config = rlviz.rllib.instrument(_ppo_config().env_runners(num_env_runners=1))
    first, second = config.build_algo(), config.build_algo()
    try:
        with rlviz.record() as trace:
            first.train()
            second.train()
    finally:
        first.stop()
        second.stop()
    lanes = _lane_ops(trace)
    for mark in ("", "#2"):
        assert {"training_step", "LearnerGroup.update", "sync_weights"} <= lanes[f"driver{mark}"], lanes
        assert {"sample", "set_state"} <= lanes[f"EnvRunner-1{mark}"], lanes
        assert "update" in lanes[f"Learner{mark}"], lanes
    assert not any(e.op == "worker_restarted" for e in trace.events), "the second algorithm's runner is no restart"
    for index, event in enumerate(trace.events):
        if event.op == "update":
            mark = event.where.removeprefix("Learner")
            assert _sources_of(trace, index) == {f"EnvRunner-1{mark}"}, (event.where, _sources_of(trace, index))


@pytest.mark.slow
def test_a_multi_agent_iteration_records_the_multi_agent_runners(ray_local):
    from ray.rllib.examples.envs.classes.multi_agent import MultiAgentCartPole

    config = (PPOConfig().environment(MultiAgentCartPole, env_config={"num_agents": 2})
              .multi_agent(policies={"p0", "p1"}, policy_mapping_fn=lambda agent_id, episode, **kw: f"p{agent_id}")
              .env_runners(num_env_runners=2, rollout_fragment_length=100)
              .training(train_batch_size_per_learner=400, minibatch_size=100, num_epochs=1))
    trace = _one_recorded_iteration(config)
    lanes = _lane_ops(trace)
    for runner in ("EnvRunner-1", "EnvRunner-2"):
        assert {"sample", "set_state"} <= lanes[runner], lanes
    labels = {e.label for e in trace.events if e.op == "sample"}
    assert any("RecordedMultiAgentEnvRunner" in label for label in labels), labels
    samples = [e for e in trace.events if e.op == "sample" and e.where != "EnvRunner-0"]
    assert samples and all("env steps" in e.item for e in samples)
    _, sources = _sample_sources_of_update(trace)
    assert {"EnvRunner-1", "EnvRunner-2"} <= sources


@pytest.mark.slow
def test_appo_polling_is_gathered_into_events_that_count_the_calls(ray_local):
    from ray.rllib.algorithms.appo import APPOConfig

    config = (APPOConfig().environment("CartPole-v1")
              .env_runners(num_env_runners=1, rollout_fragment_length=50)
              .training(train_batch_size_per_learner=200)
              .reporting(min_time_s_per_iteration=3))
    algo = rlviz.rllib.instrument(config).build_algo()
    try:
        started = time.monotonic()
        with rlviz.record() as trace:
            result = algo.train()
        took = time.monotonic() - started
    finally:
        algo.stop()
    calls = result["num_training_step_calls_per_iteration"]
    assert calls > 1000, "APPO's driver polls: many training_step calls find nothing ready"
    driver = [e for e in trace.events if e.where == "driver"]
    assert len(driver) / took <= 278, f"{len(driver) / took:.0f} driver events/s"
    steps = [e for e in driver if e.op == "training_step"]
    counted = sum(int(e.item.split()[0]) if "idle calls" in (e.item or "") else 1 for e in steps)
    assert calls / 2 <= counted <= calls, (counted, calls)      # the idle tail at the block's end is not recorded


def test_a_state_carries_the_weights_source_and_gives_it_up_in_a_copy():
    from rlviz.rllib.links import LINK_KEY, take_link, with_link

    state = {"rl_module": {"default_policy": {}}, "weights_seq_no": 3}
    tagged = with_link(state, 7)
    assert LINK_KEY not in state and tagged[LINK_KEY] == 7
    rest, source = take_link(tagged)
    assert rest == state and source == 7 and LINK_KEY in tagged, "taking the id leaves the tagged state alone"
    assert take_link(state) == (state, -1) and with_link(state, -1) is state


class _Episode:
    """What the bridge reads of an RLlib episode: ``custom_data`` and ``env_steps()``."""

    def __init__(self, item_id=None):
        from rlviz.rllib.links import LINK_KEY

        self.custom_data = {} if item_id is None else {LINK_KEY: item_id}

    def env_steps(self):
        return 1


class _Buffer:
    """A replay buffer that, like RLlib's, returns new episode objects when it samples."""

    def __init__(self):
        self.stored = []

    def add(self, episodes):
        self.stored.extend(episodes)

    def sample(self, num_items):
        return [_Episode() for _ in range(num_items)]


def test_a_replayed_batch_links_back_through_the_buffer_to_the_samples_that_fed_it():
    from rlviz.rllib.driver import ReplayLinks
    from rlviz.rllib.links import episodes_in, link_ids
    from rlviz.trace.spans import span

    buffer = _Buffer()
    ReplayLinks("driver").plug(buffer)
    with rlviz.record() as trace:
        with span("sample", where="EnvRunner-1") as sampled:
            pass
        buffer.add([_Episode(sampled.item_id)])
        batch = buffer.sample(2)
        with span("update", where="Learner") as update:
            update.consumed(*link_ids(episodes_in(batch)))
    events = trace.events
    links = {(events[p].op, events[c].op) for p, c in zip(*trace.links())}
    assert {("sample", "replay_buffer.add"), ("replay_buffer.add", "replay_buffer.sample"),
            ("replay_buffer.sample", "update")} <= links, links
