"""How a shard batches its answers: Ray's batch_ms window, fixed chunks, and coalescing fast items."""
import time

import pytest

from rlviz.iter.worker import _collect


def _pulls(delays_s):
    """A pull function whose n-th call sleeps ``delays_s[n]`` and returns ``(n, n)``; then StopIteration."""
    calls = iter(enumerate(delays_s))

    def pull():
        n, delay = next(calls)
        if delay:
            time.sleep(delay)
        return n, n
    return pull


def test_fast_items_share_one_answer_within_the_budget():
    ids, items, error = _collect(_pulls([0] * 1000), batch_ms=0, chunk=1, budget_ns=200_000_000)
    assert error is None
    assert 1 < len(items) <= 1000
    assert ids == items == list(range(len(items)))


def test_an_item_slower_than_the_budget_goes_alone():
    ids, items, error = _collect(_pulls([0.002] * 5), batch_ms=0, chunk=1, budget_ns=1_000_000)
    assert (ids, items, error) == ([0], [0], None)


def test_no_budget_gives_exactly_chunk_items():
    assert _collect(_pulls([0] * 40), batch_ms=0, chunk=16, budget_ns=0)[1] == list(range(16))


def test_batch_ms_collects_for_that_window():
    started = time.perf_counter()
    _, items, _ = _collect(_pulls([0.001] * 1000), batch_ms=20, chunk=1, budget_ns=0)
    assert time.perf_counter() - started >= 0.02
    assert 1 <= len(items) < 1000                    # stopped by the window, not by the end


def test_the_end_of_the_shard_closes_a_partial_batch_and_then_stops():
    pull = _pulls([0] * 3)
    assert _collect(pull, batch_ms=0, chunk=16, budget_ns=0)[1] == [0, 1, 2]
    with pytest.raises(StopIteration):
        _collect(pull, batch_ms=0, chunk=16, budget_ns=0)


def test_an_error_after_some_items_is_returned_with_them():
    def pull_then_fail(calls=iter(range(3))):
        n = next(calls, None)
        if n is None:
            raise KeyError("broken")
        return n, n

    ids, items, error = _collect(pull_then_fail, batch_ms=0, chunk=16, budget_ns=0)
    assert items == [0, 1, 2]
    assert isinstance(error, KeyError)
