"""Issue 45's benchmark table: every row of the issue, pass and fail judged against its target, unmeasured rows said."""
from benchmarks.bench_issue45 import held_bytes, rows, table


def test_table_judges_each_row_against_its_target():
    figures = {"events": 1_000_000, "lanes": 64, "hours": 3.0, "load_average": [1.0, 1.0, 1.0],
               "html_bytes_per_event_100000": 12.0, "html_bytes_per_event_1000000": 20.0,
               "refresh_ratio": 1.5, "saved_first_frame_s": 4.0}
    verdicts = {row.measure: row.passed for row in rows(figures)}
    assert verdicts["saved HTML bytes/event, 100,000 synthetic events"] is True
    assert verdicts["saved HTML bytes/event, 1,000,000 synthetic events"] is False
    assert verdicts["kernel refresh cost, 1,000,000 held / 10,000 held"] is True
    assert verdicts["saved page: first frame (s)"] is False
    assert verdicts["Trace.load to the first query (s)"] is None
    text = table(figures)
    assert "| saved page: first frame (s) | ≤ 3 | 4 | **fail** |" in text
    assert "| Trace.load to the first query (s) | ≤ 1 | not measured | — |" in text
    assert len(text.splitlines()) == 4 + len(rows(figures))


def test_driver_bytes_per_event_held_are_measured_from_a_real_recorder():
    held = held_bytes(10_000)
    assert 8 < held["recorder_bytes_per_event"] < 200
    assert 8 < held["store_bytes_per_event"] < 200
