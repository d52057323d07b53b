"""Trainer config: an RLlib 1.x config is accepted where consistent, values are checked at construction,
and recreate_failed_workers replaces a killed worker and rebuilds the plan."""
import numpy as np
import pytest
from waits import wait_until_dead

import rlviz
from rlviz.iter.actors import actor_label
from rlviz.plans import Trainer
from rlviz.rollout import WorkerCrashedError

RLLIB_STYLE = {"num_workers": 0, "env": "CartPole-v1", "framework": "torch", "num_gpus": 0,
               "rollout_fragment_length": 10, "train_batch_size": 20, "lr": 0.01}


def test_an_rllib_config_with_num_workers_and_env_is_accepted():
    trainer = Trainer("pg", config=RLLIB_STYLE)
    try:
        assert trainer.config["num_workers"] == 0 and trainer.env == "CartPole-v1"
        assert trainer.workers.num_healthy_remote_workers() == 0
        assert trainer.train()["timesteps_total"] == 20
    finally:
        trainer.stop()
    same = Trainer("pg", "CartPole-v1", 0, config=RLLIB_STYLE)        # given twice, agreeing
    same.stop()


def test_worker_set_keys_reach_the_workers():
    trainer = Trainer("pg", num_workers=0, config={"recreate_failed_workers": True, "num_cpus_per_worker": 0.5,
                                                   "env_config": {"max_episode_steps": 7}})
    try:
        assert trainer.workers.config.recreate_failed_workers is True
        assert trainer.workers.config.num_cpus_per_worker == 0.5
        assert trainer.workers.config.env_config == {"max_episode_steps": 7}
        batch = trainer.workers.local_worker().sample()
        assert int(batch["t"].max()) <= 6, "episodes end after 7 steps"
    finally:
        trainer.stop()


@pytest.mark.parametrize("threads", [1, None])
def test_the_learner_computes_with_num_cpus_for_driver_torch_threads(threads):
    """The learner's torch uses ``num_cpus_for_driver`` threads while train() runs (None: torch's own), then
    the caller's setting is back."""
    import torch

    trainer = Trainer("pg", config={**RLLIB_STYLE, "num_cpus_for_driver": threads})
    worker = trainer.workers.local_worker()
    seen, learn = [], worker.learn_on_batch
    worker.learn_on_batch = lambda batch: seen.append(torch.get_num_threads()) or learn(batch)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        trainer.train()
        assert seen == [1 if threads == 1 else 2]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
        trainer.stop()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"num_workers": 1, "config": {"num_workers": 0}}, ValueError,
     r"num_workers=1 contradicts config\['num_workers'\]=0; give it once"),
    ({"env": "Acrobot-v1", "config": {"num_workers": 0, "env": "CartPole-v1"}}, ValueError,
     r"env='Acrobot-v1' contradicts config\['env'\]='CartPole-v1'"),
    ({"config": {"num_workers": 0, "framework": "tf"}}, ValueError,
     r"config\['framework'\]='tf' cannot be honoured: rlviz's policies are torch modules; use 'torch'"),
    ({"config": {"num_workers": 0, "num_gpus": 1}}, ValueError, r"config\['num_gpus'\]=1 cannot be honoured"),
    ({"config": {"num_workers": 0, "log_level": "INFO"}}, ValueError, "unknown pg config key 'log_level'"),
    ({"config": {"num_workers": 0, "num_worker": 1}}, ValueError, "did you mean 'num_workers'"),
    ({"config": {"num_workers": "2"}}, TypeError, "num_workers must be an int"),
    ({"config": {"num_workers": 0, "train_batch_size": 1.5}}, TypeError, r"config\['train_batch_size'\] must be an int"),
    ({"config": {"num_workers": 0, "timesteps_per_iteration": float("inf")}}, TypeError,
     r"config\['timesteps_per_iteration'\] must be an int"),
    ({"config": {"num_workers": 0, "train_batch_size": 0}}, ValueError, r"config\['train_batch_size'\] must be an int >= 1"),
    ({"config": {"num_workers": 0, "min_iter_time_s": float("nan")}}, ValueError,
     r"config\['min_iter_time_s'\] must be a finite number >= 0, got nan"),
    ({"config": {"num_workers": 0, "lr": float("nan")}}, ValueError, "lr must be a finite number > 0, got nan"),
    ({"config": {"num_workers": 0, "recreate_failed_workers": "yes"}}, TypeError, "must be True or False"),
    ({"config": {"num_workers": 0, "num_cpus_for_driver": 0}}, ValueError,
     r"config\['num_cpus_for_driver'\] must be an int >= 1"),
])
def test_contradictions_and_bad_values_fail_at_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        Trainer("pg", **kwargs)


def test_dqn_values_are_checked_with_the_config_key_named():
    with pytest.raises(ValueError, match="training_intensity must be a finite number > 0, got nan"):
        Trainer("dqn", num_workers=0, config={"training_intensity": float("nan")})
    with pytest.raises(ValueError, match=r"config\['buffer_size'\] must be an int >= 1, got 0"):
        Trainer("dqn", num_workers=0, config={"buffer_size": 0})
    with pytest.raises(TypeError, match=r"config\['target_network_update_freq'\] must be an int"):
        Trainer("dqn", num_workers=0, config={"target_network_update_freq": "x"})


def _weights_equal(a, b):
    return all(np.array_equal(a[pid][name], b[pid][name]) for pid in a for name in a[pid])


@pytest.mark.slow  # starts, kills and restarts torch actors: ~30 s on 2 cores
def test_killed_worker_is_recreated_and_training_continues(ray_local):
    import ray

    trainer = Trainer("dqn", config={"num_workers": 2, "recreate_failed_workers": True, "learning_starts": 16,
                                     "timesteps_per_iteration": 40, "train_batch_size": 32, "seed": 0})
    try:
        before = trainer.train()
        dead = trainer.workers.remote_workers()[0]
        ray.kill(dead, no_restart=True)
        wait_until_dead(dead)            # ray.kill is asynchronous
        with rlviz.record() as trace:
            after = trainer.train()
        assert after["training_iteration"] == 2
        assert after["timesteps_total"] > before["timesteps_total"], "counters carry over the rebuilt plan"
        assert trainer.workers.num_restarts == 1 and trainer.workers.num_healthy_remote_workers() == 2
        assert dead not in trainer.workers.remote_workers()
        local = trainer.workers.local_worker().get_weights()
        for weights in trainer.workers.foreach_worker(lambda w: w.get_weights(), local_worker=False):
            assert _weights_equal(local, weights)
        ops = [e.op for e in trace.events]
        assert ops.count("worker_restarted") == 1 and ops.count("plan_rebuilt") == 1
        samplers = {e.where for e in trace.events if e.op == "sample" and e.where != "driver"}
        assert len(samplers) == 2, "both workers, the new one included, sampled after the rebuild"
        assert trainer.train()["training_iteration"] == 3
    finally:
        trainer.stop()


@pytest.mark.slow  # starts, kills and restarts torch actors
def test_a_worker_killed_inside_a_recorded_block_keeps_its_lane(ray_local):
    import ray
    from waits import mirrored_events, wait_for

    trainer = Trainer("dqn", config={"num_workers": 2, "recreate_failed_workers": True, "learning_starts": 16,
                                     "timesteps_per_iteration": 40, "train_batch_size": 32, "seed": 0})
    try:
        dead = trainer.workers.remote_workers()[0]
        dead_lane = actor_label(dead)
        with rlviz.record(collect_every_s=0.2) as trace:
            trainer.train()
            wait_for(lambda: any(e.op == "sample" for e in mirrored_events(dead_lane, trace)),
                     "the periodic pulls to mirror the doomed worker's sampling")
            ray.kill(dead, no_restart=True)
            wait_until_dead(dead)            # ray.kill is asynchronous
            trainer.train()
        samplers = {e.pid for e in trace.events if e.op == "sample" and e.where == dead_lane}
        assert len(samplers) == 2, "the killed worker's sampling before it died, then its replacement's"
    finally:
        trainer.stop()


@pytest.mark.slow
def test_without_recreate_a_killed_worker_fails_train(ray_local):
    import ray

    trainer = Trainer("dqn", num_workers=1, config={"learning_starts": 16, "timesteps_per_iteration": 40,
                                                    "train_batch_size": 32})
    try:
        trainer.train()
        doomed = trainer.workers.remote_workers()[0]
        ray.kill(doomed, no_restart=True)
        wait_until_dead(doomed)            # ray.kill is asynchronous
        with pytest.raises((ray.exceptions.RayActorError, WorkerCrashedError)):
            trainer.train()
    finally:
        trainer.stop()


@pytest.mark.slow  # torch actors and a train() long enough to interrupt
def test_a_train_interrupted_by_ctrl_c_rebuilds_the_plan_on_the_next_train(ray_local, ctrl_c):
    import _thread
    import threading

    trainer = Trainer("dqn", num_workers=1, config={"learning_starts": 16, "timesteps_per_iteration": 100_000,
                                                    "train_batch_size": 32})
    timer = threading.Timer(1.5, _thread.interrupt_main)
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            trainer.train()
        trainer.config["timesteps_per_iteration"] = 100     # the rebuilt plan reads the config afresh
        with rlviz.record() as trace:
            result = trainer.train()
        assert result["training_iteration"] == 1
        rebuilt = [e for e in trace.events if e.op == "plan_rebuilt"]
        assert len(rebuilt) == 1 and "KeyboardInterrupt" in rebuilt[0].item
    finally:
        timer.cancel()
        trainer.stop()
