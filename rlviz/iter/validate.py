"""The iterator layer's own argument rules, built on the shared checks in ``rlviz.checks``.

Each raises at construction time with the parameter's name, the value
received, what is allowed and a hint.
"""
from __future__ import annotations

from rlviz.checks import check_int, check_number, check_positive_number, check_round_robin_weights

__all__ = ["check_concurrency", "check_batch_ms", "check_weights", "check_prefetch", "check_coalesce_ms"]


def check_concurrency(max_concurrency: object) -> None:
    """``max_concurrency`` is 1 (in line), 0 (unbounded Ray tasks) or a bound > 1."""
    check_int("max_concurrency", max_concurrency, minimum=0, hint="1 = run in line, 0 = unbounded Ray tasks")


def check_batch_ms(batch_ms: object) -> None:
    """``batch_ms`` is a finite, non-negative number of milliseconds."""
    check_number("batch_ms", batch_ms, minimum=0, hint="milliseconds a call collects items for; 0 = one item")


def check_weights(weights: object, count: int) -> list:
    """Round-robin weights of a union: one per iterator, each a finite number > 0 or "*", not all "*"."""
    return check_round_robin_weights("round_robin_weights", weights, count, what="iterator")


def check_prefetch(prefetch: object) -> None:
    """``prefetch`` is None (Ray's one call per shard per round) or an int >= 1."""
    if prefetch is not None:
        check_int("prefetch", prefetch, minimum=1, hint="None (the default) makes Ray's one call per item")


def check_coalesce_ms(coalesce_ms: object, batch_ms: float) -> None:
    """``coalesce_ms`` is None (Ray's one item per call) or a finite number > 0, only with ``batch_ms=0``."""
    if coalesce_ms is None:
        return
    check_positive_number("coalesce_ms", coalesce_ms, hint="e.g. 0.2; None (the default) answers one item per call")
    if batch_ms:
        raise ValueError(f"coalesce_ms={coalesce_ms} applies only with batch_ms=0, got batch_ms={batch_ms}; "
                         f"batch_ms already collects items for a window, so give one or the other")
