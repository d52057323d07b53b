"""The store's pyramid and window queries: kept up to date by increments, checked against a brute-force recount."""
import numpy as np
import pytest

from rlviz.trace import Node, Recorder
from rlviz.trace.pyramid import BASE_WIDTH_NS, LEVELS, Pyramid
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ERROR, ITEM, NOT_READY
from rlviz.trace.store import TraceStore

_OUTCOMES = (ITEM, ITEM, ITEM, NOT_READY, ERROR)


def _random_run(seed, events=3_000, lanes=3, nodes=5, span=40 * BASE_WIDTH_NS, window_ns=None, pulls=7):
    """A store fed in ``pulls`` increments from one recorder per lane: random nodes, times and outcomes."""
    rng = np.random.default_rng(seed)
    recorders = [Recorder(capacity=1 << 20, where=f"lane-{k}") for k in range(lanes)]
    placed = [(k % lanes, recorders[k % lanes].register(Node(f"n{k}", "for_each", f"n{k}", f"lane-{k % lanes}")))
              for k in range(nodes)]
    store, cursors = TraceStore(window_ns=window_ns), [ExportCursor()] * lanes
    starts = np.sort(rng.integers(0, span, events))
    for part in np.array_split(np.arange(events), pulls):
        for at in part.tolist():
            lane, node = placed[rng.integers(nodes)]
            duration = int(rng.choice([0, 1_000, 10**6, 5 * 10**9]))
            recorders[lane].record(node, int(starts[at]), int(starts[at]) + duration,
                                   _OUTCOMES[rng.integers(len(_OUTCOMES))], at)
        for lane, recorder in enumerate(recorders):
            increment = recorder.export_since(cursors[lane])
            store.add_increment(increment)
            cursors[lane] = increment["cursor"]
    return store


def _held(store):
    """The held events as plain columns: start, end, node (store index), lane name, outcome, event id."""
    view = store.view()
    index = {node.op_id: i for i, node in enumerate(store.nodes)}
    node = np.array([index[view.nodes[k].op_id] for k in view.columns["node"]], np.int64)
    lane = np.array([store.nodes[k].where for k in node])
    return {"start": view.columns["start_ns"], "end": view.columns["end_ns"], "node": node, "lane": lane,
            "outcome": view.columns["outcome"], "id": view.event_ids}


def _brute(held, store, level, lane, start_ns, end_ns):
    """Count, busiest node, errors, not-ready calls and busy time (durations of the calls not not-ready) per bucket
    of ``level``, recounted from the events."""
    width = Pyramid.width(level)
    origin = store.pyramid.origin_ns
    first = (start_ns - origin) // width
    stop = (end_ns - 1 - origin) // width + 1
    mine = held["lane"] == lane
    bucket = (held["start"][mine] - origin) // width - first
    inside = (bucket >= 0) & (bucket < stop - first)
    bucket, node, outcome = bucket[inside], held["node"][mine][inside], held["outcome"][mine][inside]
    duration = (held["end"] - held["start"])[mine][inside]
    per_node = np.zeros((stop - first, len(store.nodes)), np.int64)
    np.add.at(per_node, (bucket, node), 1)
    count = per_node.sum(axis=1)
    return (count, np.where(count > 0, per_node.argmax(axis=1), -1),
            np.bincount(bucket[outcome == ERROR], minlength=stop - first),
            np.bincount(bucket[outcome == NOT_READY], minlength=stop - first),
            [sum(duration[(bucket == k) & (outcome != NOT_READY)].tolist()) for k in range(stop - first)])


@pytest.mark.parametrize("seed", range(4))
def test_the_pyramid_kept_by_increments_equals_a_recount_at_every_level(seed):
    store = _random_run(seed)
    held = _held(store)
    rng = np.random.default_rng(100 + seed)
    for level in range(LEVELS):
        for lane in store.lanes:
            start = int(rng.integers(-5 * BASE_WIDTH_NS, 30 * BASE_WIDTH_NS))
            end = start + int(rng.integers(1, 60 * BASE_WIDTH_NS))
            nodes = np.array([i for i, node in enumerate(store.nodes) if node.where == lane])
            got = store.pyramid.buckets(level, start, end, nodes, store.lanes.index(lane))
            count, busiest, errors, waiting, busy = _brute(held, store, level, lane, start, end)
            assert got.count.tolist() == count.tolist()
            assert got.busiest.tolist() == busiest.tolist()
            assert got.errors.tolist() == errors.tolist() and got.not_ready.tolist() == waiting.tolist()
            assert got.busy_ns.tolist() == busy


def test_events_leaving_a_window_leave_the_pyramid_too():
    store = _random_run(7, window_ns=10 * BASE_WIDTH_NS)
    held = _held(store)
    assert len(held["start"]) < 3_000                          # the window let the oldest go
    lane = store.lanes[0]
    nodes = np.array([i for i, node in enumerate(store.nodes) if node.where == lane])
    got = store.pyramid.buckets(0, -BASE_WIDTH_NS, 50 * BASE_WIDTH_NS, nodes, 0)
    count, _, errors, _, busy = _brute(held, store, 0, lane, -BASE_WIDTH_NS, 50 * BASE_WIDTH_NS)
    assert got.count.tolist() == count.tolist() and got.errors.tolist() == errors.tolist()
    assert got.busy_ns.tolist() == busy and sum(busy) > 0, "the busy time of the events that left is taken away"


def test_a_pyramid_grows_to_the_left_for_events_earlier_than_any_before():
    pyramid = Pyramid()
    pyramid.add(np.array([10**13]), np.array([0]), np.array([0]), np.array([ITEM]), np.array([5]))
    pyramid.add(np.array([10**12]), np.array([0]), np.array([0]), np.array([ERROR]), np.array([7]))
    early = pyramid.buckets(0, 10**12, 10**12 + 1, np.array([0]), 0)
    late = pyramid.buckets(LEVELS - 1, 10**13, 10**13 + 1, np.array([0]), 0)
    assert early.count.tolist() == [1] and early.errors.tolist() == [1] and late.count.tolist() == [1]
    assert early.busy_ns.tolist() == [7] and late.busy_ns.tolist() == [5], "busy time moved with its bucket"


def test_a_narrow_window_answers_exactly_the_events_that_meet_it():
    store = _random_run(3)
    held = _held(store)
    start, end = 12 * BASE_WIDTH_NS, 12 * BASE_WIDTH_NS + 2 * 10**7
    window = store.window(start, end, 800)
    for lane in store.lanes:
        answer = window.lane(lane)
        expected = held["id"][(held["lane"] == lane) & (held["start"] < end) & (held["end"] >= start)]
        assert answer.events is not None and answer.buckets is None
        assert sorted(answer.events["event_id"].tolist()) == sorted(expected.tolist())
        assert answer.count == len(expected)
        assert np.all(np.diff(answer.events["start_ns"]) >= 0)          # by start


def test_a_crowded_window_answers_a_bucket_per_pixel_from_the_events_or_the_pyramid():
    store = _random_run(4, events=6_000)
    held = _held(store)
    start, end, pixels = 0, 40 * BASE_WIDTH_NS, 10
    per_pixel = store.window(start, end, pixels, exact_per_pixel=1)
    from_pyramid = store.window(start, end, pixels, exact_per_pixel=1, scan_budget=1)
    for lane in store.lanes:
        mine = (held["lane"] == lane) & (held["start"] < end) & (held["end"] >= start)
        pixel = np.clip((held["start"][mine] - start) * pixels // (end - start), 0, pixels - 1)
        buckets = per_pixel.lane(lane).buckets
        assert buckets is not None and buckets.count.tolist() == np.bincount(pixel, minlength=pixels).tolist()
        busy = held["outcome"][mine] != NOT_READY
        assert buckets.busy_ns.tolist() == np.bincount(pixel[busy], (held["end"] - held["start"])[mine][busy],
                                                       minlength=pixels).astype(int).tolist()
        assert per_pixel.lane(lane).count == int(mine.sum())
        coarse = from_pyramid.lane(lane).buckets
        assert coarse is not None and coarse.width_ns == Pyramid.width(store.pyramid.level_for((end - start) / pixels))
        assert coarse.count.sum() == int(((held["lane"] == lane) & (held["start"] >= start)
                                          & (held["start"] < end)).sum())


def test_a_window_answer_is_json_ready():
    import json

    store = _random_run(5, events=500)
    answer = store.window(0, 40 * BASE_WIDTH_NS, 50, exact_per_pixel=1, scan_budget=1).to_json()
    assert json.loads(json.dumps(answer))["lanes"][0]["buckets"]["count"]
    assert {node["op_id"] for node in answer["nodes"]} == {node.op_id for node in store.nodes}


@pytest.mark.parametrize("args, message", [((5, 5, 10), "after start_ns"), ((0, 5, 0), "pixels"),
                                           ((0, 5, 2.5), "pixels"), ((0, 5, 10, 0), "exact_per_pixel")])
def test_a_bad_window_is_refused_naming_the_argument(args, message):
    with pytest.raises(ValueError, match=message):
        TraceStore().window(*args)


def test_levels_too_fine_for_a_run_of_years_are_let_go_and_the_coarse_ones_still_count():
    pyramid = Pyramid()
    pyramid.add(np.array([0, 10**17]), np.array([0, 0]), np.array([0, 0]), np.array([ITEM, ERROR]), np.array([1, 2]))
    assert pyramid.kept and pyramid.first_level > 0 and pyramid.nbytes < 10**8
    assert pyramid.level_for(1) == pyramid.first_level
    whole = pyramid.buckets(LEVELS - 1, 0, 10**17 + 1, np.array([0]), 0)
    assert whole.count.sum() == 2 and whole.errors.sum() == 1 and whole.busy_ns.sum() == 3
    with pytest.raises(ValueError, match="not kept"):
        pyramid.buckets(0, 0, 1, np.array([0]), 0)
