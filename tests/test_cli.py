"""The rlviz command: the demo runs tiny and writes loadable outputs; report reads them."""
import gzip
import json

import pytest

from rlviz import Trace
from rlviz.cli import main

pytestmark = pytest.mark.usefixtures("ray_local")


def test_demo_writes_trace_chrome_and_report(tmp_path, capsys):
    assert main(["demo", "--items", "8", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "gather_sync" in printed and "wrote" in printed
    listed = printed.split("\nwrote ")[1].splitlines()[1:]
    assert [line.split()[0] for line in listed] == ["pipeline.rlviz", "pipeline.chrome.json.gz",
                                                     "pipeline.report.html"]
    columns = {len(line) - len(line.split(maxsplit=1)[1]) for line in listed}
    assert len(columns) == 1, f"the descriptions of the wrote list start in one column:\n" + "\n".join(listed)
    trace = Trace.load(tmp_path / "pipeline.rlviz")
    lanes = {e.where for e in trace.events}
    assert "driver" in lanes and len(lanes) == 5  # driver + 2 shards for each of the 2 sources
    chrome = json.loads(gzip.decompress((tmp_path / "pipeline.chrome.json.gz").read_bytes()))
    assert len([e for e in chrome["traceEvents"] if e["ph"] == "X"]) == len(trace)
    assert (tmp_path / "pipeline.report.html").read_text().startswith("<!DOCTYPE html>")


def test_report_command_reads_a_trace_and_rejects_a_bad_file(tmp_path):
    assert main(["demo", "--items", "4", "--out", str(tmp_path)]) == 0
    out = tmp_path / "again.html"
    assert main(["report", str(tmp_path / "pipeline.rlviz"), "-o", str(out)]) == 0
    assert out.exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["report", str(bad), "-o", str(tmp_path / "x.html")]) == 2


def test_pipeline_flag_runs_the_iterator_demo(tmp_path, capsys):
    assert main(["demo", "--pipeline", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "pipeline.rlviz").exists()


def test_default_demo_is_dqn_tiny_budget(tmp_path, capsys):
    assert main(["demo", "--time", "1", "--iteration-steps", "50", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "trained/sampled steps" in printed and "StoreToReplayBuffer" in printed
    assert "\r" not in printed, "a log (not a terminal) gets one line per iteration, never a carriage return"
    progress = [line for line in printed.splitlines() if line.startswith("iter ")]
    assert progress and all(line.count("iter ") == 1 for line in progress)
    trace = Trace.load(tmp_path / "dqn.rlviz")
    assert {"Concurrently", "StoreToReplayBuffer", "ParallelRollouts"} <= {e.op for e in trace.events}
    assert len({e.where for e in trace.events}) == 3       # driver + the 2 RolloutWorker lanes
    assert (tmp_path / "dqn.return.png").read_bytes()[:4] == b"\x89PNG"
    report = (tmp_path / "dqn.report.html").read_text()
    assert report.startswith("<!DOCTYPE html>")
    assert "WorkerSet(local + 2 remote RolloutWorkers)" in report   # the run's workers, not those left after stop()
