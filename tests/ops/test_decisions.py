"""Each pull of a union records why it happened: rounds, turns, "*" caps, not-ready, output_indexes, float weights.

Every expected table below is worked out by hand from the union's rules
(Ray 1.x's): each round every child is pulled up to its weight times, "*"
pulls until not ready or 100 items, the first not-ready ends a turn, a
fractional weight w gives int(w) pulls plus one with probability w - int(w).
"""
import random

import numpy as np

import rlviz
from rlviz.iter import LocalIterator
from rlviz.iter.sentinel import NOT_READY
from rlviz.ops import Concurrently
from rlviz.trace import Trace


def _op(name, n=1000, gaps=False, ready_from=0):
    """An op named ``name`` yielding ``n`` items; ``gaps``: a not-ready after each; ``ready_from``: not-ready at first."""
    def items(timeout):
        for _ in range(ready_from):
            yield NOT_READY
        for i in range(n):
            yield f"{name}{i}"
            if gaps:
                yield NOT_READY
    return LocalIterator(items, name=name).named(name)


def _rows(trace):
    """(round, op, pull, allowed, outcome, star, cap, turn_ended, dropped) per decision, in order."""
    d = trace.decisions
    return [(r["round"], r["op"], r["pull"], r["allowed"], r["outcome"], r["star"], r["cap"], r["turn_ended"],
             r["dropped"]) for r in map(d.record, range(len(d)))]


def test_star_turn_hits_its_cap_and_the_rounds_are_numbered():
    plan = Concurrently([_op("Store"), _op("Train"), _op("Log")], round_robin_weights=[2, 1, "*"])
    with rlviz.record() as trace:
        plan.take(2 + 1 + 100 + 2)
    rows = _rows(trace)
    expected = [(1, "Store", 1, 2, "item", False, False, False, False),
                (1, "Store", 2, 2, "item", False, False, False, False),
                (1, "Train", 1, 1, "item", False, False, False, False)]
    expected += [(1, "Log", k, 100, "item", True, k == 100, False, False) for k in range(1, 101)]
    expected += [(2, "Store", 1, 2, "item", False, False, False, False),
                 (2, "Store", 2, 2, "item", False, False, False, False)]
    assert rows == expected
    at_cap = trace.decisions.record(102)
    assert trace.why(int(at_cap["event"])) == \
        "round 1: Log ('*'): 100th pull this turn, the cap — it is always ready; next Store"
    assert trace.why(int(trace.decisions.record(0)["event"])) == "round 1: Store, pull 1 of 2"
    assert trace.why(int(trace.decisions.record(1)["event"])) == "round 1: Store, pull 2 of 2; next Train"


def test_a_not_ready_child_ends_its_turn_and_the_next_op_is_named():
    # Train is not ready for its first two polls (replay below learning_starts, say), then always ready.
    plan = Concurrently([_op("Store"), _op("Train", ready_from=2)], round_robin_weights=[1, 1])
    with rlviz.record() as trace:
        items = plan.take(5)
    assert items == ["Store0", "Store1", "Store2", "Train0", "Store3"]
    assert _rows(trace) == [(1, "Store", 1, 1, "item", False, False, False, False),
                            (1, "Train", 1, 1, "not_ready", False, False, True, False),
                            (2, "Store", 1, 1, "item", False, False, False, False),
                            (2, "Train", 1, 1, "not_ready", False, False, True, False),
                            (3, "Store", 1, 1, "item", False, False, False, False),
                            (3, "Train", 1, 1, "item", False, False, False, False),
                            (4, "Store", 1, 1, "item", False, False, False, False)]
    polls = [e for e in trace.events if e.op == "Train" and e.outcome == "not_ready"]
    assert [e.why for e in polls] == ["round 1: Train not ready: its turn ends, Store next",
                                      "round 2: Train not ready: its turn ends, Store next"]
    # a blocking turn's not-ready is not passed on: the union's own call yields nothing for it
    assert list(trace.decisions.columns["union_event"][[1, 3]]) == [-1, -1]


def test_star_turn_ends_at_the_first_not_ready():
    plan = Concurrently([_op("Store"), _op("Log", gaps=True)], round_robin_weights=[1, "*"])
    with rlviz.record() as trace:
        plan.take(4)
    assert _rows(trace)[:4] == [(1, "Store", 1, 1, "item", False, False, False, False),
                                (1, "Log", 1, 100, "item", True, False, False, False),
                                (1, "Log", 2, 100, "not_ready", True, False, True, False),
                                (2, "Store", 1, 1, "item", False, False, False, False)]
    assert trace.why(int(trace.decisions.record(2)["event"])) == \
        "round 1: Log ('*') not ready after 1 item: its turn ends, Store next"


def test_output_indexes_marks_the_dropped_items():
    plan = Concurrently([_op("Store"), _op("Train")], round_robin_weights=[2, 1], output_indexes=[1])
    with rlviz.record() as trace:
        assert plan.take(2) == ["Train0", "Train1"]
    dropped = [(r[1], r[8]) for r in _rows(trace)]
    assert dropped == [("Store", True), ("Store", True), ("Train", False)] * 2
    assert trace.why(int(trace.decisions.record(0)["event"])) == \
        "round 1: Store, pull 1 of 2, its item dropped by output_indexes"


def test_float_weights_draw_their_pulls_each_round_as_ray_did():
    random.seed(7)
    plan = Concurrently([_op("Store"), _op("Train")], round_robin_weights=[1, 0.5])
    with rlviz.record() as trace:
        plan.take(40)
    random.seed(7)
    expected, items = [], 0
    for round_ in range(1, 100):
        random.random()                             # Store's weight 1 draws too, and always gives 1
        train = int(random.random() < 0.5)
        for op, allowed in (("Store", 1), ("Train", train)):
            if allowed and items < 40:
                expected.append((round_, op, 1, 1))
                items += 1
        if items == 40:
            break
    assert [r[:4] for r in _rows(trace)] == expected
    assert 0 < sum(op == "Train" for _, op, _, _ in expected) < 20


def test_async_mode_and_plain_union_record_decisions_too():
    with rlviz.record() as trace:
        Concurrently([_op("A", gaps=True), _op("B")], mode="async").take(4)
        _op("C").union(_op("D"), round_robin_weights=[1, 2]).take(3)
    ops = [(r[1], r[4]) for r in _rows(trace)]
    assert ops == [("A", "item"), ("B", "item"), ("A", "not_ready"), ("B", "item"), ("A", "item"),
                   ("C", "item"), ("D", "item"), ("D", "item")]


def test_decisions_survive_save_and_load(tmp_path):
    plan = Concurrently([_op("Store"), _op("Train", ready_from=1), _op("Log")], round_robin_weights=[2, 1, "*"])
    with rlviz.record() as trace:
        plan.take(110)
    path = tmp_path / "run.rlviz"
    trace.save(path)
    loaded = Trace.load(path)
    assert len(loaded.decisions) == len(trace.decisions) > 100
    assert [e.why for e in loaded.events] == [e.why for e in trace.events]
    assert any(e.why and "the cap" in e.why for e in loaded.events)
    assert any(e.why and "not ready" in e.why for e in loaded.events)


def _decision_rows() -> int:
    from rlviz.trace.recorder import get_recorder
    from rlviz.trace.rows import DECISION, FIELDS
    rows = np.frombuffer(get_recorder().export()["data"], np.int64).reshape(-1, FIELDS)
    return int((rows[:, 0] == DECISION).sum())


def test_nothing_is_decided_while_not_recording():
    before = _decision_rows()
    Concurrently([_op("Store"), _op("Train")]).take(10)
    assert _decision_rows() == before


def test_summary_notes_where_a_rule_dominates():
    # [1, 1, 1] with Train not ready for its first 9 polls: 35 : 26 : 34 (the run, by hand)
    plan = Concurrently([_op("Store"), _op("Train", ready_from=9), _op("Log")], round_robin_weights=[1, 1, 1])
    with rlviz.record() as trace:
        plan.take(95)
    notes = trace.summary().split("notes (where a scheduling rule dominates; see trace.decisions):\n")[1]
    assert notes.splitlines() == [
        "* Train was not ready in 9 of 35 polls (26%); each ends its turn, so it ran less often than its weight says",
        "* measured 35 : 26 : 34 items for Store, Train, Log, far from the weights 1 : 1 : 1"]
    plan = Concurrently([_op("Store"), _op("Train"), _op("Log")], round_robin_weights=[2, 1, "*"])
    with rlviz.record() as trace:
        plan.take(3 * 103)
    assert ("* Log ('*') hit its cap of 100 pulls in 3 of 3 turns: it is always ready, so each turn takes the cap "
            "and the other ops run far less often; give it a number instead of '*'") in trace.summary()
    with rlviz.record() as trace:
        Concurrently([_op("Store"), _op("Train")], round_robin_weights=[2, 1]).take(30)
    assert "notes" not in trace.summary()


def test_diff_notes_each_runs_dominating_rule():
    from rlviz.testing import diff
    runs = []
    for weights in ([1, 1, 1], [2, 1, "*"]):
        with rlviz.record() as trace:
            Concurrently([_op("Store"), _op("Train"), _op("Log")], round_robin_weights=weights).take(2 * 103)
        runs.append(trace)
    result = diff(*runs, names=("equal", "star"))
    assert result.notes[0] == []
    assert result.notes[1][0].startswith("Log ('*') hit its cap of 100 pulls in 2 of 2 turns")
    assert "note on star: Log ('*') hit its cap" in repr(result)


def test_a_trace_keeps_only_the_unions_that_decided_in_it():
    earlier = Concurrently([_op("Store"), _op("Train")], round_robin_weights=[1, 1])
    with rlviz.record():
        earlier.take(4)
    plan = Concurrently([_op("Store"), _op("Train")], round_robin_weights=[2, 1])
    with rlviz.record() as trace:
        plan.take(6)
    (spec,) = trace.decisions.specs                   # the process's log still holds the earlier union
    assert spec["weights"] == [2, 1]
    assert set(trace.decisions.columns["union"].tolist()) == {0}
    assert _rows(trace)[0][:4] == (1, "Store", 1, 2)


def test_why_is_there_mid_run_in_a_live_trace_and_names_the_event_it_follows():
    """Decisions travel as rows with their events: a live read in the middle of the block has every why."""
    plan = Concurrently([_op("Store", gaps=True), _op("Train")], round_robin_weights=[2, 1])
    iterator = iter(plan)
    with rlviz.record() as trace:
        for _ in range(30):
            next(iterator)
        middle = trace.snapshot()
        whys = {e.op: e.why for e in middle.events if e.why}
        assert "Store" in whys and "Train" in whys and "Concurrently" in whys
        assert len(middle.decisions) == sum(1 for e in middle.events if e.op in ("Store", "Train"))
        for _ in range(30):
            next(iterator)
    final = trace.snapshot()
    assert len(final.decisions) > len(middle.decisions)
    c = final.decisions.columns
    ops = [final.events[i].op for i in c["event"].tolist()]
    children = [final.decisions.specs[u]["children"][k] for u, k in zip(c["union"].tolist(), c["child"].tolist())]
    assert ops == children                               # each decision sits on its own child's event
    starts = final.columns["start_ns"][c["event"]]
    assert (np.diff(starts) >= 0).all()                  # in the order the pulls were made
