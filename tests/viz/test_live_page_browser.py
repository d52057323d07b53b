"""A live Explorer page in headless chromium: the long page of every trace, whose source grows.

The page is driven by a ``GrowingChunks`` of a recorded Concurrently plan
(``growing_page.GrowingPage``): each refresh hands it an extent, and it asks
for the chunks its window needs, as a ``LiveView``'s page does.
"""
import pytest
from browser_harness import chromium_page
from growing_page import GrowingPage

import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently
from rlviz.viz.growing_chunks import GrowingChunks

pytestmark = pytest.mark.browser


def _op(name):
    return LocalIterator(lambda timeout: (f"{name}{i}" for i in range(10**6)), name=name).named(name)


def _status(events: int) -> dict:
    return {"running": True, "paused": False, "iterations": 3, "events": events, "events_per_s": 10.0,
            "error": None, "curve": None}


def _watched(page, refreshes, pulls=40, chunk_events=None):
    """Run a Concurrently plan, refreshing the page after every ``pulls`` pulls; yields after each refresh."""
    stream = iter(Concurrently([_op("Store"), _op("Train")], mode="round_robin"))
    with rlviz.record() as live:
        source = GrowingChunks(live.store, **({"chunk_events": chunk_events} if chunk_events else {}))
        shown = GrowingPage(page, source)
        shown.mount()
        for _ in range(refreshes):
            for _ in range(pulls):
                next(stream)
            live.pull()
            yield shown, shown.refresh(status=_status(live.store.next_id))
    stream.close()


def test_every_event_reaches_the_followed_page_once_and_closed_chunks_are_asked_for_once():
    with chromium_page(1280, 900) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        seen = 0
        for shown, extent in _watched(page, 8, chunk_events=100):
            fresh, seen = shown.asked[seen:], len(shown.asked)
            assert all(k >= extent["detail_from"] for k in fresh), "only the chunks that changed are asked again"
        total = extent["events"]
        assert total > 500, "several chunks closed"
        assert page.evaluate("() => window.view.model.n") == total, "following a short run: all of it in view"
        assert page.evaluate("() => window.view.lod.loaded") == [0, total // 100]
        assert total // 100 in shown.asked[-2:], "the tail was asked for in the last refresh"
        assert sum(shown.pieces) >= 3, "a tail the page held was asked for its new parts only"
        count = page.locator('[data-rlviz="live-count"]')
        assert count.get_attribute("data-count") == str(total)
        calls = page.evaluate("() => window.view.model.meta.nodes.map((node) => node.calls)")
        assert sum(calls) == total, "the node boxes count the whole run"
        assert errors == []


def test_an_extent_that_does_not_follow_is_shown_as_an_error_in_a_page_with_no_kernel_to_ask_again():
    with chromium_page(1280, 900) as page:
        run = _watched(page, 2)
        shown, _ = next(run)
        shown.source.advance()
        extent, _ = shown.source.extent(shown.sent)
        extent["detail_from"] += 5                     # as if extents had gone missing
        page.evaluate("(extent) => window.rlvizGrowing.extend(extent, [])", extent)
        banner = page.locator('[data-rlviz="error"]')
        assert "cannot follow" in banner.inner_text()
        run.close()


def test_a_live_page_draws_rounds_that_follow_the_run_and_says_why_each_pull_happened():
    """The live page is the full Explorer: the order pane follows the newest round, the inspector has the why."""
    with chromium_page(1280, 900) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        order = page.locator('[data-rlviz="order"]')
        last_rounds = []
        for shown, extent in _watched(page, 6):
            assert page.evaluate("() => window.view.model.n") == extent["events"]
            assert int(order.get_attribute("data-rlviz-rounds")) > 0
            last_rounds.append(int(order.get_attribute("data-rlviz-last-round")))
        assert last_rounds == sorted(last_rounds) and last_rounds[-1] > last_rounds[0]   # it follows the run
        assert last_rounds[-1] == 40 * 6 // 2                                           # the newest round is drawn
        canvas = order.locator('[data-rlviz="order-rounds"]')
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        page.mouse.click(box["x"] + 34 + 3, box["y"] + box["height"] - 5)          # the newest round's first pull
        assert page.evaluate("() => window.view.state.selected") >= 0, "the click selected the pull"
        why = page.locator('[data-rlviz="why"]')
        assert why.inner_text(timeout=5_000).startswith(f"round {last_rounds[-1]}: Store, pull 1 of 1")
        assert errors == []
