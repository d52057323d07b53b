"""An advance you can see, and a view that stays where the user put it, in a real JupyterLab (headless chromium).

A learner's session on a watched DQN (local worker only, so no Ray cluster
starts): pause from the page, advance twice with the button and read, each
time, which round ran and what it did; the timeline shows the round, banded;
the counters are the plan's, as ``live.inspect()`` reads them.  Then the run
goes on, following, and "zoom to selection" turns following off: the window
is still where the user put it 3 s later, while events keep arriving.
"""
import re

import pytest
from browser_harness import chromium_page, open_and_run_first_cell, run_cell
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

START = """import rlviz
trainer = rlviz.Trainer("dqn", env="CartPole-v1", num_workers=0,
                        config={"learning_starts": 32, "timesteps_per_iteration": 40, "train_batch_size": 32, "seed": 0})
live = rlviz.watch(trainer, seconds=600)
live"""
COUNTERS = """counters = live.inspect()["counters"]
print("plan", counters["num_steps_sampled"], counters["num_steps_trained"], live.inspect()["last_advance"]["round"])"""
STOP = """live.stop()
print("stopped", live.running, live.error)"""
#: StandardMetricsReporting's ops take the union's item after a round ends, so they may open the next advance.
REPORTING = r"(?:(?:OncePerTimestepsElapsed|OncePerTimeInterval|CollectMetrics) ×1, )*"
ROUND = re.compile(r"^round (\d+): " + REPORTING
                   + r"ParallelRollouts ×1, StoreToReplayBuffer ×1, Replay( ×1, TrainOneStep ×1.*| not ready)$")
ANY_ROUND = re.compile(r"^round (\d+): (.+)$")
DQN_ROUND = ["OncePerTimestepsElapsed", "OncePerTimeInterval", "CollectMetrics", "ParallelRollouts", "StoreToReplayBuffer", "Replay", "TrainOneStep", "UpdateTargetNetwork"]


def _rest_of_a_round(text: str) -> bool:
    """True if ``text`` tells of the end of one DQN round: its ops in the round's order, the round's last child last.

    The pause lands at any op boundary, so the first advance may finish a
    round already under way (say "round 71: UpdateTargetNetwork ×1").
    """
    ops = [part.split(" ")[0] for part in ANY_ROUND.match(text).group(2).split(", ")]
    return (bool(ops) and set(ops) <= set(DQN_ROUND) and ops == sorted(ops, key=DQN_ROUND.index)
            and ops[-1] in ("Replay", "TrainOneStep", "UpdateTargetNetwork"))


@pytest.fixture
def notebook(shared_lab):
    """The session's JupyterLab with a folder holding ``advance.ipynb``; yields (url, notebook path)."""
    with shared_lab.folder_of_notebooks({"advance.ipynb": [START, COUNTERS, STOP]}) as folder:
        yield shared_lab.url, f"{folder.name}/advance.ipynb"


def _window(root) -> tuple[float, float]:
    a, b = root.get_attribute("data-rlviz-window").split(",")
    return float(a), float(b)


def _output(page, cell):
    """Cell ``cell``'s output area."""
    return page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".jp-OutputArea")


def _printed(page, cell) -> str:
    """What cell ``cell`` printed, once it printed something (its output is drawn a moment after its prompt)."""
    expect(_output(page, cell)).not_to_have_text("", timeout=30_000)
    return _output(page, cell).inner_text()


def test_advance_twice_from_the_page_then_zoom_to_selection_stays(notebook, tmp_path):
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    with chromium_page(1400, 1100) as page:
        errors = open_and_run_first_cell(page, *notebook, timeout_ms=240_000)
        root = page.locator('[data-rlviz="explorer"]').first
        expect(root.locator('[data-rlviz="live-count"]')).to_have_attribute("data-count", re.compile(r"^[1-9]\d*$"),
                                                                             timeout=240_000)
        root.locator('[data-rlviz="pause"]').click()
        advance, round_text = root.locator('[data-rlviz="advance"]'), root.locator('[data-rlviz="round"]')
        expect(advance).to_be_enabled(timeout=60_000)
        expect(round_text).to_be_hidden()                        # a pause is no advance: no round to tell of

        rounds = []
        for _ in range(2):
            before = round_text.text_content() if rounds else None
            advance.click()
            if before:
                expect(round_text).not_to_have_text(before, timeout=60_000)
            if rounds:                                           # the second advance runs one whole round
                expect(round_text).to_have_text(ROUND, timeout=60_000)
            else:                                                # the first finishes the round the pause cut
                expect(round_text).to_have_text(ANY_ROUND, timeout=60_000)
                assert _rest_of_a_round(round_text.text_content()), round_text.text_content()
            rounds.append(int(ANY_ROUND.match(round_text.text_content()).group(1)))
            band = root.locator('[data-rlviz="advance-band"]')
            expect(band).to_be_visible()
            expect(root.locator('[data-rlviz="follow-box"]')).not_to_be_checked()
            a, b = _window(root)
            shown = root.locator('[data-rlviz="timeline"]').bounding_box()
            box = band.bounding_box()
            assert box["width"] > 0.3 * shown["width"], (f"the round fills the timeline, not a sliver: {box} in {shown}; band "
                                                        f"{band.get_attribute('data-from')}..{band.get_attribute('data-to')} in window {a}..{b}, {round_text.text_content()}")
        assert rounds[1] == rounds[0] + 1, rounds
        root.screenshot(path=str(artifacts / "1-advanced.png"))

        run_cell(page, 1)                                        # the plan's counters, read while paused
        expect(_output(page, 1)).to_contain_text(re.compile(r"plan \d+"), timeout=30_000)
        plan = re.search(r"plan (\d+) (\d+) (\d+)", _printed(page, 1))
        assert plan, _printed(page, 1)
        sampled, trained, last_round = map(int, plan.groups())
        assert last_round == rounds[1]
        counters = root.locator('[data-rlviz="live-counters"]').text_content()
        assert f"sampled {sampled:,}" in counters and f"trained {trained:,}" in counters, (counters, sampled, trained)
        assert sampled > 0

        root.locator('[data-rlviz="pause"]').click()            # resume: the run goes on; follow it again
        root.locator('[data-rlviz="follow-box"]').check()
        expect(round_text).to_be_hidden(timeout=30_000)
        expect(root.locator('[data-rlviz="advance-band"]')).to_be_hidden()
        count = root.locator('[data-rlviz="live-count"]')
        events = int(count.get_attribute("data-count"))
        expect(count).not_to_have_attribute("data-count", str(events), timeout=60_000)
        root.locator('[data-rlviz="zoom-selection"]').click()
        expect(root.locator('[data-rlviz="follow-box"]')).not_to_be_checked()
        zoomed = _window(root)
        grown = int(count.get_attribute("data-count"))
        page.wait_for_timeout(3000)                              # what the learner does: look for 3 s
        assert int(count.get_attribute("data-count")) > grown, "events kept arriving"
        assert _window(root) == zoomed, "the view snapped away from the selection"
        expect(root.locator('[data-rlviz="follow-box"]')).not_to_be_checked()
        root.screenshot(path=str(artifacts / "2-zoomed.png"))
        run_cell(page, 2, timeout_ms=120_000)
        # the prompt shows the cell ended a moment before its output is drawn (on a loaded machine, seconds)
        expect(_output(page, 2)).to_contain_text("stopped False None", timeout=30_000)
        assert errors == [], f"the page raised: {errors}"
        print("screenshots in", artifacts)
