"""rlviz.watch on every plan with 2 real remote workers, and on a worker that dies mid-watch (no browser)."""
import pytest
from waits import wait_for, wait_until_dead

import rlviz
from rlviz.plans import Trainer

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("ray_local")]

TINY = {
    "pg": {"rollout_fragment_length": 20, "train_batch_size": 40},
    "a2c": {"rollout_fragment_length": 20, "train_batch_size": 40, "microbatch_size": 20},
    "a3c": {"rollout_fragment_length": 20, "timesteps_per_iteration": 40},
    "dqn": {"learning_starts": 16, "timesteps_per_iteration": 40, "train_batch_size": 32},
    "apex": {"learning_starts": 32, "timesteps_per_iteration": 100, "rollout_fragment_length": 20},
}
#: What each plan's driver must have recorded while watched.
TRAIN_OP = {"pg": "TrainOneStep", "a2c": "ApplyGradients", "a3c": "ApplyGradients", "dqn": "TrainOneStep",
            "apex": "Dequeue"}


@pytest.mark.parametrize("plan", list(TINY))
def test_every_plan_can_be_watched_to_its_last_iteration(plan):
    trainer = Trainer(plan, num_workers=2, config={**TINY[plan], "seed": 0})
    try:
        live = rlviz.watch(trainer, iterations=2)
        live.join(timeout=240)
        assert live.error is None, live.error
        assert not live.running and live.iterations == 2
        assert live.result["training_iteration"] == 2
        events = live.trace.events
        samplers = {e.where for e in events if e.op == "sample" and e.where.startswith("RolloutWorker")}
        assert len(samplers) == 2, f"both remote workers' sampling reached the watched trace: {samplers}"
        assert any(e.op == TRAIN_OP[plan] and e.outcome == "item" for e in events)
    finally:
        trainer.stop()


def test_a_worker_killed_while_watched_is_recreated_marked_and_the_run_goes_on():
    import ray

    trainer = Trainer("dqn", num_workers=2, config={**TINY["dqn"], "recreate_failed_workers": True, "seed": 0})
    try:
        live = rlviz.watch(trainer, iterations=4)
        wait_for(lambda: live.iterations >= 1 or not live.running, "the first watched train() call")
        dead = trainer.workers.remote_workers()[0]
        ray.kill(dead, no_restart=True)
        wait_until_dead(dead)
        live.join(timeout=240)
        assert live.error is None, live.error
        assert live.iterations == 4
        assert [e.op for e in live.trace.events].count("worker_restarted") == 1
        assert trainer.workers.num_restarts == 1
    finally:
        trainer.stop()


def test_a_worker_killed_while_watched_without_recreation_stops_the_run_naming_it():
    import ray

    trainer = Trainer("pg", num_workers=2, config={**TINY["pg"], "seed": 0})
    try:
        live = rlviz.watch(trainer, iterations=1000)
        wait_for(lambda: live.iterations >= 1 or not live.running, "the first watched train() call")
        recorded = len(live.trace)
        ray.kill(trainer.workers.remote_workers()[0], no_restart=True)
        live.join(timeout=240)
        assert not live.running
        assert live.error is not None and "RolloutWorker" in live.error, live.error
        assert len(live.trace) >= recorded, "what was recorded before the death is kept"
    finally:
        trainer.stop()


def test_watching_a_stopped_trainer_ends_at_once_saying_it_was_stopped():
    trainer = Trainer("pg", num_workers=1, config={**TINY["pg"], "seed": 0})
    trainer.stop()
    live = rlviz.watch(trainer, iterations=3)
    live.join(timeout=120)
    assert not live.running and live.iterations == 0
    assert live.error is not None and "was stopped (trainer.stop())" in live.error, live.error
