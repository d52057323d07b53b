"""The per-process recorder: cheap appends, a hard bound, ids and cursors."""
import numpy as np
import pytest

from rlviz.trace import Node, Recorder
from rlviz.trace.recorder import ROWS_PER_EVENT
from rlviz.trace.rows import CHUNK_EVENTS, ITEM, NOT_READY, ROW
from rlviz.trace.store import merge_exports


def _fill(recorder, n):
    node = recorder.register(Node("n1", "for_each", "x.for_each()"))
    return [recorder.record(node, i, i + 1, ITEM, i) for i in range(n)]


def test_capacity_bounds_held_events_and_counts_drops():
    recorder = Recorder(capacity=10_000)
    _fill(recorder, 50_000)
    assert recorder.held <= 10_000
    assert recorder.dropped + recorder.held == 50_000
    trace = merge_exports([recorder.export()])
    assert len(trace) == recorder.held
    # the newest events survive
    assert trace.events[-1].item == "int 49999"


def test_export_keeps_events_since_a_time():
    recorder = Recorder()
    _fill(recorder, 50)
    trace = merge_exports([recorder.export()], since_ns=20)
    assert [e.item for e in trace.events][:2] == ["int 20", "int 21"]
    assert len(trace) == 30


def test_ids_are_unique_and_link_inputs_even_past_one_row():
    recorder = Recorder()
    a = recorder.register(Node("a", "source", "s"))
    b = recorder.register(Node("b", "batch", "s.batch(15)", parents=("a",)))
    ids = [recorder.record(a, i, i + 1, ITEM, i) for i in range(15)]
    recorder.record(b, 30, 40, ITEM, list(range(15)), tuple(ids))
    recorder.record(b, 50, 60, NOT_READY)
    trace = merge_exports([recorder.export()])
    assert len(set(ids)) == 15
    batch, not_ready = trace.events[15], trace.events[16]
    assert batch.inputs == tuple(ids) and batch.item == "list[15]"
    assert not_ready.item_id is None and not_ready.outcome == "not_ready"
    assert trace.graph().edges["a", "b"]["items"] == 15


@pytest.mark.parametrize("bad, error", [(0, ValueError), (100, ValueError), (1.5, TypeError), ("10", TypeError)])
def test_bad_capacity_is_rejected(bad, error):
    with pytest.raises(error, match="capacity"):
        Recorder(capacity=bad)


def test_memory_per_event_is_bounded():
    recorder = Recorder(capacity=200_000)
    _fill(recorder, 200_000)
    held_bytes = sum(len(c) * c.itemsize for c in recorder._full)
    held_bytes += sum(len(w.rows) for w in recorder._writers)     # (at most one chunk per writer, packed)
    assert held_bytes / recorder.held <= 100


def test_writer_ids_stay_unique_and_linked_across_clears():
    recorder = Recorder()
    a = recorder.register(Node("a", "source", "s"))
    b = recorder.register(Node("b", "for_each", "s.for_each()", parents=("a",)))
    pairs = []
    for round_ in range(3):
        if round_:
            recorder.clear()
        pairs = []
        for i in range(900):                        # 1,800 events per round: more ids than one chunk holds
            source = recorder.record(a, 2 * i, 2 * i + 1, ITEM, i)
            pairs.append((source, recorder.record(b, 2 * i + 1, 2 * i + 2, ITEM, -i, source)))
    trace = merge_exports([recorder.export()])
    assert len(trace) == 1800
    by_id = {e.item_id: e for e in trace.events}
    for source, mapped in pairs:
        assert by_id[mapped].inputs == (source,) and by_id[source].op == "source"
    assert len(by_id) == 1800


def test_a_writers_buffer_is_one_object_changed_only_in_place():
    """The hot path keeps an alias of ``writer.rows``: hand-over, discard and clear must not replace it."""
    from rlviz.trace.rows import CHUNK_BYTES, CHUNK_EVENTS, HEADER, ROW

    recorder = Recorder()
    writer = recorder.writer(recorder.register(Node("n1", "source", "s")))
    alias = writer.rows
    for i in range(CHUNK_EVENTS + 5):                 # crosses one hand-over
        writer.record(i, i + 1, ITEM, i)
    assert writer.rows is alias and len(alias) < CHUNK_BYTES and recorder.held == CHUNK_EVENTS + 5
    recorder.clear()                                  # discards the open chunk's rows
    assert writer.rows is alias and ROW.unpack_from(alias)[0] == HEADER and len(alias) == ROW.size
    with pytest.raises(AttributeError):
        writer.rows = bytearray()


def test_row_codes_round_trip_through_the_owners_helpers():
    from rlviz.trace.items import KINDS
    from rlviz.trace.rows import OUTCOME_CODES, kind_of, outcome_of, pack_code

    for outcome in OUTCOME_CODES:
        for kind in KINDS:
            code = pack_code(outcome, kind)
            assert (outcome_of(code), kind_of(code)) == (outcome, kind)


def test_a_decision_row_stays_in_its_events_chunk_when_the_chunk_fills():
    """Writers hand over before writing an event, never right after: the decision about an event follows it."""
    from rlviz.trace.rows import CHUNK_BYTES, DECISION, FIELDS, HEADER, ROW

    recorder = Recorder()
    writer = recorder.writer(recorder.register(Node("n1", "source", "s")))
    rows_per_chunk = CHUNK_BYTES // ROW.size - 1
    for i in range(rows_per_chunk):                   # not-ready events take no id: the chunk fills by bytes
        writer.record(i, i + 1, NOT_READY)
        writer.decide(0, i, 0, 1, 1, 0)
    rows = np.frombuffer(recorder.export()["data"], np.int64).reshape(-1, FIELDS)
    heads = np.flatnonzero(rows[:, 0] == HEADER)
    assert len(heads) >= 2                           # it did hand over
    after_head = rows[heads[1:] + 1, 0]
    assert (after_head >= 0).all()                   # every chunk opens with an event, never a stray decision
    decisions = np.flatnonzero(rows[:, 0] == DECISION)
    assert len(decisions) == rows_per_chunk and (rows[decisions - 1, 0] >= 0).all()
    assert (rows[decisions, 2] == rows[decisions - 1, 0]).all()     # each follows the event it was made for


def test_capacity_counts_events_not_the_gauge_readings_beside_them():
    """A reading per event: the buffer still holds about ``capacity`` events (rows of readings do not count)."""
    recorder = Recorder(capacity=4096)
    recorder.enabled = True
    node = recorder.register(Node("n1", "for_each", "x.for_each()"))
    for i in range(20_000):
        recorder.record(node, i, i + 1, ITEM, i)
        recorder.gauge("queue length", float(i))
    trace = merge_exports([recorder.export()])
    assert 4096 - 2 * CHUNK_EVENTS <= len(trace) <= 4096
    assert recorder.dropped + len(trace) == 20_000


def test_readings_alone_stay_bounded_too():
    recorder = Recorder(capacity=4096)
    recorder.enabled = True
    for i in range(100_000):
        recorder.gauge("queue length", float(i))
    assert recorder.nbytes <= (ROWS_PER_EVENT * 4096 + CHUNK_EVENTS) * ROW.size
