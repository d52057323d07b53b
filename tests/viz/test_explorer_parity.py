"""Rules the Explorer applies in JS and rlviz applies in Python give the same answers on the same trace.

docs/design.md ("Rules written twice") states each rule once: the outcome and
item-kind bits of an event (``flags = outcome | kind << 2``, read back as an
outcome name and an item text) and the grouping of a union's polls into
rounds, and the order the steppers visit events in (``TraceStepper`` and the
Explorer's step keys).  Each test runs one recorded trace through both sides.
A node's counters (busy time included) are counted once, by ``op_stats``'
rule: the last test checks that the page's model carries those.
"""
import random
import time

import pytest
from page_replay import NODE, named_op as _op, replay_in_node

import rlviz
from rlviz.iter import LocalIterator
from rlviz.iter.sentinel import NOT_READY
from rlviz.ops import Concurrently

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (make test installs it)")

IMPORTS = 'import { OUTCOMES, itemText, roundRows, stepList } from "%(static)s/explorer_core.js";'
BODY = """
const events = [];
for (let i = 0; i < model.n; i++) events.push([OUTCOMES[model.flags[i] & 3], itemText(model, i)]);
const decisions = model.meta.decisions;
const rounds = decisions.specs.map((_, union) => roundRows(decisions, union).rounds);
const steps = (asked || []).map(([op, where, skip]) => Array.from(stepList(model, { op, where }, skip)));
console.log(JSON.stringify({ events, rounds, steps }));
"""


def _through_js(trace, tmp_path, step_filters=()) -> dict:
    return replay_in_node(trace, tmp_path, IMPORTS, BODY, list(step_filters))


@pytest.fixture(scope="module")
def mixed_trace():
    """Every outcome and item kind, and unions with weights 2 : 1 : '*', 1 : 0.5 and a child that ends."""
    random.seed(5)
    with rlviz.record() as trace:
        Concurrently([_op("Store"), _op("Train", not_ready_first=3), _op("Log")],
                     round_robin_weights=[2, 1, "*"], output_indexes=[1]).take(6)
        Concurrently([_op("A"), _op("B", gaps=True)], round_robin_weights=[1, 0.5]).take(30)
        kinds = [7, -2**40, 2.5, True, "text", [1, 2, 3], {"k": 1}, None, b"xy"]
        Concurrently([_op("Kinds", items=kinds), _op("Rest")], mode="round_robin").take(40)
        try:
            LocalIterator(lambda timeout: iter([1, 0]), name="fails").for_each(lambda x: 1 // x).take(3)
        except ZeroDivisionError:
            pass
    return trace


def test_outcome_and_item_text_of_every_event_match(mixed_trace, tmp_path):
    page = _through_js(mixed_trace, tmp_path)
    python = [[event.outcome, event.item] for event in mixed_trace.events]
    assert page["events"] == python
    assert {outcome for outcome, _ in python} == {"item", "not_ready", "stop", "error"}
    assert len({text.split(" ")[0] for _, text in python if text}) >= 5           # several item kinds


def test_rounds_of_every_union_match(mixed_trace, tmp_path):
    page = _through_js(mixed_trace, tmp_path)
    decisions = mixed_trace.decisions
    python = [[{"round": r["round"], "cells": [{"child": c["child"], "notReady": c["not_ready"], "event": c["event"]}
                                               for c in r["cells"]]} for r in decisions.rounds(union)]
              for union in range(len(decisions.specs))]
    assert page["rounds"] == python
    assert len(python) == 3 and all(len(rounds) >= 3 for rounds in python)
    assert any(cell["notReady"] for rounds in python for r in rounds for cell in r["cells"])


def test_rounds_refuse_a_union_the_trace_does_not_have(mixed_trace):
    with pytest.raises(IndexError, match="is not one of this trace's 3 unions"):
        mixed_trace.decisions.rounds(3)


def test_steps_visit_the_same_events_in_the_same_order(mixed_trace, tmp_path):
    from rlviz.widgets.steps import Steps

    filters = [[None, None, False], ["Train", None, False], [None, "driver", True], ["B", None, True]]
    page = _through_js(mixed_trace, tmp_path, filters)
    steps = Steps(mixed_trace)
    python = [steps.select(op, where, skip).tolist() for op, where, skip in filters]
    assert page["steps"] == python
    assert len(python[0]) == len(mixed_trace) and python[2] != python[0][:len(python[2])]


def _slow_polls(name: str, polls: int, poll_s: float) -> LocalIterator:
    """A driver op whose first ``polls`` calls each wait ``poll_s`` and return not ready, then yield items."""
    def source(timeout):
        for _ in range(polls):
            time.sleep(poll_s)
            yield NOT_READY
        yield from (f"{name}{k}" for k in range(100))
    return LocalIterator(source, name=name).named(name)


def test_the_pages_node_counters_are_op_stats_slow_not_ready_polls_counted_busy(tmp_path):
    with rlviz.record() as trace:
        Concurrently([_slow_polls("Waits", polls=3, poll_s=0.002), _op("Ready")], mode="round_robin").take(8)
    page = replay_in_node(trace, tmp_path, "", "console.log(JSON.stringify({"
                          "nodes: model.meta.nodes.map((n) => [n.op, n.calls, n.not_ready, n.busy_ms])}));")
    python = trace.op_stats()
    assert [[n[0], n[1], n[2]] for n in page["nodes"]] == [[r["op"], r["calls"], r["not_ready"]] for r in python]
    for (op, _, _, busy_ms), row in zip(page["nodes"], python):
        assert busy_ms == pytest.approx(row["busy_ns"] / 1e6), op      # the whole run's, as rlviz counts them
    waits = next(row for row in python if row["op"] == "Waits")
    assert waits["not_ready"] == 3 and waits["busy_ns"] >= 3 * 2_000_000, "the slow polls are busy time"
