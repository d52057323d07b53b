"""A view's saved picture drawn in a background thread: an exiting process waits for it instead of aborting.

A daemon thread stopped inside matplotlib's C++ code at exit ends the process in ``std::terminate`` (a test
session's end once aborted so).  ``background_png`` makes the exit wait for a drawing under way, and refuses new
ones once the process is exiting.
"""
import subprocess
import sys
import textwrap

EXITS_WHILE_DRAWING = textwrap.dedent("""
    import atexit, threading, time

    finished = []
    atexit.register(lambda: print("at the end of exit:", finished, flush=True))   # runs after the guard's
    from rlviz.widgets import picture

    def slow_timeline_png(trace):               # a drawing that takes a second, as a large trace's does
        time.sleep(1.0)
        finished.append("drawn")
        return b"png"

    picture.timeline_png = slow_timeline_png
    threading.Thread(target=picture.background_png, args=(None,), daemon=True).start()
    time.sleep(0.2)                             # the drawing is under way when the process exits
""")

STARTS_WHILE_EXITING = textwrap.dedent("""
    import atexit

    def late():
        picture = background_png(sharded_trace())
        print("after exit began:", None if picture is None else "drawn", flush=True)

    atexit.register(late)               # before the guard registers its own: atexit runs the guard's first
    from rlviz.viz.examples import sharded_trace
    from rlviz.widgets.picture import background_png
""")


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_an_exiting_process_waits_for_a_picture_being_drawn_in_the_background():
    done = _run(EXITS_WHILE_DRAWING)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "at the end of exit: ['drawn']", done.stdout


def test_no_picture_starts_once_the_process_is_exiting():
    done = _run(STARTS_WHILE_EXITING)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "after exit began: None", done.stdout
