"""rlviz.watch / LiveView without a browser: the run in its thread, controls, limits, errors, what is sent."""
import math
import threading
import time

import numpy as np
import pytest

import rlviz
from rlviz.viz.explorer_payload import Payload, decode_payload
from rlviz.widgets.live import LiveView


def _pipeline(n=100_000, pause_s=0.0):
    """A driver-only pipeline (no Ray): a source of n ints, doubled."""
    from rlviz.iter.local import LocalIterator

    def numbers():
        for i in range(n):
            if pause_s:
                time.sleep(pause_s)
            yield i

    return LocalIterator(lambda timeout: numbers(), name="numbers").for_each(lambda x: x * 2)


def _remote_pipeline(n=100_000):
    from rlviz.iter import from_range
    return from_range(n, num_shards=2).for_each(lambda x: x * 2).gather_sync()


def _capture(live):
    sent = []
    live.send = lambda content, buffers=None: sent.append((content, list(buffers or [])))
    return sent


def _wait(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


@pytest.mark.parametrize("target", [42, "dqn", None, [1, 2]])
def test_watch_refuses_what_it_cannot_run(target):
    with pytest.raises(TypeError, match="needs an rlviz.Trainer, an RLlib 2.x Algorithm or an rlviz iterator"):
        rlviz.watch(target)


def test_watch_names_a_big_wrong_target_by_its_type_not_its_whole_repr():
    from rlviz.viz.examples import sharded_trace
    diff = rlviz.diff(sharded_trace(), sharded_trace())
    assert "\n" in repr(diff), "a diff's repr is a table: the case this guards"
    with pytest.raises(TypeError) as refused:
        rlviz.watch(diff)
    message = str(refused.value)
    assert "not TraceDiff" in message and "\n" not in message and len(message) < 200, message


def test_watch_points_a_parallel_iterator_to_its_gathers(ray_local):
    from rlviz.iter import from_range
    with pytest.raises(TypeError, match="gather_sync"):
        rlviz.watch(from_range(10, num_shards=2))


@pytest.mark.parametrize("name", ["seconds", "iterations", "window_s"])
@pytest.mark.parametrize("bad", [-1, 0, math.nan, math.inf])
def test_limits_must_be_finite_and_positive(name, bad):
    if name == "iterations" and isinstance(bad, float):
        with pytest.raises(TypeError, match="iterations must be an int"):
            rlviz.watch(_pipeline(), **{name: bad})
        return
    with pytest.raises(ValueError, match=f"{name} must be a finite number > 0"):
        rlviz.watch(_pipeline(), **{name: bad})


def test_a_limited_run_ends_by_itself_and_its_trace_is_a_normal_trace(tmp_path):
    live = rlviz.watch(_pipeline(), iterations=300)
    live.join(timeout=120)
    assert not live.running and live.iterations == 300 and live.error is None
    assert live.result == 2 * 299
    trace = live.trace
    assert [e.item for e in trace.events if e.op == "for_each"][-1] == "int 598"
    trace.save(tmp_path / "t.json")
    assert len(rlviz.Trace.load(tmp_path / "t.json")) == len(trace)


def test_a_finished_run_keeps_its_timeline_as_the_saved_picture():
    """Drawn off the main thread (the refresher's), without touching pyplot's figure registry."""
    import matplotlib.pyplot as plt

    figures = plt.get_fignums()
    live = rlviz.watch(_pipeline(), iterations=50)
    live.join(timeout=120)
    assert live._picture.startswith(b"\x89PNG\r\n\x1a\n") and len(live._picture) > 5_000
    assert plt.get_fignums() == figures


def test_pause_resume_and_stop_from_python():
    live = rlviz.watch(_pipeline(10_000_000, pause_s=0.001))
    _wait(lambda: live.iterations > 10)
    live.pause()
    _wait(lambda: live.paused)
    time.sleep(0.3)                      # the step running when paused ends; then nothing more
    frozen = live.iterations
    time.sleep(0.5)
    assert live.iterations == frozen and live.running
    live.resume()
    _wait(lambda: live.iterations > frozen)
    live.stop()
    assert not live.running
    assert not any(t.name == "rlviz-watch" for t in threading.enumerate())
    assert len(live.trace) > 0


def test_the_page_buttons_reach_the_run():
    live = rlviz.watch(_pipeline(10_000_000, pause_s=0.001))
    _capture(live)
    _wait(lambda: live.iterations > 5)
    live._handle_custom_msg({"type": "command", "command": "pause", "view": "v"}, [])
    assert live.paused
    live._handle_custom_msg({"type": "command", "command": "resume", "view": "v"}, [])
    assert not live.paused
    live._handle_custom_msg({"type": "command", "command": "stop", "view": "v"}, [])
    live.join(timeout=60)
    assert not live.running


def test_watching_a_target_twice_says_so():
    it = _pipeline(10_000_000, pause_s=0.001)
    live = rlviz.watch(it)
    try:
        with pytest.raises(ValueError, match="already being watched"):
            rlviz.watch(it)
    finally:
        live.stop()
    again = rlviz.watch(_pipeline(), iterations=2)
    again.join(timeout=60)
    assert again.error is None


def test_an_error_in_the_run_stops_it_is_kept_and_shown_and_the_trace_stays():
    def boom(x):
        if x >= 80:
            raise ValueError(f"bad item {x}")
        return x

    live = rlviz.watch(_pipeline(1000).for_each(boom))
    sent = _capture(live)
    live.join(timeout=120)
    assert not live.running
    assert live.error.startswith("ValueError") and "bad item 80" in live.error
    _wait(lambda: any(c["type"] == "status" and c["status"]["error"] == live.error for c, _ in sent))
    assert any(e.outcome == "error" for e in live.trace.events)


def _chunks_shown(live, sent, view):
    """Every chunk the page's list names after the start and each extent, asked for as the page asks."""
    payload = next(c for c, _ in sent if c["type"] == "payload" and c["view"] == view)
    detail = list(payload["meta"]["detail"])
    for content, _ in sent:
        if content["type"] == "extent" and content["view"] == view:
            extent = content["extent"]
            assert extent["detail_from"] <= len(detail), "an extent follows what the page holds"
            detail[extent["detail_from"]:] = extent["detail"]
    chunks = []
    for k, entry in enumerate(detail):
        if entry.get("gone"):
            continue
        live._handle_custom_msg({"type": "detail", "view": view, "chunk": k}, [])
        content, buffers = sent[-1]
        assert content["type"] == "detail" and content["chunk"] == k, content
        assert (content["meta"]["first_id"], content["meta"]["count"]) == (entry["first_id"], entry["count"])
        chunks.append((content["meta"], buffers))
    return payload["meta"], detail, chunks


def test_every_event_reaches_the_page_once_in_id_order(ray_local):
    live = rlviz.watch(_remote_pipeline(), seconds=3)
    sent = _capture(live)
    live._handle_custom_msg({"type": "ready", "view": "v1"}, [])
    live.join(timeout=120)
    extents = [c for c, _ in sent if c["type"] == "extent"]
    assert len(extents) >= 2, "a 3 s run refreshed at least twice"
    meta, detail, chunks = _chunks_shown(live, sent, "v1")
    assert meta["growing"] and meta["long"]
    ids, starts = [], []
    for chunk, buffers in chunks:
        ids.extend(range(chunk["first_id"], chunk["first_id"] + chunk["count"]))
        starts.append(chunk["time_base"] + decode_payload(Payload(chunk, buffers))["start"].astype(np.int64))
    trace = live.trace
    assert ids == list(range(len(ids))) and len(ids) == len(trace) == extents[-1]["extent"]["events"]
    origin = int(meta["origin_ns"])
    page_starts = np.sort(np.concatenate(starts).astype(np.int64))
    assert np.array_equal(page_starts, np.sort((trace.columns["start_ns"] - origin) // 1000))
    sent_bytes = sum(len(x) for _, b in chunks for x in b)
    assert sent_bytes / len(ids) <= 24
    calls = extents[-1]["extent"]["counts"]["calls"]
    assert sum(calls) == len(trace), "the node counts are the whole run's"


def test_window_keeps_the_last_seconds_and_counts_the_whole_run():
    live = rlviz.watch(_pipeline(10_000_000, pause_s=0.0005), seconds=4, window_s=1)
    sent = _capture(live)
    live._handle_custom_msg({"type": "ready", "view": "v"}, [])
    live.join(timeout=120)
    trace = live.trace
    span_s = (trace.columns["end_ns"].max() - trace.columns["start_ns"].min()) / 1e9
    assert span_s <= 1.5, span_s
    last = [c["extent"] for c, _ in sent if c["type"] == "extent"][-1]
    assert last["events"] > len(trace) and sum(last["counts"]["calls"]) == last["events"]


def test_a_window_lets_the_driver_forget_what_actors_sent_before_it(ray_local):
    from rlviz.iter.actors import COLLECTOR
    before = set(COLLECTOR.handles)                  # actors of earlier tests may still be alive
    pipeline = _remote_pipeline(10**9)
    shards = set(COLLECTOR.handles) - before
    assert len(shards) == 2, shards
    live = rlviz.watch(pipeline, seconds=120, window_s=0.5)
    _capture(live)

    def forgotten():
        with COLLECTOR.lock:
            return [mirror.cursor.chunks - mirror.chunks_held for label, mirror in COLLECTOR.mirrors.items()
                    if label in shards]

    try:
        _wait(lambda: len(forgotten()) == 2 and min(forgotten()) >= 2, timeout=100)
    finally:
        live.stop()
    assert live.error is None
    trace = live.trace
    assert len(trace) > 0, (live._live.store.first_id, live._live.store.next_id, live.iterations)
    span_s = (trace.columns["end_ns"].max() - trace.columns["start_ns"].min()) / 1e9
    assert span_s <= 1.0, span_s


def test_an_error_names_the_worker_that_died():
    from rlviz.widgets.live import _describe

    class RayActorError(Exception):
        pass

    text = ("The actor died unexpectedly before finishing this task.\n\tclass_name: RolloutWorker\n"
            "\tactor_id: 5e0b1c2d3e4f5a6b7c8d9e0f01000000\n\tpid: 1234")
    assert _describe(RayActorError(text)) == ("RayActorError: The actor died unexpectedly before finishing this task. "
                                              "(worker RolloutWorker actor 5e0b1c2d)")
    assert _describe(ValueError("shard-1 raised")) == "ValueError: shard-1 raised"


def test_a_page_shown_after_the_run_gets_every_event():
    live = rlviz.watch(_pipeline(), iterations=50)
    live.join(timeout=60)
    sent = _capture(live)
    live._handle_custom_msg({"type": "ready", "view": "late"}, [])
    _, detail, chunks = _chunks_shown(live, sent, "late")
    assert [(c["first_id"], c["count"]) for c, _ in chunks if c["count"]] == [(0, len(live.trace))]


@pytest.mark.notebook
def test_a_watch_output_carries_the_picture_of_the_ended_run():
    """A reader without a kernel (the site, a saved notebook) sees the run's timeline, not an empty one."""
    import base64
    import io
    import os

    import matplotlib.image
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in [
        "import rlviz\nfrom rlviz.iter.local import LocalIterator\n"
        "live = rlviz.watch(LocalIterator(lambda timeout: iter(range(10**6)), name='numbers'), iterations=300)\nlive",
        "live.join(timeout=60)\nprint(live)"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "MPLBACKEND"}
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute(env=env)
    (shown,) = notebook.cells[0].outputs
    assert "application/vnd.jupyter.widget-view+json" in shown["data"]
    assert shown["data"]["text/plain"] == "LiveView(stopped, 300 iterations, 300 events)", "the ended run's output"
    picture = matplotlib.image.imread(io.BytesIO(base64.b64decode(shown["data"]["image/png"])), format="png")
    assert picture.shape[0] > 100 and picture.std() > 0.05, "a drawn timeline"


def test_a_page_asking_whether_the_kernel_is_there_gets_its_answer():
    """The page pings when its connection changed (explorer_kernel.js); a kernel still there answers that view."""
    live = rlviz.watch(_pipeline(10), iterations=1)
    sent = _capture(live)
    live._handle_custom_msg({"type": "ping", "view": "v7"}, [])
    live.join(timeout=60)
    assert ({"type": "pong", "view": "v7"}, []) in sent
