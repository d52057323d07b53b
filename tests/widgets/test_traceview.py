"""TraceView's Python side: payload messages, traits both ways, bad input, static fallback (no browser)."""
import base64
import json

import numpy as np
import pytest
import traitlets

import rlviz
from rlviz.trace import Trace
from rlviz.viz.examples import concurrently_trace, sharded_trace
from rlviz.viz.explorer_html import explorer_js
from rlviz.viz.explorer_payload import Payload, decode_stream
from rlviz.widgets import TraceView


def _sent(view):
    messages = []
    view.send = lambda content, buffers=None: messages.append((content, buffers))
    return messages


def test_a_page_asking_whether_the_kernel_is_there_gets_its_answer():
    """The page pings when its connection changed (explorer_kernel.js); a kernel still there answers that view."""
    view = TraceView(sharded_trace())
    messages = _sent(view)
    view._handle_custom_msg({"type": "ping", "view": "v7"}, [])
    assert messages == [({"type": "pong", "view": "v7"}, None)]


def _columns_sent(view, messages, view_token=None):
    """The trace's columns as the page gets them: the start, then each chunk it lists, asked for."""
    start = messages[0][0]["meta"]
    chunks, buffers = [], []
    for k in range(len(start["detail"])):
        view._handle_custom_msg({"type": "detail", "view": view_token, "chunk": k}, [])
        content, chunk_buffers = messages[-1]
        assert content["type"] == "detail" and all(isinstance(b, bytes) for b in chunk_buffers)
        chunks.append(content["meta"])
        buffers += chunk_buffers
    return decode_stream(Payload({**start, "chunks": chunks}, buffers))


def test_page_ready_gets_the_start_and_then_the_columns_as_binary_buffers():
    """Every trace takes the one path: the start (meta and packed overview), then the chunks the page asks for."""
    trace = sharded_trace()
    view = TraceView(trace)
    messages = _sent(view)
    view._handle_custom_msg({"type": "ready"}, [])
    (content, buffers), = messages
    assert content["type"] == "payload" and content["meta"]["long"] is True
    assert content["meta"]["events"] == len(trace) and len(buffers) == 1, "the overview, no event yet"
    assert all(isinstance(b, bytes) for b in buffers)
    columns = _columns_sent(view, messages)
    np.testing.assert_array_equal(columns["node"], trace.columns["node"])


def test_json_part_does_not_grow_with_the_events():
    """The events travel in the binary buffers (several bytes each), the JSON meta stays as it was."""
    sizes, events = [], []
    for items in (12, 1200):
        trace = sharded_trace(items=items)
        events.append(len(trace))
        view = TraceView(trace)
        messages = _sent(view)
        view._handle_custom_msg({"type": "ready"}, [])
        meta = messages[0][0]["meta"]                       # interned item texts are per distinct text
        _columns_sent(view, messages)
        meta = dict(meta, texts=None)
        sizes.append((len(json.dumps(meta)), sum(len(b) for _, buffers in messages for b in buffers)))
    (json_small, bytes_small), (json_big, bytes_big) = sizes
    assert bytes_big - bytes_small > 3 * (events[1] - events[0]), (sizes, events)
    assert json_big < json_small + 200                 # only the printed counts got longer


def test_each_new_page_view_is_sent_the_same_payload_again():
    view = TraceView(sharded_trace())
    messages = _sent(view)
    view._handle_custom_msg({"type": "ready", "view": "a"}, [])
    view._handle_custom_msg({"type": "ready", "view": "b"}, [])
    assert len(messages) == 2 and messages[0][1] == messages[1][1]
    assert [m[0]["view"] for m in messages] == ["a", "b"]      # each view takes only its own answer


def test_traits_set_from_python_and_event_follows_selected():
    trace = concurrently_trace()
    view = TraceView(trace, op="TrainOneStep", window=(0.0, 5.0))
    assert view.op == "TrainOneStep" and view.window == (0.0, 5.0)
    assert view.event is None
    view.selected = 7
    assert view.event == trace.event(7)
    view.where = "driver"
    view.op = None
    assert (view.op, view.where) == (None, "driver")


def test_page_changes_update_the_traits():
    view = TraceView(sharded_trace())
    view.set_state({"selected": 3, "window": [1.0, 2.5], "op": "batch", "where": "driver"})
    assert (view.selected, view.window, view.op, view.where) == (3, (1.0, 2.5), "batch", "driver")
    assert view.event.op == "batch" or view.event == view.trace.event(3)


def test_skip_not_ready_is_a_trait_both_ways_and_must_be_a_bool():
    view = TraceView(sharded_trace(), skip_not_ready=True)
    assert view.skip_not_ready is True
    view.set_state({"skip_not_ready": False})              # the page's box unticked
    assert view.skip_not_ready is False
    with pytest.raises(traitlets.TraitError, match="skip_not_ready"):
        view.skip_not_ready = "yes"
    assert view.skip_not_ready is False


def test_unknown_op_names_the_valid_ones_and_keeps_the_last_good_state():
    view = TraceView(sharded_trace(), op="batch")
    messages = _sent(view)
    with pytest.raises(traitlets.TraitError, match="valid values: 'batch', 'for_each', 'from_range', 'gather_sync'"):
        view.op = "bacth"
    assert view.op == "batch"
    assert messages[-1][0]["type"] == "error" and "bacth" in messages[-1][0]["message"]
    with pytest.raises(traitlets.TraitError, match="'driver', 'shard-0', 'shard-1'"):
        view.where = "shard-9"
    assert view.where is None


def test_bad_selected_and_window_are_rejected():
    view = TraceView(sharded_trace())
    with pytest.raises(traitlets.TraitError, match="selected must be -1"):
        view.selected = 10_000
    with pytest.raises(traitlets.TraitError, match="t0_ms < t1_ms"):
        view.window = (5.0, 1.0)
    assert view.selected == -1 and view.window == (0.0, 0.0)


def test_unknown_keyword_and_wrong_trace_type_raise_type_error():
    with pytest.raises(TypeError, match="unknown keyword argument 'selection'"):
        TraceView(sharded_trace(), selection=3)
    with pytest.raises(TypeError, match="needs an rlviz.trace.Trace, not list"):
        TraceView([])


def test_static_fallback_carries_a_png_of_the_timeline():
    data, _ = TraceView(sharded_trace())._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG")


@pytest.fixture
def shell_outputs(monkeypatch):
    """A real IPython shell whose published outputs are kept: each a dict of data, metadata, transient and update."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    published = []

    def publish(data, metadata=None, source=None, *, transient=None, update=False, **_):
        published.append({"data": data, "metadata": metadata, "transient": transient, "update": update})

    monkeypatch.setattr(shell.display_pub, "publish", publish)
    yield published
    InteractiveShell.clear_instance()


def test_the_picture_is_drawn_after_the_pages_first_frame_and_then_put_into_the_output(shell_outputs, monkeypatch):
    """Shown in a notebook, the view goes out without its picture (drawing it took seconds before the page could ask
    for data); the page gets its data and says its first frame is drawn, and only then is the picture drawn, kept
    in the widget's state (a saved notebook's view shows it) and put into the output (GitHub and nbconvert show it)."""
    import time

    from IPython.display import display

    import rlviz.widgets.traceview as traceview

    view = TraceView(sharded_trace())
    messages = _sent(view)
    sent_before_picture = []
    draw = traceview.background_png
    monkeypatch.setattr(traceview, "background_png",
                        lambda trace: sent_before_picture.append([m[0]["type"] for m in messages]) or draw(trace))
    display(view)
    (shown,) = shell_outputs
    assert "application/vnd.jupyter.widget-view+json" in shown["data"] and "image/png" not in shown["data"]
    assert sent_before_picture == [], "the picture held up the output"
    monkeypatch.setattr(traceview, "PICTURE_QUIET_S", 0.5)
    view._handle_custom_msg({"type": "ready", "view": "v1"}, [])
    time.sleep(0.3)
    assert sent_before_picture == [] and not view._picture, "the picture competes with the page's first frame"
    view._handle_custom_msg({"type": "drawn", "view": "v1"}, [])
    for k in range(4):                              # someone zooms at once: the picture waits until they pause
        time.sleep(0.2)
        view.window = (0.0, 10.0 + k)
        assert sent_before_picture == [], "the picture competes with the first zooms"
    assert view.wait_for_picture(timeout=120)
    assert sent_before_picture == [["payload"]] and view._picture.startswith(b"\x89PNG")
    update = shell_outputs[-1]
    assert update["update"] and update["transient"]["display_id"] == shown["transient"]["display_id"]
    assert base64.b64decode(update["data"]["image/png"]) == view._picture
    assert "application/vnd.jupyter.widget-view+json" in update["data"], "the output keeps its view"


def test_a_shown_view_works_out_its_first_answer_while_the_page_loads(shell_outputs, monkeypatch):
    """Displayed, the view starts encoding at once (in a thread), so the page's "ready" finds the answer under way."""
    import threading

    from IPython.display import display

    import rlviz.widgets.traceview as traceview

    started, release = threading.Event(), threading.Event()
    encode = traceview.long_start

    def slow_encode(chunks):
        started.set()
        release.wait(60)
        return encode(chunks)

    monkeypatch.setattr(traceview, "long_start", slow_encode)
    view = TraceView(sharded_trace())
    messages = _sent(view)
    display(view)
    assert started.wait(60), "nothing worked out before the page asked"
    release.set()
    monkeypatch.setattr(traceview, "PICTURE_QUIET_S", 0.1)
    view._handle_custom_msg({"type": "ready", "view": "v1"}, [])
    assert messages[0][0]["type"] == "payload" and messages[0][0]["view"] == "v1"
    view._handle_custom_msg({"type": "drawn", "view": "v1"}, [])
    assert view.wait_for_picture(timeout=120), "its picture is in before the shell goes (no stray output later)"


def test_without_a_page_the_picture_is_drawn_when_the_next_cell_runs(shell_outputs):
    """nbconvert and nbclient run cells with no browser, so no page ever asks for data: the next cell draws the
    picture, and its update (sent while that cell runs, which such a runner reads) puts it into the output."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display

    view = TraceView(sharded_trace())
    display(view)
    asked = TraceView(sharded_trace())
    display(asked)
    asked._handle_custom_msg({"type": "ready", "view": "v1"}, [])
    assert not view._picture and len(shell_outputs) == 2
    InteractiveShell.instance().events.trigger("pre_run_cell", None)
    assert view._picture.startswith(b"\x89PNG") and not asked._picture, "a view whose page asked waits for its frame"
    update = shell_outputs[-1]
    assert update["update"] and update["transient"] == shell_outputs[0]["transient"]
    assert base64.b64decode(update["data"]["image/png"]) == view._picture
    InteractiveShell.instance().events.trigger("pre_run_cell", None)
    assert len(shell_outputs) == 3, "drawn once"
    asked._handle_custom_msg({"type": "drawn", "view": "v1"}, [])
    assert asked.wait_for_picture(timeout=120) and len(shell_outputs) == 4


def test_a_long_trace_shown_then_closed_is_freed(monkeypatch):
    """Nothing outlives the view: a long trace's chunks hold their trace, so a cache of first answers keyed
    weakly on the trace kept every long trace ever shown (0.7 GB at 10M events)."""
    import gc
    import weakref

    import rlviz.widgets.traceview as traceview

    trace = sharded_trace()
    view = TraceView(trace)
    messages = _sent(view)
    view._handle_custom_msg({"type": "ready", "view": "v1"}, [])
    assert messages[0][0]["meta"]["long"] is True
    freed = weakref.ref(trace)
    view.close()
    assert not view.wait_for_picture(timeout=2 * traceview.PICTURE_QUIET_S + 5), "no picture after close"
    del view, trace
    gc.collect()
    assert freed() is None, "the trace outlived its closed view"


def test_empty_trace_still_makes_a_view_and_a_payload():
    view = TraceView(Trace.empty())
    messages = _sent(view)
    view._handle_custom_msg({"type": "ready"}, [])
    assert messages[0][0]["meta"]["count"] == 0
    with pytest.raises(traitlets.TraitError, match="none: the trace is empty"):
        view.op = "x"


def test_esm_is_the_shared_front_end():
    from rlviz.viz.explorer_html import explorer_js

    view = TraceView(sharded_trace())
    assert view._esm == explorer_js() and "explorer_default as default" in view._esm
    assert "innerHTML" not in view._esm


def test_show_picks_traceview_for_a_trace_and_the_graph_for_a_dataflow():
    from matplotlib.figure import Figure

    from rlviz.trace import Node

    class Plan:
        def dataflow(self):
            return [Node("a", "from_range", "from_range(4)"), Node("b", "batch", "batch(2)", parents=("a",))]

    assert isinstance(rlviz.show(sharded_trace(), op="batch"), TraceView)
    assert isinstance(rlviz.show(Plan()), Figure)
    with pytest.raises(TypeError, match="got int"):
        rlviz.show(3)


def test_the_kernel_free_page_rides_along_only_when_asked_and_opens_where_the_view_stands(monkeypatch):
    import json
    import re

    from rlviz.widgets.traceview import EMBED_ENV, STANDALONE_MIME

    view = TraceView(sharded_trace(), window=(1.0, 3.0), selected=4, skip_not_ready=True)
    monkeypatch.delenv(EMBED_ENV, raising=False)
    data, _ = view._repr_mimebundle_()
    assert STANDALONE_MIME not in data, "a user's saved notebook does not grow by the whole trace"
    monkeypatch.setenv(EMBED_ENV, "1")
    data, _ = view._repr_mimebundle_()
    page = data[STANDALONE_MIME]
    opened = json.loads(re.search(r'id="rlviz-view">([^<]*)</script>', page).group(1))
    assert opened == {"window": [1.0, 3.0], "selected": 4, "op": None, "where": None, "skip_not_ready": True}
    assert explorer_js() in page and "mountSaved(host, document)" in page, "the Explorer's script, mounting the saved page"
    assert "image/png" in data


def test_a_trace_sends_its_overview_only_and_each_chunk_the_page_asks_for():
    """Whatever its length, the page gets the start meta and the packed overview; a chunk travels when the page asks."""
    from rlviz.viz.examples import large_trace
    from rlviz.viz.explorer_stream import encode_trace

    trace = large_trace(5_000)
    view = TraceView(trace)
    messages = _sent(view)
    view._handle_custom_msg({"type": "ready", "view": "v1"}, [])
    (content, buffers), = messages
    meta = content["meta"]
    assert meta["long"] and meta["events"] == len(trace) and len(buffers) == 1, "the overview, no event"
    assert [chunk["count"] for chunk in meta["detail"]] == [len(trace)], "one chunk of 65,536 events at most"
    view._handle_custom_msg({"type": "detail", "view": "v1", "chunk": 0}, [])
    detail, chunk_buffers = messages[-1]
    assert detail["type"] == "detail" and detail["chunk"] == 0 and detail["view"] == "v1"
    whole = encode_trace(trace)
    assert chunk_buffers == whole.buffers, "the stream's own chunk, unpacked"
    assert detail["meta"]["time_range"] == meta["detail"][0]["time_range"] == whole.meta["chunks"][0]["time_range"]
    view._handle_custom_msg({"type": "detail", "view": "v1", "chunk": 5}, [])
    assert messages[-1][0]["type"] == "error" and "chunk 5" in messages[-1][0]["message"]
