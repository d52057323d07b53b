"""trace.sequence(ops, by="op") names items by op, not by the long label every downstream node carries."""
import pytest

from rlviz.viz.examples import concurrently_trace


def test_sequence_by_op_gives_op_names():
    trace = concurrently_trace((1, 2), rounds=3, warmup=0)
    ops = ["StoreToReplayBuffer", "TrainOneStep"]
    assert trace.sequence(ops, by="op") == ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"] * 3
    labels = trace.sequence(ops)
    assert len(labels) == 9 and labels[:2] == [trace.nodes[3].label, "LocalIterator[Replay.for_each()]"]  # Ray's names
    assert set(trace.sequence(ops, by="op_id")) == {n.op_id for n in trace.nodes if n.op in ops}


@pytest.mark.parametrize("kwargs, error, match", [
    ({"ops": ["TrainOneStep"], "by": "name"}, ValueError, r"by must be one of \['label', 'op', 'op_id'\], got 'name'"),
    ({"ops": "TrainOneStep"}, TypeError, r"not the string 'TrainOneStep'; hint: ops=\['TrainOneStep'\]"),
])
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        concurrently_trace((1, 2), rounds=1).sequence(**kwargs)
