"""One trace on saved, diff and notebook pages: the same node counts, busy times and whys as Python's.

Issue 45 asks for every page kind at 10k, 1M and 10M events.  Two shapes: a distinct item and a cross-lane link per
event, and a union whose not-ready polls are slow (5 ms each against 0.5 ms for a call that yields), so busy time
with and without the polls differs about sixfold (``op_stats`` counts the polls).  At 10k the saved page, the diff
of the trace against a copy (both runs) and a notebook ``TraceView`` show ``op_stats``' calls and busy time per
node; a recorded ``Concurrently`` run shows Python's why for a not-ready poll and a capped pull on each of them, and
on a live page that watched it run; at 1M the saved page, both runs of a diff page, a notebook view and a live page
that took the run in four refreshes, and at 10M the saved page, both runs of a diff page and a live page, have
``op_stats``' node table and lanes that leave the polls out of busy time only (the notebook's 10M view:
tests/widgets/test_long_view_browser.py); a union run of a million events on live, saved, diff and notebook pages
says Python's whys for polls and capped pulls at its start and in its last chunk.  A live page's run is recorded through a ``Recorder``, each event with its
own value and its links, so its store's trace is the model's shape.
"""

import numpy as np
import pytest
from browser_harness import chromium_page
from explorer_checks import diff_roots, wait_ready
from page_counts import assert_counts_as_python, assert_page_counts_as_python, titles_in

from rlviz.testing import diff
from rlviz.trace import Node, Trace
from rlviz.trace.items import KIND_TEXT
from rlviz.viz import write_html

pytestmark = pytest.mark.browser

EVENTS = 10_000
LANES, NODES_PER_LANE = 4, 4
NOT_READY = 1


def trace_of(events: int, slow_polls: bool) -> Trace:
    """``events`` calls round-robin over 16 nodes on 4 lanes, each with its own item and a link to the call four
    before it (on the lane before); with ``slow_polls`` every third call is a 5 ms not-ready poll."""
    nodes = [Node(f"op{k}", "for_each", f"op {k}", "driver" if k < NODES_PER_LANE else f"shard-{k // NODES_PER_LANE}",
                  (f"op{k - 1}",) if k else ()) for k in range(LANES * NODES_PER_LANE)]
    index = np.arange(events, dtype=np.int64)
    period = 10_000_000
    polls = (index % 3 == 2) if slow_polls else np.zeros(events, bool)
    duration = np.where(polls, 5_000_000, 500_000)
    linked = index >= NODES_PER_LANE
    columns = {"node": (index % len(nodes)).astype(np.int32), "pid": 1000 + (index % len(nodes)) // NODES_PER_LANE,
               "start_ns": index * period, "end_ns": index * period + duration,
               "outcome": np.where(polls, NOT_READY, 0).astype(np.uint8),
               "item_kind": np.full(events, KIND_TEXT, np.uint8),
               "item_num": index + 1, "item_id": index + 1,
               "input_offsets": np.concatenate([[0], np.cumsum(linked)]).astype(np.int64),
               "input_ids": index[linked] - NODES_PER_LANE + 1}
    return Trace(nodes, columns, texts=["(summary table full)"] + [f"str 'value {k}'" for k in range(events)])


def node_titles(html) -> list[str]:
    """The node box hover texts of a saved page's one explorer."""
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri(), timeout=120_000)
        return titles_in(wait_ready(page))


def diff_titles(html) -> list[list[str]]:
    """The node box hover texts of each run of a diff page, run by run."""
    with chromium_page(1400, 1400) as page:
        page.goto(html.as_uri(), timeout=120_000)
        return [titles_in(root) for root in diff_roots(page, timeout_ms=60_000)]


@pytest.mark.parametrize("slow_polls", [False, True], ids=["distinct-items-and-links", "slow-not-ready-polls"])
def test_a_saved_page_shows_each_nodes_calls_and_busy_time_as_python_counts_them(tmp_path, slow_polls):
    trace = trace_of(EVENTS, slow_polls)
    assert_counts_as_python(node_titles(write_html(trace, tmp_path / "saved.html")), trace)


@pytest.mark.parametrize("slow_polls", [False, True], ids=["distinct-items-and-links", "slow-not-ready-polls"])
def test_a_diff_page_of_the_trace_against_its_copy_shows_python_counts_in_both_runs(tmp_path, slow_polls):
    trace = trace_of(EVENTS, slow_polls)
    for titles in diff_titles(write_html(diff(trace, trace_of(EVENTS, slow_polls)), tmp_path / "diff.html")):
        assert_counts_as_python(titles, trace)


def recorded_union() -> Trace:
    """A recorded ``Concurrently`` run with weights [2, 1, "*"] whose middle op is not ready twice first."""
    import rlviz
    from page_replay import named_op
    from rlviz.ops import Concurrently

    plan = Concurrently([named_op("StoreToReplayBuffer"), named_op("TrainOneStep", not_ready_first=2),
                         named_op("LogMetrics")], round_robin_weights=[2, 1, "*"])
    with rlviz.record() as trace:
        plan.take(2 * 103)
    return trace


def why_events(trace: Trace) -> list[int]:
    """Two fixed events: the first not-ready poll, and the first pull a union's cap ends (deep in the run)."""
    whys = [trace.why(k) or "" for k in range(len(trace.columns["node"]))]
    poll = next(k for k, text in enumerate(whys) if "not ready" in text)
    cap = next(k for k, text in enumerate(whys) if "the cap" in text)
    return [poll, cap]


def why_shown(root, index: int) -> str:
    """The why text ``root``'s inspector shows once event ``index`` is selected."""
    root.evaluate("(element, index) => element.rlvizExplorer.setSelected(index)", index)
    return root.locator('[data-rlviz="inspector"] [data-rlviz="why"]').text_content()


@pytest.mark.slow
def test_saved_and_diff_pages_say_the_same_why_as_python_for_a_poll_and_a_capped_pull(tmp_path):
    trace = recorded_union()
    events = why_events(trace)
    expected = [trace.why(k) for k in events]
    assert all(expected), expected
    with chromium_page(1400, 1000) as page:
        page.goto(write_html(trace, tmp_path / "saved.html").as_uri(), timeout=120_000)
        root = wait_ready(page)
        assert [why_shown(root, k) for k in events] == expected
    with chromium_page(1400, 1400) as page:
        trace.save(str(tmp_path / "copy.rlviz"))                 # a copy, not a second recording (6 s)
        page.goto(write_html(diff(trace, Trace.load(str(tmp_path / "copy.rlviz"))), tmp_path / "diff.html").as_uri(),
                  timeout=120_000)
        for root in diff_roots(page, timeout_ms=60_000):
            assert [why_shown(root, k) for k in events] == expected


@pytest.mark.slow
def test_a_notebook_shows_python_counts_for_both_shapes_and_python_whys_for_the_union(shared_lab):
    """One notebook (one kernel, the costly part): a ``TraceView`` per 10k shape, whose node boxes read as
    ``op_stats`` counts, and one of the recorded union, whose why texts for the two fixed events are Python's."""
    from browser_harness import open_notebook, run_cell, write_notebook
    from playwright.sync_api import expect

    shapes = (False, True)
    union = recorded_union()
    with shared_lab.folder() as root:
        traces = [trace_of(EVENTS, slow_polls) for slow_polls in shapes]
        for name, trace in zip(("links", "polls", "union"), (*traces, union)):
            trace.save(str(root / f"{name}.rlviz"))
        write_notebook(root / "same.ipynb", ["from rlviz.trace import Trace\nfrom rlviz.widgets import TraceView"]
                       + [f'TraceView(Trace.load("{name}.rlviz"))' for name in ("links", "polls", "union")])
        with chromium_page(1400, 1200) as page:
            open_notebook(page, shared_lab.url, f"{root.name}/same.ipynb")
            for cell in range(4):
                run_cell(page, cell)
            explorers = page.locator('[data-rlviz="explorer"]')
            expect(explorers).to_have_count(3, timeout=60_000)
            for k in range(3):
                expect(explorers.nth(k)).to_have_attribute("data-rlviz-ready", "1", timeout=60_000)
            for k, trace in enumerate(traces):
                assert_counts_as_python(titles_in(explorers.nth(k)), trace)
            events = why_events(union)
            assert [why_shown(explorers.nth(2), k) for k in events] == [union.why(k) for k in events]


def test_a_live_page_shows_python_counts_and_whys_as_its_run_grows():
    """The union run watched as it goes (``GrowingChunks`` answering a live page, refreshed as a ``LiveView``
    refreshes): once it ends, its node boxes read as ``op_stats`` counts of the run and its why texts are Python's.
    A live page numbers events as they arrived (the store's ids), so Python's events are found there by their id."""
    import rlviz
    from growing_page import GrowingPage
    from page_replay import named_op
    from rlviz.ops import Concurrently
    from rlviz.viz.growing_chunks import GrowingChunks

    plan = Concurrently([named_op("StoreToReplayBuffer"), named_op("TrainOneStep", not_ready_first=2),
                         named_op("LogMetrics")], round_robin_weights=[2, 1, "*"])
    with chromium_page(1400, 1000) as page, rlviz.record() as run:
        shown = GrowingPage(page, GrowingChunks(run.store))
        shown.mount()
        for _ in range(2):
            plan.take(103)
            run.pull()
            shown.refresh()
        shown.refresh(final=True)
        trace = run.snapshot()
        root = page.locator('[data-rlviz="explorer"]')
        titles = titles_in(root)
        events = why_events(trace)
        shown_whys = [why_shown(root, int(trace.event_ids[k])) for k in events]
    assert_counts_as_python(titles, trace)
    assert shown_whys == [trace.why(k) for k in events]


MILLION = 1_000_000


@pytest.mark.slow
@pytest.mark.parametrize("slow_polls", [False, True], ids=["distinct-items-and-links", "slow-not-ready-polls"])
def test_a_saved_page_of_a_million_events_counts_each_node_as_python_does(tmp_path, slow_polls):
    """Past 1,000 a node box shortens its counts ("63k calls"), so the page's node table is read as well: its
    exact calls, items, not-ready polls and busy time must be ``op_stats``' own, and the boxes their short forms."""
    assert_saved_page_counts_as_python(trace_of(MILLION, slow_polls), tmp_path)


@pytest.mark.slow
def test_a_saved_page_of_ten_million_events_counts_each_node_and_lane_as_python_does(long_trace, tmp_path):
    """The session's 10M-event trace (64 lanes over 3 hours, a link per event, a poll in about 30)."""
    assert_saved_page_counts_as_python(long_trace, tmp_path)


def assert_saved_page_counts_as_python(trace: Trace, tmp_path) -> None:
    """``trace``'s saved page counts each node and lane as Python does (``assert_page_counts_as_python``)."""
    with chromium_page(1400, 1000) as page:
        page.goto(write_html(trace, tmp_path / "saved.html").as_uri(), timeout=180_000)
        assert_page_counts_as_python(wait_ready(page, timeout_ms=180_000), trace)


@pytest.mark.slow
def test_a_diff_page_of_a_million_events_counts_each_run_as_python_does(tmp_path):
    """Both runs of the diff of the million-event trace with slow polls against its copy: each run's node table,
    node boxes and lanes are the trace's as Python counts them."""
    trace = trace_of(MILLION, True)
    trace.save(str(tmp_path / "copy.rlviz"))
    assert_diff_page_counts_as_python(trace, Trace.load(str(tmp_path / "copy.rlviz")), tmp_path)


@pytest.mark.slow
def test_notebook_views_of_a_million_events_count_as_python_does_and_say_its_whys(shared_lab):
    """The million-event trace with distinct items and links in a ``TraceView``: the page holds a part of it (the
    kernel answers for chunks), and its node table, node boxes and lanes are Python's counts of the whole; a second
    view, of a union run of a million events, says Python's whys deep in the run (``late_why_events``)."""
    from browser_harness import open_notebook, run_cell, write_notebook
    from playwright.sync_api import expect

    import rlviz

    trace = trace_of(MILLION, False)
    with rlviz.record(capacity=2 * MILLION) as union:
        endless_union().take(MILLION // 2)
    events = late_why_events(union)
    with shared_lab.folder() as root_dir:
        trace.save(str(root_dir / "million.rlviz"))
        union.save(str(root_dir / "union.rlviz"))
        cells = ['from rlviz.trace import Trace\nfrom rlviz.widgets import TraceView\n'
                 'TraceView(Trace.load("million.rlviz"))', 'TraceView(Trace.load("union.rlviz"))']
        write_notebook(root_dir / "million.ipynb", cells)
        with chromium_page(1400, 1200) as page:
            open_notebook(page, shared_lab.url, f"{root_dir.name}/million.ipynb")
            for cell in range(2):
                run_cell(page, cell, timeout_ms=180_000)
            explorers = page.locator('[data-rlviz="explorer"]')
            expect(explorers).to_have_count(2, timeout=120_000)
            for k in range(2):
                expect(explorers.nth(k)).to_have_attribute("data-rlviz-ready", "1", timeout=120_000)
            assert_page_counts_as_python(explorers.nth(0), trace)
            assert [why_when_loaded(explorers.nth(1), k) for k in events] == [union.why(k) for k in events]


@pytest.mark.slow
def test_a_diff_page_of_ten_million_events_counts_each_run_as_python_does(long_trace, tmp_path):
    """The session's 10M-event trace against itself (the page holds two encoded copies, as of two runs; a saved
    copy would add a minute of writing and reading): each run's node table, node boxes and lanes are Python's."""
    assert_diff_page_counts_as_python(long_trace, long_trace, tmp_path)


def assert_diff_page_counts_as_python(trace: Trace, copy: Trace, tmp_path) -> None:
    """Both runs of the diff page of ``trace`` against ``copy`` (the same events) count each node and lane as
    Python counts ``trace`` (``assert_page_counts_as_python``)."""
    html = write_html(diff(trace, copy), tmp_path / "diff.html")
    with chromium_page(1400, 1400) as page:
        page.goto(html.as_uri(), timeout=300_000)
        for root in diff_roots(page, timeout_ms=180_000):
            assert_page_counts_as_python(root, trace)


@pytest.mark.slow
def test_a_live_page_of_a_million_events_counts_each_node_and_lane_as_python_does():
    """A run of a million events with slow polls, recorded in four parts, each taken by the growing source and sent
    to a live page as a refresh would: at the end its node table, node boxes and lanes are Python's counts of the
    store's trace (the events it took)."""
    assert_live_page_counts_as_python(trace_of(MILLION, True))


@pytest.mark.slow
def test_a_live_page_of_ten_million_events_counts_each_node_and_lane_as_python_does(long_trace):
    """The session's 10M-event trace (64 lanes, a distinct item and a link per event) recorded in four parts as a
    live page takes it: its node table, node boxes and lanes are Python's counts of the store's trace."""
    assert_live_page_counts_as_python(long_trace)


def assert_live_page_counts_as_python(model: Trace) -> None:
    """``model``'s events recorded (with their items and links) in four parts, each taken by the growing source and
    sent to a live page as a refresh would: at the end the page counts each node and lane as Python counts the
    store's trace."""
    from growing_page import GrowingPage

    from rlviz.trace.store import TraceStore
    from rlviz.viz.growing_chunks import GrowingChunks

    store = TraceStore()
    with chromium_page(1400, 1000) as page:
        shown = GrowingPage(page, GrowingChunks(store))
        shown.mount()
        for _ in record_in_parts(model, store, parts=4):
            shown.refresh()
        shown.refresh(final=True)
        taken = store.view()
        assert len(taken) == len(model)
        assert_page_counts_as_python(page.locator('[data-rlviz="explorer"]'), taken)


def record_in_parts(model: Trace, store, parts: int):
    """Record ``model``'s events through a ``Recorder`` (each with a distinct value, linked to the items its inputs
    name as the recorder numbered them) and hand them to ``store`` in ``parts`` increments, yielding after each."""
    from rlviz.trace import Recorder
    from rlviz.trace.recorder import ExportCursor

    events = len(model)
    recorder, cursor = Recorder(capacity=2 * events), ExportCursor()
    nodes = [recorder.register(node) for node in model.nodes]
    c = model.columns
    node, start, end, outcome, item = (c[name].tolist() for name in ("node", "start_ns", "end_ns", "outcome", "item_id"))
    offsets, inputs = c["input_offsets"].tolist(), c["input_ids"].tolist()
    recorded = [-1] * (max(item) + 1)                # the recorder's id of each item of the model
    for part in np.array_split(np.arange(events), parts):
        for i in range(int(part[0]), int(part[-1]) + 1):
            links = [recorded[x] for x in inputs[offsets[i]:offsets[i + 1]] if recorded[x] >= 0]
            new = recorder.record(nodes[node[i]], start[i], end[i], outcome[i], i, links or None)
            if item[i] >= 0:
                recorded[item[i]] = new
        increment = recorder.export_since(cursor)
        store.add_increment(increment)
        cursor = increment["cursor"]
        yield


def endless_union():
    """The union of ``recorded_union`` with items that never run out, its middle op not ready after each item, so
    not-ready polls and pulls a cap ends come all through a run of any length.

    The items are numbers, not strings: the session's recorder interns every distinct string in one table of
    65,536 that no later ``record()`` block empties, so a million distinct strings would leave the tests that run
    after this one only "(summary table full)" for their items and gauge names.
    """
    import itertools

    from page_replay import named_op
    from rlviz.ops import Concurrently

    def op(name: str, **kwargs):
        return named_op(name, items=itertools.count(), **kwargs)

    return Concurrently([op("StoreToReplayBuffer"), op("TrainOneStep", not_ready_first=2, gaps=True),
                         op("LogMetrics")], round_robin_weights=[2, 1, "*"])


def late_why_events(trace: Trace, tail: int = 20_000) -> list[int]:
    """The last not-ready poll and the last pull a cap ends, both in the run's last chunk, and the first of each."""
    n = len(trace.columns["node"])
    late = [(k, trace.why(k) or "") for k in range(n - tail, n)]
    last_poll = max(k for k, text in late if "not ready" in text)
    last_cap = max(k for k, text in late if "the cap" in text)
    return [*why_events(trace), last_poll, last_cap]


def why_when_loaded(root, index: int) -> str:
    """The why text ``root``'s inspector shows for event ``index`` once its chunk is loaded (a long page selects an
    event outside its part and loads the chunk holding it)."""
    from playwright.sync_api import expect

    root.evaluate("(element, index) => element.rlvizExplorer.setSelected(index)", index)
    expect(root.locator('[data-rlviz="inspector"] [data-rlviz="event"]')).to_contain_text(f"#{index} ",
                                                                                          timeout=60_000)
    return root.locator('[data-rlviz="inspector"] [data-rlviz="why"]').text_content()


@pytest.mark.slow
def test_live_saved_and_diff_pages_of_a_million_events_say_python_whys_deep_in_the_run(tmp_path):
    """A union run of a million events watched by a live page in four refreshes, then saved, and diffed against a
    copy: each page says Python's why for the first and last not-ready poll and pull a cap ended (the last ones in
    the run's last chunk, which a page of the whole run loads when they are selected)."""
    from growing_page import GrowingPage

    import rlviz
    from rlviz.viz.growing_chunks import GrowingChunks

    plan = endless_union()
    with chromium_page(1400, 1000) as page, rlviz.record(capacity=2 * MILLION) as run:
        shown = GrowingPage(page, GrowingChunks(run.store))
        shown.mount()
        for _ in range(4):
            plan.take(MILLION // 8)                     # about two events an item
            run.pull()
            shown.refresh()
        shown.refresh(final=True)
        trace = run.snapshot()
        events = late_why_events(trace)
        expected = [trace.why(k) for k in events]
        root = page.locator('[data-rlviz="explorer"]')
        live = [why_when_loaded(root, int(trace.event_ids[k])) for k in events]
    assert len(trace.columns["node"]) >= MILLION and all(expected), expected
    assert live == expected
    with chromium_page(1400, 1000) as page:
        page.goto(write_html(trace, tmp_path / "saved.html").as_uri(), timeout=180_000)
        root = wait_ready(page, timeout_ms=180_000)
        assert [why_when_loaded(root, k) for k in events] == expected
    trace.save(str(tmp_path / "copy.rlviz"))
    with chromium_page(1400, 1400) as page:
        page.goto(write_html(diff(trace, Trace.load(str(tmp_path / "copy.rlviz"))), tmp_path / "diff.html").as_uri(),
                  timeout=180_000)
        for root in diff_roots(page):
            assert [why_when_loaded(root, event) for event in events] == expected
