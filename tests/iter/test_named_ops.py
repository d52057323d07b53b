"""The naming hook execution ops use: for_each/combine(name=...), fn.__rlviz_op__, named()."""
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
    assert repr(_items().for_each(abs, name="Abs")) == "LocalIterator[source].for_each(Abs)"
    it = _items().for_each(_Double())
    assert repr(it) == "LocalIterator[source].for_each(Double)"
    assert [n.op for n in it.dataflow()] == ["source", "Double"]
    assert list(it) == [0, 2, 4, 6]
    assert _items().for_each(abs).dataflow()[-1].op == "for_each"


def test_combine_is_named_the_same_way():
    it = _items(3).combine(lambda x: [x, x], name="Twice")
    assert it.dataflow()[-1].op == "Twice" and list(it) == [0, 0, 1, 1, 2, 2]


def test_named_renames_only_the_last_node_and_does_not_mutate():
    base = _items()
    src = base.named("Replay", "Replay(local)")
    assert repr(base) == "LocalIterator[source]" and repr(src) == "Replay(local)"
    chain = src.for_each(abs).named("Train")
    assert [n.op for n in chain.dataflow()] == ["Replay", "Train"]
    assert list(chain) == [0, 1, 2, 3]


def test_named_ops_are_what_the_trace_records():
    with rlviz.record() as trace:
        list(_items(3).named("Src", "Src").for_each(_Double()))
    assert trace.sequence(ops=["Double"]) == ["Src.for_each(Double)"] * 3


@pytest.mark.parametrize("bad", ["", 3])
def test_bad_names_are_type_errors(bad):
    with pytest.raises(TypeError, match="non-empty str"):
        _items().for_each(abs, name=bad)
    with pytest.raises(TypeError, match="non-empty str"):
        _items().named(bad)
