"""Pausing a watched run at the driver's op boundaries: breakpoints, pause, and advancing one round at a time.

Every recorded stage (``rlviz.iter.instrument``) reads ``GATES.armed`` once
per ``next()``, after it recorded the call's event and before it hands the
value on: an op boundary.  While no run has a breakpoint, a pause asked or
an advance under way, the flag is False and that one read is the whole cost.
When it is True, ``GATES.reached`` builds the call's ``Event`` and hands it
to the ``Gate`` of the thread that made the call (a watched run's thread;
other threads pass).  The gate decides whether to pause there and then
blocks that thread until ``resume()``, ``advance()`` or ``close()``.

A paused driver makes no new call, so remote workers finish the call in
flight and then wait for a request that does not come: nothing samples
while paused.  Only driver-side events can stop a run: a remote event
reaches the driver later than it happened.

An advance counts rounds of the outermost round-robin union (the node with
``round_robin_weights`` that no other union consumes) from its children's
events: a child's turn ends when it gave as many items as its weight allows
or was not ready, and the round ends with the last child's turn.  The
advance pauses at the union's event for that last item (or at the child's
not-ready event, which the union does not pass on).  Where a weight is
fractional (so the number of pulls is drawn each round), the union's latest
decision (``Recorder.last_decisions``) says how many the turn allowed.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from rlviz.checks import describe_value
from rlviz.trace.decisions import TURN_ENDED
from rlviz.trace.event import OUTCOMES, Event, Node
from rlviz.trace.items import format_summary, summarize
from rlviz.trace.recorder import get_recorder

__all__ = ["Gate", "GATES", "BreakOn", "describe_break", "check_break_on", "outermost_union", "STAR_PULLS"]

#: What ``break_on`` accepts: an op name (or op id), or a predicate of the driver-side ``Event``.
BreakOn = str | Callable[[Event], object]
#: How many items a ``"*"`` child may give in one turn (``rlviz.iter.union.STAR_MAX_PULL``).
STAR_PULLS = 100
_ROUND, _CHILD, _PULL, _ALLOWED, _FLAGS = range(5)      # a ``Recorder.last_decisions`` entry


def check_break_on(break_on: object) -> BreakOn | None:
    """``break_on`` as given, if it is None, a non-empty str or a callable.

    Raises
    ------
    TypeError
        If it is anything else.

    Examples
    --------
    >>> check_break_on("Replay")
    'Replay'
    >>> check_break_on(3)
    Traceback (most recent call last):
    ...
    TypeError: break_on must be an op name (str, e.g. 'Replay') or a callable taking each driver-side Event and returning True to pause, not int 3
    """
    if break_on is None or callable(break_on) or (isinstance(break_on, str) and break_on):
        return break_on
    raise TypeError(f"break_on must be an op name (str, e.g. 'Replay') or a callable taking each driver-side "
                    f"Event and returning True to pause, not {describe_value(break_on)}")


def describe_break(break_on: BreakOn | None) -> str | None:
    """A short text naming a breakpoint, for the page.

    >>> describe_break("Replay"), describe_break(None)
    ('op Replay', None)
    """
    if break_on is None:
        return None
    if isinstance(break_on, str):
        return f"op {break_on}"
    return f"predicate {getattr(break_on, '__name__', type(break_on).__name__)}"


def outermost_union(nodes: Sequence[Node]) -> Node | None:
    """The round-robin union of ``nodes`` that no other union consumes (the last such in the list), or None.

    >>> nodes = [Node("a", "x", "a"), Node("b", "y", "b"),
    ...          Node("u", "Concurrently", "u", parents=("a", "b"), details=(("round_robin_weights", (1, 1)),)),
    ...          Node("f", "output_indexes", "f", parents=("u",))]
    >>> outermost_union(nodes).op_id
    'u'
    """
    unions = [node for node in nodes if node.weights is not None]
    inner = set()
    by_id = {node.op_id: node for node in nodes}
    for union in unions:
        frontier = list(union.parents)
        while frontier:
            parent = by_id.get(frontier.pop())
            if parent is not None and parent.op_id not in inner:
                inner.add(parent.op_id)
                frontier.extend(parent.parents)
    outer = [union for union in unions if union.op_id not in inner]
    return outer[-1] if outer else None


class _Rounds:
    """Counts the rounds of one round-robin union from its children's events, up to a target round."""

    def __init__(self, union: Node, rounds: int) -> None:
        self.union_id = union.op_id
        self.children = {op_id: i for i, op_id in enumerate(union.parents)}
        self.weights = union.weights
        self.last_child = len(union.parents) - 1
        last = _last_decision(union.op_id)
        if last is None:                               # no pull yet: round 0 is over
            self.round, self.child, self.pulls, self.turn_over = 0, self.last_child, 0, True
        else:
            self.round, self.child, self.pulls = last[_ROUND], last[_CHILD], last[_PULL]
            self.turn_over = bool(last[_FLAGS] & TURN_ENDED) or last[_PULL] >= last[_ALLOWED]
        over = self.turn_over and self.child == self.last_child
        self.target = self.round + rounds - (0 if over else 1)
        self.closing = False            # a child's item closed the target round: the union's event for it follows

    def reached(self, event: Event) -> bool:
        if event.op_id == self.union_id:
            if self.closing is None:                   # a fractional weight: the log says what the turn allowed
                last = _last_decision(self.union_id)
                self.turn_over = last is not None and last[_PULL] >= last[_ALLOWED]
                self.closing = self._closes()
            return bool(self.closing)
        index = self.children.get(event.op_id)
        if index is None:
            return False
        if self.turn_over or index != self.child:      # a new turn; a turn of an earlier child starts a round
            if index <= self.child:
                self.round += 1
            self.child, self.pulls = index, 0
        if event.outcome != "item":                   # not ready, stopped or failed: the turn is over
            self.turn_over = True
            return self._closes()
        self.pulls += 1
        allowed = self._allowed(index)
        if allowed is None:
            self.turn_over, self.closing = False, None
        else:
            self.turn_over = self.pulls >= allowed
            self.closing = self._closes()
        return False

    def _closes(self) -> bool:
        return self.turn_over and self.child == self.last_child and self.round >= self.target

    def _allowed(self, index: int) -> int | None:
        weight = self.weights[index] if self.weights and index < len(self.weights) else 1
        if weight == "*":
            return STAR_PULLS
        return int(weight) if float(weight).is_integer() else None


class _Next:
    """One ``next()`` of the outermost op (or of any op when the dataflow is not known)."""

    def __init__(self, output: str | None) -> None:
        self.output = output

    def reached(self, event: Event) -> bool:
        return self.output is None or event.op_id == self.output


def _last_decision(union_id: str) -> tuple[int, ...] | None:
    """The latest decision (round, child, pull, allowed, flags) of the driver's union ``union_id``, or None."""
    recorder = get_recorder()
    try:
        return recorder.last_decisions.get(recorder.index_of(union_id))
    except KeyError:                                   # the union never ran on this process
        return None


class Gate:
    """Where one run's thread pauses: on request, at a breakpoint, or after an advance.

    Parameters
    ----------
    dataflow : callable
        Returns the run's dataflow nodes now (read at each advance, so a
        rebuilt plan's new nodes are used).
    break_on : str or callable, optional
        Pause at each driver-side event of this op (name or id), or where
        the predicate returns True.  A predicate that raises pauses the run
        too; its error is kept in ``error`` and the predicate is dropped.
    on_pause : callable, optional
        Called with the ``Event`` each time the run pauses (on the run's thread).

    Attributes
    ----------
    last_advance : dict or None
        What the last advance ran, once it paused at its end (None from a
        resume, or when a breakpoint cut it short): ``round`` (the union's
        round it ended, None without a union) and ``ran``, the driver's calls
        in it as ``[op, outcome, calls]`` in the order first seen (the union's
        own calls left out).
    """

    def __init__(self, dataflow: Callable[[], Sequence[Node]], break_on: BreakOn | None = None,
                 on_pause: Callable[[Event], None] | None = None) -> None:
        self._dataflow = dataflow
        self._break_on = check_break_on(break_on)
        self._on_pause = on_pause
        self._cond = threading.Condition()
        self._hold = False
        self._until: _Rounds | _Next | None = None
        self._closed = False
        self._thread: int | None = None
        self.paused_at: Event | None = None
        self._deferred: Event | None = None      # a pause taken, to block at settle()
        self.pauses = 0
        self.error: str | None = None
        self._ran: dict[tuple[str, str], int] = {}      # (op, outcome) -> calls, during the advance under way
        self.last_advance: dict | None = None

    # -- state ---------------------------------------------------------------
    @property
    def armed(self) -> bool:
        """True while this gate must see the run's events: a breakpoint, a pause asked, or an advance."""
        return not self._closed and (self._break_on is not None or self._hold or self._until is not None)

    @property
    def paused(self) -> bool:
        """True while the run's thread waits here."""
        return self.paused_at is not None

    @property
    def holding(self) -> bool:
        """True from ``pause()`` (or a pause at a breakpoint) until resumed, advanced or closed."""
        return self._hold and not self._closed

    @property
    def break_on(self) -> BreakOn | None:
        """The breakpoint (None for none)."""
        return self._break_on

    # -- the run's side -----------------------------------------------------------
    def open(self) -> None:
        """Gate the calling thread's driver-side events (the run's thread calls this once)."""
        self._thread = threading.get_ident()
        GATES.add(self._thread, self)

    def check(self, event: Event, wait: bool = True) -> None:
        """Pause here if asked to: block until resumed, advanced or closed (the run's thread).

        ``wait=False`` (a union child's call): the pause is taken now but the
        thread blocks at the next ``settle()``, once the union has written its
        decision about this call, so the paused-at event has its why.
        """
        with self._cond:
            if not self._should_pause(event):
                return
            self.paused_at, self._hold, self._until = event, True, None
            self.pauses += 1
        GATES.update()
        if wait:
            self._wait(event)
        else:
            self._deferred = event

    def settle(self) -> None:
        """Block now for a pause ``check(wait=False)`` took (no-op if none)."""
        event, self._deferred = self._deferred, None
        if event is not None:
            self._wait(event)

    def _wait(self, event: Event) -> None:
        with self._cond:
            self._cond.notify_all()
        if self._on_pause is not None:
            self._on_pause(event)
        with self._cond:
            while self._hold and not self._closed:
                self._cond.wait()
            self.paused_at = None
        GATES.update()

    def _should_pause(self, event: Event) -> bool:
        if self._closed:
            return False
        if self._hold:
            return True
        if self._until is not None:
            self._tally(event)
            if self._until.reached(event):
                self.last_advance = {"round": getattr(self._until, "round", None),
                                     "ran": [[op, outcome, calls] for (op, outcome), calls in self._ran.items()]}
                return True
        return self._matches(event)

    def _tally(self, event: Event) -> None:
        """Count the advance's driver calls by op and outcome (the union's own calls only pass its children's on)."""
        if event.op_id != getattr(self._until, "union_id", None):
            key = (event.op, event.outcome)
            self._ran[key] = self._ran.get(key, 0) + 1

    def _matches(self, event: Event) -> bool:
        rule = self._break_on
        if rule is None:
            return False
        if isinstance(rule, str):
            return event.op == rule or event.op_id == rule
        try:
            return bool(rule(event))
        except Exception as err:                   # the run pauses, saying why; it never crashes
            self._break_on = None
            self.error = (f"break_on raised {type(err).__name__}: {err} (at {event.op}, {event.outcome}); "
                          f"the breakpoint was removed, set a new one with set_break()")
            return True

    # -- the user's side -----------------------------------------------------------
    def pause(self) -> None:
        """Pause at the next op boundary of the run's thread."""
        with self._cond:
            self._hold = not self._closed
        GATES.update()

    def resume(self) -> None:
        """Go on (breakpoints stay set)."""
        with self._cond:
            self._hold, self._until, self.paused_at, self.last_advance = False, None, None, None
            self._cond.notify_all()
        GATES.update()

    def set_break(self, break_on: BreakOn | None) -> None:
        """Replace the breakpoint (None removes it).

        Raises
        ------
        TypeError
            If ``break_on`` is neither None, a str nor a callable.
        """
        rule = check_break_on(break_on)
        with self._cond:
            self._break_on = rule
            self.error = None
        GATES.update()

    def advance(self, rounds: int, timeout: float) -> Event | None:
        """Run ``rounds`` rounds of the outermost union (else ``rounds`` next() calls of the outermost op), then pause.

        Returns the event it paused at, or None if the gate closed first.

        Raises
        ------
        RuntimeError
            If the run is not paused here, or the gate is closed.
        TimeoutError
            If the run did not pause again within ``timeout`` seconds (it keeps going to the target).
        """
        nodes = list(self._dataflow())
        union = outermost_union(nodes)
        with self._cond:
            if self._closed:
                raise RuntimeError("advance() after the run stopped: there is nothing left to advance; "
                                   "start a new rlviz.watch(...)")
            if self.paused_at is None:
                raise RuntimeError("advance() needs a run paused at an op boundary: call pause() (or set "
                                   "break_on) and wait until paused_at is set, then advance()")
            pauses = self.pauses
            self._ran, self.last_advance = {}, None
            self._until = _Rounds(union, rounds) if union is not None else _Next(nodes[-1].op_id if nodes else None)
            if union is None and rounds > 1:
                self._until = _Calls(self._until, rounds)
            self._hold, self.paused_at = False, None
            self._cond.notify_all()
            deadline = time.monotonic() + timeout
            while self.pauses == pauses and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the run did not pause again within {timeout} s of advance(); it goes on "
                                       f"to the end of the round (check live.paused_at later, or pause())")
                self._cond.wait(left)
            return self.paused_at

    def close(self) -> None:
        """Let the run's thread go for good: no more pauses (a stop, a kernel interrupt, the run's end)."""
        with self._cond:
            self._closed, self._hold, self._until, self.paused_at = True, False, None, None
            self._cond.notify_all()
        if self._thread is not None:
            GATES.remove(self._thread, self)


class _Calls:
    """``rounds`` times one next() of the outermost op."""

    def __init__(self, one: _Next, count: int) -> None:
        self.one, self.left = one, count

    def reached(self, event: Event) -> bool:
        if self.one.reached(event):
            self.left -= 1
        return self.left <= 0


class _Gates:
    """Every open gate, by the thread it gates; ``armed`` is the one flag the hot path reads."""

    __slots__ = ("armed", "_by_thread", "_lock")

    def __init__(self) -> None:
        self.armed = False
        self._by_thread: dict[int, Gate] = {}
        self._lock = threading.Lock()

    def add(self, thread: int, gate: Gate) -> None:
        """Gate ``thread``'s events with ``gate``."""
        with self._lock:
            self._by_thread[thread] = gate
        self.update()

    def remove(self, thread: int, gate: Gate) -> None:
        """Stop gating ``thread`` (if ``gate`` still gates it)."""
        with self._lock:
            if self._by_thread.get(thread) is gate:
                del self._by_thread[thread]
        self.update()

    def update(self) -> None:
        """Recompute ``armed`` from the gates."""
        with self._lock:
            self.armed = any(gate.armed for gate in self._by_thread.values())

    def reached(self, tap: Any, start_ns: int, end_ns: int, outcome: int, item: object, item_id: int) -> None:
        """A recorded stage ended a call (``tap``: its ``rlviz.iter.instrument.Tap``); pause if its gate says so.

        A stage a union pulls (``tap.decided``) that yields an item or not-ready
        blocks only at the union's ``settle()``, after its decision row.
        """
        gate = self._by_thread.get(threading.get_ident())
        if gate is None or not gate.armed:
            return
        recorder = tap.recorder
        node = recorder.nodes[tap.node]
        summary = None
        if OUTCOMES[outcome] == "item":
            kind, number = summarize(item, recorder.texts)
            summary = format_summary(kind, number, recorder.texts.texts)
        gate.check(Event(node.op, node.label, node.op_id, node.where, recorder.pid, start_ns, end_ns,
                         OUTCOMES[outcome], summary, item_id if item_id >= 0 else None),
                   wait=not (tap.decided and OUTCOMES[outcome] in ("item", "not_ready")))

    def settle(self) -> None:
        """A union wrote its decision about a child's call: block for a pause that call took."""
        gate = self._by_thread.get(threading.get_ident())
        if gate is not None:
            gate.settle()


#: The process's gates (``rlviz.iter.instrument`` reads ``GATES.armed`` per ``next()``).
GATES = _Gates()
