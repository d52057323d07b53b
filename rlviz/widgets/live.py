"""``LiveView`` (``rlviz.watch``): run a Trainer or an iterator in a background thread and watch it in the Explorer.

The run records into a growing store (``rlviz.trace.store``).  Its page is
the long page of every trace, whose source grows (``rlviz.viz.growing_chunks``):
twice a second a refresher thread takes what arrived and sends each page an
extent (the chunks that changed, the node counts, now and then the levels)
and the run's status; the page asks for the chunks its window needs, as a
``TraceView``'s page does.  Both threads
send with the context of the cell that started the view, so ipykernel 7
routes their messages (it drops or misroutes what a bare thread sends);
nothing is printed from them.

Like ``TraceView``, the output also carries a picture of the timeline
(``image/png``), for a reader with no live kernel (the documentation site, a
saved notebook).  Shown when the run starts, that picture is still empty, so
the output is shown with a display id and, once the run has ended, ``join()``
or ``stop()`` replaces it with the picture of the whole run; the view keeps
the same picture in its ``_picture`` trait, which a notebook saved with its
widget state shows when reopened.  JupyterLab re-renders an output whose
display is updated; the page then moves the Explorer it already shows into
the new view (``_view_key`` names it), with its data, zoom and selection,
rather than asking the kernel for the whole stream again.

A watched rlviz plan or iterator pauses at the driver's op boundaries
(``rlviz.trace.gate``): ``pause()`` and a ``break_on`` breakpoint stop the
run's thread right after a recorded ``next()`` call, and ``advance()`` lets
it run one round of the outermost union before it pauses again.  An RLlib
2.x ``Algorithm`` has no recorded dataflow ops, so it pauses between two
``train()`` calls.
"""
from __future__ import annotations

import contextvars
import difflib
import math
import sys
import threading
import time
from typing import Any, Callable

from rlviz.checks import check_int, describe_value
from rlviz.ops.names import STEPS_SAMPLED_COUNTER, STEPS_TRAINED_COUNTER
from rlviz.runtime import ray_session

from rlviz.trace import Event, Trace, record
from rlviz.trace.gate import BreakOn, Gate, check_break_on, describe_break
from rlviz.trace.gauges import WEIGHTS_VERSION, Gauge
from rlviz.viz.explorer_stream import LIVE_UNIT_NS
from rlviz.viz.growing_chunks import Extent, GrowingChunks
from rlviz.widgets.explorer_host import ExplorerHost
from rlviz.widgets.interrupts import on_kernel_interrupt
from rlviz.widgets.picture import background_png, timeline_png

__all__ = ["LiveView", "watch", "train_progress", "REFRESH_S", "ADVANCE_TIMEOUT_S", "RAY_GONE_STUCK_S"]

#: Seconds between two refreshes of the page.
REFRESH_S = 0.5
#: How long ``advance()`` waits, by default, for the run to pause again.
ADVANCE_TIMEOUT_S = 60.0
#: How long ``stop()`` waits for the step running now (a train() call) to end.
_JOIN_S = 120.0
_WATCHED: dict[int, "LiveView"] = {}           # id(target) -> the view watching it now
_WATCHED_LOCK = threading.Lock()
#: Seconds a watch makes no step after its Ray shut down before its view says the run is stuck (a driver-only
#: iterator goes on without Ray).
RAY_GONE_STUCK_S = 10.0
_RAY_GONE = "Ray was shut down while the run went on (ray.shutdown())"
_RAY_GONE_HINT = "hint: stop the watch first (live.stop()), then shut Ray down; what was recorded is kept"
_INTERRUPTED = ("KeyboardInterrupt: the kernel was interrupted, so the run stopped after its current step "
                "(what it recorded is kept)")


def watch(target: Any, *, seconds: float | None = None, iterations: int | None = None,
          window_s: float | None = None, break_on: BreakOn | None = None) -> "LiveView":
    """Run ``target`` in a background thread and watch it in a live Explorer.

    Parameters
    ----------
    target : Trainer, Algorithm or iterator
        A ``rlviz.Trainer`` or an RLlib 2.x ``Algorithm`` (its ``train()``
        is called again and again; build it from
        ``rlviz.rllib.instrument(config)`` so its runners and learner are
        recorded) or any rlviz ``LocalIterator`` (its items are pulled); a
        ``ParallelIterator`` must be gathered first (``gather_sync()``).
    seconds : float, optional
        Stop after this many seconds (by default the run goes on until
        ``stop()``, the page's stop button, or the iterator's end).
    iterations : int, optional
        Stop after this many ``train()`` calls (or items pulled).
    window_s : float, optional
        Keep only the last ``window_s`` seconds of events in the driver and
        the page, so memory stays flat; the counters cover the whole run.
    break_on : str or callable, optional
        A breakpoint on the driver's dataflow ops: an op name (``"Replay"``)
        pauses the run after each ``next()`` of that op; a callable gets each
        driver-side ``Event`` and returns True to pause.  The run pauses right
        after the matching call was recorded (``live.paused_at``); go on with
        ``live.resume()`` or ``live.advance()``.  A predicate that raises
        pauses the run and shows its error (``live.break_error``).  Remote
        events reach the driver later than they happen, so they cannot
        break; an RLlib 2.x ``Algorithm`` has no dataflow ops to break on.

    Returns
    -------
    LiveView
        The widget (shown when it is a cell's value); ``live.trace`` is a
        normal ``Trace`` of what was recorded.

    Raises
    ------
    TypeError
        If ``target`` is neither a Trainer nor an iterator, a number has
        the wrong type, or ``break_on`` is neither a str nor a callable.
    ValueError
        If ``seconds``, ``iterations`` or ``window_s`` is not a finite number
        > 0, ``target`` is already being watched, ``break_on`` names no
        driver op of the target's dataflow, or the target has no dataflow
        ops to break on (an RLlib 2.x ``Algorithm``).
    TimeoutError
        If a watch this notebook cell started before (it is running again)
        did not stop within ``LiveView.stop``'s timeout.

    Notes
    -----
    Called from a JupyterLab cell that started watches before, it first
    stops them (``stop()``): running the cell again cleared their views
    from the page, and they would otherwise go on unseen.

    Examples
    --------
    >>> import rlviz
    >>> from rlviz.iter import from_range
    >>> live = rlviz.watch(from_range(1000, num_shards=2).gather_sync(), iterations=50)
    >>> live.join(timeout=60)
    >>> live.running, live.iterations, len(live.trace) > 0
    (False, 50, True)
    """
    return LiveView(target, seconds=seconds, iterations=iterations, window_s=window_s, break_on=break_on)


class LiveView(ExplorerHost):
    """A live Explorer over a run in a background thread: the kernel stays free.

    The page shows the timeline, graph, order strip and inspector growing
    as events arrive (a "follow" box keeps the newest in view; zooming or
    panning by hand turns it off), the event count and rate, the return
    curve, the plan's counters, and pause / resume / stop buttons.

    Parameters
    ----------
    target, seconds, iterations, window_s, break_on
        See ``rlviz.watch``.

    Attributes
    ----------
    running : bool
        True until the run ends (stopped, finished, or failed).
    iterations : int
        ``train()`` calls made (or items pulled) so far.
    result : dict or None
        The last ``train()`` result (the last item for an iterator).
    error : str or None
        What ended the run, if it failed (the worker's lane is named when
        a worker died).
    trace : Trace
        What was recorded (a frozen snapshot while running).
    """

    def __init__(self, target: Any, *, seconds: float | None = None, iterations: int | None = None,
                 window_s: float | None = None, break_on: BreakOn | None = None) -> None:
        kind = _kind_of(target)
        check_break_on(break_on)
        seconds = _check_limit("seconds", seconds)
        iterations = _check_limit("iterations", iterations, integer=True)
        window_s = _check_limit("window_s", window_s)
        cell = _running_cell_id()
        _stop_watches_of_cell(cell)
        with _WATCHED_LOCK:
            other = _WATCHED.get(id(target))
            if other is not None and other.running:
                raise ValueError(f"{target!r} is already being watched by another LiveView (started "
                                 f"{time.time() - other._started:.0f} s ago); call its stop() first, "
                                 f"or watch another target")
            _WATCHED[id(target)] = self
        super().__init__()
        self._target, self._kind = target, kind
        self._ray_at_start = ray_session() if "ray" in sys.modules else None   # a driver-only iterator needs no Ray
        self._cell = cell                          # the notebook cell that started it (None outside JupyterLab)
        self._limits = (seconds, iterations)
        self._window_s = window_s
        self._started = time.time()
        self._resume = threading.Event()
        self._resume.set()
        self._stopping = threading.Event()
        self._ready = threading.Event()            # the record() block is open: ``_live`` is set
        self._lock = threading.Lock()
        self._pages: dict[str, Extent] = {}       # per page (its view token): what it was sent
        self._source: GrowingChunks | None = None   # the run as chunks and levels, once recording began
        self._live: Any = None
        self._final: Trace | None = None
        self._curve: list[tuple[int, float]] = []
        self._items = 0
        self._rate = (time.monotonic(), 0, 0.0)    # (when, events then, events per second)
        self.iterations = 0
        self.result: Any = None
        self.error: str | None = None
        self._gated = callable(getattr(target, "dataflow", None))   # its ops are recorded: it pauses between them
        self._check_break(break_on)
        self._gate = Gate(self._dataflow, break_on, on_pause=self._on_gate_paused)
        self._pictured = False                     # the outputs showing this view show the ended run's picture
        on_kernel_interrupt(_stop_every_watch)
        context = contextvars.copy_context()       # the starting cell's parent header: ipykernel 7 routes by it
        self._thread = threading.Thread(target=context.run, args=(self._run,), name="rlviz-watch", daemon=True)
        self._refresher = threading.Thread(target=contextvars.copy_context().run, args=(self._refresh_loop,),
                                           name="rlviz-watch-refresh", daemon=True)
        self._thread.start()
        self._refresher.start()

    # -- public state ------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while the background run goes on (paused included)."""
        return self._thread.is_alive()

    @property
    def paused(self) -> bool:
        """True from ``pause()`` (a breakpoint, the page's button) until ``resume()`` or ``advance()``.

        The run's thread stops at the next op boundary; ``paused_at`` is set once it has.
        """
        return not self._resume.is_set() or self._gate.holding

    @property
    def paused_at(self) -> Event | None:
        """The driver-side event the run is paused after (None while it runs, or paused between train() calls)."""
        return self._gate.paused_at

    @property
    def break_on(self) -> BreakOn | None:
        """The breakpoint now (None for none); set it with ``set_break``."""
        return self._gate.break_on

    @property
    def break_error(self) -> str | None:
        """What the ``break_on`` predicate raised, if it did (the run paused there and the predicate was removed)."""
        return self._gate.error

    @property
    def trace(self) -> Trace:
        """What was recorded: the final trace once stopped, a frozen snapshot of the store while running."""
        if self._final is not None:
            return self._final
        if self._live is None:
            return Trace.empty()
        return self._live.store.view()

    def pause(self) -> None:
        """Pause the run at its next op boundary: right after the driver's next recorded ``next()`` call.

        Remote workers finish the call in flight and start no new one.  An
        RLlib 2.x ``Algorithm`` pauses between two ``train()`` calls.
        """
        if self._gated:
            self._gate.pause()
        else:
            self._resume.clear()
        self._send_status()

    def resume(self) -> None:
        """Go on after ``pause()`` or a breakpoint (the breakpoint stays set)."""
        self._gate.resume()
        self._resume.set()
        self._send_status()

    def advance(self, rounds: int = 1, timeout: float = ADVANCE_TIMEOUT_S) -> Event | None:
        """Run ``rounds`` rounds of the outermost union (one ``next()`` of the outermost op if there is none), then pause.

        What runs is recorded as usual; a breakpoint met on the way pauses
        the run there.  For DQN one round is one store turn (sample, store)
        and one replay turn (replay, train, or not ready yet).

        Parameters
        ----------
        rounds : int, default 1
            How many rounds (or calls) to run.
        timeout : float, default ADVANCE_TIMEOUT_S
            Seconds to wait for the run to pause again.

        Returns
        -------
        Event or None
            The event the run paused at (``paused_at``); None if the run ended first.

        Raises
        ------
        RuntimeError
            If the run is not paused at an op boundary, was stopped, or has no
            recorded ops to advance through (an RLlib 2.x ``Algorithm``).
        TimeoutError
            If the run has not paused again within ``timeout`` s.
        """
        check_int("rounds", rounds, minimum=1, hint="e.g. live.advance(rounds=3)")
        if not self._gated:
            raise RuntimeError(f"advance() steps through recorded dataflow ops, and {type(self._target).__name__} "
                               f"has none; use pause() and resume(), which act between train() calls")
        if self._stopping.is_set() or not self.running:
            raise RuntimeError("advance() after the run stopped: nothing is left to advance; start a new "
                               "rlviz.watch(...)")
        event = self._gate.advance(rounds, timeout)
        self._send_status()
        return event

    def set_break(self, break_on: BreakOn | None) -> None:
        """Set the breakpoint (an op name or a predicate of each driver-side ``Event``; None removes it).

        Raises
        ------
        TypeError
            If ``break_on`` is neither None, a str nor a callable.
        ValueError
            If ``break_on`` names no driver op of the run's dataflow, or the
            target has no recorded dataflow ops (an RLlib 2.x ``Algorithm``).
        """
        self._check_break(break_on)
        self._gate.set_break(break_on)
        self._send_status()

    def inspect(self) -> dict:
        """What the run holds now: where it paused, the last item of each driver op, calls in flight, counters, workers.

        Returns
        -------
        dict
            ``paused_at`` (Event or None); ``last_items`` (op -> the summary
            of its last item); ``in_flight`` (the driver ops inside a
            ``next()`` call now: downstream of where the run paused);
            ``counters`` (the plan's counters: steps sampled and trained, ...);
            ``workers`` (each remote worker's lane, and how many are healthy);
            ``gauges`` (gauge name -> lane -> its latest value: the replay
            buffer's ``"replay rows held"`` and ``"replay rows added"``, ...);
            ``weights_version`` (lane -> the version of the weights it holds:
            the learner's update count, on the driver and each worker that
            loaded weights; remote readings arrive with the page's refresh);
            ``last_advance`` (what the last ``advance()`` ran, while the run
            is paused at its end: ``round``, the outermost union's round it
            ended, and ``ran``, the driver's calls as ``[op, outcome, calls]``;
            None otherwise).
        """
        nodes = self._dataflow()
        paused = self._gate.paused_at
        last: dict[str, str | None] = {}
        trace = self._live.snapshot() if self._live is not None and self._final is None else self.trace
        for event in trace.events:
            if event.where == "driver" and event.outcome == "item":
                last[event.op] = event.item
        latest = {name: _latest_per_lane(gauge) for name, gauge in trace.gauges.items()}
        return {"paused_at": paused, "last_items": last,
                "in_flight": _downstream(nodes, paused.op_id) if paused is not None else [],
                "counters": _counters(self._target), "workers": _workers(self._target),
                "gauges": latest, "weights_version": latest.get(WEIGHTS_VERSION, {}),
                "last_advance": self._gate.last_advance if paused is not None else None}

    def stop(self, timeout: float = _JOIN_S) -> None:
        """Stop the run: the step running now ends, the iterator's streams close, the thread is joined; the trace stays.

        Raises
        ------
        TimeoutError
            If the step running now has not ended within ``timeout`` seconds.
        """
        self._request_stop()
        self.join(timeout)
        if self.running:
            raise TimeoutError(f"the watched run did not stop within {timeout} s (a step is still running); "
                               f"call stop() again to wait longer")

    def join(self, timeout: float | None = None) -> None:
        """Wait until the run ends (by its limits, its end, an error or ``stop()``) and the page has its last events."""
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._refresher.join(timeout)
            self._picture_the_ended_run()

    def __repr__(self) -> str:
        state = "running" if self.running else ("failed" if self.error else "stopped")
        return f"LiveView({state}, {self.iterations} iterations, {len(self.trace)} events)"

    # -- the run -------------------------------------------------------------
    def _request_stop(self) -> None:
        """The run ends after its current step; a paused run is let go first."""
        self._stopping.set()
        self._gate.close()
        self._resume.set()

    def _check_break(self, break_on: object) -> None:
        """A breakpoint must be a str or callable, on a target with dataflow ops; an op name must be one of them."""
        check_break_on(break_on)
        if break_on is None:
            return
        if not self._gated:
            raise ValueError(f"break_on needs recorded dataflow ops, and {type(self._target).__name__} has none; "
                             f"use pause() and resume(), which act between train() calls")
        if isinstance(break_on, str):
            nodes = [node for node in self._dataflow() if node.where == "driver"]
            if break_on not in {node.op for node in nodes} | {node.op_id for node in nodes}:
                ops = sorted({node.op for node in nodes})
                close = difflib.get_close_matches(break_on, ops, n=1)
                raise ValueError(f"break_on={break_on!r} is no driver op of this run"
                                 + (f"; did you mean {close[0]!r}?" if close else "") + f" its ops are {ops}")

    def _dataflow(self) -> list:
        return list(self._target.dataflow()) if self._gated else []

    def _on_gate_paused(self, _event: Event) -> None:
        self._send_status()                        # the refresher sends the events, within REFRESH_S

    def _run(self) -> None:
        seconds, iterations = self._limits
        self._gate.open()
        stream = iter(self._target) if self._kind == "iterator" else None
        deadline = None if seconds is None else time.monotonic() + seconds
        try:
            with record(window_s=self._window_s) as live:
                self._live = live
                self._source = GrowingChunks(live.store)
                self._ready.set()
                try:
                    while not self._stopping.is_set():
                        self._resume.wait()
                        if self._stopping.is_set():
                            break
                        if not self._step(stream):
                            break
                        if iterations is not None and self.iterations >= iterations:
                            break
                        if deadline is not None and time.monotonic() >= deadline:
                            break
                finally:
                    if stream is not None:
                        stream.close()              # the iterator's streams end with the watch
            self._final = live.snapshot()           # the block's exit read: every process's events, none cached
        except BaseException as err:                # shown in the page and kept in .error, never printed
            self.error = _describe(err)
            if self._ray_gone():
                self.error = f"{_RAY_GONE}, so its workers are gone; {_RAY_GONE_HINT} ({self.error})"
        finally:
            self._gate.close()
            self._ready.set()
            with _WATCHED_LOCK:
                if _WATCHED.get(id(self._target)) is self:
                    del _WATCHED[id(self._target)]

    def _step(self, stream: Any) -> bool:
        """One train() (or one item); False when the iterator ended."""
        if stream is None:
            result = self._target.train()
            progress = train_progress(result)
            if math.isfinite(progress["reward"]):
                self._curve.append((progress["sampled"], progress["reward"]))
        else:
            try:
                result = next(stream)
            except StopIteration:
                return False
        self.result = result
        self.iterations += 1
        return True

    # -- the page -------------------------------------------------------------
    def _ray_gone(self) -> bool:
        """True if the run started on a Ray that has shut down (or restarted) since."""
        return self._ray_at_start is not None and ray_session() != self._ray_at_start

    def _refresh_loop(self) -> None:
        self._ready.wait()
        gone_at: tuple[float, int] | None = None   # when Ray was seen gone, and the steps made by then
        while self._thread.is_alive():
            started = time.monotonic()
            if gone_at is None and self._ray_gone():
                gone_at = (started, self.iterations)
            if (self.error is None and gone_at is not None and self.iterations == gone_at[1]
                    and started - gone_at[0] >= RAY_GONE_STUCK_S):   # a call to the gone workers may never return
                self.error = (f"{_RAY_GONE}: the run is stuck in a call to its gone workers and cannot end; "
                              f"restart the kernel to free it; {_RAY_GONE_HINT}")
                self.show_error(self.error)
            self._refresh()
            self._thread.join(max(0.0, REFRESH_S - (time.monotonic() - started)))
        self._refresh(final=True)                  # the last events, the notes as of the end, the final status
        self._keep_picture()

    def _keep_picture(self) -> None:
        """The run's timeline as the view's saved picture (what a notebook reopened without a kernel shows)."""
        try:
            self._picture = background_png(self.trace) or self._picture     # None: the process is exiting
        except Exception as err:                   # a picture that cannot be drawn is shown, the trace stays
            self.show_error(f"drawing the saved picture failed: {_describe(err)}")

    def _refresh(self, final: bool = False) -> None:
        try:
            if self._live is not None and self._final is None:
                self._live.pull()
            if self._source is not None:
                self._source.advance(final=final)
                with self._lock:
                    pages = list(self._pages.items())
                for view, sent in pages:
                    extent, buffers = self._source.extent(sent)
                    self.send({"type": "extent", "view": view, "extent": extent}, buffers)
            self._send_status()
        except Exception as err:                   # a refresh that fails is shown, and the run goes on
            self.show_error(f"refreshing the live view failed: {_describe(err)}")

    def _status(self) -> dict:
        held = self._live.store.next_id if self._live is not None else 0
        now = time.monotonic()
        when, before, rate = self._rate
        if now - when >= 1.0:
            rate = (held - before) / (now - when)
            self._rate = (now, held, rate)
        paused_at = self._gate.paused_at
        status = {"running": self.running, "paused": self.paused, "iterations": self.iterations,
                  "events": held, "events_per_s": rate, "error": self.error, "gated": self._gated,
                  "paused_at": self._pause_facts(paused_at) if paused_at is not None else None,
                  "advanced": self._gate.last_advance if paused_at is not None else None,
                  "break_on": describe_break(self._gate.break_on), "break_error": self._gate.error,
                  "break_op": self._gate.break_on if isinstance(self._gate.break_on, str) else None,
                  "curve": self._curve[-500:] if self._kind == "trainer" else None}
        if self._kind == "trainer":
            status["counters"] = self._live_counters()
            config = getattr(self._target, "config", None)
            status["target_ratio"] = config.get("training_intensity") if hasattr(config, "get") else None
        return status

    def _live_counters(self) -> dict:
        """Steps sampled and trained as the plan counts them now (its ops' counters change within a train() call).

        A target without the plan's counters (an RLlib 2.x ``Algorithm``) has them from its last ``train()`` result.
        """
        counters = _counters(self._target)
        if STEPS_SAMPLED_COUNTER in counters:
            return {"sampled": int(counters[STEPS_SAMPLED_COUNTER]),
                    "trained": int(counters.get(STEPS_TRAINED_COUNTER, 0))}
        progress = train_progress(self.result if isinstance(self.result, dict) else {})
        return {"sampled": progress["sampled"], "trained": progress["trained"]}

    def _pause_facts(self, event: Event) -> dict:
        """What the page shows of the event the run paused at; ``end_unit`` is its end as the page's columns count it."""
        origin = self._live.store.since_ns if self._live is not None else 0
        return {"op": event.op, "where": event.where, "outcome": event.outcome, "item": event.item,
                "end_ns": str(event.end_ns), "end_unit": max(0, (event.end_ns - origin) // LIVE_UNIT_NS)}

    def _send_status(self) -> None:
        self.send({"type": "status", "status": self._status()})

    # -- messages (the protocol: rlviz.widgets.explorer_host) ----------------
    def _handlers(self) -> dict[str, Callable[[dict], None]]:
        return {"ready": self._start_page, "detail": self._send_detail, "command": self._command}

    def _start_page(self, content: dict) -> None:
        """A page was drawn: it mounts on the run so far (the levels and the chunks' list), then takes every
        refresh's extent and asks for the chunks its window needs."""
        self._ready.wait(timeout=30)
        if self._source is None:
            self.show_error(self.error or "the watched run did not start")
            return
        view, sent = str(content.get("view")), Extent()
        if not self._refresher.is_alive():         # a page shown after the run: take its last events first
            self._source.advance(final=True)
        with self._lock:
            meta, levels = self._source.start(sent)
            self._pages[view] = sent
        self.send({"type": "payload", "view": content.get("view"), "meta": meta}, [levels])
        self._send_status()

    def _send_detail(self, content: dict) -> None:
        """The page's window needs chunk ``content["chunk"]`` (of a tail it holds up to part ``from_part``, the
        rest): send it (an error in the page if it is not held)."""
        k, from_part = content.get("chunk"), content.get("from_part")
        try:
            if self._source is None:
                raise IndexError(f"the page asked for chunk {k!r} before the run began recording")
            if not isinstance(k, int) or not isinstance(from_part, (int, type(None))):
                raise IndexError(f"the page asked for chunk {k!r} from part {from_part!r}: both are numbers")
            payload = self._source.chunk(k, from_part)
        except IndexError as err:
            self.show_error(f"{err}: reload the view")
            return
        self.send({"type": "detail", "view": content.get("view"), "chunk": k, "from_part": from_part,
                   "meta": payload.meta}, payload.buffers)

    def _command(self, content: dict) -> None:
        """A button of the page's live bar: pause, resume, advance, break (on an op, or none) or stop."""
        command = content.get("command")
        if command == "pause":
            self.pause()
        elif command == "resume":
            self.resume()
        elif command == "advance" and self._gate.paused:
            threading.Thread(target=self._advance_from_page, name="rlviz-advance", daemon=True).start()
        elif command == "break":
            op = content.get("op")
            try:
                self.set_break(op if isinstance(op, str) and op else None)
            except ValueError as err:              # shown in the page; the run goes on
                self.show_error(str(err))
        elif command == "stop":
            self._request_stop()

    def _advance_from_page(self) -> None:
        """The page's advance button: an advance whose error shows in the page (the kernel never blocks)."""
        try:
            self.advance()
        except (RuntimeError, TimeoutError) as err:
            self.show_error(f"advance failed: {err}")

    # -- static fallback ---------------------------------------------------
    def _picture_for_repr(self) -> bytes:
        return self._picture or timeline_png(self.trace)       # the run's once it ended, else what is so far

    def _picture_shown(self) -> bytes:
        """An output shows the picture of what was recorded so far (the whole run's once it ended)."""
        return self._picture_for_repr()

    def _picture_the_ended_run(self) -> None:
        """Every output showing this view gets the picture of the whole run (once, from the caller's cell)."""
        if not self._pictured:
            self._pictured = self.update_outputs()


def _stop_every_watch() -> None:
    """A kernel interrupt: every running watch stops after its current step, saying why (never blocks)."""
    with _WATCHED_LOCK:
        running = [view for view in _WATCHED.values() if view.running]
    for view in running:
        view.error = view.error or _INTERRUPTED
        view._request_stop()


def _running_cell_id() -> str | None:
    """The id of the notebook cell running now, as JupyterLab sends it with each execution; None elsewhere."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    get_parent = getattr(getattr(get_ipython(), "kernel", None), "get_parent", None)
    if get_parent is None or threading.current_thread() is not threading.main_thread():
        return None
    cell = (get_parent("shell") or {}).get("metadata", {}).get("cellId")
    return cell if isinstance(cell, str) else None


def _stop_watches_of_cell(cell: str | None) -> None:
    """Stop the running watches that notebook cell ``cell`` started before it ran again.

    Running a cell again clears its output: the old watch's view leaves the
    page and ``live`` is about to name the new one, so the old run would go
    on with neither a stop button nor a name to stop it by.
    """
    if cell is None:
        return
    with _WATCHED_LOCK:
        earlier = [view for view in _WATCHED.values() if getattr(view, "_cell", None) == cell and view.running]
    for view in earlier:
        view.stop()


def _latest_per_lane(gauge: Gauge) -> dict[str, float | int]:
    """Each lane's latest reading of ``gauge`` (whole numbers as ints)."""
    latest = {}
    for where, value in zip(gauge.where.tolist(), gauge.value.tolist()):
        latest[where] = int(value) if float(value).is_integer() else value
    return latest


def _downstream(nodes: list, op_id: str) -> list[str]:
    """The ops that consume ``op_id``'s values, directly or not, in dataflow order (their next() is under way)."""
    inside = {op_id}
    for node in nodes:                              # dataflow order: parents before children
        if inside.intersection(node.parents):
            inside.add(node.op_id)
    return [node.op for node in nodes if node.op_id in inside and node.op_id != op_id]


def _counters(target: Any) -> dict:
    metrics = getattr(target, "metrics", None)
    counters = getattr(metrics, "counters", None)
    return dict(counters) if isinstance(counters, dict) else {}


def _workers(target: Any) -> dict:
    workers = getattr(target, "workers", None)
    if not callable(getattr(workers, "lanes", None)):
        return {}
    return {"lanes": workers.lanes(), "healthy": workers.num_healthy_remote_workers()}


def train_progress(result: dict) -> dict:
    """Env steps sampled and trained and the mean episode return of one ``train()`` result.

    Reads an rlviz ``Trainer``'s result (RLlib 1.x's keys) or an RLlib 2.x
    ``Algorithm``'s (``env_runners`` / ``learners`` sub-dicts); what a
    result lacks is 0 (steps) or NaN (return).

    Examples
    --------
    >>> train_progress({"timesteps_total": 400, "episode_reward_mean": 21.5,
    ...                 "counters": {"num_steps_trained": 320}})
    {'sampled': 400, 'trained': 320, 'reward': 21.5}
    >>> train_progress({"num_env_steps_sampled_lifetime": 100.0, "env_runners": {"episode_return_mean": 23.5},
    ...                 "learners": {"__all_modules__": {"num_env_steps_trained_lifetime": 318.0}}})
    {'sampled': 100, 'trained': 318, 'reward': 23.5}
    """
    runners = _section(result, "env_runners")
    learners = _section(_section(result, "learners"), "__all_modules__")
    counters = _section(result, "counters")
    sampled = _first_number(result.get("timesteps_total"), counters.get("num_steps_sampled"),
                            result.get("num_env_steps_sampled_lifetime"),
                            runners.get("num_env_steps_sampled_lifetime"))
    trained = _first_number(counters.get("num_steps_trained"), learners.get("num_env_steps_trained_lifetime"))
    reward = _first_number(result.get("episode_reward_mean"), runners.get("episode_return_mean"))
    return {"sampled": int(sampled) if sampled is not None else 0,
            "trained": int(trained) if trained is not None else 0,
            "reward": float(reward) if reward is not None else math.nan}


def _section(result: object, key: str) -> dict:
    value = result.get(key) if isinstance(result, dict) else None
    return value if isinstance(value, dict) else {}


def _first_number(*values: object) -> float | None:
    return next((v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)), None)


def _kind_of(target: Any) -> str:
    if callable(getattr(target, "train", None)):
        return "trainer"
    if hasattr(target, "gather_sync") and hasattr(target, "gather_async"):
        raise TypeError(f"watch() cannot pull a ParallelIterator ({target!r}) directly; gather it first, "
                        f"e.g. rlviz.watch(it.gather_sync()) or rlviz.watch(it.gather_async())")
    if hasattr(target, "__next__") and hasattr(target, "__iter__"):
        return "iterator"
    raise TypeError(f"watch(target=...) needs an rlviz.Trainer, an RLlib 2.x Algorithm or an rlviz iterator "
                    f"(a LocalIterator, e.g. from_range(10).gather_sync()), not {describe_value(target)}")


def _check_limit(name: str, value: object, integer: bool = False) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise TypeError(f"{name} must be {'an int' if integer else 'a number'} > 0 or None, "
                        f"not {describe_value(value)}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0 or None (no limit), got {value!r}; "
                         f"hint: rlviz.watch(target, {name}={30 if name != 'iterations' else 20})")
    return value


def _describe(err: BaseException) -> str:
    """The error as one line, naming the worker's lane when a Ray actor died."""
    text = f"{type(err).__name__}: {err}".strip()
    first = text.splitlines()[0] if text else type(err).__name__
    lane = _lane_in(text)
    return f"{first} (worker {lane})" if lane and lane not in first else first


def _lane_in(text: str) -> str | None:
    """The worker an error text names: a lane (``RolloutWorker-1``, ``shard-0``) or Ray's actor class and id.

    >>> _lane_in("shard-1#2 died: its actor exited"), _lane_in("RolloutWorker-2@3f2a1c was lost")
    ('shard-1#2', 'RolloutWorker-2@3f2a1c')
    """
    import re

    found = re.search(r"\b((?:RolloutWorker|shard|ReplayActor|worker)-\d+(?:#\d+)?(?:@\w+)?)", text)
    if found:
        return found.group(1)
    actor = re.search(r"class_name:\s*(\w+).*?actor_id:\s*([0-9a-f]{8})", text, re.S)
    return f"{actor.group(1)} actor {actor.group(2)}" if actor else None
