"""The hub RLlib's actors report through, with real Ray actors: reads wait only for the reporters' answers,
a block's exit is never an old answer, and a Ray restarted in the same process gets a new hub."""
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("ray.rllib", reason="the RLlib 2.x bridge needs the rllib extra")

import ray  # noqa: E402

import rlviz  # noqa: E402
import rlviz.rllib  # noqa: E402,F401 - plugs the hub's collector into record()
from rlviz.iter.reporter import hub_handle, start_reporter  # noqa: E402
from rlviz.trace.spans import span  # noqa: E402

_RUNNER = textwrap.dedent('''
    import time

    import ray

    from rlviz.iter.reporter import hub_handle, start_reporter
    from rlviz.trace.spans import span


    @ray.remote(num_cpus=0)
    class Runner:
        """An actor rlviz did not create, reporting through the hub as RLlib's EnvRunners do."""

        def __init__(self, label):
            start_reporter(label)

        def sample(self):
            with span("sample", "Runner.sample()"):
                time.sleep(0.01)


    def reporting_runners(labels):
        """One runner per label, returned once each runner's reporter has reached the hub.

        Waiting for these labels, not for a count: runners of an earlier test may still report.
        """
        hub = hub_handle(create=True)
        runners = [Runner.remote(label) for label in labels]
        deadline = time.monotonic() + 60
        while not set(labels) <= ray.get(hub.__ray_call__.remote(lambda hub: set(hub.tags))):
            assert time.monotonic() < deadline, "the runners' reporters never reached the hub"
            time.sleep(0.1)
        # reporters of actors an earlier test stopped still count as live for a few seconds: a flush they
        # miss marks them silent, so the next flush waits for these runners only
        while ray.get(hub.acknowledged.remote(1.0)) > len(labels):
            assert time.monotonic() < deadline, "reporters of other actors keep answering the hub"
        return runners
''')
exec(_RUNNER)      # the same definitions serve this process and the restarted-Ray script below


def _samples(trace):
    return sorted(e.where for e in trace.events if e.op == "sample")


@pytest.fixture
def runners(ray_local):
    """Make reporting runners (``runners(labels)``): labels of their own, so no earlier test's runner that
    still reports shares a lane with them; killed when the test ends."""
    made = []

    def make(labels):
        made.extend(reporting_runners(labels))   # noqa: F821 - defined by exec(_RUNNER)
        return made[-len(labels):]

    yield make
    for runner in made:
        ray.kill(runner)


def test_record_entry_and_exit_wait_for_the_reporters_not_for_the_timeout(runners):
    pair = runners(["entry-1", "entry-2"])
    started = time.monotonic()
    with rlviz.record() as trace:
        ray.get([runner.sample.remote() for runner in pair])
    took = time.monotonic() - started
    assert _samples(trace) == ["entry-1", "entry-2"]
    # the acknowledgement timeout is 5 s, waited once on entry and once on exit when nothing wakes it
    assert took < 5.0, f"record() entry and exit took {took:.1f} s: a flush waited for its timeout"


def test_the_exit_of_a_block_sees_samples_made_after_a_read(runners):
    pair = runners(["exit-1", "exit-2"])
    with rlviz.record() as trace:
        ray.get([runner.sample.remote() for runner in pair])
        assert _samples(trace) == ["exit-1", "exit-2"]       # a read inside the block
        ray.get([runner.sample.remote() for runner in pair])
    assert _samples(trace) == ["exit-1", "exit-1", "exit-2", "exit-2"]


@pytest.mark.slow
def test_a_ray_restarted_in_the_same_process_gets_a_new_hub():
    script = _RUNNER + textwrap.dedent('''
        import rlviz
        import rlviz.rllib

        for attempt in range(2):
            rlviz.init(num_cpus=2)
            runners = reporting_runners(["runner"])
            with rlviz.record() as trace:
                ray.get(runners[0].sample.remote())
            print(sum(e.op == "sample" for e in trace.events), flush=True)
            ray.shutdown()
    ''')
    try:
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"the second Ray's record() hung: {err.stdout!r} {err.stderr[-2000:]!r}")
    assert out.stdout.split() == ["1", "1"], out.stderr[-3000:]


def test_a_block_whose_runners_died_exits_within_a_second_after_one_acknowledgement_timeout(runners):
    from rlviz.iter.reporter import ACK_TIMEOUT_S

    pair = runners(["dead-1", "dead-2"])
    with rlviz.record(collect_every_s=0.2) as trace:
        ray.get([runner.sample.remote() for runner in pair])
        time.sleep(0.5)                                  # their samples reach the hub with the next push
        for runner in pair:
            ray.kill(runner)
        exiting = time.monotonic()
    took = time.monotonic() - exiting
    assert _samples(trace) == ["dead-1", "dead-2"], "what the dead runners pushed stays in the block"
    assert took <= ACK_TIMEOUT_S + 1.0, f"the exit took {took:.1f} s"
