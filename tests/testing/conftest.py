"""A small recorded DQN run shared by the assertion and diff tests; figures closed after each test."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import rlviz  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="session")
def dqn_trace(ray_local):
    """Two train() calls of DQN with training_intensity 4: round-robin weights [1, 3]."""
    trainer = rlviz.Trainer("dqn", env="CartPole-v1", num_workers=1, config={
        "training_intensity": 4, "rollout_fragment_length": 25, "train_batch_size": 32,
        "learning_starts": 50, "timesteps_per_iteration": 200, "seed": 0})
    try:
        with rlviz.record() as trace:
            for _ in range(2):
                trainer.train()
    finally:
        trainer.stop()
    return trace
