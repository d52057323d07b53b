"""What a person does with the Explorer, as checks shared by the notebook and the standalone-file tests.

Imported by name (pytest puts ``tests/`` on sys.path for its conftest).  The
page is driven only through what a user sees and the documented
``data-rlviz`` attributes; the expected answers come from the trace in Python.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlviz.trace import Trace
from rlviz.viz.explorer_payload import decode_stream
from rlviz.viz.explorer_stream import encode_trace

__all__ = ["record_sharded_trace", "Expected", "wait_ready", "diff_roots", "window_of", "hover_a_span", "click_at",
           "check_selected", "select_a_gather", "press_right", "wheel_zoom", "shot", "graph_boxes_on_screen"]

_TOOLTIP_INDEX = re.compile(r"#(\d+)\s*$")


def record_sharded_trace(path: Path) -> Trace:
    """``from_range(24, num_shards=2).for_each(f).gather_sync().batch(4)``, 5 batches taken on real shard actors.

    Needs Ray started (the session's ``ray_local`` fixture).  The trace is
    saved to ``path`` and read back, as the page's viewer will read it.
    """
    import rlviz
    from rlviz.iter import from_range

    it = from_range(24, num_shards=2).for_each(lambda x: x * x).gather_sync().batch(4)
    with rlviz.record() as trace:
        batches = it.take(5)
    assert len(batches) == 5 and all(len(b) == 4 for b in batches)
    wheres = {n.where for n in trace.nodes}
    assert len(wheres - {"driver"}) == 2, f"expected events from two shard actors, got lanes {sorted(wheres)}"
    trace.save(str(path))
    return Trace.load(str(path))


@dataclass
class Expected:
    """What the page should show for ``trace``, worked out in Python from its encoded columns."""

    trace: Trace
    node_colors: list[str]
    completion: np.ndarray          # event indices in completion order (end, then index)

    @classmethod
    def of(cls, trace: Trace) -> "Expected":
        payload = encode_trace(trace)
        columns = decode_stream(payload)
        ends = columns["start"].astype(np.int64) + columns["duration"].astype(np.int64)
        completion = np.lexsort((np.arange(len(ends)), ends))
        return cls(trace, [n["color"] for n in payload.meta["nodes"]], completion)

    def producers(self, index: int) -> set[int]:
        producers, consumers = self.trace.links()
        return set(producers[consumers == index].tolist())

    def consumers(self, index: int) -> set[int]:
        producers, consumers = self.trace.links()
        return set(consumers[producers == index].tolist())

    def steps_after(self, index: int, count: int) -> int:
        rank = int(np.flatnonzero(self.completion == index)[0])
        return int(self.completion[rank + count])

    def rank(self, index: int) -> int:
        return int(np.flatnonzero(self.completion == index)[0])


def wait_ready(page, timeout_ms: float = 120_000):
    """The Explorer root once it reports its first full draw."""
    from playwright.sync_api import expect

    root = page.locator('[data-rlviz="explorer"]').first
    expect(root).to_have_attribute("data-rlviz-ready", "1", timeout=timeout_ms)
    for part in ("timeline", "graph", "order", "inspector", "tooltip", "search", "play"):
        expect(root.locator(f'[data-rlviz="{part}"]')).to_have_count(1)
    return root


def diff_roots(page, timeout_ms: float = 120_000) -> list:
    """The Explorer roots of a diff page's two runs (``[data-rlviz=run]``), once each reports its first full draw."""
    from playwright.sync_api import expect

    runs = page.locator('[data-rlviz="run"]')
    expect(runs).to_have_count(2)
    roots = [runs.nth(k).locator('[data-rlviz="explorer"]') for k in (0, 1)]
    for root in roots:
        expect(root).to_have_attribute("data-rlviz-ready", "1", timeout=timeout_ms)
    return roots


def window_of(root) -> tuple[float, float]:
    """The visible range (ms since the trace start) the root announces in ``data-rlviz-window``."""
    a, b = root.get_attribute("data-rlviz-window").split(",")
    return float(a), float(b)


def hover_a_span(page, root, expected: Expected, op: str,
                 usable=lambda index: True) -> tuple[int, tuple[float, float]]:
    """Hover the middle of a drawn span of ``op`` (found by its colour on screen); return its index and point.

    Checks that the tooltip appears and names the op, lane and item of the
    event it gives as ``#index``; spans whose index ``usable`` rejects are
    passed over.
    """
    from playwright.sync_api import expect

    lanes = root.locator('[data-rlviz="lanes"]')
    lanes.scroll_into_view_if_needed()
    image = _pixels(lanes.screenshot())
    box = lanes.bounding_box()
    node = next(k for k, n in enumerate(expected.trace.nodes) if n.op == op)
    points = _runs_of_colour(image, expected.node_colors[node])
    assert points, f"no span of {op} drawn in colour {expected.node_colors[node]} on the timeline"
    tooltip = root.locator('[data-rlviz="tooltip"]')
    for x, y in points[:40]:
        point = (box["x"] + x + 0.5, box["y"] + y + 0.5)
        page.mouse.move(*point)
        try:
            expect(tooltip).to_be_visible(timeout=3_000)
        except AssertionError:
            continue
        text = tooltip.inner_text()
        found = _TOOLTIP_INDEX.search(text.strip())
        assert found, f"the tooltip does not end with the event index: {text!r}"
        index = int(found.group(1))
        if not usable(index):
            continue
        event = expected.trace.event(index)
        assert text.startswith(f"{event.op} @ {event.where}"), (text, event)
        assert event.op == op, f"hovered a span drawn in {op}'s colour, the tooltip shows {text!r}"
        if event.item is not None:
            assert event.item in text, (text, event)
        return index, point
    raise AssertionError(f"no usable tooltip over the first 40 of the {len(points)} spans of {op} on screen")


def click_at(page, point: tuple[float, float]) -> None:
    """Press and release the mouse at ``point`` without moving (a click, not a drag)."""
    page.mouse.move(*point)
    page.mouse.down()
    page.mouse.up()


def check_selected(root, expected: Expected, index: int, timeout_ms: float = 10_000) -> None:
    """The page has ``index`` selected: root attribute, inspector fields and links, highlighted graph node."""
    from playwright.sync_api import expect

    event = expected.trace.event(index)
    expect(root).to_have_attribute("data-rlviz-selected", str(index), timeout=timeout_ms)
    inspector = root.locator('[data-rlviz="inspector"]')
    expect(inspector.locator('[data-rlviz="op"]')).to_have_text(event.op)
    expect(inspector.locator('[data-rlviz="lane"]')).to_have_text(event.where)
    expect(inspector.locator('[data-rlviz="outcome"]')).to_have_text(event.outcome)
    expect(inspector.locator('[data-rlviz="item"]')).to_have_text(event.item if event.item is not None else "(none)")
    completed = f"completed {expected.rank(index) + 1:,} of {len(expected.trace):,}"
    expect(inspector.locator('[data-rlviz="event"]')).to_contain_text(completed)
    for part, wanted in (("producers", expected.producers(index)), ("consumers", expected.consumers(index))):
        buttons = inspector.locator(f'[data-rlviz="{part}"] [data-event]')
        expect(buttons).to_have_count(min(len(wanted), 40))
        shown = {int(v) for v in buttons.evaluate_all("bs => bs.map(b => b.dataset.event)")}
        assert shown <= wanted and len(shown) == min(len(wanted), 40), (part, shown, wanted)
    marked = root.locator('[data-rlviz="graph"] [data-selected="1"]')
    expect(marked).to_have_count(1)
    expect(marked).to_have_attribute("data-node", str(int(expected.trace.columns["node"][index])))
    pane, node = root.locator('[data-rlviz="graph"]').bounding_box(), marked.bounding_box()
    centre = (node["x"] + node["width"] / 2, node["y"] + node["height"] / 2)
    assert (pane["x"] <= centre[0] <= pane["x"] + pane["width"]
            and pane["y"] <= centre[1] <= pane["y"] + pane["height"]), \
        f"the highlighted graph node of {event.op} is outside the graph pane's view: node {node}, pane {pane}"


def select_a_gather(page, root, expected: Expected, artifacts: Path) -> tuple[int, tuple[float, float]]:
    """Hover a driver ``gather_sync`` span with a producer and three steps after it, then click it.

    Checks the tooltip and then the selection (``check_selected``); saves
    ``2-hover`` and ``3-selected`` screenshots.  Returns the index and the point.
    """
    near_end = len(expected.trace) - 3
    index, point = hover_a_span(page, root, expected, "gather_sync",
                                usable=lambda i: expected.rank(i) < near_end and expected.producers(i))
    shot(root, artifacts, "2-hover")
    click_at(page, point)
    check_selected(root, expected, index)
    shot(root, artifacts, "3-selected")
    return index, point


def press_right(page, root, times: int) -> None:
    """Give the Explorer the keyboard focus and press the right arrow ``times`` times."""
    root.focus()
    for _ in range(times):
        page.keyboard.press("ArrowRight")


def wheel_zoom(page, root, notches: int = 3) -> tuple[tuple[float, float], tuple[float, float]]:
    """Zoom in with the mouse wheel over the middle of the timeline; return the windows before and after.

    Checks that the window narrowed around the pointer and that the ruler's
    pixels changed.
    """
    from playwright.sync_api import expect

    lanes = root.locator('[data-rlviz="lanes"]')
    ruler = root.locator('[data-rlviz="ruler"]')
    ruler.evaluate("e => e.scrollIntoView({block: 'center'})")   # in sight, not under a page's sticky header
    announced = root.get_attribute("data-rlviz-window")
    before, ruler_before = window_of(root), _pixels(ruler.screenshot())
    box = lanes.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.7, box["y"] + min(box["height"] / 2, 20))
    for _ in range(notches):
        page.mouse.wheel(0, -300)
    expect(root).not_to_have_attribute("data-rlviz-window", announced)
    page.wait_for_timeout(300)                      # let the last wheel step draw
    after = window_of(root)
    assert after[1] - after[0] < 0.5 * (before[1] - before[0]), (before, after)
    assert before[0] <= after[0] and after[1] <= before[1], f"zoomed out of the old window: {before} -> {after}"
    ruler_after = _pixels(ruler.screenshot())
    assert ruler_before.shape != ruler_after.shape or (ruler_before != ruler_after).any(), "the ruler did not change"
    return before, after


_GRAPH_BOXES_JS = """root => {
  const rect = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const nodes = [...root.querySelectorAll('[data-rlviz="graph"] [data-rlviz="node"]')].map((g) => ({
    node: g.dataset.node, op: g.dataset.op, where: g.dataset.where,
    box: rect(g.querySelector("rect")), texts: [...g.querySelectorAll("text")].filter((t) => t.textContent && t.style.display !== "none").map(rect) }));
  const groups = [...root.querySelectorAll('[data-rlviz="graph"] [data-rlviz="graph-group"]')].map((g) => ({
    where: g.dataset.where, box: rect(g.querySelector("rect")) }));
  return { nodes, groups };
}"""


def graph_boxes_on_screen(root) -> tuple[dict, dict, list]:
    """The graph pane's node boxes and group boxes as the browser lays them out (client pixels).

    Returns ``nodes`` (node index -> (process, box)), ``groups`` (process ->
    box) and the texts that stick out of their node's box, as
    ``(op, text box, node box)``.
    """
    found = root.evaluate(_GRAPH_BOXES_JS)
    nodes = {n["node"]: (n["where"], tuple(n["box"])) for n in found["nodes"]}
    groups = {g["where"]: tuple(g["box"]) for g in found["groups"]}
    outside = [(n["op"], t, n["box"]) for n in found["nodes"] for t in n["texts"]
               if t[0] < n["box"][0] - 0.5 or t[2] > n["box"][2] + 0.5]
    return nodes, groups, outside


def shot(locator, folder: Path, name: str) -> Path:
    """Save a screenshot of ``locator`` as ``folder/name.png`` and return the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    locator.screenshot(path=str(path))
    return path


# -- helpers ------------------------------------------------------------------
def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _runs_of_colour(image: np.ndarray, colour: str) -> list[tuple[int, int]]:
    """Middle points of horizontal runs (>= 3 px) of exactly ``colour``, widest first."""
    rgb = np.array([int(colour[k:k + 2], 16) for k in (1, 3, 5)], np.uint8)
    mask = (image == rgb).all(axis=2)
    rows: dict[tuple[int, int], list[int]] = {}       # (x0, x1) of a run -> the pixel rows it covers
    for y in np.flatnonzero(mask.any(axis=1)):
        row = np.concatenate([[0], mask[y].astype(np.int8), [0]])
        edges = np.flatnonzero(np.diff(row))
        for x0, x1 in zip(edges[::2], edges[1::2]):
            if x1 - x0 >= 3:
                rows.setdefault((int(x0), int(x1)), []).append(int(y))
    ranked = sorted(rows.items(), key=lambda kv: kv[0][0] - kv[0][1])    # one point per span, widest first
    return [((x0 + x1) // 2, ys[len(ys) // 2]) for (x0, x1), ys in ranked]
