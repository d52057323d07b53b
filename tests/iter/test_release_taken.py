"""A block's pulls leave the driver's mirrors of actors only stubs of the chunks its store took: one copy per event."""
import rlviz
from rlviz.iter import from_range
from rlviz.iter.actors import COLLECTOR
from rlviz.trace.rows import stub_events


def test_mirrors_of_actors_keep_stubs_once_the_block_took_their_chunks(ray_local):
    with rlviz.record() as trace:
        items = from_range(6_000, num_shards=2).for_each(lambda x: x + 1).gather_sync().take(6_000)
        trace.pull()
        with COLLECTOR.lock:
            parts = [part for mirror in COLLECTOR.mirrors.values() if mirror.has_data
                     for part in mirror.export_parts()["parts"][:-1]]
        assert parts and all(stub_events(part) is not None for part in parts)    # handed-over chunks: stubs only
    assert len(items) == 6_000
    mapped = [e for e in trace.events if e.op == "for_each" and e.outcome == "item"]
    assert len(mapped) == 6_000                       # the store still holds every event the stubs stand for
