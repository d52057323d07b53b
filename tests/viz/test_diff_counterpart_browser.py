"""A diff page's selection crosses to the same call of the other run at any size (issue 45), in headless chromium.

Two runs of 17 detail chunks (past the 15 a page holds whole), whose timings
differ (another seed: each node makes a few calls more or fewer in each
chunk), so the parts each page holds for one window start at different calls
of a node.  A reader's step in the first run selects in the second the call
Python counts as the k-th of the matching node over the whole run, whether
the second run's part holds it or its chunk must be loaded first.
"""
import numpy as np
import pytest
from browser_harness import chromium_page
from explorer_checks import diff_roots, window_of

from rlviz.testing import diff
from rlviz.trace import Trace
from rlviz.viz import write_html
from rlviz.viz.explorer_stream import SAVED_CHUNK_EVENTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EVENTS = 17 * SAVED_CHUNK_EVENTS - 1000


def _calls_like(a: Trace, i: int, b: Trace) -> np.ndarray:
    """Trace indices of the calls of ``b``'s node matching event ``i``'s node of ``a`` (the same op on the same lane,
    the same one of several such: ``matchingNode``), in trace order (a saved trace's order is start order)."""
    nodes = a.nodes
    node = nodes[int(a.columns["node"][i])]
    alike = [m for m, other in enumerate(nodes) if (other.op, other.where) == (node.op, node.where)]
    same = [m for m, other in enumerate(b.nodes) if (other.op, other.where) == (node.op, node.where)]
    assert same, "the runs have the same nodes"
    target = same[min(alike.index(int(a.columns["node"][i])), len(same) - 1)]
    return np.flatnonzero(b.columns["node"] == target)


def _counterpart(a: Trace, i: int, b: Trace, first_a: int = 0, first_b: int = 0) -> int:
    """The event of ``b`` standing for event ``i`` of ``a``: the k-th call of the matching node, or its last, k being
    ``i``'s rank among its node's calls; counted from trace indices ``first_a`` and ``first_b`` on (0: the whole
    runs, as the page must count)."""
    nodes = a.columns["node"]
    k = int(np.count_nonzero(nodes[first_a:i] == nodes[i]))
    calls = _calls_like(a, i, b)
    calls = calls[calls >= first_b]
    return int(calls[min(k, len(calls) - 1)])


def _loaded(page) -> list:
    """The chunks [first, last] each run's page holds (None: none)."""
    return page.evaluate("window.rlvizDiff.runs.map((run) => run.lod.loaded)")


def test_a_selection_crosses_to_the_same_call_of_the_whole_run(tmp_path):
    from playwright.sync_api import expect

    from benchmarks.synthetic import pipeline_trace

    compared = diff(pipeline_trace(EVENTS, 8, 300.0, seed=0), pipeline_trace(EVENTS, 8, 300.0, seed=1),
                    names=("first", "second"))
    first, second = compared.traces
    path = write_html(compared, tmp_path / "counterpart.html")
    with chromium_page(1200, 1400) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path.as_uri())
        roots = diff_roots(page, timeout_ms=30_000)
        page.evaluate("window.rlvizDiff.levelsReady")

        lanes = roots[0].locator('[data-rlviz="lanes"]')      # a reader zooms deep into the first run: both follow
        box = lanes.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + 10)
        for _ in range(12):
            page.mouse.wheel(0, -300)
        for root in roots:
            expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "exact",
                                                                             timeout=20_000)
        a, b = window_of(roots[0])
        held = _loaded(page)
        assert all(chunks and chunks[0] >= 10 for chunks in held), held

        # the host selects a call in the middle of the first run's window (not passed on), the reader steps from it
        middle = int(np.searchsorted(first.columns["start_ns"], first.start_ns + (a + b) / 2 * 1e6))
        roots[0].evaluate(f"root => root.rlvizExplorer.setSelected({middle})")
        expect(roots[0]).to_have_attribute("data-rlviz-selected", str(middle))
        roots[0].focus()
        page.keyboard.press("ArrowRight")
        expect(roots[0]).not_to_have_attribute("data-rlviz-selected", str(middle))
        picked = int(roots[0].get_attribute("data-rlviz-selected"))
        expected = _counterpart(first, picked, second)
        starts = [chunks[0] * SAVED_CHUNK_EVENTS for chunks in _loaded(page)]
        assert _counterpart(first, picked, second, *starts) != expected, "counting from the parts would differ"
        expect(roots[1]).to_have_attribute("data-rlviz-selected", str(expected))

        # the second run shows its start (the host moves it: not passed on); its part lacks the call to select
        roots[1].evaluate(f"root => root.rlvizExplorer.setWindow([0, {b - a}])")
        expect(roots[1].locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "exact",
                                                                             timeout=20_000)
        page.wait_for_function("window.rlvizDiff.runs[1].lod.loaded && window.rlvizDiff.runs[1].lod.loaded[0] === 0")
        page.keyboard.press("ArrowRight")
        expect(roots[0]).not_to_have_attribute("data-rlviz-selected", str(picked))
        again = int(roots[0].get_attribute("data-rlviz-selected"))
        expected = _counterpart(first, again, second)
        expect(roots[1]).to_have_attribute("data-rlviz-selected", str(expected))
        assert _loaded(page)[1] == [0, 0] and expected >= SAVED_CHUNK_EVENTS, "found in a chunk the part lacks"
    assert errors == [], errors
