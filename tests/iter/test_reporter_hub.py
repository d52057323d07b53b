"""The hub that mirrors reporting processes (RLlib's actors), used in-process: no Ray needed."""
import threading
import time

from rlviz.iter.reporter import RecorderHub
from rlviz.trace import Node, Recorder
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import CHUNK_EVENTS, ITEM
from rlviz.trace.store import merge_exports


def _fill(recorder, n):
    node = recorder.register(Node("hub-test", "for_each", "x.for_each()"))
    for i in range(n):
        recorder.record(node, i, i + 1, ITEM, i)


def test_the_hub_forgets_in_each_processs_own_clock():
    hub, recorder = RecorderHub(), Recorder()
    epoch = hub.begin(capacity=None, every_s=0.001)
    _fill(recorder, 4 * CHUNK_EVENTS)
    offset = 1_000_000                                   # the hub's clock runs 1 ms ahead of the process's
    hub.exchange("runner-1", recorder.tag, offset, epoch, 0, True, recorder.export_since(ExportCursor()))
    hub.forget_ended_before(offset + 2 * CHUNK_EVENTS)   # in the process's clock: item i ends at i + 1
    items = [int(e.item.split()[1]) for e in merge_exports(hub.exports()).events]
    assert 0 < items[0] < 2 * CHUNK_EVENTS and items == list(range(items[0], 4 * CHUNK_EVENTS))



def _reporting(hub, label, epoch, stop):
    """A reporter's loop, in a thread: answer every flush the hub asks for, as ``rlviz.iter.reporter`` does."""
    tag, flush = Recorder().tag, 0
    while not stop.is_set():
        flush = hub.exchange(label, tag, 0, epoch, flush, True, None)["flush"]


def test_a_flush_returns_when_the_reporters_answer_not_at_its_timeout():
    hub, stop = RecorderHub(), threading.Event()
    epoch = hub.begin(capacity=None, every_s=30.0)       # the reporters wait at the hub until told something
    threads = [threading.Thread(target=_reporting, args=(hub, f"runner-{i}", epoch, stop), daemon=True)
               for i in (1, 2)]
    for thread in threads:
        thread.start()
    while len(hub.seen) < 2:
        time.sleep(0.01)
    try:
        started = time.monotonic()
        answered = hub.acknowledged(timeout=5.0)
        took = time.monotonic() - started
    finally:
        stop.set()
        hub.end()                                        # wakes the waiting reporters so they see the stop
    assert answered == 2
    assert took < 2.5, f"the flush waited {took:.2f} s: the hub was not woken when the reporters answered"
