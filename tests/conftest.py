"""Shared fixtures: one local Ray for the whole session (num_cpus=8 so several actors fit on 2 cores)."""
import pytest


@pytest.fixture(scope="session")
def ray_local():
    """A local Ray instance, started once and stopped at the end of the session."""
    import ray

    import rlviz

    rlviz.init(num_cpus=8)
    yield
    ray.shutdown()
