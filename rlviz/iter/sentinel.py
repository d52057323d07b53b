"""``NextValueNotReady``: the value a source yields when it has nothing yet.

"Not ready" is data, not an exception: every transform passes it through, and
a ``for_each`` function may return it to ask to be called again (back-pressure).
"""
from __future__ import annotations

__all__ = ["NextValueNotReady", "NOT_READY"]


class NextValueNotReady:
    """Marker yielded instead of an item when a non-blocking source has none ready.

    Unlike Ray's ``_NextValueNotReady`` this is not an Exception subclass: it
    is only ever yielded, never raised.  Test with ``isinstance``.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "NextValueNotReady()"

    def __reduce__(self):
        return (_not_ready, ())


def _not_ready() -> NextValueNotReady:
    return NOT_READY


#: The shared instance rlviz yields.
NOT_READY = NextValueNotReady()
