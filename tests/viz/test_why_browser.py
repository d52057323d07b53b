"""A person steps through a [2, 1, "*"] run in the standalone Explorer and reads why each call happened."""
import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready
from page_replay import named_op as _op

import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently
from rlviz.viz import write_html

pytestmark = pytest.mark.browser




def test_inspector_says_why_for_a_star_pull_at_its_cap_and_a_not_ready_poll(tmp_path):
    from playwright.sync_api import expect

    plan = Concurrently([_op("StoreToReplayBuffer"), _op("TrainOneStep", not_ready_first=2), _op("LogMetrics")],
                        round_robin_weights=[2, 1, "*"])
    with rlviz.record() as trace:
        plan.take(2 * 103)
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        why = root.locator('[data-rlviz="inspector"] [data-rlviz="why"]')
        search = root.locator('[data-rlviz="search"]')
        search.fill("op:TrainOneStep")                     # exact op names first: its first poll, not a Concurrently call
        search.press("Enter")
        expect(root.locator('[data-rlviz="inspector"] [data-rlviz="op"]')).to_have_text("TrainOneStep")
        expect(root.locator('[data-rlviz="inspector"] [data-rlviz="outcome"]')).to_have_text("not_ready")
        expect(why).to_have_text("round 1: TrainOneStep not ready: its turn ends, LogMetrics next")
        root.focus()
        seen = []
        for _ in range(400):                               # step on, call by call, to LogMetrics' 100th pull
            page.keyboard.press("ArrowRight")
            text = why.text_content() if why.count() else ""
            seen.append(text)
            if "the cap" in text:
                break
        assert seen[-1] == ("round 1: LogMetrics ('*'): 100th pull this turn, the cap — it is always ready; "
                            "next StoreToReplayBuffer"), seen[-3:]
        assert any(text.startswith("round 1: LogMetrics ('*'), pull 99 (up to 100 while ready)") for text in seen)
        search.fill("op:Concurrently")                     # the union's weights: a detail of its node, not its label
        search.press("Enter")
        inspector = root.locator('[data-rlviz="inspector"]')
        expect(inspector.locator('[data-rlviz="op"]')).to_have_text("Concurrently")
        expect(inspector.locator('[data-rlviz="label"]')).to_have_text(
            "LocalIterator[LocalUnion[LocalIterator[StoreToReplayBuffer], LocalIterator[TrainOneStep], "
            "LocalIterator[LogMetrics]]]")
        expect(inspector.locator('[data-rlviz="round_robin_weights"]')).to_have_text("2 : 1 : *")


def test_inspector_marks_the_input_a_filter_dropped_and_the_kept_one_plainly(tmp_path):
    from playwright.sync_api import expect

    def replay(timeout):                                   # a replay actor not ready yet answers None
        yield from [None, "batch0", None, "batch1"]

    with rlviz.record() as trace:
        list(LocalIterator(replay, name="replay").filter(lambda batch: batch is not None))
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        search = root.locator('[data-rlviz="search"]')
        search.fill("op:filter")
        search.press("Enter")
        producers = root.locator('[data-rlviz="inspector"] [data-rlviz="producers"] [data-rlviz="link"]')
        expect(producers).to_have_count(2)
        dropped = producers.filter(has_text="dropped by this call")
        expect(dropped).to_have_count(1)
        expect(dropped).to_contain_text("None")
        expect(dropped).to_have_class("rlviz-dropped")
        expect(producers.filter(has_text="batch0")).not_to_contain_text("dropped")
        dropped.click()                                    # from the None's side: where it went, and that it was dropped
        consumers = root.locator('[data-rlviz="inspector"] [data-rlviz="consumers"] [data-rlviz="link"]')
        expect(consumers).to_have_count(1)
        expect(consumers).to_contain_text("dropped there")
