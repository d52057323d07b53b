"""``run_round_robin``: a small, recorded ``Concurrently`` run, for seeing how weights interleave ops.

Two or three local ops shaped like DQN's (``store`` fills a buffer,
``train`` is not ready until the buffer holds ``learning_starts`` items,
``update`` is always ready) run under ``Concurrently``; the trace gives the
order in which the ops produced items.  No actors: runs in milliseconds.
"""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rlviz.checks import (check_int, check_round_robin_weight, check_round_robin_weights, describe_value,
                          parse_number)
from rlviz.trace import Trace, record

__all__ = ["run_round_robin", "RoundRobinRun", "OP_NAMES", "parse_weight"]

#: The ops a run can use, in order: two make DQN's store/train pair, three add an update op.
OP_NAMES = ("store", "train", "update")


@dataclass
class RoundRobinRun:
    """What one ``run_round_robin`` call did.

    ``order`` names the op of every item the ops produced, in completion
    order (including items ``output_indexes`` dropped); ``output`` is what
    ``Concurrently`` passed on; ``trace`` the recording.
    """

    weights: list
    output_indexes: list[int] | None
    order: list[str]
    output: list[str]
    trace: Trace

    @property
    def pattern(self) -> str:
        """``order`` as initials, e.g. ``"S S T S S T"``."""
        return " ".join(name[0].upper() for name in self.order)

    @property
    def counts(self) -> dict[str, int]:
        """Items each op produced."""
        return {name: self.order.count(name) for name in dict.fromkeys(self.order)}


def run_round_robin(weights: Sequence[float | str], output_indexes: Sequence[int] | None = None, *,
                    items: int = 24, learning_starts: int = 0, seed: int = 0) -> RoundRobinRun:
    """Run ``Concurrently`` over ``len(weights)`` small ops with these weights and record it.

    Parameters
    ----------
    weights : sequence of number or "*"
        ``round_robin_weights``, one per op; 2 entries run ``store`` and
        ``train``, 3 add ``update``.  ``"*"``: pull everything ready.
    output_indexes : sequence of int, optional
        Pass on only these ops' items (the others still run).
    items : int, default 24
        Items to take from ``Concurrently``.
    learning_starts : int, default 0
        ``train`` is not ready until ``store`` has produced this many items.
    seed : int, default 0
        Seed for fractional weights (Python's ``random`` state is restored after).

    Returns
    -------
    RoundRobinRun

    Raises
    ------
    TypeError
        If ``weights`` is not a list, an entry is neither a number nor text,
        or ``items`` / ``learning_starts`` is not an int.
    ValueError
        If ``weights`` does not have 2 or 3 entries, an entry is not a finite
        number > 0 or ``"*"``, all are ``"*"``, an output index is out of range
        or repeated, or ``items`` / ``learning_starts`` is negative.

    Examples
    --------
    >>> run_round_robin([2, 1]).pattern[:17]
    'S S T S S T S S T'
    >>> run = run_round_robin([1, 1], output_indexes=[1], items=3, learning_starts=2)
    >>> run.pattern, run.output
    ('S S T S T S T', ['T0', 'T1', 'T2'])
    """
    from rlviz.iter import LocalIterator, NextValueNotReady
    from rlviz.ops.concurrency import Concurrently

    weights = [parse_weight(w, f"weights[{i}]") for i, w in enumerate(_check_list(weights, "weights"))]
    if not 2 <= len(weights) <= len(OP_NAMES):
        raise ValueError(f"weights must have 2 or 3 entries (one per op: {', '.join(OP_NAMES)}), "
                         f"got {len(weights)}: {weights!r}; hint: weights=[1, 1]")
    check_round_robin_weights("weights", weights, len(weights))
    check_int("items", items, minimum=0)
    check_int("learning_starts", learning_starts, minimum=0)
    names = OP_NAMES[:len(weights)]
    stored: list[str] = []
    ops = [LocalIterator(_source(name, stored, learning_starts), name=name) for name in names]
    concurrently = Concurrently(ops, mode="round_robin", round_robin_weights=weights,
                                output_indexes=None if output_indexes is None else list(output_indexes))
    state = random.getstate()
    random.seed(seed)
    try:
        with record() as trace:
            output = [item for item in concurrently.take(items) if not isinstance(item, NextValueNotReady)]
    finally:
        random.setstate(state)
    return RoundRobinRun(weights, None if output_indexes is None else list(output_indexes),
                         trace.sequence(ops=list(names), by="op"), output, trace)


def parse_weight(value: object, name: str = "weight") -> float | int | str:
    """A round-robin weight from a number or text: ``"*"``, ``"2"`` -> 2, ``"0.5"`` -> 0.5.

    Raises
    ------
    TypeError
        If ``value`` is neither text nor a number.
    ValueError
        If ``value`` is neither ``"*"`` nor a finite number > 0.

    Examples
    --------
    >>> parse_weight("*"), parse_weight(" 2 "), parse_weight("1.5"), parse_weight(3)
    ('*', 2, 1.5, 3)
    """
    if isinstance(value, str):
        if value.strip() == "*":
            return "*"
        value = parse_number(name, value, hint='a number > 0 such as 2 or 0.5, or "*" (pull whatever is ready)')
    check_round_robin_weight(name, value)
    return int(value) if float(value).is_integer() else float(value)


def _check_list(value: object, name: str) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list, got {describe_value(value)}; hint: {name}=[2, 1]")
    return list(value)


def _source(name: str, stored: list[str], learning_starts: int):
    """The base iterator of op ``name``: items ``S0, S1, ...`` (``T...``, ``U...``)."""
    from rlviz.iter import NextValueNotReady

    def items(timeout) -> Iterator:
        count = 0
        while True:
            if name == "train" and len(stored) < learning_starts:
                yield NextValueNotReady()
                continue
            item = f"{name[0].upper()}{count}"
            if name == "store":
                stored.append(item)
            count += 1
            yield item

    return items
