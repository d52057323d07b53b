"""Issue 45's watched-run benchmark: how its samples become the table's figures, and its notebook's run without a page."""
import json

import numpy as np
import pytest

from benchmarks.bench_watched_run import (END, EVENTS_PER_ITEM, SETUP, SHOWN, frame_figure, heap_figure,
                                          spread)


def test_heap_figure_is_the_worst_reading_past_a_million_events():
    samples = [{"events": 400_000, "page_heap_mb": 900.0}, {"events": 1_000_000, "page_heap_mb": 800.0},
               {"events": 1_500_000, "page_heap_mb": 120.0}, {"events": 3_000_000, "page_heap_mb": 140.0},
               {"events": 3_000_000, "page_heap_mb": 130.0}]
    assert heap_figure(samples) == 140.0


def test_heap_figure_of_a_run_that_never_passed_a_million_is_its_end_heap():
    samples = [{"events": 200_000, "page_heap_mb": 50.0}, {"events": 200_500, "page_heap_mb": 30.0}]
    assert heap_figure(samples) == 30.0
    with pytest.raises(ValueError, match="no heap samples"):
        heap_figure([])


def test_frame_figure_is_the_worst_window_median():
    frames = [{"where": "start", "median": 16.7, "p95": 33.3}, {"where": "paced", "median": 25.0, "p95": 40.0}]
    assert frame_figure(frames) == 25.0
    with pytest.raises(ValueError, match="no frame windows"):
        frame_figure([])


def test_spread_gives_median_and_interpolated_p95():
    assert spread([1.0, 2.0, 3.0, 4.0, 100.0]) == {"median": 3.0, "p95": pytest.approx(80.8)}


def test_the_notebook_records_a_burst_then_a_paced_tail_and_saves_the_late_events(tmp_path, capsys):
    marks = {f"{name}_file": str(tmp_path / name) for name in ("start", "paced", "done")}
    events_file = str(tmp_path / "events.npz")
    namespace: dict = {}
    exec(SETUP.format(pid_file=str(tmp_path / "kernel.pid"), **marks), namespace)
    exec(SHOWN.format(burst_items=4000, burst_items_s=10_000.0, paced_items_s=20.0, paced_s=0.5), namespace)
    exec(END.format(**marks, settle_s=0.1, events_file=events_file), namespace)
    result = json.loads(capsys.readouterr().out.splitlines()[-1][len("RESULT "):])
    assert result["error"] is None
    assert 0.3 <= result["burst_s"] < result["run_s"] and result["run_s"] >= 0.8, "4000 items at 10k/s: 0.4 s"
    paced_items = result["held_events"] // EVENTS_PER_ITEM - 4000
    assert 1 <= paced_items <= 12       # 20 items/s for 0.5 s: item k at k / 20 s, k <= 10; and the stream's end
    late = np.load(events_file)
    assert 0 < len(late["ids"]) == result["latency_events"] < EVENTS_PER_ITEM * paced_items
    assert int(open(marks["paced_file"]).read()) + 100_000_000 <= late["end_ns"].min()


def test_the_watched_rows_are_left_unmeasured_when_the_page_missed_events_of_the_burst():
    from benchmarks.bench_issue45 import watched_rows

    watched = {"burst_events": 300, "page_events": 299, "live_heap_mb": 40.0, "live_frame_ms": 16.7,
               "latency_median_s": 0.3}
    assert watched_rows(watched) == {"watched": watched}
    whole = {**watched, "page_events": 330}
    assert watched_rows(whole) == {"watched": whole, "live_heap_mb": 40.0, "live_frame_ms": 16.7,
                                   "latency_median_s": 0.3}
