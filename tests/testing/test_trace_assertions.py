"""assert_order / assert_ratio: pass on the right order, fail with the strip printed around the first mismatch."""
import pytest
from trace_runs import record_concurrently, record_with_learning_starts

from rlviz.testing import assert_order, assert_ratio
from rlviz.trace import Trace

STORE = ["StoreToReplayBuffer", "TrainOneStep"]


def _trace(letters):
    """A driver trace whose items complete in the order of ``letters`` (S = store, T = train).

    Each op first makes one not-ready call, so both nodes exist even when one never makes an item.
    """
    op = {"S": "StoreToReplayBuffer", "T": "TrainOneStep"}
    return Trace.from_records([{"op": op[c], "label": op[c], "op_id": c, "where": "driver", "pid": 1,
                                "start_ns": 10 * k, "end_ns": 10 * k + 5, "outcome": outcome}
                               for k, (c, outcome) in enumerate([("S", "not_ready"), ("T", "not_ready"),
                                                                 *((c, "item") for c in letters)])])


def _message(excinfo):
    return str(excinfo.value)


def test_order_passes_on_the_repeated_round():
    assert_order(_trace("STTSTTSTTST"), STORE, ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"])


def test_order_mismatch_message_shows_the_strip_around_it():
    with pytest.raises(AssertionError) as excinfo:
        assert_order(_trace("STTSTTSTSTT"), STORE, ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"])
    assert _message(excinfo) == (
        "recorded order differs from the pattern at index 8 (item 9 of 11): recorded StoreToReplayBuffer, "
        "pattern expects TrainOneStep\n"
        "pattern (one round, repeating): StoreToReplayBuffer, TrainOneStep, TrainOneStep; 11 items made by ops "
        "StoreToReplayBuffer, TrainOneStep\n"
        "index      0               8\n"
        "recorded   S T T S T T S T S T T\n"
        "expected   S T T S T T S T T S T\n"
        "                           ^ first mismatch, index 8\n"
        "key: S = StoreToReplayBuffer, T = TrainOneStep")


def test_long_strips_are_cut_around_the_mismatch():
    letters = "STT" * 30 + "STST" + "STT" * 10
    with pytest.raises(AssertionError) as excinfo:
        assert_order(_trace(letters), STORE, ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"])
    lines = _message(excinfo).splitlines()
    assert lines[2] == "index      68                                              92"
    assert lines[3] == "recorded  \u2026" + " ".join(letters[68:92 + 12 + 1]) + " \u2026"    # 24 before, 12 after
    assert lines[5].index("^") == lines[2].index("92")


def test_warmup_skips_the_store_only_rounds():
    trace = _trace("SSSS" + "STT" * 5)
    pattern = ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"]
    assert_order(trace, STORE, pattern, skip="warmup")
    assert_order(trace, STORE, pattern, skip=4)
    with pytest.raises(AssertionError, match="at index 1 "):
        assert_order(trace, STORE, pattern)
    with pytest.raises(AssertionError) as excinfo:
        assert_order(trace, STORE, ["StoreToReplayBuffer", "TrainOneStep"], skip="warmup")
    assert "the first 4 skipped" in _message(excinfo)
    assert "expected           S T S T" in _message(excinfo)     # nothing expected at skipped places


def test_warmup_skips_whole_recorded_rounds_before_every_op_made_an_item():
    # weights [1, 2], train not ready until 3 stores: rounds 1-2 are S (train not ready), round 3 is S T T
    trace = record_with_learning_starts([1, 2])
    assert_order(trace, ["store", "train"], ["store", "train", "train"], skip="warmup")
    # the swapped mistake [2, 1]: round 1 is S S (train not ready), round 2 is S S T: 2 items skipped,
    # then S S T against S T T differs at the second S
    swapped = record_with_learning_starts([2, 1])
    with pytest.raises(AssertionError) as excinfo:
        assert_order(swapped, ["store", "train"], ["store", "train", "train"], skip="warmup")
    assert "the first 2 skipped" in _message(excinfo)
    assert "recorded order differs from the pattern at index 3 " in _message(excinfo)


def test_too_few_items_fail_rather_than_pass_vacuously():
    with pytest.raises(AssertionError, match="only 2 items to check, fewer than one round of the pattern \\(3\\)"):
        assert_order(_trace("ST"), STORE, ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"])
    with pytest.raises(AssertionError, match="TrainOneStep made no item, so the warm-up never ended"):
        assert_order(_trace("SSSS"), STORE, ["StoreToReplayBuffer", "TrainOneStep"], skip="warmup")


def test_an_op_left_out_of_the_pattern_must_not_run():
    with pytest.raises(AssertionError, match="recorded TrainOneStep, pattern expects StoreToReplayBuffer"):
        assert_order(_trace("SSST"), STORE, ["StoreToReplayBuffer"])


def test_ratio_passes_within_tolerance_and_fails_with_numbers():
    trace = _trace("SSSS" + "STTT" * 10)
    assert_ratio(trace, STORE, [1, 3], skip="warmup")
    assert_ratio(trace, STORE, [1, 3], tolerance=0.3)            # 30 : 14 overall, 2.14 is within 30% of 3
    with pytest.raises(AssertionError) as excinfo:
        assert_ratio(trace, STORE, [1, 3])
    assert _message(excinfo).splitlines()[:2] == [
        "measured ratio 14 : 30 items = 1 : 2.14, expected 1 : 3 within 5%",
        "TrainOneStep: 2.14 per StoreToReplayBuffer, expected 3 (allowed 2.85 to 3.15)"]
    assert "recorded   S S S S S T T T" in _message(excinfo)
    with pytest.raises(AssertionError, match="StoreToReplayBuffer made no items"):
        assert_ratio(_trace("TTT"), STORE, [1, 3])


def test_on_a_recorded_local_concurrently():
    trace = record_concurrently([1, 2], items=30)
    ops = ["for_each", "train"]
    assert_order(trace, ops, ["for_each", "train", "train"])
    assert_ratio(trace, ops, [1, 2], tolerance=0.01)
    with pytest.raises(AssertionError) as excinfo:
        assert_order(trace, ops, ["for_each", "train"])
    assert "at index 2 (item 3 of 30): recorded train, pattern expects for_each" in _message(excinfo)
    assert "key: F = for_each, T = train" in _message(excinfo)


def test_on_a_recorded_dqn_run(dqn_trace):
    one_round = ["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep", "TrainOneStep"]     # weights [1, 3]
    assert_order(dqn_trace, STORE, one_round, skip="warmup")
    assert_ratio(dqn_trace, STORE, [1, 3], tolerance=0.1, skip="warmup")
    with pytest.raises(AssertionError) as excinfo:
        assert_order(dqn_trace, STORE, one_round[:3], skip="warmup")
    assert "recorded TrainOneStep, pattern expects StoreToReplayBuffer" in _message(excinfo)
    with pytest.raises(AssertionError, match="expected 1 : 2 within 5%"):
        assert_ratio(dqn_trace, STORE, [1, 2], skip="warmup")


@pytest.mark.parametrize("call, error, match", [
    (lambda t: assert_order([], STORE, STORE), TypeError, "needs a Trace"),
    (lambda t: assert_order(t, "TrainOneStep", ["TrainOneStep"]), TypeError, "not the string"),
    (lambda t: assert_order(t, [], ["TrainOneStep"]), ValueError, "at least one op"),
    (lambda t: assert_order(t, STORE, []), ValueError, "at least one entry"),
    (lambda t: assert_order(t, STORE, ["Replay"]), ValueError, "'Replay' is not in ops"),
    (lambda t: assert_order(t, ["Repaly"], ["Repaly"]), ValueError, "matches no node"),
    (lambda t: assert_order(t, STORE, STORE, skip=-1), ValueError, "skip must be an int >= 0"),
    (lambda t: assert_order(t, STORE, STORE, skip="warm"), ValueError, "skip must be"),
    (lambda t: assert_order(t, [1], [1]), TypeError, "entries must be str"),
    (lambda t: assert_ratio(t, ["TrainOneStep"], [1]), ValueError, "at least two ops"),
    (lambda t: assert_ratio(t, STORE, [1]), ValueError, "one number per ops entry"),
    (lambda t: assert_ratio(t, STORE, [1, 0]), ValueError, r"expected\[1\] must be a finite number > 0, got 0"),
    (lambda t: assert_ratio(t, STORE, [1, float("inf")]), ValueError, r"expected\[1\] must be a finite number"),
    (lambda t: assert_ratio(t, STORE, [1, "2"]), TypeError, r"expected\[1\] must be a finite number"),
    (lambda t: assert_ratio(t, STORE, "12"), TypeError, "expected must be a list"),
    (lambda t: assert_ratio(t, STORE, [1, 2], tolerance=0), ValueError, "tolerance must be a finite number > 0"),
])
def test_bad_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call(_trace("STT"))


def test_ratio_counts_whole_rounds_and_says_what_it_left_out():
    three = ["S", "T", "L"]
    trace = Trace.from_records([{"op": c, "label": c, "op_id": c, "where": "driver", "pid": 1,
                                 "start_ns": 10 * k, "end_ns": 10 * k + 5, "outcome": "item"}
                                for k, c in enumerate("STL" * 10 + "ST")])      # 11 : 11 : 10, cut mid-round
    assert_ratio(trace, three, [1, 1, 1])
    with pytest.raises(AssertionError) as excinfo:
        assert_ratio(trace, three, [1, 1, 1], whole_rounds=False)
    assert _message(excinfo).startswith("measured ratio 11 : 11 : 10 items = 1 : 1 : 0.909")
    with pytest.raises(AssertionError) as excinfo:
        assert_ratio(trace, three, [1, 2, 1])
    assert _message(excinfo).startswith("measured ratio 10 : 10 : 9 items (the last 3 items, a round cut short, "
                                        "left out; whole_rounds=False counts them)")


def test_star_and_not_ready_in_patterns():
    store_log = ["StoreToReplayBuffer", "LogMetrics"]
    op = {"S": "StoreToReplayBuffer", "L": "LogMetrics", "T": "TrainOneStep"}
    trace = Trace.from_records([{"op": op[c], "label": op[c], "op_id": c, "where": "driver", "pid": 1,
                                 "start_ns": 10 * k, "end_ns": 10 * k + 5, "outcome": "item"}
                                for k, c in enumerate("SLLLSLSLLSL")])
    assert_order(trace, store_log, ["StoreToReplayBuffer", "LogMetrics*"])
    with pytest.raises(AssertionError) as excinfo:
        assert_order(trace, store_log, ["StoreToReplayBuffer", "LogMetrics"])
    assert "recorded StoreToReplayBuffer, pattern expects LogMetrics" not in _message(excinfo)
    assert "recorded LogMetrics, pattern expects StoreToReplayBuffer" in _message(excinfo)
    gaps = _trace("STSSTST")                         # TrainOneStep missing in round 2: its turn ended not ready
    assert_order(gaps, STORE, ["StoreToReplayBuffer", "TrainOneStep?"])
    with pytest.raises(AssertionError) as excinfo:
        assert_order(_trace("STTSTST"), STORE, ["StoreToReplayBuffer", "TrainOneStep?"])
    assert _message(excinfo).startswith("recorded order leaves the pattern at index 2 (item 3 of 7): "
                                        "recorded TrainOneStep")


def test_ratio_with_a_star_op_compares_only_the_numbered_ones():
    trace = _trace("STTSTTSTT")
    assert_ratio(trace, STORE, [1, "*"])
    with pytest.raises(TypeError, match=r"expected\[0\] must be a finite number > 0, got str '\*'; "
                                         r"hint: e\.g\. expected=\[1, 1\]"):
        assert_ratio(trace, STORE, ["*", 1])
    with pytest.raises(ValueError, match=r"expected\[1\] .* got 0; hint: e\.g\. expected=\[2, 1\]"):
        assert_ratio(trace, STORE, [2, 0])


def test_pytest_shows_the_message_not_the_assertions_source(tmp_path):
    import subprocess
    import sys
    test = tmp_path / "test_user.py"
    test.write_text("from rlviz.testing import assert_order\n"
                    "from rlviz.viz.examples import concurrently_trace\n"
                    "def test_weights():\n"
                    "    trace = concurrently_trace((1, 2), rounds=6, warmup=0)\n"
                    "    assert_order(trace, ['store', 'train'], ['store', 'train'])\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "recorded order differs from the pattern at index 2" in done.stdout
    assert "Examples" not in done.stdout and "def assert_order" not in done.stdout
