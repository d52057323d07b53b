"""Gauges: readings written as rows beside the events, kept by the store and the trace, saved, exported to Chrome.

The last test runs the small DQN plan with 2 remote workers: the built-in
gauges (replay rows, weights versions) reach the driver through the mirrors.
"""
import json
import struct
import threading
import time

import numpy as np
import pytest

import rlviz
from rlviz.trace import Node, Recorder, Trace
from rlviz.trace.gauges import GaugeParts, LEARNING_STARTS, REPLAY_ADDED, REPLAY_HELD, WEIGHTS_VERSION
from rlviz.trace.growing import GROW
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.rows import CHUNK_EVENTS, GAUGE, ITEM
from rlviz.trace.io import save_trace
from rlviz.trace.legacy import MAGIC
from rlviz.trace.store import TraceStore, merge_exports


def test_gauge_is_a_no_op_outside_a_record_block_and_checks_its_value_inside():
    rlviz.gauge("outside", 1)                              # no recording: nothing, and no check either
    with rlviz.record() as trace:
        rlviz.gauge("queue", 3)
        rlviz.gauge("queue", np.int64(5))
        rlviz.gauge("loss", 0.25, where="learner")
        with pytest.raises(TypeError, match="gauge 'queue' needs a real number, got str '7'"):
            rlviz.gauge("queue", "7")
    gauges = trace.gauges
    assert sorted(gauges) == ["loss", "queue"]
    assert gauges["queue"].value.tolist() == [3.0, 5.0] and gauges["queue"].where.tolist() == ["driver", "driver"]
    assert gauges["loss"].where.tolist() == ["learner"]
    assert np.all(np.diff(gauges["queue"].time_ns) >= 0)


def test_gauge_rows_share_the_event_chunks_and_cross_hand_overs_and_mirrors():
    recorder, mirror = Recorder(), RecorderMirror()
    recorder.enabled = True                                # what record() switches on
    node = recorder.register(Node("n", "op", "op"))
    for i in range(3 * CHUNK_EVENTS):                      # several chunk hand-overs of both writers
        recorder.record(node, 10 * i, 10 * i + 5, ITEM, i)
        recorder.gauge("held", i)
        if i % 700 == 0:
            mirror.update(recorder.export_since(mirror.cursor))
    mirror.update(recorder.export_since(mirror.cursor))
    for export in (recorder.export(), mirror.export()):
        trace = merge_exports([export])
        assert len(trace) == 3 * CHUNK_EVENTS
        assert trace.gauges["held"].value.tolist() == list(map(float, range(3 * CHUNK_EVENTS)))
        assert [e.item for e in trace.events[:3]] == ["int 0", "int 1", "int 2"]   # events read as before


def test_a_growing_store_keeps_each_reading_once_and_the_thread_writers_hand_theirs_over():
    recorder, store = Recorder(), TraceStore()
    recorder.enabled = True

    def worker(k):
        for i in range(50):
            recorder.gauge(f"thread {k}", i)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorder.gauge("main", 1)
    store.add_export(recorder.export())
    store.add_export(recorder.export())                    # seen again: nothing twice
    recorder.gauge("main", 2)
    store.add_export(recorder.export())
    gauges = store.view().gauges
    assert gauges["main"].value.tolist() == [1.0, 2.0]
    assert all(gauges[f"thread {k}"].value.tolist() == list(map(float, range(50))) for k in range(3))
    readings, next_reading = store.gauges_since(0)
    assert next_reading == 152 and store.gauges_since(next_reading)[0][0].tolist() == []


def _gauge_rows(names: np.ndarray, times: np.ndarray, values: np.ndarray, where: int) -> np.ndarray:
    """Gauge rows (``rlviz.trace.rows.GAUGE``) naming texts ``names`` and ``where``."""
    rows = np.zeros((len(names), 5), np.int64)
    rows[:, 0], rows[:, 1], rows[:, 3], rows[:, 4] = GAUGE, times, names, where
    rows[:, 2] = np.asarray(values, np.float64).view(np.int64)
    return rows


def test_the_store_holds_a_reading_in_14_bytes_and_counts_them():
    parts = GaugeParts()
    texts = ["replay rows held", "weights version", "driver", "RolloutWorker-1"]
    for k in range(20):                                    # one add per pull, as the store takes them
        names = np.arange(10_000) % 2
        parts.add(_gauge_rows(names, k * 10_000 + np.arange(10_000), np.arange(10_000) * 0.5, 2 + k % 2), 7 + k % 2,
                  texts)
    assert len(parts) == 200_000
    assert parts.bytes_per_reading == 14                   # time int64, value float32 (exact), series uint16
    assert parts.nbytes <= 14 * 200_000 * GROW             # and room to grow by an eighth
    name, time_ns, value, pid, where = parts.readings(199_998)
    assert name.tolist() == ["replay rows held", "weights version"] and value.tolist() == [4999.0, 4999.5]
    assert pid.tolist() == [8, 8] and where.tolist() == ["RolloutWorker-1"] * 2
    assert time_ns.tolist() == [199_998, 199_999]


def test_a_value_float32_cannot_hold_makes_every_value_float64_and_none_is_rounded():
    parts = GaugeParts()
    texts = ["loss", "driver"]
    parts.add(_gauge_rows(np.zeros(3, np.int64), np.arange(3), [1.0, 2.0, 2.0**24], 1), 1, texts)
    assert parts.bytes_per_reading == 14
    parts.add(_gauge_rows(np.zeros(3, np.int64), np.arange(3, 6), [0.1, np.nan, 2.0**24 + 1], 1), 1, texts)
    value = parts.readings()[2]
    assert parts.bytes_per_reading == 18
    assert value.dtype == np.float64 and value[:3].tolist() == [1.0, 2.0, 2.0**24]
    assert value[3] == 0.1 and np.isnan(value[4]) and value[5] == 2.0**24 + 1


def test_readings_taken_from_the_front_come_out_in_order_and_what_was_read_never_changes():
    """A spilling store takes its oldest readings every pull while new ones arrive: the held columns' front moves
    and their rows slide down to make room, which must neither lose a reading nor change arrays handed out."""
    parts, texts = GaugeParts(), ["rows", "driver"]
    handed_out, taken = [], []
    for k in range(40):                                    # 40 pulls of 5,000 readings, 3 pulls' worth held
        times = k * 5_000 + np.arange(5_000)
        parts.add(_gauge_rows(np.zeros(5_000, np.int64), times, times * 0.5, 1), 1, texts)
        handed_out.append((k * 5_000, parts.readings(k * 5_000)[1]))
        if k >= 3:
            taken.append(parts.take_before({1: (k - 2) * 5_000}).to_gauges()["rows"])
    assert parts.gone == 37 * 5_000 and len(parts) == 3 * 5_000
    assert np.array_equal(np.concatenate([g.time_ns for g in taken]), np.arange(37 * 5_000))
    assert np.array_equal(np.concatenate([g.value for g in taken]), np.arange(37 * 5_000) * 0.5)
    for first, time_ns in handed_out:
        assert np.array_equal(time_ns, first + np.arange(5_000))
    name, time_ns, *_ = parts.readings(parts.gone + 10, parts.gone + 12)
    assert name.tolist() == ["rows", "rows"] and time_ns.tolist() == [37 * 5_000 + 10, 37 * 5_000 + 11]
    assert parts.nbytes <= 14 * 4 * 5_000 * GROW + 14 * 1024   # the let-go front is taken back, not kept


def test_each_process_s_readings_leave_with_its_own_cut_off_not_held_back_by_a_slow_process():
    """A process that records rarely keeps its old events (and readings) in the store; the busy processes'
    readings must still leave with their own evicted events, or gauges grow without bound past capacity."""
    parts, texts = GaugeParts(), ["rows", "driver", "worker"]
    for k in range(10):                                    # the slow process (pid 2) took one reading first
        if k == 0:
            parts.add(_gauge_rows(np.zeros(1, np.int64), np.array([0]), [1.0], 2), 2, texts)
        times = 100 + k * 1_000 + np.arange(1_000)
        parts.add(_gauge_rows(np.zeros(1_000, np.int64), times, times * 1.0, 1), 1, texts)
    taken = parts.take_before({1: 100 + 7_000}).to_gauges()   # the busy process's first 7 thousand leave
    assert taken["rows"].time_ns.tolist() == list(range(100, 7_100)) and set(taken["rows"].pid.tolist()) == {1}
    assert len(parts) == 1 + 3_000
    name, time_ns, value, pid, where = parts.readings(parts.gone)
    assert time_ns[0] == 0 and pid[0] == 2 and where[0] == "worker"   # the slow process's reading stays
    assert time_ns[1:].tolist() == list(range(7_100, 10_100))
    assert parts.drop_before({2: 1}) == 1 and len(parts) == 3_000      # and leaves with its own cut-off


def test_readings_leave_the_store_with_their_process_s_evicted_events_though_rare_events_stay():
    """In a DQN run some nodes record rarely (once per train() call), in the busy processes too, and one process
    may record little: their oldest events stay held for the whole run. A busy process's readings must still leave
    with its evicted events (they used to wait for the oldest event held anywhere, so none ever left)."""
    store, busy, rare = TraceStore(), Recorder(capacity=2 * CHUNK_EVENTS, where="busy"), Recorder(where="rare")
    rare.pid = busy.pid + 1                                # two processes, as a driver and a worker are
    for recorder in (busy, rare):
        recorder.enabled = True
    try:
        now = time.time_ns()
        rare.record(rare.register(Node("rare", "op", "op")), now, now + 1, ITEM, 0)
        rare.gauge("rare reading", 1.0)
        store.add_export(rare.export())
        busy.record(busy.register(Node("seldom", "op", "op")), now, now + 1, ITEM, 0)    # its chunk stays open
        node = busy.register(Node("busy", "op", "op"))
        for i in range(20 * CHUNK_EVENTS):
            now = time.time_ns()
            busy.record(node, now, now + 1, ITEM, i)
            busy.gauge("busy reading", float(i))
            if i % 1_000 == 999:
                store.add_export(busy.export())
    finally:
        for recorder in (busy, rare):
            recorder.enabled = False
    store.add_export(busy.export())
    trace = store.view()
    ops = [trace.nodes[k].op_id for k in trace.columns["node"]]
    assert busy.dropped > 0 and ops.count("seldom") == 1 and len(trace.gauges["rare reading"]) == 1
    held_from = trace.columns["start_ns"][np.array(ops) == "busy"].min()
    readings = trace.gauges["busy reading"]
    assert len(readings) <= 3 * CHUNK_EVENTS, f"{len(readings)} readings held beside {len(store)} events"
    assert readings.time_ns.min() >= held_from - 10**9 and readings.value.max() == 20 * CHUNK_EVENTS - 1


def test_series_past_65536_widen_their_code_instead_of_wrapping():
    parts = GaugeParts()
    texts = [f"g{k}" for k in range(70_000)] + ["driver"]
    parts.add(_gauge_rows(np.arange(70_000), np.arange(70_000), np.zeros(70_000), 70_000), 1, texts)
    name = parts.readings()[0]
    assert parts.bytes_per_reading == 16
    assert name[[0, 65_536, 69_999]].tolist() == ["g0", "g65536", "g69999"]


def test_save_load_and_chrome_keep_the_gauges(tmp_path):
    with rlviz.record() as recorded:
        for i in range(4):
            rlviz.gauge("rows", 100 * i)
        rlviz.gauge("version", 2, where="RolloutWorker-1")
    trace = recorded.snapshot()
    trace.save(tmp_path / "t.rlviz")
    loaded = Trace.load(tmp_path / "t.rlviz")
    for name in ("rows", "version"):
        for column in ("time_ns", "value", "pid", "where"):
            assert getattr(loaded.gauges[name], column).tolist() == getattr(trace.gauges[name], column).tolist()
    trace.to_chrome(tmp_path / "t.chrome.json")
    counters = [e for e in json.loads((tmp_path / "t.chrome.json").read_text())["traceEvents"] if e["ph"] == "C"]
    assert [(e["name"], e["args"]["value"]) for e in counters] == [
        ("rows @ driver", 0.0), ("rows @ driver", 100.0), ("rows @ driver", 200.0), ("rows @ driver", 300.0),
        ("version @ RolloutWorker-1", 2.0)]


def test_a_version_3_file_with_a_bad_json_gauge_is_refused_by_name(tmp_path):
    """Version 3 files carry the readings as JSON in the header: a bad one is named (built here in that layout)."""
    with rlviz.record() as recorded:
        with rlviz.trace.span("step"):
            pass
    path = tmp_path / "t.rlviz"
    save_trace(recorded.snapshot(), path, version=4)  # no readings: the gauge columns are empty, last, dropped here
    data = path.read_bytes()
    at = len(MAGIC) + 4                          # the first segment's header length, then the header
    length = struct.unpack("<Q", data[at:at + 8])[0]
    header = json.loads(data[at + 8:at + 8 + length])
    del header["readings"], header["series"]
    header["columns"] = [entry for entry in header["columns"] if not entry[0].startswith("gauge_")]
    header["gauges"] = {"rows": {"time_ns": [1], "value": ["many"], "pid": [1], "where": ["driver"]}}
    encoded = json.dumps(header).encode()
    path.write_bytes(MAGIC + struct.pack("<I", 3) + struct.pack("<Q", len(encoded)) + encoded
                     + data[at + 8 + length:])
    with pytest.raises(rlviz.trace.TraceFormatError, match="t.rlviz: gauge 'rows': time_ns and pid must be ints"):
        Trace.load(path)


@pytest.mark.usefixtures("ray_local")
def test_a_dqn_run_records_replay_rows_and_weights_versions_and_the_causes_of_not_ready(tmp_path):
    trainer = rlviz.Trainer("dqn", num_workers=2, config={"learning_starts": 16, "timesteps_per_iteration": 40,
                                                         "train_batch_size": 32, "counters_as_gauges": True})
    try:
        with rlviz.record() as recorded:
            trainer.train()
            trainer.train()
    finally:
        trainer.stop()
    trace = recorded.snapshot()
    gauges = trace.gauges
    assert {REPLAY_ADDED, REPLAY_HELD, LEARNING_STARTS, WEIGHTS_VERSION} <= set(gauges)
    added = gauges[REPLAY_ADDED].value
    assert added[0] == 8 and np.all(np.diff(added) >= 0) and set(gauges[LEARNING_STARTS].value) == {16}
    versions = gauges[WEIGHTS_VERSION]
    assert set(versions.lanes()) == {"driver", "RolloutWorker-1", "RolloutWorker-2"}   # the learner and each worker
    learner = versions.on("driver").value
    assert learner.tolist() == list(map(float, range(1, len(learner) + 1)))           # one per update
    for worker in ("RolloutWorker-1", "RolloutWorker-2"):
        held = versions.on(worker)
        assert set(held.pid.tolist()).isdisjoint(versions.on("driver").pid.tolist())     # recorded in the actor
        # each version a worker held is one the learner reached (the last sync may land after the block ends)
        assert set(held.value.tolist()) <= set(learner.tolist()) and held.value.max() >= 1
    sampled = gauges["counter num_steps_sampled"].value                  # metrics.counters, once per train()
    assert len(sampled) == 2 and sampled[0] >= 40 and sampled[1] > sampled[0]
    early = [e for e in trace.events if e.op == "Replay" and e.outcome == "not_ready"]
    assert early and early[0].why == "not ready: replay buffer has 8 of the 16 rows learning_starts needs"
    trace.save(tmp_path / "dqn.rlviz")
    assert Trace.load(tmp_path / "dqn.rlviz").gauges[WEIGHTS_VERSION].value.tolist() == versions.value.tolist()
    trace.to_chrome(tmp_path / "dqn.chrome.json")
    names = {e["name"] for e in json.loads((tmp_path / "dqn.chrome.json").read_text())["traceEvents"] if e["ph"] == "C"}
    assert {"replay rows added @ driver", "weights version @ RolloutWorker-1", "weights version @ RolloutWorker-2"} <= names


def test_a_window_keeps_recent_readings_and_lets_old_ones_go_from_the_recorder_and_the_store():
    recorder, store = Recorder(), TraceStore(window_ns=10**9)
    node = recorder.register(Node("n", "op", "op"))
    recorder.enabled = True
    try:
        for i in range(2 * CHUNK_EVENTS):                  # one full gauge chunk handed over, all of it recent
            recorder.gauge("held", i)
    finally:
        recorder.enabled = False
    now = time.time_ns()
    recorder.record(node, 0, 1, ITEM, 0)                   # an event that ended long before the readings
    assert recorder.forget_ended_before(now - 10**9) == 0  # the handed-over gauge chunk is recent: it stays
    store.add_export(recorder.export())
    first, seen = store.gauges_since(0)
    assert len(first[0]) == seen == 2 * CHUNK_EVENTS
    recorder.record(node, now + 5 * 10**9, now + 5 * 10**9 + 1, ITEM, 1)   # the window moves 5 s on
    recorder.enabled = True
    recorder.gauge("held", -1.0)
    recorder.enabled = False
    store.add_export(recorder.export())
    fresh, after = store.gauges_since(seen)
    assert "held" not in store.view().gauges             # every reading is older than the window now
    assert len(fresh[0]) == 0 and after == 2 * CHUNK_EVENTS + 1   # numbers keep counting those let go
