"""Counts read as English: "1 process", "48 calls", wherever rlviz writes a count and a noun."""
import pytest

import rlviz
from rlviz.iter.local import LocalIterator
from rlviz.trace.words import counted


@pytest.mark.parametrize("count, noun, text", [
    (1, "process", "1 process"), (2, "process", "2 processes"), (0, "call", "0 calls"),
    (4940, "match", "4,940 matches"), (1, "policy", "1 policy"), (3, "policy", "3 policies"),
])
def test_counted_makes_the_noun_agree_with_the_count(count, noun, text):
    assert counted(count, noun) == text


def test_a_one_process_trace_says_one_process():
    with rlviz.record() as trace:
        LocalIterator(lambda timeout: iter(range(3)), name="Numbers").take(3)
    assert trace.processes == ["driver"]
    assert "1 process," in repr(trace) and "processes" not in repr(trace)
    assert "1 node," in repr(trace)
