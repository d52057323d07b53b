"""Each plan trains a few iterations with 2 remote workers; Trainer config checks; save/restore."""
import json
import math
import time

import numpy as np
import pytest

import rlviz
from rlviz.plans import Trainer

pytestmark = pytest.mark.usefixtures("ray_local")

TINY = {
    "pg": {"rollout_fragment_length": 20, "train_batch_size": 40},
    "a2c": {"rollout_fragment_length": 20, "train_batch_size": 40, "microbatch_size": 20},
    "a3c": {"rollout_fragment_length": 20, "timesteps_per_iteration": 40},
    "dqn": {"learning_starts": 16, "timesteps_per_iteration": 40, "train_batch_size": 32},
    "apex": {"learning_starts": 32, "timesteps_per_iteration": 100, "rollout_fragment_length": 20},
}
NAMED = {
    "pg": {"ParallelRollouts", "ConcatBatches", "TrainOneStep", "CollectMetrics"},
    "a2c": {"ComputeGradients", "AverageGradients", "ApplyGradients"},
    "a3c": {"AsyncGradients", "ApplyGradients"},
    "dqn": {"StoreToReplayBuffer", "Replay", "TrainOneStep", "UpdateTargetNetwork", "Concurrently"},
    "apex": {"StoreToReplayBuffer", "Replay", "Enqueue", "Dequeue", "UpdatePriorities", "Concurrently"},
}


@pytest.mark.parametrize("plan", list(TINY))
def test_plan_trains_a_few_iterations(plan):
    trainer = Trainer(plan, num_workers=2, config=TINY[plan])
    try:
        assert NAMED[plan] <= {n.op for n in trainer.dataflow()}
        results = [trainer.train() for _ in range(3)]
    finally:
        trainer.stop()
    steps = [r["timesteps_total"] for r in results]
    assert steps == sorted(steps) and steps[0] > 0 and steps[-1] > steps[0]
    assert results[-1]["num_steps_trained"] > 0
    assert results[-1]["training_iteration"] == 3
    assert not math.isnan(results[-1]["episode_reward_mean"])   # CartPole episodes are short at first
    assert {"counters", "timers", "info", "episode_len_mean"} <= set(results[-1])


def test_dqn_trains_at_the_weights_ratio_and_records_the_order():
    # native ratio 32 / (4 * 2) = 4; training_intensity 16 -> weights [1, 4]
    config = {**TINY["dqn"], "training_intensity": 16}
    trainer = Trainer("dqn", num_workers=2, config=config)
    try:
        trainer.train()                                   # fills the buffer past learning_starts
        with rlviz.record() as trace:
            result = trainer.train()
    finally:
        trainer.stop()
    ops = trace.sequence(ops=["StoreToReplayBuffer", "TrainOneStep"], by="op")
    start = ops.index("StoreToReplayBuffer")             # recording began mid-round
    rounds = ops[start:start + 5 * ((len(ops) - start) // 5)]
    assert len(rounds) >= 10
    assert rounds == (["StoreToReplayBuffer"] + ["TrainOneStep"] * 4) * (len(rounds) // 5)
    c = result["counters"]
    assert c["num_steps_trained"] / c["num_steps_sampled"] > 8    # approaching 16 after warm-up


def test_save_and_restore_round_trip(tmp_path):
    trainer = Trainer("pg", num_workers=2, config=TINY["pg"])
    try:
        trainer.train()
        folder = trainer.save(tmp_path / "ckpt")
        saved = trainer.workers.local_worker().get_weights()
        state = json.loads((folder / "trainer.json").read_text())
        assert state["plan"] == "pg" and state["counters"]["num_steps_trained"] == 40
        trainer.train()
        trainer.restore(folder)
        restored = trainer.workers.local_worker().get_weights()
        remote = trainer.workers.foreach_worker(lambda w: w.get_weights())[1]
        assert trainer.metrics.counters["num_steps_trained"] == 40 and trainer.iteration == 1
    finally:
        trainer.stop()
    for key, value in saved["default_policy"].items():
        np.testing.assert_array_equal(restored["default_policy"][key], value)
        np.testing.assert_array_equal(remote["default_policy"][key], value)
    with open(folder / "weights.npz", "rb") as f:
        assert f.read(2) == b"PK"                     # a zip of .npy arrays, not a pickle


@pytest.mark.parametrize("args, error, match", [
    (("dqm",), ValueError, "did you mean 'dqn'"),
    (("apx",), ValueError, "did you mean 'apex'"),
    (("dqn", "CartPole-v1", 2, {"learning_rate": 1}), ValueError, "unknown dqn config key"),
    (("dqn", "CartPole-v1", 2, {"target_network_update_frq": 1}), ValueError,
     "did you mean 'target_network_update_freq'"),
    (("pg", "CartPole-v1", 2, {"trian_batch_size": 1}), ValueError, "did you mean 'train_batch_size'"),
    (("a3c", "CartPole-v1", 0), ValueError, "num_workers must be >= 1"),
    (("pg", "CartPole-v1", -1), ValueError, "num_workers must be an int"),
    (("pg", "CartPole-v1", 1, [1]), TypeError, "config must be a dict"),
])
def test_bad_trainer_arguments(args, error, match):
    with pytest.raises(error, match=match):
        Trainer(*args)


def test_trainer_is_exported_lazily():
    import subprocess
    import sys
    code = "import sys, rlviz; assert 'ray' not in sys.modules and 'torch' not in sys.modules; print(rlviz.Trainer)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "rlviz.plans.trainer.Trainer" in out


def test_a_stopped_apex_trainer_leaves_no_lost_actor_to_a_later_record_block():
    """Stopping the plan ends its replay actors on purpose: a later block must not find them dead and record them
    as lost (it once did, and foreign events entered the next test's trace)."""
    trainer = Trainer("apex", num_workers=2, config={**TINY["apex"], "seed": 0})
    with rlviz.record():
        trainer.train()
    trainer.stop()
    with rlviz.record() as later:
        time.sleep(0.5)
        later.pull()
    assert [event.op for event in later.events] == [], "nothing ran in the later block"


@pytest.mark.parametrize("num_workers", [0, 1])
def test_a_stopped_trainer_refuses_train_naming_what_to_do(num_workers):
    """A notebook's last cell stops the trainer; re-running a train() cell then met Ray's ActorDiedError (or a
    closed env) instead of saying the trainer was stopped."""
    trainer = Trainer("pg", num_workers=num_workers, config=TINY["pg"])
    trainer.train()
    trainer.stop()
    with pytest.raises(RuntimeError, match=r"Trainer\('pg'.*was stopped \(trainer.stop\(\)\).*build a new Trainer"):
        trainer.train()
    trainer.stop()                                        # stopping again is still fine
    assert {n.op for n in trainer.dataflow()} >= NAMED["pg"], "its plan can still be drawn"
