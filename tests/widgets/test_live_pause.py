"""Pausing a watched run at the driver's op boundaries: breakpoints, pause, advance, resume, stop (no browser).

The driver-only pipeline needs no Ray; the DQN tests run the real plan with
2 remote workers and check that nothing samples while paused.
"""
import time

import pytest
from waits import wait_for, wait_until_dead

import rlviz
from rlviz.iter.actors import actor_label
from rlviz.iter.local import LocalIterator
from rlviz.trace.event import LOST_OP

DQN = {"learning_starts": 32, "timesteps_per_iteration": 40, "train_batch_size": 32, "seed": 0}


def _numbers(name="numbers"):
    """An endless driver-only pipeline: ints, doubled."""
    def numbers():
        i = 0
        while True:
            time.sleep(0.001)
            rlviz.gauge("numbers made", i + 1)
            rlviz.gauge("weights version", i // 2)           # as a learner would record its updates
            yield i
            i += 1
    return LocalIterator(lambda timeout: numbers(), name=name).for_each(lambda x: x * 2)


@pytest.mark.parametrize("bad", [3, b"Replay", ["Replay"], ""])
def test_break_on_must_be_an_op_name_or_a_callable(bad):
    with pytest.raises(TypeError, match="break_on must be an op name"):
        rlviz.watch(_numbers(), break_on=bad)


def test_break_on_an_op_the_run_does_not_have_says_which_it_has():
    with pytest.raises(ValueError, match=r"break_on='for_eahc' is no driver op of this run; did you mean 'for_each'\?"):
        rlviz.watch(_numbers(), break_on="for_eahc")


def test_a_breakpoint_pauses_after_the_matching_call_and_advance_runs_one_more_call():
    live = rlviz.watch(_numbers(), break_on=lambda e: e.op == "for_each" and e.item == "int 20")
    try:
        wait_for(lambda: live.paused_at, "the breakpoint")
        assert (live.paused_at.op, live.paused_at.item, live.iterations) == ("for_each", "int 20", 10)
        time.sleep(0.3)
        assert live.iterations == 10 and live.paused
        assert live.advance().item == "int 22"         # no union: one next() of the outermost op
        assert live.advance(rounds=3).item == "int 28"
        state = live.inspect()
        assert state["paused_at"].item == "int 28"
        assert state["last_advance"] == {"round": None, "ran": [["numbers", "item", 3], ["for_each", "item", 3]]}
        assert live._status()["advanced"] == state["last_advance"]        # what the page's bar says
        wait_for(lambda: live.inspect()["gauges"].get("numbers made") == {"driver": 15}, "the gauges read at the pause")
        assert live.inspect()["weights_version"] == {"driver": 7}
        live.resume()
        wait_for(lambda: live.iterations > 20, "the run going on after resume()")
    finally:
        live.stop()


def test_a_predicate_that_raises_pauses_the_run_and_says_why():
    def broken(event):
        if event.op == "for_each":
            raise ZeroDivisionError("1/0")
        return False

    live = rlviz.watch(_numbers(), break_on=broken)
    try:
        wait_for(lambda: live.paused_at, "the pause at the failing predicate")
        assert live.running and live.error is None
        assert "break_on raised ZeroDivisionError: 1/0" in live.break_error
        assert "break_on raised ZeroDivisionError" in live._status()["break_error"]
        live.resume()                                   # the broken predicate is gone: the run goes on
        wait_for(lambda: live.iterations > 5, "the run going on after resume()")
    finally:
        live.stop()


def test_advance_says_when_it_cannot_run():
    live = rlviz.watch(_numbers())
    try:
        wait_for(lambda: live.iterations > 2, "a few items")
        with pytest.raises(RuntimeError, match="needs a run paused at an op boundary"):
            live.advance()
        with pytest.raises(ValueError, match="rounds must be an int >= 1"):
            live.advance(rounds=0)
    finally:
        live.stop()
    with pytest.raises(RuntimeError, match="after the run stopped"):
        live.advance()


def test_the_page_commands_pause_advance_and_set_a_breakpoint():
    live = rlviz.watch(_numbers())
    sent = []
    live.send = lambda content, buffers=None: sent.append(content)
    try:
        wait_for(lambda: live.iterations > 2, "a few items")
        live._handle_custom_msg({"type": "command", "command": "pause", "view": "v"}, [])
        event = wait_for(lambda: live.paused_at, "the pause")
        before = live.iterations
        live._handle_custom_msg({"type": "command", "command": "advance", "view": "v"}, [])
        wait_for(lambda: live.paused_at and live.paused_at.end_ns > event.end_ns, "the advance")
        assert live.iterations == before + (1 if event.op == "for_each" else 0)
        live._handle_custom_msg({"type": "command", "command": "break", "op": "numbers", "view": "v"}, [])
        live.resume()
        assert wait_for(lambda: live.paused_at, "the breakpoint set from the page").op == "numbers"
        status = [c["status"] for c in sent if c.get("type") == "status"][-1]
        assert status["break_on"] == "op numbers" and status["paused_at"]["op"] == "numbers"
    finally:
        live.stop()


# -- the real DQN plan, 2 remote workers -----------------------------------------------------------------
def _remote_samples(live) -> int:
    return sum(1 for e in live.trace.events if e.op == "sample" and e.where.startswith("RolloutWorker"))


def _driver_events_after(live, end_ns: int) -> list:
    """The driver's dataflow calls that ended after ``end_ns``, in the order they ended."""
    return sorted((e for e in live.trace.events if e.where == "driver" and e.end_ns > end_ns
                   and e.op != "learn_on_batch"), key=lambda e: e.end_ns)


def _settled(live, event) -> None:
    """Wait until the page's store (pulled every REFRESH_S) holds ``event``, where the run paused."""
    wait_for(lambda: any(e.end_ns == event.end_ns and e.op_id == event.op_id for e in live.trace.events),
             f"the event paused at ({event.op}) in the trace", timeout_s=10)


@pytest.fixture(scope="module")
def dqn(ray_local):
    from rlviz.plans import Trainer

    trainer = Trainer("dqn", num_workers=2, config={**DQN, "recreate_failed_workers": True})
    yield trainer
    trainer.stop()


@pytest.mark.slow
def test_dqn_breaks_at_the_third_replay_not_ready_samples_nothing_while_paused_and_advances_by_rounds(dqn):
    seen = []

    def third_not_ready(event):
        if event.op == "Replay" and event.outcome == "not_ready":
            seen.append(event)
        return len(seen) == 3 and seen[-1] is event

    live = rlviz.watch(dqn, break_on=third_not_ready)
    try:
        paused = wait_for(lambda: live.paused_at, "the third time Replay is not ready", timeout_s=120)
        assert (paused.op, paused.outcome) == ("Replay", "not_ready")
        wait_for(lambda: _remote_samples(live) >= 6, "the 3 rounds' samples reaching the driver")
        time.sleep(1.0)                                  # whatever was in flight has arrived by now
        frozen = _remote_samples(live)
        time.sleep(1.5)
        assert _remote_samples(live) == frozen, "a remote worker sampled while the run was paused"
        assert frozen == 6                              # 3 rounds x 2 workers, no sample started after the pause

        live.set_break(None)
        after = live.advance()                          # round 3 ends: Replay's not-ready reaches the union
        assert (after.op, after.outcome) == ("tag[1]", "not_ready")
        _settled(live, after)
        [held] = [e for e in live.trace.events if e.end_ns == after.end_ns and e.op_id == after.op_id]
        assert held.why and "not ready" in held.why, held.why      # the union's decision, while still paused
        assert [e.op for e in _driver_events_after(live, paused.end_ns)] == [
            "TrainOneStep", "UpdateTargetNetwork", "tag[1]"]
        for _ in range(2):                              # each advance is one round: store once, replay once
            before, round_before = live.paused_at, live.inspect()["last_advance"]["round"]
            after = live.advance()
            advanced = live.inspect()["last_advance"]
            assert advanced["round"] == round_before + 1
            assert ["tag[0]", "item", 1] in advanced["ran"] and ["StoreToReplayBuffer", "item", 1] in advanced["ran"]
            assert not any(op == "Concurrently" for op, _, _ in advanced["ran"])
            wait_for(lambda: _remote_samples(live) >= frozen + 2, "the round's two samples")
            _settled(live, after)
            frozen += 2
            ran = _driver_events_after(live, before.end_ns)
            turns = [(e.op, e.outcome) for e in ran if e.op in ("tag[0]", "tag[1]")]
            assert turns == [("tag[0]", "item"), ("tag[1]", turns[-1][1])], turns
            assert (after.op, after.outcome) in (("tag[1]", "not_ready"), ("Concurrently", "item")), after
            assert ran[-1].end_ns == after.end_ns       # the advance paused at the round's last call
        time.sleep(1.0)
        assert _remote_samples(live) == frozen

        state = live.inspect()
        assert state["paused_at"] == live.paused_at
        assert state["last_items"]["ParallelRollouts"] and state["counters"]["num_steps_sampled"] > 0
        assert live._status()["counters"] == {"sampled": state["counters"]["num_steps_sampled"],    # the page's counters:
                                              "trained": state["counters"]["num_steps_trained"]}   # the plan's, now
        assert state["workers"]["healthy"] == 2
        assert state["gauges"]["replay rows added"]["driver"] > 0 and state["gauges"]["learning_starts"] == {"driver": 32}
        assert set(state["weights_version"]) <= {"driver", "RolloutWorker-1", "RolloutWorker-2"}
        assert state["in_flight"][-4:] == ["output_indexes", "OncePerTimestepsElapsed", "OncePerTimeInterval",
                                           "CollectMetrics"]                  # their next() waits on the union
        live.resume()
        wait_for(lambda: live.iterations >= 1, "a train() call after resume()", timeout_s=120)
    finally:
        live.stop()
    assert not live.running and live.error is None


@pytest.mark.slow
def test_dqn_pause_reaches_the_driver_fast_keeps_what_was_recorded_and_stops_cleanly(dqn):
    live = rlviz.watch(dqn)
    try:
        wait_for(lambda: live.iterations >= 1, "a first train() call", timeout_s=120)
        asked = time.monotonic()
        live.pause()
        paused = wait_for(lambda: live.paused_at, "the pause reaching the driver")
        assert time.monotonic() - asked < 5.0
        wait_for(lambda: any(e.item_id == paused.item_id and e.end_ns == paused.end_ns for e in live.trace.events),
                 "the event paused at, in the trace while paused")
    finally:
        started = time.monotonic()
        live.stop()
    assert not live.running and live.error is None
    assert time.monotonic() - started < 60
    assert any(e.end_ns == paused.end_ns and e.op == paused.op for e in live.trace.events)


@pytest.mark.slow
def test_dqn_a_worker_killed_while_paused_is_replaced_on_resume(dqn):
    import ray

    live = rlviz.watch(dqn, break_on="Replay", iterations=1)
    try:
        wait_for(lambda: live.paused_at, "the first Replay call", timeout_s=120)
        dead = dqn.workers.remote_workers()[0]
        lane = actor_label(dead)
        ray.kill(dead, no_restart=True)
        wait_until_dead(dead)
        lost = wait_for(lambda: [e for e in live.trace.events if e.op == LOST_OP],
                        "the death shown on its lane while paused", timeout_s=30)
        assert [(e.where, e.outcome, e.label) for e in lost] == [(lane, "error", f"{lane} died")]
        assert live.paused
        live.set_break(None)
        live.resume()
        live.join(timeout=180)
        assert live.error is None, live.error
        assert live.iterations == 1
        assert [e.op for e in live.trace.events].count("worker_restarted") == 1
    finally:
        live.stop()
