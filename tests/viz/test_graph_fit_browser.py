"""A reader opens a saved page and finds the whole graph in its pane, readable, and every button's symbol drawn.

Ape-X's graph (36 nodes, 9 processes) is the widest plan rlviz draws: at its
column's width its names would be 5 px, so the pane takes the row under the
timeline and shows each box's name alone, at 10 px or more on screen.  A
small plan's graph is drawn at its actual size, with its counter lines.  No button shows a
symbol from the reader's fonts (a missing glyph is a box): each symbol is an
inline SVG.
"""
import re

import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready
from viz_helpers import one_call_each

from rlviz.viz import write_html
from rlviz.viz.examples import apex_nodes, concurrently_trace

pytestmark = pytest.mark.browser

MIN_TEXT_PX = 10                                     # panes/graph.js MIN_TEXT_PX
# symbols a font may lack: arrows, technical (U+23ED ⏭), geometric shapes and dingbats (▶ ■ ● ✕)
FONT_SYMBOL = re.compile("[\u2190-\u21ff\u2300-\u23ff\u25a0-\u25ff\u2700-\u27bf\U0001f300-\U0001faff]")

_GRAPH = """root => {
  const pane = root.querySelector('[data-rlviz="graph"]'), box = pane.getBoundingClientRect();
  const nodes = [...pane.querySelectorAll('[data-rlviz="node"]')].map((g) => {
    const b = g.querySelector("rect").getBoundingClientRect();
    return { op: g.dataset.op, box: [b.left, b.top, b.right, b.bottom] };
  });
  const texts = [...pane.querySelectorAll('[data-rlviz="node"] text')].filter((t) => t.textContent && t.style.display !== "none")
    .map((t) => ({ text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a }));
  return { pane: [box.left, box.top, box.right, box.bottom], nodes, texts,
           wide: pane.classList.contains("rlviz-graph-wide"), scale: parseFloat(pane.querySelector("svg").dataset.scale), paneWidth: box.width, rootWidth: root.getBoundingClientRect().width };
}"""

_BUTTONS = """root => [...root.querySelectorAll("button")].map((b) => ({
  part: b.dataset.rlviz || "", text: b.textContent, icon: Boolean(b.querySelector('svg[data-rlviz="icon"]')) }))"""


def _open(page, trace, path):
    write_html(trace, path)
    page.goto(path.as_uri())
    return wait_ready(page)


def _inside(box, pane):
    return box[0] >= pane[0] - 0.5 and box[1] >= pane[1] - 0.5 and box[2] <= pane[2] + 0.5 and box[3] <= pane[3] + 0.5


def test_the_graph_opens_fitted_with_every_node_inside_and_its_text_readable(tmp_path):
    with chromium_page(1200, 1000) as page:
        root = _open(page, one_call_each(apex_nodes()), tmp_path / "apex.html")
        graph = root.evaluate(_GRAPH)
        assert len(graph["nodes"]) == len(apex_nodes())
        outside = [n["op"] for n in graph["nodes"] if not _inside(n["box"], graph["pane"])]
        assert outside == [], f"{len(outside)} of {len(graph['nodes'])} nodes lie outside the pane: {outside}"
        small = [(t["text"], round(t["px"], 1)) for t in graph["texts"] if t["px"] < MIN_TEXT_PX - 0.05]
        assert small == [], f"node text under {MIN_TEXT_PX} px: {small[:5]}"
        assert graph["wide"] and graph["paneWidth"] > 0.9 * graph["rootWidth"], "a wide graph takes the row"
        page.screenshot(path=str(tmp_path / "apex.png"), full_page=True)
        print("screenshots in", tmp_path)

        root = _open(page, concurrently_trace(), tmp_path / "small.html")
        graph = root.evaluate(_GRAPH)
        assert all(_inside(n["box"], graph["pane"]) for n in graph["nodes"])
        assert graph["scale"] == 1 and min(t["px"] for t in graph["texts"]) >= MIN_TEXT_PX - 0.05
        assert any(" calls · " in t["text"] for t in graph["texts"]), "a small graph keeps its counter lines"
        buttons = root.evaluate(_BUTTONS)
    glyphs = [(b["part"], b["text"]) for b in buttons if FONT_SYMBOL.search(b["text"])]
    assert glyphs == [], f"buttons whose symbol comes from the reader's fonts: {glyphs}"
    drawn = {b["part"] for b in buttons if b["icon"]}
    assert {"prev", "play", "next"} <= drawn, drawn


def test_no_button_symbol_in_the_page_sources_is_a_font_glyph():
    """The same rule over the sources: a button's text in the static JS and the Python widgets has no symbol glyph."""
    from pathlib import Path

    import rlviz

    package = Path(rlviz.__file__).parent
    sources = [*sorted((package / "viz" / "static").glob("*.js")), *sorted((package / "viz" / "static" / "panes").glob("*.js")),
               *sorted((package / "widgets").glob("*.py"))]
    found = []
    for source in sources:
        if source.name.endswith(".bundle.js"):
            continue
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0] if source.suffix == ".js" else line.split("#")[0]
            names_a_button = (re.search(r'make\("button"|iconButton|setIconLabel|textContent', code) if source.suffix == ".js"
                              else re.search(r"Button\(|description\s*=", code))
            if names_a_button and FONT_SYMBOL.search(code):
                found.append(f"{source.name}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)


def test_hovering_a_lane_label_the_gutter_cut_shows_it_in_full(tmp_path):
    """The gutter may cut a long lane label with "…"; hovering it names the lane (and row) whole."""
    trace = one_call_each(apex_nodes())
    long_lane = max((node.where for node in trace.nodes), key=len)
    with chromium_page(1200, 1000) as page:
        root = _open(page, trace, tmp_path / "apex.html")
        canvas = root.locator('[data-rlviz="lanes"]')
        box = canvas.bounding_box()
        titles = set()
        for y in range(2, int(min(box["height"], 900)), 6):        # down the gutter, row by row
            page.mouse.move(box["x"] + 12, box["y"] + y)
            titles.add(canvas.get_attribute("title") or "")
        assert any(title.startswith(long_lane) for title in titles), sorted(titles)[:8]
        page.mouse.move(box["x"] + box["width"] - 5, box["y"] + 5)
        assert (canvas.get_attribute("title") or "") == "", "off the gutter, no label text"
