"""Time as people read it, at any zoom: tick steps and labels from the visible span, starts and durations.

Over hours the ticks read h:mm:ss, then m:ss.s and m:ss.fff as the window
narrows; below a millisecond they read the µs after an anchor (the window's
start cut to the millisecond) that the caption states.  An event's start
reads as h:mm:ss.ffffff since the trace start and its duration in ns, µs,
ms, s, min or h as fits.  The Explorer's ruler and inspector follow the same
rules (``static/explorer_time.js``; a test runs both over the same cases),
and ``time_axis`` puts them on a matplotlib axis in ms, as ``plot_timeline``
draws.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["TICK_STEPS_MS", "time_step", "clock_text", "ruler_ticks", "start_text", "duration_text", "time_axis"]

_SECOND, _MINUTE, _HOUR, _DAY = 1000.0, 60_000.0, 3_600_000.0, 86_400_000.0

#: The tick steps in ms, finest first: 1, 2, 5 times a power of ten below a second, then steps that
#: divide a minute or an hour (base 60), then an hour or a day.
TICK_STEPS_MS = (
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0,
    _SECOND, 2 * _SECOND, 5 * _SECOND, 10 * _SECOND, 15 * _SECOND, 30 * _SECOND,
    _MINUTE, 2 * _MINUTE, 5 * _MINUTE, 10 * _MINUTE, 15 * _MINUTE, 30 * _MINUTE,
    _HOUR, 2 * _HOUR, 3 * _HOUR, 6 * _HOUR, 12 * _HOUR, _DAY,
)


def time_step(span_ms: float, target: float) -> float:
    """The tick step (ms) for a window ``span_ms`` wide with about ``target`` ticks.

    The smallest of ``TICK_STEPS_MS`` at least ``span_ms / target``; past a
    day, 1, 2 or 5 times a power of ten days.

    Examples
    --------
    >>> time_step(3 * 3_600_000, 10), time_step(0.05, 10)
    (1800000.0, 0.005)
    """
    raw = span_ms / max(1.0, target)
    for step in TICK_STEPS_MS:
        if step >= raw * (1 - 1e-9):
            return step
    days = raw / _DAY
    power = 10.0 ** math.floor(math.log10(days))
    for m in (1, 2, 5, 10):
        if m * power >= days * (1 - 1e-9):
            return m * power * _DAY
    return 10 * power * _DAY


def _half_up(value: float, decimals: int = 0) -> Decimal:
    """``value`` rounded half up at ``decimals`` places, as JavaScript's ``toFixed`` and ``Math.round`` do."""
    return Decimal(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def clock_text(ms: float, decimals: int = 0, hours: bool = False) -> str:
    """``ms`` since the trace start as a clock: h:mm:ss (with ``hours`` or past an hour), else m:ss.

    Examples
    --------
    >>> clock_text(3_723_500.0, 1), clock_text(65_250.0, 3), clock_text(5_000.0, 0, hours=True)
    ('1:02:03.5', '1:05.250', '0:00:05')
    """
    sign = "-" if ms < 0 else ""
    scale = 10 ** decimals
    units = int(_half_up(abs(ms) / _SECOND * scale))
    whole, fraction = divmod(units, scale)
    s, m, h = whole % 60, whole // 60 % 60, whole // 3600
    secs = f"{s:02d}" + (f".{fraction:0{decimals}d}" if decimals else "")
    return f"{sign}{h}:{m:02d}:{secs}" if h > 0 or hours else f"{sign}{m}:{secs}"


def _second_decimals(step_ms: float) -> int:
    if step_ms >= _SECOND:
        return 0
    return min(3, max(0, math.ceil(-math.log10(step_ms / _SECOND) - 1e-9)))


def ruler_ticks(a: float, b: float, width: float, spacing: float = 90) -> dict:
    """The ticks over the window ``[a, b]`` (ms since the trace start), ``width`` pixels wide.

    Parameters
    ----------
    a, b : float
        The window, in ms since the trace start.
    width : float
        Its width in pixels (or any length unit ``spacing`` uses).
    spacing : float, default 90
        About how far apart the ticks are.

    Returns
    -------
    dict
        ``step`` (ms), ``caption`` (what the labels read: the clock format,
        or the anchor the µs count from) and ``ticks``, a list of
        ``{"ms", "label"}``.

    Examples
    --------
    >>> r = ruler_ticks(0, 3 * 3_600_000, 900)
    >>> r["caption"], [t["label"] for t in r["ticks"]][:3]
    ('time since start (h:mm:ss)', ['0:00:00', '0:30:00', '1:00:00'])
    >>> r = ruler_ticks(3_600_000.25, 3_600_000.30, 900)
    >>> r["caption"], r["ticks"][0]["label"]
    ('from 1:00:00.000', '+250 µs')
    """
    step = time_step(b - a, width / spacing)
    hours = max(abs(a), abs(b)) >= _HOUR
    # the ticks are whole multiples of the step; one within a thousandth of a step of an edge counts as inside
    first, last = math.ceil(a / step - 1e-3), math.floor(b / step + 1e-3)
    ticks = []
    if step >= 1:
        decimals = _second_decimals(step)
        for k in range(first, last + 1):
            ticks.append({"ms": k * step, "label": clock_text(k * step, decimals, hours)})
        fmt = ("h:mm:ss" if hours else "m:ss") + ("." + "s" * decimals if decimals else "")
        return {"step": step, "caption": f"time since start ({fmt})", "ticks": ticks}
    anchor = math.floor(a)
    for k in range(first, last + 1):
        us = int(_half_up((k * step - anchor) * 1000))
        ticks.append({"ms": k * step, "label": f"+{us:,} µs"})
    return {"step": step, "caption": f"from {clock_text(anchor, 3, hours)}", "ticks": ticks}


def start_text(ms: float) -> str:
    """An event's start, ``ms`` since the trace start, as h:mm:ss.ffffff (to the microsecond).

    Examples
    --------
    >>> start_text(10_800_000.0123)
    '3:00:00.000012'
    """
    return clock_text(ms, 6, True)


def duration_text(ms: float) -> str:
    """A duration in the unit that fits: ns, µs, ms, s (three significant digits), then min and s, h and min.

    Examples
    --------
    >>> duration_text(0.0123), duration_text(4.567), duration_text(125_000.0), duration_text(10_920_000.0)
    ('12.3 µs', '4.57 ms', '2 min 5.0 s', '3 h 02 min')
    """
    a = abs(ms)

    def three(v: float) -> str:
        return str(_half_up(v, 0 if abs(v) >= 100 else 1 if abs(v) >= 10 else 2))

    if a == 0:
        return "0 µs"
    if a < 0.001:
        return f"{three(ms * 1e6)} ns"
    if a < 1:
        return f"{three(ms * 1e3)} µs"
    if a < _SECOND:
        return f"{three(ms)} ms"
    if a < _MINUTE:
        return f"{three(ms / _SECOND)} s"
    sign = "-" if ms < 0 else ""
    if a < _HOUR:
        m = math.floor(a / _MINUTE)
        return f"{sign}{m} min {_half_up((a - m * _MINUTE) / _SECOND, 1)} s"
    h = math.floor(a / _HOUR)
    m = math.floor((a - h * _HOUR) / _MINUTE)
    return f"{sign}{h} h {m:02d} min"


def time_axis(ax: "Axes", spacing_px: float = 90) -> None:
    """Label ``ax``'s x axis (ms since the trace start) as ``ruler_ticks`` does, for whatever window it shows.

    The ticks follow zooming and panning; below a millisecond the axis's
    offset text states the anchor the µs count from.

    Parameters
    ----------
    ax : matplotlib Axes
        An axes whose x data are ms since the trace start.
    spacing_px : float, default 90
        About how far apart the ticks are, in pixels.
    """
    from matplotlib.ticker import Formatter, Locator

    def ruler() -> dict:
        a, b = ax.get_xlim()
        width = max(ax.get_window_extent().width, 1.0) if ax.figure is not None else 640.0
        return ruler_ticks(min(a, b), max(a, b), width, spacing_px)

    class _Ticks(Locator):
        def __call__(self):
            return [tick["ms"] for tick in ruler()["ticks"]]

        def tick_values(self, vmin, vmax):
            return [tick["ms"] for tick in ruler_ticks(vmin, vmax, 640.0, spacing_px)["ticks"]]

    class _Labels(Formatter):
        def __init__(self) -> None:
            self.labels: dict[float, str] = {}
            self.caption = ""

        def set_locs(self, locs):
            drawn = ruler()
            self.labels = {tick["ms"]: tick["label"] for tick in drawn["ticks"]}
            self.caption = drawn["caption"] if drawn["caption"].startswith("from") else ""
            super().set_locs(locs)

        def __call__(self, x, pos=None):
            return self.labels.get(x, "")

        def get_offset(self):
            return self.caption

    ax.xaxis.set_major_locator(_Ticks())
    ax.xaxis.set_major_formatter(_Labels())
    ax.set_xlabel("time since the trace started")
