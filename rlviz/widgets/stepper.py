"""``TraceStepper``: step through a recorded trace event by event, in the order calls completed.

Recording stays cheap and separate (``rlviz.record()``); this widget only
reads the finished ``Trace`` (the Dask diagnostics model).  Plain state lives
in ``rlviz.widgets.steps``, pictures in ``rlviz.widgets.frames``.
"""
from __future__ import annotations

import base64
import html
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
import traitlets

from rlviz.trace import Event, Trace
from rlviz.widgets.frames import GraphFrame, TimelineFrame
from rlviz.widgets.steps import Steps, check_nonempty_trace

__all__ = ["TraceStepper", "VIEWS"]

#: The pictures a stepper can show, drawn in this order.
VIEWS = ("timeline", "graph")


class TraceStepper(widgets.VBox):
    """Play, slide or click through a trace's events; see each one described and highlighted.

    Events are visited in completion order (end time), the order in which
    values became available.  The text panel names the current event's op,
    label, lane, outcome, item and the events that produced its inputs
    (``#k`` = k-th in completion order); the timeline outlines its span and
    draws its input flows, the graph outlines its node and its producers'
    nodes.  The op and lane menus restrict the steps to one op or process.

    Parameters
    ----------
    trace : Trace
        A recorded trace with at least one event (live or ``Trace.load``-ed).
    views : sequence of {"timeline", "graph"}, default ("timeline", "graph")
        Pictures to show under the text, in ``VIEWS`` order; ``()`` for text only.
    op : str, optional
        Start filtered to this op name.
    where : str, optional
        Start filtered to this lane (``"driver"``, ``"shard-0"``, ...).
    follow : bool, default False
        Zoom the timeline to the ~20 steps around the current one.
    skip_not_ready : bool, default False
        Step over calls that returned "not ready", so each step made, ended or
        failed something (the Ape-X plan's ``Dequeue`` is mostly not-ready calls).

    Attributes
    ----------
    index : int
        Position of the current step within the filtered steps (Python-side trait).
    event : Event or None
        The current event (None when the filters match nothing).
    text : str
        The text panel's content.
    selection : ndarray of int
        Trace indices of the filtered steps, in completion order.

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace, ``views`` is a string or ``skip_not_ready`` is not a bool.
    ValueError
        If the trace is empty, a view is unknown, or ``op``/``where`` name
        nothing in the trace.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> stepper = TraceStepper(sharded_trace(items=2, not_ready=0), views=())
    >>> stepper.event.op, stepper.event.where
    ('from_range', 'shard-0')
    >>> stepper.next_button.click()
    >>> stepper.index, stepper.event.op
    (1, 'for_each')
    >>> stepper.op = "gather_sync"
    >>> stepper.text.splitlines()[:3]
    ['step 1 of 5 (op gather_sync)', '#3 of 14 in completion order', 'op       gather_sync']
    """

    # Python-only state (not synced to the browser: the controls below carry it there)
    index = traitlets.Int(0, help="position of the current step within the filtered steps")
    op = traitlets.Unicode("", help="only events of this op ('' = every op)")
    where = traitlets.Unicode("", help="only events on this lane ('' = every lane)")
    follow = traitlets.Bool(False, help="zoom the timeline around the current step")
    skip_not_ready = traitlets.Bool(False, help="step over calls that returned 'not ready'")

    def __init__(self, trace: Trace, *, views: Sequence[str] = VIEWS, op: str | None = None,
                 where: str | None = None, follow: bool = False, skip_not_ready: bool = False) -> None:
        check_nonempty_trace(trace, "TraceStepper")
        views = _check_views(views)
        if not isinstance(skip_not_ready, bool):
            raise TypeError(f"skip_not_ready must be True or False, got {skip_not_ready!r}")
        self.steps = Steps(trace)
        self.steps.select(op, where)            # raises for names not in the trace, before any widget exists
        self.selection = np.zeros(0, np.int64)
        self.event: Event | None = None
        self.text = ""
        self._paused = False
        self._frames = {"timeline": TimelineFrame(trace) if "timeline" in views else None,
                        "graph": GraphFrame(trace) if "graph" in views else None}
        self._build_controls()
        super().__init__(children=self._layout(views))
        self._link_controls()
        self.op_menu.value, self.where_menu.value, self.follow_box.value = op or "", where or "", follow
        self.skip_box.value = skip_not_ready
        self.observe(self._on_filter, names=["op", "where", "skip_not_ready"])
        self.observe(self._on_index, names=["index"])
        self.observe(self._on_follow, names=["follow"])
        self._refilter(keep_rank=0)

    # -- validation ----------------------------------------------------------
    @traitlets.validate("index")
    def _valid_index(self, proposal: dict) -> int:
        value = proposal["value"]
        top = max(len(self.selection) - 1, 0)
        if not 0 <= value <= top:
            raise traitlets.TraitError(f"TraceStepper.index must be in 0..{top} (the filtered steps), got {value}")
        return value

    @traitlets.validate("op", "where")
    def _valid_filter(self, proposal: dict) -> str:
        name, value = proposal["trait"].name, proposal["value"]
        known = self.steps.ops if name == "op" else self.steps.wheres
        if value and value not in known:
            raise traitlets.TraitError(f"TraceStepper.{name}={value!r} has no events; choose one of {known} "
                                       f"or '' for all")
        return value

    # -- controls ------------------------------------------------------------
    def _build_controls(self) -> None:
        self.play = widgets.Play(value=0, min=0, max=0, step=1, interval=400, description="play",
                                 layout=widgets.Layout(width="auto"))
        # No readout: it would count from 0 while the panel's "step k of N" counts from 1.
        self.slider = widgets.IntSlider(value=0, min=0, max=0, description="step", readout=False,
                                        continuous_update=True, layout=widgets.Layout(width="40%"))
        self.prev_button = widgets.Button(description="prev", icon="step-backward", tooltip="previous event",
                                          layout=widgets.Layout(width="auto"))
        self.next_button = widgets.Button(description="next", icon="step-forward", tooltip="next event",
                                          layout=widgets.Layout(width="auto"))
        self.op_menu = widgets.Dropdown(options=[("every op", "")] + [(o, o) for o in self.steps.ops],
                                        description="op", layout=widgets.Layout(width="auto"))
        self.where_menu = widgets.Dropdown(options=[("every lane", "")] + [(w, w) for w in self.steps.wheres],
                                           description="lane", layout=widgets.Layout(width="auto"))
        self.follow_box = widgets.Checkbox(description="zoom timeline", indent=False,
                                           layout=widgets.Layout(width="auto"))
        self.skip_box = widgets.Checkbox(description="skip not-ready", indent=False,
                                         layout=widgets.Layout(width="auto"))
        self.panel = widgets.HTML(layout=widgets.Layout(min_height="11em"))
        self.images = {name: widgets.Image(format="png", width=str(frame.width_px),     # natural size, never upscaled
                                           layout=widgets.Layout(max_width="100%", height="auto"))
                       for name, frame in self._frames.items() if frame is not None}

    def _layout(self, views: tuple[str, ...]) -> list:
        bar = widgets.HBox([self.play, self.prev_button, self.slider, self.next_button])
        menus = widgets.HBox([self.op_menu, self.where_menu, self.skip_box]
                             + ([self.follow_box] if "timeline" in views else []))
        return [bar, menus, self.panel] + [self.images[v] for v in VIEWS if v in views]

    def _link_controls(self) -> None:
        widgets.link((self.play, "value"), (self.slider, "value"))
        widgets.link((self.slider, "value"), (self, "index"))
        widgets.link((self.op_menu, "value"), (self, "op"))
        widgets.link((self.where_menu, "value"), (self, "where"))
        widgets.link((self.follow_box, "value"), (self, "follow"))
        widgets.link((self.skip_box, "value"), (self, "skip_not_ready"))
        self.prev_button.on_click(lambda _: self.step(-1))
        self.next_button.on_click(lambda _: self.step(+1))

    # -- actions -------------------------------------------------------------
    def step(self, delta: int) -> None:
        """Move ``delta`` steps (clamped to the filtered steps)."""
        self.index = int(np.clip(self.index + delta, 0, max(len(self.selection) - 1, 0)))

    # -- one update path -------------------------------------------------------
    def _on_filter(self, change: dict) -> None:
        rank = int(self.steps.rank[self.event_index]) if self.event is not None else 0
        self._refilter(keep_rank=rank)

    def _on_index(self, change: dict) -> None:
        if not self._paused:
            self._show()

    def _on_follow(self, change: dict) -> None:
        self._show()

    def _refilter(self, keep_rank: int) -> None:
        """Apply the filters; stay on the first selected step at or after ``keep_rank``; draw once."""
        self.selection = self.steps.select(self.op, self.where, self.skip_not_ready)
        top = max(len(self.selection) - 1, 0)
        position = int(min(np.searchsorted(self.steps.rank[self.selection], keep_rank), top))
        self._paused = True
        try:
            with self.slider.hold_sync(), self.play.hold_sync():
                self.slider.max = top
                self.play.max = top
                self.index = position
        finally:
            self._paused = False
        self._show()

    @property
    def event_index(self) -> int | None:
        """Trace index of the current event (None when the filters match nothing)."""
        return int(self.selection[self.index]) if len(self.selection) else None

    def _show(self) -> None:
        index = self.event_index
        self.event = None if index is None else self.steps.event(index)
        note = _filter_note(self.op, self.where, self.skip_not_ready)
        if index is None:
            self.text = f"step 0 of 0{note}\nno events match these filters; widen them"
        else:
            self.text = f"step {self.index + 1} of {len(self.selection)}{note}\n{self.steps.describe(index)}"
        producers = [] if index is None else self.steps.producers(index)
        self.panel.value = f"<pre style='margin:0;line-height:1.3'>{html.escape(self.text)}</pre>"
        timeline, graph = self._frames["timeline"], self._frames["graph"]
        if timeline is not None:
            window = (timeline.window_around(self.selection, self.index)
                      if self.follow and index is not None else None)
            self.images["timeline"].value = timeline.show(index, producers, window)
        if graph is not None:
            self.images["graph"].value = graph.show(index, producers)

    # -- static fallback -------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget, plus plain text and the current pictures for viewers without a kernel."""
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = self.text
        pictures = [image.value for image in self.images.values()]
        if pictures:
            bundle["image/png"] = base64.b64encode(pictures[0]).decode("ascii")
        return bundle


def _check_views(views: object) -> tuple[str, ...]:
    if isinstance(views, str):
        raise TypeError(f"views must be a sequence of view names, not the string {views!r}; "
                        f"hint: views=({views!r},)")
    views = tuple(views)  # type: ignore[arg-type]
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        raise ValueError(f"views has {unknown[0]!r}; allowed views are {list(VIEWS)} (or () for text only)")
    return views


def _filter_note(op: str, where: str, skip_not_ready: bool) -> str:
    parts = [f"op {op}"] * bool(op) + [f"lane {where}"] * bool(where) + ["not-ready skipped"] * skip_not_ready
    return f" ({', '.join(parts)})" if parts else ""
