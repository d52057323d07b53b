"""The naming hook execution ops use: for_each/combine(name=...), fn.__rlviz_op__, named().

They set a node's op only: its label stays Ray's ``repr``.
"""
import pytest

import rlviz
from rlviz.iter import LocalIterator


class _Double:
    __rlviz_op__ = "Double"

    def __call__(self, x):
        return 2 * x


def _items(n=4):
    return LocalIterator(lambda timeout: range(n))


def test_for_each_takes_its_node_name_from_name_or_the_callable():
    assert repr(_items().for_each(abs, name="Abs")) == "LocalIterator[unknown.for_each()]"
    assert _items().for_each(abs, name="Abs").dataflow()[-1].op == "Abs"
    it = _items().for_each(_Double())
    assert repr(it) == "LocalIterator[unknown.for_each()]"
    assert [n.op for n in it.dataflow()] == ["source", "Double"]
    assert list(it) == [0, 2, 4, 6]
    assert _items().for_each(abs).dataflow()[-1].op == "for_each"


def test_combine_is_named_the_same_way():
    it = _items(3).combine(lambda x: [x, x], name="Twice")
    assert it.dataflow()[-1].op == "Twice" and list(it) == [0, 0, 1, 1, 2, 2]


def test_named_renames_only_the_last_node_and_does_not_mutate():
    base = _items()
    src = base.named("Replay")
    assert repr(base) == repr(src) == "LocalIterator[unknown]"
    assert (base.dataflow()[-1].op, src.dataflow()[-1].op) == ("source", "Replay")
    chain = src.for_each(abs).named("Train")
    assert [n.op for n in chain.dataflow()] == ["Replay", "Train"]
    assert list(chain) == [0, 1, 2, 3]


def test_named_ops_are_what_the_trace_records():
    with rlviz.record() as trace:
        list(LocalIterator(lambda timeout: range(3), name="Src").for_each(_Double()))
    assert trace.sequence(ops=["Double"]) == ["LocalIterator[Src.for_each()]"] * 3
    assert trace.sequence(ops=["Src"]) == ["LocalIterator[Src]"] * 3


@pytest.mark.parametrize("bad", ["", 3])
def test_bad_names_are_type_errors(bad):
    with pytest.raises(TypeError, match="non-empty str"):
        _items().for_each(abs, name=bad)
    with pytest.raises(TypeError, match="non-empty str"):
        _items().named(bad)
