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


@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler for the test, so ``_thread.interrupt_main()`` raises KeyboardInterrupt.

    A process started as a background job of a non-interactive shell inherits
    SIGINT ignored; then Python installs no handler and ``interrupt_main`` does
    nothing, and a test of Ctrl-C would wait for a loop that never ends.
    """
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
