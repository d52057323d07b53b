"""``RoundRobinPlayground``: pick Concurrently's weights and output indexes, see the interleaving at once.

Each change re-runs ``run_round_robin`` (local ops, no actors, milliseconds)
and redraws its ``plot_order`` strip; a ``training_intensity`` slider shows
the weights ``calculate_rr_weights`` derives from it.
"""
from __future__ import annotations

import base64
import html
import io
import math
import re
from collections.abc import Mapping, Sequence

import ipywidgets as widgets

from rlviz.ops.weights import DQN_SAMPLING, calculate_rr_weights, calculate_rr_weights_float, native_ratio
from rlviz.viz import plot_order
from rlviz.widgets.roundrobin import OP_NAMES, RoundRobinRun, parse_weight, run_round_robin

__all__ = ["RoundRobinPlayground", "WEIGHT_CHOICES", "strip_png", "star_caption", "PIXEL_RATIO"]

#: Suggestions in each weight box (any number > 0 or "*" may be typed).
WEIGHT_CHOICES = ("*", "0.5", "1", "2", "3", "4", "8")
#: Pixels of the strip's PNG per pixel it is shown at: sharp on high-density screens, exact on others.
PIXEL_RATIO = 2
#: Screen pixels per inch of figure size (CSS's 96), so matplotlib's font sizes read as on paper.
_SCREEN_DPI = 96


class RoundRobinPlayground(widgets.VBox):
    """Experiment with ``Concurrently(..., round_robin_weights=..., output_indexes=...)``.

    Two ops shaped like DQN's (``store`` fills a buffer; ``train`` is not
    ready until it holds ``learning_starts`` items), optionally a third
    (``update``), run under ``Concurrently``; the strip shows which op
    produced each item, in order.  Weight boxes take a number or ``"*"``,
    "pass on" boxes choose ``output_indexes``.  The ``training_intensity``
    slider shows rlviz's rounded weights and Ray 1.x's float ones; its button
    copies the rounded weights into the boxes.

    Parameters
    ----------
    weights : sequence of number or "*", default (1, 1)
        Initial weights, 2 or 3 entries (the number of ops).
    output_indexes : sequence of int, optional
        Initial ops to pass on (default: all).
    items : int, default 24
        Items to take from ``Concurrently`` per run.
    learning_starts : int, default 0
        Store items before ``train`` is ready.
    training_intensity : float, default 8
        Initial slider value.
    sampling : mapping, optional
        ``train_batch_size``, ``rollout_fragment_length``,
        ``num_envs_per_worker``, ``num_workers`` (default ``rlviz.ops.weights.DQN_SAMPLING``).

    Attributes
    ----------
    run : RoundRobinRun
        The latest successful run (``run.order``, ``run.pattern``, ``run.output``).
    error : str or None
        Why the current inputs cannot run (the previous run stays shown).
    rr_weights, ray_weights : list
        What the slider's ``training_intensity`` gives: rlviz's rounded
        weights and Ray 1.x's float ones.

    Raises
    ------
    TypeError
        At construction, for weights or output indexes that are not lists of
        numbers, or ``items``/``learning_starts`` that are not ints.
    ValueError
        At construction, for weights of the wrong length or value (NaN,
        infinity, <= 0), output indexes out of range or repeated, or a bad
        ``sampling``/``training_intensity``.  After construction, a bad entry
        in a box is shown in the widget (``error``) instead.

    Examples
    --------
    >>> pg = RoundRobinPlayground(weights=[2, 1], items=6)
    >>> pg.run.pattern
    'S S T S S T'
    >>> pg.weight_boxes[1].value = "2"
    >>> pg.run.pattern
    'S S T T S S'
    >>> pg.intensity.value = 2.0
    >>> pg.rr_weights, pg.ray_weights
    ([4, 1], [1, 0.25])
    """

    def __init__(self, weights: Sequence[float | str] = (1, 1), output_indexes: Sequence[int] | None = None,
                 *, items: int = 24, learning_starts: int = 0, training_intensity: float = 8.0,
                 sampling: Mapping | None = None) -> None:
        self.sampling = dict(DQN_SAMPLING if sampling is None else sampling)
        self.run: RoundRobinRun = run_round_robin(weights, output_indexes, items=items,
                                                  learning_starts=learning_starts)
        _intensity_weights(self.sampling, training_intensity)      # fail now on bad sampling / intensity
        self.error: str | None = None
        self.rr_weights: list = []
        self.ray_weights: list = []
        self._paused = True
        self._build_controls(self.run, items, learning_starts, training_intensity)
        super().__init__(children=self._layout())
        for control in [*self.weight_boxes, *self.pass_boxes, self.ops_toggle, self.items_slider,
                        self.learning_slider]:
            control.observe(self._on_change, names="value")
        self.intensity.observe(self._on_intensity, names="value")
        self.use_button.on_click(lambda _: self.use_intensity_weights())
        self._paused = False
        self._show_rows()
        self._on_intensity(None)
        self._draw(self.run)

    # -- controls ------------------------------------------------------------
    def _build_controls(self, run: RoundRobinRun, items: int, learning_starts: int, intensity: float) -> None:
        count = len(run.weights)
        passed = set(range(count) if run.output_indexes is None else run.output_indexes)
        self.ops_toggle = widgets.ToggleButtons(options=[("store + train", 2), ("+ update", 3)], value=count,
                                                description="ops", style={"button_width": "8em"})
        self.weight_boxes = [widgets.Combobox(value=str(run.weights[i]) if i < count else "1",
                                              options=list(WEIGHT_CHOICES), ensure_option=False,
                                              description=f"{name} weight", style={"description_width": "7em"},
                                              layout=widgets.Layout(width="16em"))
                             for i, name in enumerate(OP_NAMES)]
        self.pass_boxes = [widgets.Checkbox(value=i in passed or i >= count, description="pass on", indent=False,
                                            layout=widgets.Layout(width="7em")) for i in range(len(OP_NAMES))]
        self.items_slider = widgets.IntSlider(value=items, min=1, max=max(120, items), description="items")
        self.learning_slider = widgets.IntSlider(value=learning_starts, min=0, max=max(30, learning_starts),
                                                 description="learning_starts",
                                                 style={"description_width": "initial"})
        self.intensity = widgets.FloatLogSlider(value=intensity, base=2, min=-3, max=7, step=0.5,
                                                description="training_intensity", readout_format=".3g",
                                                style={"description_width": "initial"},
                                                layout=widgets.Layout(width="28em"))
        self.use_button = widgets.Button(description="use these weights", icon="arrow-up",
                                         layout=widgets.Layout(width="auto"))
        self.intensity_text = widgets.HTML()
        self.status = widgets.HTML()
        # shown at its own width (half its pixels), never stretched across the box: a flex column would
        # widen an image of auto width to the box and keep its height
        self.picture = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto",
                                                                         align_self="flex-start"))
        self._rows = [widgets.HBox([box, check]) for box, check in zip(self.weight_boxes, self.pass_boxes)]

    def _layout(self) -> list:
        return [self.ops_toggle, *self._rows, widgets.HBox([self.items_slider, self.learning_slider]),
                self.status, self.picture,
                widgets.HBox([self.intensity, self.use_button]), self.intensity_text]

    # -- reading the controls ------------------------------------------------
    @property
    def weights(self) -> list:
        """The weights in the boxes of the ops in use (raises ``ValueError`` for a bad entry)."""
        count = self.ops_toggle.value
        return [parse_weight(box.value, f"{OP_NAMES[i]} weight") for i, box in enumerate(self.weight_boxes[:count])]

    @property
    def output_indexes(self) -> list[int] | None:
        """Checked ops as ``output_indexes`` (None when every op is passed on)."""
        count = self.ops_toggle.value
        checked = [i for i, box in enumerate(self.pass_boxes[:count]) if box.value]
        return None if len(checked) == count else checked

    @property
    def order(self) -> list[str]:
        """Op of every item the ops produced in the latest run, in completion order."""
        return self.run.order

    @property
    def pattern(self) -> str:
        """``order`` as initials (``"S S T ..."``)."""
        return self.run.pattern

    # -- actions -------------------------------------------------------------
    def use_intensity_weights(self) -> None:
        """Put the slider's rounded weights into the store and train boxes (two ops) and re-run."""
        self._paused = True
        try:
            self.ops_toggle.value = 2
            for box, weight in zip(self.weight_boxes, self.rr_weights):
                box.value = str(weight)
        finally:
            self._paused = False
        self._on_change(None)

    # -- one update path -------------------------------------------------------
    def _on_change(self, change: dict | None) -> None:
        if self._paused:
            return
        self._show_rows()
        try:
            output_indexes = self.output_indexes
            if output_indexes == []:
                raise ValueError("no op is passed on: check 'pass on' for at least one op "
                                 "(Concurrently needs a non-empty output_indexes)")
            run = run_round_robin(self.weights, output_indexes, items=self.items_slider.value,
                                  learning_starts=self.learning_slider.value)
            self._draw(run)
        except Exception as err:        # an observer's exception would only reach the kernel log: show it here
            self._show_error("cannot run", err)
            return
        self.error = None
        self.run = run

    def _show_rows(self) -> None:
        """Show the weight rows of the ops in use only."""
        for i, row in enumerate(self._rows):
            row.layout.display = None if i < self.ops_toggle.value else "none"

    def _draw(self, run: RoundRobinRun) -> None:
        picture, (width, _) = strip_png(run)
        shown = " ".join(run.output[:40]) + (" ..." if len(run.output) > 40 else "")
        names = list(OP_NAMES[:len(run.weights)])
        code = (f"Concurrently([{', '.join(names)}], mode='round_robin', round_robin_weights={run.weights!r}"
                + (f", output_indexes={run.output_indexes}" if run.output_indexes is not None else "") + ")")
        with self.status.hold_sync(), self.picture.hold_sync():
            self.status.value = (f"<code>{html.escape(code)}</code><br>ops ran: <code>{html.escape(run.pattern)}"
                                 f"</code><br>passed on: <code>{html.escape(shown)}</code>")
            self.picture.value = picture
            self.picture.width = str(width)
        self.picture.layout.display = None

    def _show_error(self, what: str, err: Exception) -> None:
        """Show ``err`` in the widget: a callback's exception would otherwise only reach the kernel log.

        The error replaces the strip: the last good run's strip would read as the answer to the bad input.
        """
        kind = "" if isinstance(err, ValueError) else f"{type(err).__name__}: "
        self.error = f"{kind}{err}"
        self.status.value = f"<b style='color:#c62828'>{what}: {html.escape(self.error)}</b>"
        self.picture.layout.display = "none"

    def _on_intensity(self, change: dict | None) -> None:
        try:
            self._show_intensity()
        except Exception as err:        # as in _on_change: never lost in the kernel log
            self.intensity_text.value = f"<b style='color:#c62828'>{html.escape(f'{type(err).__name__}: {err}')}</b>"

    def _show_intensity(self) -> None:
        intensity = self.intensity.value
        self.rr_weights, self.ray_weights = _intensity_weights(self.sampling, intensity)
        native = native_ratio(self.sampling)
        s = self.sampling
        self.intensity_text.value = (
            f"native ratio = train_batch_size / (rollout_fragment_length × num_envs_per_worker × num_workers) "
            f"= {s['train_batch_size']} / ({s['rollout_fragment_length']} × {s.get('num_envs_per_worker', 1)} × "
            f"{max(s.get('num_workers', 0), 1)}) = {native:g}<br>"
            f"w = training_intensity / native = {intensity:g} / {native:g} = {intensity / native:.3g}<br>"
            f"rlviz <code>calculate_rr_weights</code>: <b>{self.rr_weights}</b> (rounded) · "
            f"Ray 1.x: <b>[{', '.join(f'{w:.3g}' for w in self.ray_weights)}]</b> "
            f"(a fractional weight is rounded at random each round)")

    # -- static fallback -------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs) -> tuple[dict, dict]:
        """The live widget, plus the current order strip and call as text for viewers without a kernel.

        The strip's ``image/png`` carries its width in the metadata, so a
        static view shows it at its size, as the live widget does.
        """
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        metadata = {}
        bundle["text/plain"] = html.unescape(re.sub(r"<[^>]+>", " ", self.status.value.replace("<br>", "\n")))
        if self.picture.value and self.error is None:
            bundle["image/png"] = base64.b64encode(self.picture.value).decode("ascii")
            metadata["image/png"] = {"width": int(self.picture.width)}
        return bundle, metadata


def _intensity_weights(sampling: dict, intensity: float) -> tuple[list, list]:
    """rlviz's and Ray 1.x's weights for ``intensity`` (raises ``ValueError`` naming a bad setting)."""
    missing = [key for key in ("train_batch_size", "rollout_fragment_length") if key not in sampling]
    if missing:
        raise ValueError(f"sampling lacks {', '.join(missing)}; give train_batch_size, rollout_fragment_length, "
                         f"num_envs_per_worker and num_workers (default: DQN_SAMPLING)")
    config = {**sampling, "training_intensity": intensity}
    return calculate_rr_weights(config), calculate_rr_weights_float(config)


def strip_png(run: RoundRobinRun) -> tuple[bytes, tuple[int, int]]:
    """The order strip of ``run`` as a PNG, with the size to show it at.

    The figure is drawn at ``PIXEL_RATIO`` times the screen's 96 pixels per
    inch, cut to what it draws and widened to whole screen pixels.  Shown at
    the returned size, every image pixel lands on a device pixel of a
    high-density screen (2 per CSS pixel); other screens scale it down by
    exactly 2, never up, and its text reads at the font sizes it was set in.
    A ``"*"`` weight gets a caption under the strip saying what it does.

    Parameters
    ----------
    run : RoundRobinRun
        A run of ``run_round_robin``.

    Returns
    -------
    tuple of (bytes, (int, int))
        The PNG, and the width and height in CSS pixels to show it at.

    Examples
    --------
    >>> from rlviz.widgets.roundrobin import run_round_robin
    >>> png, (width, height) = strip_png(run_round_robin([2, 1]))
    >>> int.from_bytes(png[16:20], "big") == PIXEL_RATIO * width
    True
    """
    import matplotlib.pyplot as plt

    ax = plot_order(run.trace, ops=list(OP_NAMES[:len(run.weights)]), weights=run.weights)
    figure = ax.figure
    plt.close(figure)
    caption = star_caption(run)
    if caption:                                 # under the axis label, left-aligned with it
        ax.annotate(caption, xy=(0, 0), xycoords=ax.xaxis.label, xytext=(0, -8), textcoords="offset points",
                    ha="left", va="top", fontsize=9, linespacing=1.4, annotation_clip=False, parse_math=False)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=PIXEL_RATIO * _SCREEN_DPI, bbox_inches="tight", pad_inches=0.05)
    return _whole_screen_pixels(buffer.getvalue())


def _whole_screen_pixels(png: bytes) -> tuple[bytes, tuple[int, int]]:
    """``png`` widened with white to a multiple of ``PIXEL_RATIO`` pixels each way, and its size shown."""
    from PIL import Image

    image = Image.open(io.BytesIO(png))
    size = (math.ceil(image.width / PIXEL_RATIO), math.ceil(image.height / PIXEL_RATIO))
    if (image.width, image.height) != (PIXEL_RATIO * size[0], PIXEL_RATIO * size[1]):
        padded = Image.new(image.mode, (PIXEL_RATIO * size[0], PIXEL_RATIO * size[1]), "white")
        padded.paste(image, (0, 0))
        buffer = io.BytesIO()
        padded.save(buffer, format="png", dpi=image.info.get("dpi", (PIXEL_RATIO * _SCREEN_DPI,) * 2))
        png = buffer.getvalue()
    return png, size


def star_caption(run: RoundRobinRun) -> str:
    """What the ``"*"`` weights of ``run`` do, in words ("" when no weight is ``"*"``).

    Parameters
    ----------
    run : RoundRobinRun
        A run of ``run_round_robin``.

    Returns
    -------
    str
        One line for the rule, one more when the always-ready ``update`` op has ``"*"``.

    Examples
    --------
    >>> from rlviz.widgets.roundrobin import run_round_robin
    >>> star_caption(run_round_robin([1, "*"])).startswith('weight "*" (train):')
    True
    """
    from rlviz.iter.union import STAR_MAX_PULL

    starred = [name for name, weight in zip(OP_NAMES, run.weights) if weight == "*"]
    if not starred:
        return ""
    lines = [f'weight "*" ({", ".join(starred)}): in its turn the op gives every item it has ready, '
             f"at most {STAR_MAX_PULL}, then passes the turn on (it never waits)"]
    if "update" in starred:
        lines.append(f"update is always ready, so each of its turns gives {STAR_MAX_PULL} items "
                     f"(this run stopped after {len(run.order)})")
    return "\n".join(lines)
