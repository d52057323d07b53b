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


def test_mirrored_events_counts_the_events_stubs_stand_for(ray_local):
    from waits import mirrored_events

    pi = from_range(6_000, num_shards=2)
    label = pi.shard_set.labels[0]
    with rlviz.record(collect_every_s=None) as trace:
        assert len(pi.for_each(lambda x: x + 1).gather_sync().take(6_000)) == 6_000
        trace.pull()                                  # the store takes the chunks: the mirror keeps stubs
        with COLLECTOR.lock:
            parts = COLLECTOR.mirrors[label].export_parts()["parts"][:-1]
        assert parts and all(stub_events(part) is not None for part in parts)
        mapped = [e for e in mirrored_events(label, trace) if e.op == "for_each" and e.outcome == "item"]
        assert len(mapped) == 3_000                   # the shard's half, each once: none hidden by a stub
        assert len({(e.start_ns, e.end_ns) for e in mapped}) == 3_000
