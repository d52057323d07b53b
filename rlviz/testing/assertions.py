"""Assertions on a recorded trace for pytest suites: the order ops ran in, and their ratio.

A failure raises ``AssertionError`` whose message prints the recorded order
strip as text around the first mismatch.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rlviz.checks import check_positive_number
from rlviz.testing.strip import check_ops, op_sequence, strip_window, symbols
from rlviz.trace import Trace
from rlviz.trace.order import Rounds, round_cells

__all__ = ["assert_order", "assert_ratio", "WARMUP", "QUANTIFIERS"]

#: ``skip=WARMUP`` skips the rounds before the one in which the last of the selected ops to start made its first item.
WARMUP = "warmup"
#: Suffixes a pattern entry may end with: ``"Op*"`` one or more items in a row (a ``"*"`` turn: all
#: that was ready, up to its cap); ``"Op?"`` one item or none (a turn that ended not ready).
QUANTIFIERS = {"*": "+", "?": "?"}


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
    whole round must have been recorded.  An entry may end with ``"*"``
    (``"LogMetrics*"``: one or more items in a row, what a ``"*"`` weight
    gives while the op is ready, up to its cap) or ``"?"``
    (``"TrainOneStep?"``: one item or none, a turn that may end not ready).

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ops : sequence of str
        Entries selecting nodes by op name, label or op_id; the first
        entry that matches a node names its items.
    pattern : sequence of str
        One round of the expected order; every entry (without its ``"*"`` or
        ``"?"``) must be in ``ops``.  An ``ops`` entry missing from ``pattern``
        must not make any item.
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
    >>> assert_order(trace, ["store", "train"], ["store", "train*"], skip="warmup")
    """
    __tracebackhide__ = True            # pytest shows the message, not this function's source
    ops, pattern = _check_selection(trace, ops, pattern, "assert_order")
    sequence = op_sequence(trace, ops)
    key = symbols(ops)
    names = [_split(entry)[0] for entry in pattern]
    start = _start(trace, ops, sequence, names, skip, key)
    if names != pattern:
        _assert_quantified(sequence, pattern, ops, start, key)
        return
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


def assert_ratio(trace: Trace, ops: Sequence[str], expected: Sequence[float | str],
                 tolerance: float = 0.05, *, skip: int | str = 0, whole_rounds: bool = True) -> None:
    """Assert that the selected ops made items in the expected ratio.

    Items are counted per ``ops`` entry (as in ``assert_order``) and compared
    relative to the first entry: the measured ``count[i] / count[0]`` must be
    within ``tolerance`` (relative) of ``expected[i] / expected[0]``.  By
    default only whole rounds count: with whole-number weights the items
    after the last round every op completed (a round cut short where
    recording stopped) are left out, and the message says how many.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ops : sequence of str
        Entries selecting nodes by op name, label or op_id, at least two.
    expected : sequence of float or "*"
        The expected ratio, one number > 0 per ``ops`` entry, e.g. ``[1, 2]``
        for round-robin weights ``[1, 2]``; ``"*"`` for an op whose count is
        shown but not compared (a ``"*"`` weight has no fixed ratio).  The
        first entry must be a number.
    tolerance : float, default 0.05
        Allowed relative error of each ratio: 0.05 accepts 1.9 to 2.1 for 2.
    skip : int or "warmup", default 0
        Items left out at the start; ``"warmup"`` skips the rounds before the
        round holding the first item of the op that started last.
    whole_rounds : bool, default True
        Leave out a last round cut short (only when every number in
        ``expected`` is whole); False counts every item.

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
    __tracebackhide__ = True            # pytest shows the message, not this function's source
    ops, _ = _check_selection(trace, ops, ops, "assert_ratio")
    if len(ops) < 2:
        raise ValueError(f"assert_ratio needs at least two ops to compare, got ops={ops!r}")
    expected = _check_expected(expected, len(ops))
    check_positive_number("tolerance", tolerance, hint="a relative error: 0.05 allows 5% either way")
    sequence = op_sequence(trace, ops)
    key = symbols(ops)
    start = _start(trace, ops, sequence, ops, skip, key)
    counted = sequence[start:]
    cut = _whole_rounds(counted, ops, expected) if whole_rounds else len(counted)
    left_out = len(counted) - cut
    counted = counted[:cut]
    counts = [counted.count(entry) for entry in ops]
    measured = f"{' : '.join(str(n) for n in counts)} items"
    if left_out:
        measured += (f" (the last {left_out} items, a round cut short, left out; "
                     f"whole_rounds=False counts them)")
    strip = strip_window([("recorded", sequence)], start, key, "counting starts here")
    if counts[0] == 0:
        raise AssertionError(f"{ops[0]} made no items to compare the others with ({measured}, "
                             f"{start} skipped)\n{strip}")
    off = []
    for entry, count, want in zip(ops[1:], counts[1:], expected[1:]):
        if want == "*":
            continue
        ratio, wanted = count / counts[0], want / expected[0]
        if abs(ratio - wanted) > tolerance * wanted:
            off.append(f"{entry}: {ratio:.3g} per {ops[0]}, expected {wanted:.3g} "
                       f"(allowed {wanted * (1 - tolerance):.3g} to {wanted * (1 + tolerance):.3g})")
    if off:
        raise AssertionError(f"measured ratio {measured} = 1 : "
                             f"{' : '.join(f'{n / counts[0]:.3g}' for n in counts[1:])}, expected "
                             f"{' : '.join(w if w == '*' else f'{w:g}' for w in expected)} within {tolerance:.0%}"
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
    unknown = [entry for entry in pattern if _split(entry)[0] not in ops]
    if unknown:
        raise ValueError(f"pattern entry {unknown[0]!r} is not in ops {ops!r}; "
                         f"every pattern entry must be one of the ops entries")
    return ops, pattern


def _check_expected(expected: object, count: int) -> list[float | str]:
    if isinstance(expected, str) or not hasattr(expected, "__len__") or isinstance(expected, dict):
        raise TypeError(f"expected must be a list of numbers, one per ops entry, "
                        f"not {type(expected).__name__}; hint: expected={[1] * count}")
    expected = list(expected)
    fixed = [w if w == "*" or (_is_number(w) and 0 < w < float("inf")) else 1 for w in expected][:count]
    fixed += [1] * (count - len(fixed))
    if fixed and fixed[0] == "*":
        fixed[0] = 1
    for k, want in enumerate(expected):
        if not (k and want == "*"):
            check_positive_number(f"expected[{k}]", want,
                                  hint=f'e.g. expected={fixed!r} ("*" only after the first entry: not compared)')
    if len(expected) != count:
        raise ValueError(f"expected has {len(expected)} entries but ops has {count}; "
                         f"give one number per ops entry, in the same order, e.g. expected={fixed!r}")
    return [w if w == "*" else float(w) for w in expected]


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _split(entry: str) -> tuple[str, str]:
    """A pattern entry's op and its quantifier ("" for exactly one item)."""
    if len(entry) > 1 and entry[-1] in QUANTIFIERS:
        return entry[:-1], entry[-1]
    return entry, ""


def _whole_rounds(counted: list[str], ops: list[str], expected: list) -> int:
    """How many of ``counted`` belong to rounds every op completed (all of them if a weight is not whole)."""
    if not all(w != "*" and float(w).is_integer() for w in expected):
        return len(counted)
    rounds = min(counted.count(entry) // int(w) for entry, w in zip(ops, expected))
    if rounds == 0:
        return len(counted)
    ends = []
    for entry, w in zip(ops, expected):
        positions = [k for k, name in enumerate(counted) if name == entry]
        ends.append(positions[rounds * int(w) - 1])
    return max(ends) + 1


def _assert_quantified(sequence: list[str], pattern: list[str], ops: list[str], start: int,
                       key: dict[str, str]) -> None:
    """``assert_order`` for a pattern with ``"*"`` / ``"?"`` entries, matched as a regular expression of symbols."""
    __tracebackhide__ = True
    text = "".join(key[name] for name in sequence[start:])
    parts = [re.escape(key[name]) + QUANTIFIERS.get(q, "") for name, q in map(_split, pattern)]
    rounds = re.match(f"(?:{''.join(parts)})*", text)
    end = rounds.end() if rounds else 0
    partial = ""
    for part in reversed(parts):
        partial = f"(?:{part}{partial})?"
    head = (f"pattern (one round, repeating): {', '.join(pattern)}; {len(sequence)} items made by ops "
            f"{', '.join(ops)}" + (f", the first {start} skipped" if start else ""))
    if end == 0:
        strip = strip_window([("recorded", sequence)], start, key, "no whole round starts here")
        raise AssertionError(f"not even one whole round of the pattern from index {start}\n{head}\n{strip}")
    if not re.fullmatch(partial, text[end:]):
        at = start + end
        strip = strip_window([("recorded", sequence)], at, key, f"first item outside the pattern, index {at}")
        raise AssertionError(f"recorded order leaves the pattern at index {at} (item {at + 1} of "
                             f"{len(sequence)}): recorded {sequence[at]}\n{head}\n{strip}")


def _start(trace: Trace, ops: list[str], sequence: list[str], pattern: list[str], skip: object,
           key: dict[str, str]) -> int:
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
    rounds = round_cells(trace, ops)
    warm = _items_before_warm_round(rounds, [ops.index(entry) for entry in pattern]) if rounds is not None else None
    if warm is not None:
        return warm
    latest = max(firsts, key=firsts.__getitem__)       # no recorded rounds: align that op to its place
    return max(0, firsts[latest] - pattern.index(latest))


def _items_before_warm_round(rounds: Rounds, groups: list[int]) -> int | None:
    """Items made in the rounds before the first round in which every op of ``groups`` has made an item.

    None if the union's decisions hold no item of one of them (it was pulled elsewhere).
    """
    made = ~rounds.not_ready
    first_rounds = [rounds.round[made & (rounds.category == group)] for group in groups]
    if any(len(r) == 0 for r in first_rounds):
        return None
    return int(np.count_nonzero(made & (rounds.round < max(r.min() for r in first_rounds))))
