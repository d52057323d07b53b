"""A kernel interrupt (Jupyter's ■ button, Kernel > Interrupt) reaches the runs that live in background threads.

SIGINT only ever reaches the kernel's main thread: ipykernel turns it into
``KeyboardInterrupt`` in the cell that runs, and ignores it while the kernel
is idle.  A watched run lives in a thread that neither reaches, so without
help an interrupt would leave it going.  ``on_kernel_interrupt`` closes both
gaps: after a cell that ended in ``KeyboardInterrupt`` it calls ``stop``,
and the handler ipykernel puts back after each cell (``SIG_IGN`` while idle)
is wrapped so that an idle interrupt calls ``stop`` too and is otherwise
ignored, as before.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["on_kernel_interrupt"]

_INSTALLED: set[int] = set()                      # id() of each IPython shell we are installed in


def on_kernel_interrupt(stop: Callable[[], None]) -> bool:
    """From now on, call ``stop()`` whenever the IPython kernel this runs in is interrupted.

    Call it from a cell (the main thread).  Installed once per shell; later
    calls do nothing.  Returns False outside an IPython kernel (a plain
    script gets ``KeyboardInterrupt`` in its main thread and can stop what
    it started itself).
    """
    shell = _ipython()
    if shell is None or threading.current_thread() is not threading.main_thread():
        return False
    if id(shell) in _INSTALLED:
        return True
    _INSTALLED.add(id(shell))

    def after_cell(result: Any) -> None:
        if isinstance(getattr(result, "error_in_exec", None), KeyboardInterrupt):
            stop()

    shell.events.register("post_run_cell", after_cell)
    kernel = getattr(shell, "kernel", None)
    if kernel is not None and hasattr(kernel, "saved_sigint_handler"):
        kernel.saved_sigint_handler = _StopWhileIdle(kernel.saved_sigint_handler, stop)
    return True


class _StopWhileIdle:
    """The kernel's idle SIGINT handler, wrapped: call ``stop``, then do what the kernel's handler did."""

    def __init__(self, previous: Any, stop: Callable[[], None]) -> None:
        self.previous = previous
        self.stop = stop

    def __call__(self, signum: int, frame: Any) -> None:
        self.stop()
        if callable(self.previous):
            self.previous(signum, frame)


def _ipython() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
