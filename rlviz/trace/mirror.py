"""A copy of another process's recorder, kept current by small increments.

The driver holds one ``RecorderMirror`` per tracked actor and feeds it
``Recorder.export_since`` answers during a ``record()`` block, so an actor
that dies abruptly (killed, crashed, its node lost) keeps in the trace what
it recorded up to the last increment, and each collection moves only what
is new.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable

from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import last_end_ns, released_stub, stub_events

__all__ = ["RecorderMirror"]


class RecorderMirror:
    """What one remote recorder held at its latest increment, in ``Recorder.export()`` form.

    The mirror never holds more than the recorder did: chunks the recorder
    evicted are dropped here too, and already counted in its ``dropped``.
    """

    def __init__(self) -> None:
        self.cursor = ExportCursor()
        self.lost = False               # the process died: what it recorded after the cursor is gone
        self._chunks: deque[tuple[int, bytes]] = deque()
        self._open_rows = b""
        self._texts: list[str] = []
        self._head: dict = {}
        self._unreleased = 0            # sequence number of the first chunk not yet released

    def update(self, increment: dict) -> None:
        """Apply one ``Recorder.export_since(self.cursor)`` answer.

        Raises
        ------
        ValueError
            If ``increment`` was not taken at this mirror's cursor (applying
            it would duplicate or skip texts).
        """
        if increment["texts_from"] != self.cursor.texts:
            raise ValueError(f"an increment read from text {increment['texts_from']} cannot extend a mirror "
                             f"holding {self.cursor.texts} texts; ask export_since(mirror.cursor)")
        first = increment["cursor"].chunks - len(increment["chunks"])
        self._chunks.extend(zip(range(first, increment["cursor"].chunks), increment["chunks"]))
        while self._chunks and self._chunks[0][0] < increment["held_from"]:
            self._chunks.popleft()
        self._open_rows = increment["open_rows"]
        self._texts.extend(increment["texts"])
        self._head = {key: increment.get(key) for key in ("tag", "pid", "where", "dropped", "gap_ns", "nodes")}
        self.cursor = increment["cursor"]

    def forget_ended_before(self, end_ns: int) -> int:
        """Let go of the oldest mirrored chunks whose every event ended before ``end_ns`` (the recorder's clock).

        ``Recorder.forget_ended_before``'s counterpart, for a driver that keeps
        only a window of events; returns how many chunks went.
        """
        forgotten = 0
        while self._chunks and last_end_ns(self._chunks[0][1]) < end_ns:
            self._chunks.popleft()
            forgotten += 1
        return forgotten

    def release_taken(self, taken: Callable[[memoryview], bool]) -> int:
        """Keep only a stub of each mirrored chunk ``taken`` says a reader holds whole (``Recorder.release_taken``
        does the same for this process's buffer); return how many were released."""
        released = 0
        first = self._chunks[0][0] if self._chunks else 0
        for at in range(max(self._unreleased - first, 0), len(self._chunks)):
            sequence, chunk = self._chunks[at]
            if stub_events(chunk) is None:
                if not taken(memoryview(chunk).cast("B")):
                    break
                self._chunks[at] = (sequence, released_stub(chunk))
                released += 1
            self._unreleased = sequence + 1
        return released

    @property
    def nbytes(self) -> int:
        """Bytes of rows the mirror holds: its chunks (stubs of those a store took whole) and the open rows."""
        return sum(len(chunk) for _, chunk in self._chunks) + len(self._open_rows)

    @property
    def chunks_held(self) -> int:
        """How many handed-over chunks the mirror holds (the recorder's open chunks aside)."""
        return len(self._chunks)

    @property
    def has_data(self) -> bool:
        """True once an increment has arrived (before that the mirror knows nothing of the recorder)."""
        return bool(self._head)

    def export(self) -> dict:
        """The mirrored recording, as ``Recorder.export()`` returns it (a fresh dict each call)."""
        export = self.export_parts()
        export["data"] = b"".join(export.pop("parts"))
        return export

    def export_parts(self) -> dict:
        """``export()`` without joining the rows: ``parts`` lists each held chunk, then the open rows.

        ``TraceStore.add_export`` reads this form too, and skips a chunk it has
        taken whole by its length alone: a pull then costs the new rows, not a
        copy of everything held.
        """
        if not self._head:
            raise ValueError("this mirror has had no increment yet, so it mirrors no recorder")
        return {**self._head, "nodes": list(self._head["nodes"]), "texts": list(self._texts),
                "parts": [*(chunk for _, chunk in self._chunks), self._open_rows], "offset_ns": 0}
