"""A person uses the Explorer's panes on a recorded run of two round-robin Concurrently plans (standalone file).

The order pane shows rounds and hatched not-ready polls and lets the reader pick the merging node; a
click never scrolls the graph pane (a step does, keeping its title in view); the skip checkbox sits by
its label and legend swatches by their names; a filter can hide the other rows; a search highlights
every hit in the timeline and counts them.
"""
import io
import time

import numpy as np
import pytest
from browser_harness import chromium_page
from explorer_checks import graph_boxes_on_screen, wait_ready
from page_replay import named_op as _op
from viz_helpers import a2c_like_nodes, box_problems, one_call_each

import rlviz
from rlviz.ops import Concurrently
from rlviz.viz import write_html
from rlviz.viz.examples import apex_nodes

pytestmark = pytest.mark.browser

MATCH_COLOR = (0xF1, 0xC4, 0x0F)          # explorer_dom.js MATCH_COLOR




@pytest.fixture(scope="module")
def recorded():
    """Two plans in one trace: Store/Train/Log at [2, 1, 1] (Train not ready 3 times), then five ops at [1]*5."""
    first = Concurrently([_op("Store"), _op("Train", not_ready_first=3), _op("Log")], round_robin_weights=[2, 1, 1])
    second = Concurrently([_op(name) for name in ("Alpha", "Beta", "Gamma", "Delta", "Epsilon")], mode="round_robin")
    with rlviz.record() as trace:
        first.take(20)
        second.take(15)
    return trace


def _union_of(trace, children):
    """The union with these children (a trace lists only the unions that pulled in it)."""
    (union,) = [k for k, spec in enumerate(trace.decisions.specs) if list(spec["children"]) == children]
    return union


def _eventually(check, seconds: float = 10.0) -> bool:
    """Whether ``check()`` holds within ``seconds`` (polled: a draw waits for the next animation frame)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _yellow(locator) -> int:
    """Pixels of the search-hit colour in a screenshot of ``locator``."""
    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(locator.screenshot())).convert("RGB"))
    return int((np.abs(image.astype(int) - MATCH_COLOR).sum(axis=2) < 30).sum())


def test_order_pane_shows_rounds_with_hatched_not_ready_polls_and_switches_node(recorded, tmp_path):
    from playwright.sync_api import expect

    c = recorded.decisions.columns
    store_union = _union_of(recorded, ["Store", "Train", "Log"])
    mine = c["union"] == store_union
    rounds = len(set(c["round"][mine & (c["outcome"] <= 1)].tolist()))
    train_items = int((mine & (c["child"] == 1) & (c["outcome"] == 0)).sum())
    not_ready = int((mine & (c["outcome"] == 1)).sum())
    assert not_ready == 3 and rounds <= 24, "the run is small enough that every round is drawn"
    html = write_html(recorded, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        order = root.locator('[data-rlviz="order"]')
        picker = order.locator('[data-rlviz="order-node"]')
        expect(picker.locator("option")).to_have_count(2)
        title = order.locator('[data-rlviz="order-title"]')
        # the default: the merging node nearest the driver's end (both plans end there: the busier one)
        expect(title).to_have_text("Concurrently pulls from Store : Train : Log")
        other = next(v for v in picker.locator("option").evaluate_all("o => o.map((e) => e.value)")
                     if v != picker.input_value())
        picker.select_option(other)
        expect(title).to_have_text("Concurrently pulls from Alpha : Beta : Gamma : Delta : Epsilon")
        expect(order.locator('[data-rlviz="order-rounds"]')).to_have_attribute("data-rlviz-not-ready", "0")
        picker.select_option(str(1 - int(other)))
        expect(title).to_have_text("Concurrently pulls from Store : Train : Log")
        canvas = order.locator('[data-rlviz="order-rounds"]')
        expect(canvas).to_have_attribute("data-rlviz-rounds", str(rounds))
        expect(canvas).to_have_attribute("data-rlviz-not-ready", str(not_ready))
        legend = order.locator('[data-rlviz="order-legend"] .entry')
        expect(legend.nth(1)).to_have_text(f"Train ({train_items} items, {not_ready} not ready)")
        expect(legend.last).to_have_text("not ready (turn ends)")
        for k in range(legend.count()):                        # each swatch stays on its name's line
            swatch = legend.nth(k).locator(".sw").bounding_box()
            name = legend.nth(k).locator("span").nth(1).bounding_box()
            assert abs((swatch["y"] + swatch["height"] / 2) - (name["y"] + name["height"] / 2)) < 6
            assert 0 <= name["x"] - (swatch["x"] + swatch["width"]) < 12
        # the Train cells are drawn in Train's timeline colour, as plot_order draws them
        train_color = next(n for n in recorded.nodes if n.op == "Train")
        from rlviz.viz.palette import op_colors
        expected = op_colors(n.op for n in recorded.nodes)[train_color.op]
        swatch_color = legend.nth(1).locator(".sw").evaluate("e => getComputedStyle(e).backgroundColor")
        rgb = tuple(int(expected[k:k + 2], 16) for k in (1, 3, 5))
        assert swatch_color == f"rgb({rgb[0]}, {rgb[1]}, {rgb[2]})"
        # clicking a round's cell selects that call
        box = canvas.bounding_box()
        page.mouse.click(box["x"] + 34 + 5, box["y"] + 5)
        expect(root).not_to_have_attribute("data-rlviz-selected", "-1")


def test_clicks_never_scroll_the_graph_but_steps_follow_keeping_its_title(recorded, tmp_path):
    from playwright.sync_api import expect

    html = write_html(recorded, tmp_path / "run.html")
    with chromium_page(1400, 900) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        pane = root.locator('[data-rlviz="graph"]')
        assert not pane.evaluate("e => e.scrollHeight > e.clientHeight + 1"), "the graph opens fitted"
        root.locator('[data-rlviz="graph-fit"]').click()        # actual size: the pane scrolls
        assert pane.evaluate("e => e.scrollHeight > e.clientHeight + 20"), "the graph must overflow its pane"
        below = pane.evaluate("""e => { const v = e.getBoundingClientRect();
            const g = [...e.querySelectorAll('g.rlviz-node')].find((n) => n.getBoundingClientRect().top > v.bottom);
            return g ? g.dataset.op : null; }""")
        assert below, "a node lies below the pane's visible part"
        search = root.locator('[data-rlviz="search"]')
        search.fill(f"op:{below}")
        search.press("Enter")                                  # selects a call of that node: no scroll
        expect(root).not_to_have_attribute("data-rlviz-selected", "-1")
        assert pane.evaluate("e => e.scrollTop") == 0
        top_node = pane.locator("g.rlviz-node").first
        top_node.click()                                       # a click filters: still no scroll
        expect(root.locator('[data-rlviz="filter"]')).to_be_visible()
        assert pane.evaluate("e => e.scrollTop") == 0
        root.locator('[data-rlviz="filter"]').click()
        root.focus()
        for _ in range(60):                                    # steps are followed: the stepped node comes into view
            page.keyboard.press("ArrowRight")
            if pane.evaluate("e => e.scrollTop") > 0:
                break
        assert pane.evaluate("e => e.scrollTop") > 0, "stepping to a node below never scrolled the pane"
        inside = pane.evaluate("""e => { const v = e.getBoundingClientRect();
            const g = e.querySelector('g.rlviz-node[data-selected="1"]').getBoundingClientRect();
            const t = e.querySelector('h4').getBoundingClientRect();
            return [g.top >= t.bottom - 1, g.bottom <= v.bottom + 1, t.top >= v.top - 1]; }""")
        assert inside == [True, True, True], "the stepped node shows below the title, which stays in view"


def test_skip_by_its_label_hide_others_and_every_search_hit_highlighted(recorded, tmp_path):
    from playwright.sync_api import expect

    html = write_html(recorded, tmp_path / "run.html")
    stores = sum(1 for n in recorded.columns["node"].tolist() if recorded.nodes[n].op == "Store")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        label = root.locator('[data-rlviz="skip-not-ready"]').bounding_box()
        box = root.locator('[data-rlviz="skip-not-ready-box"]').bounding_box()
        assert box["width"] < 30 and label["width"] < 160, "the checkbox sits right by its label"
        assert box["x"] >= label["x"] and box["x"] + box["width"] <= label["x"] + label["width"]

        lanes = root.locator('[data-rlviz="lanes"]')
        assert _yellow(lanes) == 0
        search = root.locator('[data-rlviz="search"]')
        search.fill("op:Store")                                # typing highlights, no Enter needed
        expect(root).to_have_attribute("data-rlviz-matches", str(stores))
        expect(root.locator('[data-rlviz="matches"]')).to_have_text(f"{stores} matches")
        assert _eventually(lambda: _yellow(lanes) > 0), "the hits are outlined in the timeline"
        search.fill("")
        expect(root).to_have_attribute("data-rlviz-matches", "0")
        expect(root.locator('[data-rlviz="matches"]')).to_have_text("")
        assert _eventually(lambda: _yellow(lanes) == 0), "a cleared search leaves no highlight"

        full = lanes.bounding_box()["height"]
        root.locator('[data-rlviz="graph"] g.rlviz-node[data-op="Store"]').click()
        hide = root.locator('[data-rlviz="hide-others"]')
        hide.click()
        expect(root).to_have_attribute("data-rlviz-hide-others", "true")
        page.wait_for_function("h => document.querySelector('[data-rlviz=\"lanes\"]').getBoundingClientRect().height < h",
                               arg=full / 2)
        hide.click()
        expect(root).to_have_attribute("data-rlviz-hide-others", "false")
        page.wait_for_function("h => document.querySelector('[data-rlviz=\"lanes\"]').getBoundingClientRect().height >= h",
                               arg=full - 1)


def _greys(locator) -> int:
    """Pixels of the not-ready grey (#b8b8b8 drawn at opacity >= 0.85 over the lane's background)."""
    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(locator.screenshot())).convert("RGB")).astype(int)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return int(((r >= 178) & (r <= 202) & (abs(r - g) <= 3) & (abs(g - b) <= 3)).sum())


def test_not_ready_polls_stay_visible_when_the_whole_run_is_aggregated(tmp_path):
    plan = Concurrently([_op("Store"), _op("Train", not_ready_first=5000)], mode="round_robin")
    with rlviz.record() as trace:
        plan.take(800)                                        # 800 rounds, Train not ready in each
    polls = sum(1 for i, n in enumerate(trace.columns["node"].tolist())
                if trace.nodes[n].op == "Train" and trace.columns["outcome"][i] == 1)
    assert polls >= 799
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        lanes = root.locator('[data-rlviz="lanes"]')
        plot = lanes.bounding_box()["width"] - 190
        assert polls > plot * 0.5, "Train's row is drawn as per-pixel aggregates at this zoom"
        assert _eventually(lambda: _greys(lanes) > plot / 2), "the not-ready polls fade out when aggregated"


def test_a_gather_shows_the_items_it_handed_on_in_its_shards_colours(tmp_path):
    from playwright.sync_api import expect

    from rlviz.viz.examples import sharded_trace

    trace = sharded_trace(items=6, not_ready=2)
    gathered = sum(1 for i, n in enumerate(trace.columns["node"].tolist())
                   if trace.nodes[n].op == "gather_sync" and trace.columns["outcome"][i] == 0)
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        order = root.locator('[data-rlviz="order"]')
        expect(order.locator('[data-rlviz="order-items"]')).to_have_count(1)
        expect(order.locator('[data-rlviz="order-note"]')).to_have_text(
            f"{gathered} items gather_sync handed on in the visible window, left to right")
        expect(order.locator('[data-rlviz="order-legend"] .entry')).to_have_count(2)


def check_graph_pane(root, processes: set[str]) -> None:
    """The graph pane's node boxes, as the browser draws them: none overlaps another node or another
    process's group box, every text stays inside its box, one group box per process but the driver."""
    nodes, groups, outside = graph_boxes_on_screen(root)
    assert len(nodes) == root.locator('[data-rlviz="graph"] g.rlviz-node').count() > 0
    assert set(groups) == processes - {"driver"}
    assert box_problems(nodes, groups) == []
    assert outside == []


@pytest.mark.parametrize("plan", ["apex", "a2c-like"])
def test_graph_boxes_never_overlap_and_the_pane_scrolls_or_fits(plan, tmp_path):
    """Ape-X's plan (36 nodes on 9 processes) and A2C's shape, where the driver's learn_on_batch was drawn on
    top of the workers' boxes; the graph opens fitted, a click still filters, and at actual size the wide one scrolls."""
    from playwright.sync_api import expect

    nodes = apex_nodes() if plan == "apex" else a2c_like_nodes()
    html = write_html(one_call_each(nodes), tmp_path / "run.html")
    with chromium_page(1400, 900) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        expect(root.locator('[data-rlviz="graph"] [data-rlviz="node"]')).to_have_count(len(nodes))
        check_graph_pane(root, {n.where for n in nodes})
        pane = root.locator('[data-rlviz="graph"]')
        fit = pane.locator('[data-rlviz="graph-fit"]')
        expect(fit).to_have_attribute("aria-pressed", "true")              # the graph opens fitted
        assert pane.evaluate("e => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1"), \
            "fitted, the whole graph shows in the pane"
        pane.locator('[data-rlviz="node"]').last.click()     # a click on a node still filters the timeline
        expect(root.locator('[data-rlviz="filter"]')).to_be_visible()
        fit.click()                                                          # actual size
        expect(pane.locator('[data-rlviz="graph-fit"]')).to_have_attribute("aria-pressed", "false")
        if plan == "apex":
            assert pane.evaluate("e => e.scrollWidth > e.clientWidth + 100"), "Ape-X's graph is wider than its pane"
            pane.evaluate("e => { e.scrollLeft = 300; }")
            assert pane.evaluate("e => e.scrollLeft") > 0, "the pane scrolls sideways"
        check_graph_pane(root, {n.where for n in nodes})
