"""Assertions on a recorded trace for pytest suites: the order ops ran in, and their ratio.

A failure raises ``AssertionError`` whose message prints the recorded order
strip as text around the first mismatch.
"""
from __future__ import annotations

from collections.abc import Sequence

from rlviz.checks import check_positive_number
from rlviz.testing.strip import check_ops, op_sequence, strip_window, symbols
from rlviz.trace import Trace

__all__ = ["assert_order", "assert_ratio", "WARMUP"]

#: ``skip=WARMUP`` skips the items made before every selected op has started.
WARMUP = "warmup"


def assert_order(trace: Trace, ops: Sequence[str], pattern: Sequence[str], *,
                 skip: int | str = 0) -> None:
    """Assert that the selected ops made their items in a repeating pattern.

    The items made by the nodes ``ops`` selects are put in completion order
    (``Trace.sequence``'s order) and each is named by the ``ops`` entry that
    selected its node.  After ``skip``, that sequence must be ``pattern``
    repeated: ``pattern`` is one round, e.g.
    ``["StoreToReplayBuffer", "TrainOneStep", "TrainOneStep"]`` for a
    ``Concurrently`` with round-robin weights ``[1, 2]``.  The last round may
    be cut short (a trace ends where recording stopped), but at least one
    whole round must have been recorded.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ops : sequence of str
        Entries selecting nodes by op name, label or op_id; the first
        entry that matches a node names its items.
    pattern : sequence of str
        One round of the expected order; every entry must be in ``ops``.
        An ``ops`` entry missing from ``pattern`` must not make any item.
    skip : int or "warmup", default 0
        Items to leave out at the start.  ``"warmup"`` skips the rounds before
        every op of ``pattern`` has made an item (DQN's store-only rounds
        before ``learning_starts``): the check starts at the round holding
        the first item of the op that started last.

    Raises
    ------
    AssertionError
        If the order differs from the pattern, fewer items than one round
        were recorded, or an op of ``pattern`` never made an item (with
        ``skip="warmup"``).
    TypeError
        If ``trace`` is not a Trace, or ``ops``/``pattern`` are not lists of str.
    ValueError
        If ``ops`` or ``pattern`` is empty, a ``pattern`` entry is not in
        ``ops``, an ``ops`` entry matches no node, or ``skip`` is negative or
        an unknown word.

    Examples
    --------
    >>> from rlviz.viz.examples import concurrently_trace
    >>> trace = concurrently_trace((1, 2), rounds=12, warmup=3)
    >>> assert_order(trace, ["store", "train"], ["store", "train", "train"], skip="warmup")
    >>> assert_order(trace, ["store", "train"], ["store", "train"], skip="warmup")
    Traceback (most recent call last):
    ...
    AssertionError: recorded order differs from the pattern at index 5 ...
    """
    ops, pattern = _check_selection(trace, ops, pattern, "assert_order")
    sequence = op_sequence(trace, ops)
    key = symbols(ops)
    start = _start(sequence, pattern, skip, key)
    expected = [None] * start + [pattern[k % len(pattern)] for k in range(len(sequence) - start)]
    head = (f"pattern (one round, repeating): {', '.join(pattern)}; {len(sequence)} items made by ops "
            f"{', '.join(ops)}" + (f", the first {start} skipped" if start else ""))
    if len(sequence) - start < len(pattern):
        strip = strip_window([("recorded", sequence), ("expected", expected)], len(sequence), key,
                             "the trace ends here")
        raise AssertionError(f"only {len(sequence) - start} items to check, fewer than one round of the "
                             f"pattern ({len(pattern)}); record longer or lower skip\n{head}\n{strip}")
    mismatch = next((k for k in range(start, len(sequence)) if sequence[k] != expected[k]), None)
    if mismatch is not None:
        strip = strip_window([("recorded", sequence), ("expected", expected)], mismatch, key,
                             f"first mismatch, index {mismatch}")
        raise AssertionError(f"recorded order differs from the pattern at index {mismatch} "
                             f"(item {mismatch + 1} of {len(sequence)}): recorded {sequence[mismatch]}, "
                             f"pattern expects {expected[mismatch]}\n{head}\n{strip}")


def assert_ratio(trace: Trace, ops: Sequence[str], expected: Sequence[float],
                 tolerance: float = 0.05, *, skip: int | str = 0) -> None:
    """Assert that the selected ops made items in the expected ratio.

    Items are counted per ``ops`` entry (as in ``assert_order``) and compared
    relative to the first entry: the measured ``count[i] / count[0]`` must be
    within ``tolerance`` (relative) of ``expected[i] / expected[0]``.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ops : sequence of str
        Entries selecting nodes by op name, label or op_id, at least two.
    expected : sequence of float
        The expected ratio, one number > 0 per ``ops`` entry, e.g. ``[1, 2]``
        for round-robin weights ``[1, 2]``.
    tolerance : float, default 0.05
        Allowed relative error of each ratio: 0.05 accepts 1.9 to 2.1 for 2.
    skip : int or "warmup", default 0
        Items left out at the start; ``"warmup"`` skips the items made before
        the first item of the op that started last.

    Raises
    ------
    AssertionError
        If a ratio is off by more than ``tolerance`` or the first op made no items.
    TypeError
        If an argument has the wrong type.
    ValueError
        If ``ops`` has fewer than two entries, ``expected`` does not hold one
        positive number per entry, ``tolerance`` is not a finite number > 0,
        or ``skip`` is bad.

    Examples
    --------
    >>> from rlviz.viz.examples import concurrently_trace
    >>> trace = concurrently_trace((1, 3), rounds=20, warmup=2)
    >>> assert_ratio(trace, ["store", "train"], [1, 3], skip="warmup")
    """
    ops, _ = _check_selection(trace, ops, ops, "assert_ratio")
    if len(ops) < 2:
        raise ValueError(f"assert_ratio needs at least two ops to compare, got ops={ops!r}")
    expected = _check_expected(expected, len(ops))
    check_positive_number("tolerance", tolerance, hint="a relative error: 0.05 allows 5% either way")
    sequence = op_sequence(trace, ops)
    key = symbols(ops)
    start = _start(sequence, ops, skip, key)
    counted = sequence[start:]
    counts = [counted.count(entry) for entry in ops]
    measured = f"{' : '.join(str(n) for n in counts)} items"
    strip = strip_window([("recorded", sequence)], start, key, "counting starts here")
    if counts[0] == 0:
        raise AssertionError(f"{ops[0]} made no items to compare the others with ({measured}, "
                             f"{start} skipped)\n{strip}")
    off = []
    for entry, count, want in zip(ops[1:], counts[1:], expected[1:]):
        ratio, wanted = count / counts[0], want / expected[0]
        if abs(ratio - wanted) > tolerance * wanted:
            off.append(f"{entry}: {ratio:.3g} per {ops[0]}, expected {wanted:.3g} "
                       f"(allowed {wanted * (1 - tolerance):.3g} to {wanted * (1 + tolerance):.3g})")
    if off:
        raise AssertionError(f"measured ratio {measured} = 1 : "
                             f"{' : '.join(f'{n / counts[0]:.3g}' for n in counts[1:])}, expected "
                             f"{' : '.join(f'{w:g}' for w in expected)} within {tolerance:.0%}"
                             + (f" ({start} items skipped)" if start else "") + "\n"
                             + "\n".join(off) + "\n" + strip)


def _check_selection(trace: object, ops: object, pattern: object, caller: str) -> tuple[list[str], list[str]]:
    if not isinstance(trace, Trace):
        raise TypeError(f"{caller} needs a Trace (from rlviz.record() or Trace.load), "
                        f"not {type(trace).__name__}")
    ops, pattern = check_ops(ops, "ops"), check_ops(pattern, "pattern")
    if ops is None or not ops:
        raise ValueError(f"ops must name at least one op, got {ops!r}; "
                         f"hint: ops=['StoreToReplayBuffer', 'TrainOneStep']")
    if pattern is None or not pattern:
        raise ValueError(f"pattern must hold at least one entry of ops, got {pattern!r}")
    unknown = [entry for entry in pattern if entry not in ops]
    if unknown:
        raise ValueError(f"pattern entry {unknown[0]!r} is not in ops {ops!r}; "
                         f"every pattern entry must be one of the ops entries")
    return ops, pattern


def _check_expected(expected: object, count: int) -> list[float]:
    if isinstance(expected, str) or not isinstance(expected, Sequence):
        raise TypeError(f"expected must be a list of numbers, one per ops entry, "
                        f"not {type(expected).__name__}")
    for k, want in enumerate(expected):
        check_positive_number(f"expected[{k}]", want, hint=f"expected={list(expected)!r}")
    if len(expected) != count:
        raise ValueError(f"expected has {len(expected)} entries but ops has {count}; "
                         f"give one number per ops entry, in the same order")
    return [float(w) for w in expected]


def _start(sequence: list[str], pattern: list[str], skip: object, key: dict[str, str]) -> int:
    """Index of the first item to check: ``skip`` itself, or the end of the warm-up."""
    if isinstance(skip, int) and not isinstance(skip, bool):
        if skip < 0:
            raise ValueError(f"skip must be an int >= 0 or {WARMUP!r}, got {skip!r}")
        return skip
    if skip != WARMUP:
        raise ValueError(f"skip must be an int >= 0 or {WARMUP!r}, got {skip!r}")
    firsts = {}
    for entry in pattern:
        if entry not in sequence:
            strip = strip_window([("recorded", sequence)], len(sequence), key, "the trace ends here")
            raise AssertionError(f"{entry} made no item, so the warm-up never ended "
                                 f"({len(sequence)} items recorded)\n{strip}")
        firsts[entry] = sequence.index(entry)
    latest = max(firsts, key=firsts.__getitem__)
    return max(0, firsts[latest] - pattern.index(latest))
