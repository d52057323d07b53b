"""The standalone Explorer file from ``write_html``, opened from file:// in headless chromium, offline.

Every request that is not for a file:// or data: URL is aborted and counted;
the test asserts there were none, and no console error either (a fetch the
page's Content-Security-Policy refuses never becomes a request, only a
console error).  The trace comes from a real run on two
shard actors.  Screenshots go to the ``artifacts`` folder the test prints.
"""
import pytest
from browser_harness import chromium
from explorer_checks import (Expected, check_selected, click_at, press_right, record_sharded_trace, select_a_gather,
                             shot, wait_ready, wheel_zoom)

from rlviz.viz import write_html

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def recorded(ray_local, tmp_path_factory):
    """The trace of a real two-shard run, saved and read back as a file would be."""
    return record_sharded_trace(tmp_path_factory.mktemp("recorded") / "trace.rlviz")


def test_standalone_file_zooms_hovers_selects_and_steps_offline(recorded, tmp_path):
    from playwright.sync_api import expect

    expected = Expected.of(recorded)
    html = write_html(recorded, tmp_path / "trace.html")
    artifacts = tmp_path / "artifacts"
    print(f"screenshots in {artifacts}")
    outside = []

    def only_files(route):
        url = route.request.url
        if url.startswith(("file:", "data:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", only_files)
        page = context.new_page()
        page.on("request", lambda request: None if request.url.startswith(("file:", "data:"))
                else outside.append(request.url))
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(html.as_uri())
        root = wait_ready(page)
        shot(root, artifacts, "1-ready")

        index, point = select_a_gather(page, root, expected, artifacts)

        (producer,) = expected.producers(index)               # follow the value upstream to its shard
        root.locator(f'[data-rlviz="producers"] [data-event="{producer}"]').click()
        check_selected(root, expected, producer)
        assert expected.trace.event(producer).where.startswith("shard-")

        click_at(page, point)
        check_selected(root, expected, index)
        press_right(page, root, 3)
        check_selected(root, expected, expected.steps_after(index, 3))
        shot(root, artifacts, "4-stepped")

        wheel_zoom(page, root)
        shot(root, artifacts, "5-zoomed")
        expect(root.locator('[data-rlviz="error"]')).to_be_hidden()
        context.close()
    assert errors == [], f"the page raised or logged errors: {errors}"
    assert outside == [], f"the standalone file asked the network for {outside}"


def test_skip_not_ready_steps_over_not_ready_calls_after_a_click_gives_the_keys(tmp_path):
    from playwright.sync_api import expect

    from rlviz.viz.examples import sharded_trace

    trace = sharded_trace(items=6, not_ready=3)
    expected = Expected.of(trace)
    outcomes = trace.columns["outcome"]
    made = [int(i) for i in expected.completion if trace.event(int(i)).outcome != "not_ready"]
    assert len(made) < len(trace), "the example has not-ready calls to skip"
    html = write_html(trace, tmp_path / "trace.html")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri())
        root = wait_ready(page)
        root.locator('[data-rlviz="skip-not-ready"]').click()      # no root.focus(): the click must give it
        expect(root).to_have_attribute("data-rlviz-skip-not-ready", "true")
        visited = []
        for _ in range(len(made)):
            page.keyboard.press("ArrowRight")
            expect(root).not_to_have_attribute("data-rlviz-selected", str(visited[-1] if visited else -1))
            visited.append(int(root.get_attribute("data-rlviz-selected")))
        assert visited == made, "→ visits, in completion order, exactly the calls that were not 'not ready'"
        assert all(outcomes[i] != 1 for i in visited)
        check_selected(root, expected, visited[-1])
        root.locator('[data-rlviz="skip-not-ready"]').click()
        expect(root).to_have_attribute("data-rlviz-skip-not-ready", "false")
    assert errors == [], f"the page raised errors: {errors}"


def test_an_empty_traces_page_says_so_in_the_inspector(tmp_path):
    from playwright.sync_api import expect

    from rlviz.trace import Trace

    html = write_html(Trace.empty(), tmp_path / "empty.html")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri())
        root = wait_ready(page)
        # the meta's event count tells an empty trace from a long one drawn from its overview
        expect(root.locator('[data-rlviz="inspector"]')).to_contain_text("Nothing to inspect: the trace is empty.")
    assert errors == [], f"the page raised errors: {errors}"
