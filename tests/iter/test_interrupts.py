"""Ctrl-C in a long cell: the block ends, nothing recorded is lost, and nothing is left half-alive.

A notebook's "interrupt kernel" raises KeyboardInterrupt in the driver's main
thread, wherever the loop is; these tests raise it the same way
(``_thread.interrupt_main``) or from a driver-side function, on real shards.
"""
import _thread
import threading
import time

import pytest

import rlviz
from rlviz.iter import LocalIterator, from_range
from rlviz.trace.recorder import get_recorder

pytestmark = pytest.mark.usefixtures("ray_local", "ctrl_c")


def _slow_shards():
    """Shards making an item every 5 ms (a lambda: shard actors cannot import this test module)."""
    return from_range(100_000, num_shards=2).for_each(lambda x: (time.sleep(0.005), x)[1])


def _interrupt_after(n):
    seen = []

    def step(x):
        seen.append(x)
        if len(seen) == n:
            raise KeyboardInterrupt
        return x
    return step


@pytest.mark.parametrize("gather", ["gather_sync", "gather_async"])
def test_ctrl_c_ends_the_block_keeps_the_trace_and_the_shards_serve_a_new_gather(gather):
    shards = _slow_shards()
    it = getattr(shards, gather)()
    assert it.take(1)                      # the shards are up before the clock starts
    timer = threading.Timer(0.5, _thread.interrupt_main)
    try:
        with pytest.raises(KeyboardInterrupt):
            with rlviz.record() as trace:
                timer.start()
                for _ in it:
                    pass
    finally:
        timer.cancel()
    assert not get_recorder().enabled, "recording stopped with the block"
    served = [i for i, e in enumerate(trace.events) if e.op == gather and e.outcome == "item"]
    assert len(served) > 10, "the block ran for a while before Ctrl-C"
    unmade = [k for k, i in enumerate(served) if not _made_on_a_shard(trace, i)]
    # Items whose shard call began before the block are served inside it with no recorded maker: the rest of
    # the round take(1) fetched (gather_sync: one item), or the calls take(1) left in flight (gather_async:
    # one per shard). Every other item served before Ctrl-C must be traceable to the shard call that made it.
    begun_before = {"gather_sync": 1, "gather_async": 2}[gather]
    assert len(unmade) <= begun_before, f"served items {unmade} have no shard for_each: recorded events were lost"
    assert not [t for t in threading.enumerate() if t.name == "rlviz-collector"]
    with pytest.raises(RuntimeError, match=f"{gather}.*was ended by KeyboardInterrupt.*build the iterator again"):
        next(it)
    assert len(getattr(shards, gather)().take(10)) == 10


def _made_on_a_shard(trace, index):
    """True if walking back from event ``index`` along the links reaches a shard's ``for_each`` item."""
    producers, consumers = trace.links()
    made_by = {}
    for p, c in zip(producers.tolist(), consumers.tolist()):
        made_by.setdefault(c, []).append(p)
    events, todo, seen = trace.events, [index], set()
    while todo:
        i = todo.pop()
        if events[i].where != "driver" and events[i].op == "for_each" and events[i].outcome == "item":
            return True
        seen.add(i)
        todo.extend(p for p in made_by.get(i, ()) if p not in seen)
    return False


def test_many_interrupted_async_gathers_free_their_stream_slots():
    shards = _slow_shards()
    for _ in range(6):                     # more than the 4 streams an actor serves at once
        with pytest.raises(KeyboardInterrupt):
            for _ in shards.gather_async().for_each(_interrupt_after(3)):
                pass
    it = shards.gather_async()
    assert len(it.take(10)) == 10
    assert "par_iter_next_batch" in {n.op for n in it.dataflow()}


def test_a_loop_re_run_after_an_error_says_why_it_cannot_go_on_instead_of_yielding_nothing():
    def boom(x):
        if x == 3:
            raise ValueError("bad item 3")
        return x

    it = LocalIterator(lambda timeout: iter(range(10))).for_each(boom)     # not recording: the fast path
    with pytest.raises(ValueError, match="bad item 3"):
        list(it)
    with pytest.raises(RuntimeError, match="was ended by ValueError: bad item 3") as raised:
        for _ in it:
            pass
    assert isinstance(raised.value.__cause__, ValueError)
    with rlviz.record():
        recorded = LocalIterator(lambda timeout: iter(range(10))).for_each(boom)
        with pytest.raises(ValueError):
            recorded.take(5)
    with pytest.raises(RuntimeError, match="ValueError"):
        recorded.take(1)


def test_an_iterator_that_simply_ended_still_just_stops():
    it = LocalIterator(lambda timeout: iter(range(3)))
    assert list(it) == [0, 1, 2]
    assert list(it) == [] and it.take(2) == []
