"""Argument checks shared by the iterator constructors and transforms.

Each raises at construction time with the parameter's name, the value
received, what is allowed and a hint.
"""
from __future__ import annotations

import math

__all__ = ["check_positive_int", "check_concurrency", "check_batch_ms", "check_weights", "check_prefetch",
           "check_coalesce_ms"]


def check_positive_int(name: str, value: object, allow_zero: bool = False) -> None:
    """``value`` must be an int >= 1 (>= 0 with ``allow_zero``)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    lowest = 0 if allow_zero else 1
    if value < lowest:
        raise ValueError(f"{name} must be >= {lowest}, got {value}")


def check_concurrency(max_concurrency: object) -> None:
    """``max_concurrency`` is 1 (in line), 0 (unbounded Ray tasks) or a bound > 1."""
    if not isinstance(max_concurrency, int) or isinstance(max_concurrency, bool):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 0:
        raise ValueError(f"max_concurrency must be >= 0 (1 = run in line, 0 = unbounded Ray tasks), "
                         f"got {max_concurrency}")


def check_batch_ms(batch_ms: object) -> None:
    """``batch_ms`` is a non-negative number of milliseconds."""
    if not isinstance(batch_ms, (int, float)) or isinstance(batch_ms, bool):
        raise TypeError(f"batch_ms must be a number of milliseconds, got {type(batch_ms).__name__}")
    if batch_ms < 0:
        raise ValueError(f"batch_ms must be >= 0 milliseconds (0 = one item per call), got {batch_ms}")


def check_weights(weights: list, count: int) -> None:
    """Round-robin weights: one per iterator, each a number > 0 or "*", not all "*"."""
    if not isinstance(weights, (list, tuple)):
        raise TypeError(f"round_robin_weights must be a list, got {type(weights).__name__}")
    if len(weights) != count:
        raise ValueError(f"round_robin_weights has {len(weights)} entries but there are {count} "
                         f"iterators; give one weight per iterator")
    for index, weight in enumerate(weights):
        if weight == "*":
            continue
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight <= 0:
            raise ValueError(f"round_robin_weights[{index}] is {weight!r}; each weight must be a "
                             f"number > 0 or \"*\" (pull whatever is ready without blocking)")
    if all(weight == "*" for weight in weights):
        raise ValueError("round_robin_weights are all \"*\": at least one iterator needs a numeric "
                         "weight, or the union would only ever poll")


def check_prefetch(prefetch: object) -> None:
    """``prefetch`` is None (Ray's one call per shard per round) or an int >= 1."""
    if prefetch is not None:
        check_positive_int("prefetch", prefetch)


def check_coalesce_ms(coalesce_ms: object, batch_ms: float) -> None:
    """``coalesce_ms`` is None (Ray's one item per call) or a finite number > 0, only with ``batch_ms=0``."""
    if coalesce_ms is None:
        return
    if not isinstance(coalesce_ms, (int, float)) or isinstance(coalesce_ms, bool):
        raise TypeError(f"coalesce_ms must be a number of milliseconds or None, got {type(coalesce_ms).__name__}")
    if not math.isfinite(coalesce_ms) or coalesce_ms <= 0:
        raise ValueError(f"coalesce_ms must be a finite number > 0 milliseconds (e.g. 0.2), or None for one "
                         f"item per call, got {coalesce_ms}")
    if batch_ms:
        raise ValueError(f"coalesce_ms={coalesce_ms} applies only with batch_ms=0, got batch_ms={batch_ms}; "
                         f"batch_ms already collects items for a window, so give one or the other")
