"""Concurrently: exact round-robin interleavings, output_indexes, async mode, the recorded order, bad inputs."""
import queue

import pytest

import rlviz
from rlviz.iter import LocalIterator, NextValueNotReady, from_items
from rlviz.iter.sentinel import NOT_READY
from rlviz.ops import Concurrently, Dequeue, Enqueue, OpInputError


def _letters(letter, n=50, gaps=False):
    """``letter0, letter1, ...``; with ``gaps`` a not-ready after every item."""
    def items(timeout):
        for i in range(n):
            yield f"{letter}{i}"
            if gaps:
                yield NOT_READY
    return LocalIterator(items, name=letter)


def _pattern(items):
    return "".join(x[0] for x in items)


@pytest.mark.parametrize("weights, expected", [
    ([1, 1], "abababab"),
    ([2, 1], "aabaabaab"),
    ([1, 3], "abbbabbbab"),
])
def test_round_robin_weights_interleave_exactly(weights, expected):
    out = Concurrently([_letters("a"), _letters("b")], round_robin_weights=weights).take(len(expected))
    assert _pattern(out) == expected
    assert [x for x in out if x[0] == "a"] == [f"a{i}" for i in range(expected.count("a"))]


def test_star_weight_takes_what_is_ready_without_blocking():
    # "b" has one item ready per turn (a not-ready after each): a, b, a, b ...
    out = Concurrently([_letters("a"), _letters("b", gaps=True)], round_robin_weights=[1, "*"]).take(8)
    assert _pattern(out) == "abababab"
    # with everything ready, "*" drains b (up to 100 items) in one turn
    out = Concurrently([_letters("a"), _letters("b", n=5)], round_robin_weights=[1, "*"]).take(8)
    assert _pattern(out) == "abbbbbaa"


def test_a_not_ready_ends_that_ops_turn_without_an_item():
    # b: item, not-ready, item, ...: every second turn of b gives nothing
    out = Concurrently([_letters("a"), _letters("b", gaps=True)]).take(6)
    assert _pattern(out) == "abaaba"


def test_output_indexes_keep_only_listed_ops_but_all_ops_run():
    ran = []
    a = _letters("a").for_each(lambda x: ran.append(x) or x)
    out = Concurrently([a, _letters("b")], output_indexes=[1], round_robin_weights=[2, 1]).take(3)
    assert out == ["b0", "b1", "b2"]
    assert ran[:6] == [f"a{i}" for i in range(6)]
    both = Concurrently([_letters("a"), _letters("b")], output_indexes=[0, 1]).take(4)
    assert both == ["a0", "b0", "a1", "b1"]


def test_async_mode_gives_every_op_a_turn():
    out = Concurrently([_letters("a", n=5), _letters("b", n=5)], mode="async").take(10)
    assert sorted(out) == sorted([f"a{i}" for i in range(5)] + [f"b{i}" for i in range(5)])


def test_one_named_node_fed_by_its_ops():
    it = Concurrently([_letters("a").named("A"), _letters("b").named("B")], output_indexes=[1])
    nodes = {n.op_id: n for n in it.dataflow()}
    (conc,) = [n for n in nodes.values() if n.op == "Concurrently"]
    assert sorted(nodes[p].op for p in conc.parents) == ["tag[0]", "tag[1]"]
    assert it.dataflow()[-1].op == "output_indexes"
    plain = Concurrently([_letters("a").named("A"), _letters("b").named("B")])
    assert plain.dataflow()[-1].op == "Concurrently"
    parents = {n.op_id: n.op for n in plain.dataflow()}
    assert sorted(parents[p] for p in plain.dataflow()[-1].parents) == ["A", "B"]


@pytest.mark.usefixtures("ray_local")
def test_recorded_order_matches_the_weights():
    store = from_items(list(range(40)), num_shards=2).gather_sync().for_each(lambda x: x, name="Store")
    replay = _letters("r", n=40).for_each(lambda x: x, name="Train")
    with rlviz.record() as trace:
        Concurrently([store, replay], round_robin_weights=[1, 3], output_indexes=[1]).take(9)
    seq = trace.sequence(ops=["Store", "Train"], by="op")
    assert seq[:12] == ["Store", "Train", "Train", "Train"] * 3


BAD = [
    (dict(ops=[]), ValueError, "at least 2"),
    (dict(ops=["x", "y"]), ValueError, r"ops\[0\] must be a LocalIterator"),
    (dict(mode="fast"), ValueError, "mode must be one of"),
    (dict(mode="async", round_robin_weights=[1, 1]), ValueError, "only apply in mode='round_robin'"),
    (dict(round_robin_weights=["*", "*"]), ValueError, r'not all "\*"'),
    (dict(round_robin_weights=[1]), ValueError, "one per op"),
    (dict(round_robin_weights=[1, 0]), ValueError, r"round_robin_weights\[1\] must be a finite number > 0"),
    (dict(round_robin_weights=[1, float("nan")]), ValueError, r"round_robin_weights\[1\] .*got nan"),
    (dict(round_robin_weights=[1, float("inf")]), ValueError, r"round_robin_weights\[1\] .*got inf"),
    (dict(round_robin_weights=[1, "2"]), TypeError, r"round_robin_weights\[1\] .*got str"),
    (dict(round_robin_weights=(1, True)), TypeError, r"round_robin_weights\[1\] .*got bool"),
    (dict(round_robin_weights="1,1"), TypeError, "round_robin_weights must be a sequence"),
    (dict(output_indexes=[2]), ValueError, r"output_indexes\[0\] must be an index in 0..1, got 2"),
    (dict(output_indexes=[]), ValueError, "output_indexes must be a non-empty list"),
    (dict(output_indexes=[1, 1]), ValueError, r"output_indexes must be distinct indexes, got \[1, 1\]"),
    (dict(output_indexes=[True]), TypeError, r"output_indexes\[0\] must be an int"),
]


@pytest.mark.parametrize("kwargs, error, match", BAD)
def test_bad_input_fails_at_construction_naming_the_argument(kwargs, error, match):
    kwargs = {"ops": [_letters("a"), _letters("b")], **kwargs}
    ops = kwargs.pop("ops")
    with pytest.raises(error, match=match):
        Concurrently(ops, **kwargs)


def test_non_iterator_ops_are_both_type_and_value_errors():
    with pytest.raises(TypeError):
        Concurrently([_letters("a"), [1, 2]])
    assert issubclass(OpInputError, ValueError)


def test_enqueue_back_pressure_and_dequeue():
    q = queue.Queue(maxsize=2)
    put = _letters("x", n=5).for_each(Enqueue(q))
    got = put.take(4)
    assert got[:2] == ["x0", "x1"] and all(isinstance(g, NextValueNotReady) for g in got[2:])
    assert put.dataflow()[-1].op == "Enqueue"
    alive = [True]
    out = Dequeue(q, check=lambda: alive[0])
    assert out.take(3)[:2] == ["x0", "x1"] and out.dataflow()[-1].op == "Dequeue"
    alive[0] = False
    with pytest.raises(RuntimeError, match="check"):
        next(out)
    with pytest.raises(TypeError, match="queue.Queue"):
        Enqueue([])


def test_weights_may_be_any_sequence_of_numbers_numpy_included():
    import numpy as np

    out = Concurrently([_letters("a"), _letters("b")], round_robin_weights=np.array([2, 1])).take(6)
    assert _pattern(out) == "aabaab"
    plan = Concurrently([_letters("a"), _letters("b")], round_robin_weights=(1, 3))
    assert plan.dataflow()[-1].weights == (1, 3)                 # a detail of the node, not in its label
    with pytest.raises(ValueError, match=r"round_robin_weights must be 3 entries, one per op, got 2: \[2, 1\]; "
                                         r"hint: give one weight per op, e\.g\. round_robin_weights=\[2, 1, 1\]"):
        Concurrently([_letters("a"), _letters("b"), _letters("c")], round_robin_weights=np.array([2, 1]))
