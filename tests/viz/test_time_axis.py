"""The time axis read at any zoom: the rules of ``rlviz.viz.timeaxis`` and the page's ``explorer_time.js`` agree
case by case (node runs the page's module over the same cases), and the matplotlib timeline of a 3-hour trace
reads h:mm:ss, not millions of ms."""
import json
import subprocess

import numpy as np
import pytest
from page_replay import NODE, STATIC

from rlviz.trace import Node, Trace
from rlviz.viz import plot_timeline
from rlviz.viz.timeaxis import duration_text, ruler_ticks, start_text

HOUR = 3_600_000.0

#: Windows (ms since the start) and widths (px): hours, minutes, seconds, ms and µs, near the start and 3 h in.
WINDOWS = [(0, 3 * HOUR, 900), (0, 10_800_000, 1200), (0, 50_000, 900), (0, 90_000, 700), (1_234.5, 1_239.5, 900),
           (65_000, 65_800, 900), (2 * HOUR, 2 * HOUR + 250, 900), (2 * HOUR, 2 * HOUR + 40, 900), (3 * HOUR - 0.3, 3 * HOUR + 0.3, 900),
           (10_000.0123, 10_000.0203, 900), (0, 0.008, 900), (-5, 40, 800), (0, 30 * 24 * HOUR, 900),
           (45.25, 45.75, 300)]
DURATIONS = [0, 0.0000005, 0.00085, 0.0123, 0.5, 0.9994, 1, 4.567, 12.345, 999.4, 1_000, 12_340, 59_999,
             125_000, 3_599_999, 10_920_000, 2 * 24 * HOUR, -4.5]
STARTS = [0, 0.001, 0.0015, 1.25, 65_250.125, 3_723_500.0, 10_800_000.0123, 3 * HOUR + 0.9999996, 99 * HOUR]

_JS = """
import { durationText, rulerTicks, startText } from "%s/explorer_time.js";
const asked = JSON.parse(process.argv[2]);
console.log(JSON.stringify({
  rulers: asked.windows.map(([a, b, w]) => rulerTicks(a, b, w)),
  durations: asked.durations.map(durationText),
  starts: asked.starts.map(startText),
}));
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """What the page's module says of WINDOWS, DURATIONS and STARTS."""
    if NODE is None:
        pytest.fail("node is not installed, so the page's time axis cannot be checked: `make test` installs it")
    script = tmp_path_factory.mktemp("time") / "time.mjs"
    script.write_text(_JS % STATIC)
    asked = {"windows": WINDOWS, "durations": DURATIONS, "starts": STARTS}
    run = subprocess.run([NODE, str(script), json.dumps(asked)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_page_and_python_label_every_window_alike(page):
    for (a, b, width), js in zip(WINDOWS, page["rulers"]):
        py = ruler_ticks(a, b, width)
        assert js["caption"] == py["caption"], (a, b)
        assert js["step"] == pytest.approx(py["step"]), (a, b)
        assert [t["label"] for t in js["ticks"]] == [t["label"] for t in py["ticks"]], (a, b)
        assert [t["ms"] for t in js["ticks"]] == pytest.approx([t["ms"] for t in py["ticks"]]), (a, b)


def test_the_page_and_python_write_durations_and_starts_alike(page):
    assert page["durations"] == [duration_text(ms) for ms in DURATIONS]
    assert page["starts"] == [start_text(ms) for ms in STARTS]


def test_labels_read_as_clock_time_at_every_zoom():
    hours = ruler_ticks(0, 3 * HOUR, 900)
    assert hours["caption"] == "time since start (h:mm:ss)"
    assert [t["label"] for t in hours["ticks"]] == ["0:00:00", "0:30:00", "1:00:00", "1:30:00", "2:00:00", "2:30:00",
                                                    "3:00:00"]
    minutes = ruler_ticks(0, 90_000, 700)
    assert minutes["caption"] == "time since start (m:ss)" and minutes["ticks"][1]["label"] == "0:15"
    tenths = ruler_ticks(65_000, 65_800, 900)
    assert tenths["caption"] == "time since start (m:ss.s)" and tenths["ticks"][1]["label"] == "1:05.1"
    hundredths = ruler_ticks(2 * HOUR, 2 * HOUR + 250, 900)
    assert hundredths["caption"] == "time since start (h:mm:ss.ss)" and hundredths["ticks"][1]["label"] == "2:00:00.05"
    ms = ruler_ticks(2 * HOUR, 2 * HOUR + 40, 900)
    assert ms["caption"] == "time since start (h:mm:ss.sss)" and ms["ticks"][1]["label"] == "2:00:00.005"
    micro = ruler_ticks(3 * HOUR - 0.3, 3 * HOUR + 0.3, 900)
    assert micro["caption"] == "from 2:59:59.999"
    assert [t["label"] for t in micro["ticks"]] == ["+700 µs", "+800 µs", "+900 µs", "+1,000 µs", "+1,100 µs",
                                                    "+1,200 µs", "+1,300 µs"]
    for a, b, width in WINDOWS:
        ticks = ruler_ticks(a, b, width)["ticks"]
        assert 2 <= len(ticks) <= width / 60 + 2, (a, b, len(ticks))          # readable: never crowded, never bare
        step = ruler_ticks(a, b, width)["step"]
        assert all(a - step * 1e-3 <= t["ms"] <= b + step * 1e-3 for t in ticks)
        assert all(len(t["label"]) <= 14 for t in ticks)


def test_durations_and_starts_read_in_the_unit_that_fits():
    assert [duration_text(ms) for ms in (0.00085, 0.0123, 4.567, 12_340, 125_000, 10_920_000)] == [
        "850 ns", "12.3 µs", "4.57 ms", "12.3 s", "2 min 5.0 s", "3 h 02 min"]
    assert start_text(10_800_000.0123) == "3:00:00.000012"
    assert start_text(65_250.125) == "0:01:05.250125"


def _three_hour_trace() -> Trace:
    """Two events an hour and a half apart, the last ending 3 h after the first started."""
    nodes = [Node("a", "sample", "sample", "driver")]
    columns = {"start_ns": np.array([0, 5_400_000_000_000], np.int64),
               "end_ns": np.array([1_000_000, 10_800_000_000_000], np.int64),
               "node": np.zeros(2, np.int32), "pid": np.zeros(2, np.int64), "outcome": np.zeros(2, np.uint8),
               "item_kind": np.zeros(2, np.uint8), "item_num": np.zeros(2, np.int64),
               "item_id": np.array([-1, -1], np.int64), "input_offsets": np.zeros(3, np.int64),
               "input_ids": np.zeros(0, np.int64)}
    return Trace(nodes, columns)


def test_the_matplotlib_timeline_of_three_hours_reads_h_mm_ss():
    ax = plot_timeline(_three_hour_trace())
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "1:00:00" in labels and "2:00:00" in labels, labels
    assert all(":" in label for label in labels), labels
    assert "3 h 00 min" in ax.get_title(loc="left")
    zoomed = plot_timeline(_three_hour_trace(), window=(5_400_000.0, 5_400_000.5))
    zoomed.figure.canvas.draw()
    assert zoomed.xaxis.get_offset_text().get_text() == "from 1:30:00.000"
    fine = [t.get_text() for t in zoomed.get_xticklabels() if t.get_text()]
    assert fine and all(label.startswith("+") and label.endswith(" µs") for label in fine), fine
