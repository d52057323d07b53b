"""Short summaries of the values flowing through a dataflow, stored as two ints.

Recording must be cheap, so a value is reduced to ``(kind, number)`` on the
hot path and turned into text such as ``"int 3"`` or ``"list[2]"`` only when a
trace is read.  Objects may define ``__rlviz_summary__() -> str`` to choose
their own text (SampleBatch does).
"""
from __future__ import annotations

import struct
import threading

__all__ = ["TextTable", "summarize", "format_summary", "short_text", "KINDS", "SIZED_NAME_MASK",
           "KIND_NONE", "KIND_INT", "KIND_FLOAT", "KIND_BOOL", "KIND_TEXT", "KIND_SIZED"]

KIND_NONE, KIND_INT, KIND_FLOAT, KIND_BOOL, KIND_TEXT, KIND_SIZED = KINDS = tuple(range(6))

_LENGTH_SHIFT = 24
#: A KIND_SIZED number is ``(length << 24) | index of its type name``; this mask takes the index.
SIZED_NAME_MASK = (1 << _LENGTH_SHIFT) - 1
_MAX_TEXT = 60              # longer summaries are cut, so the table stays small
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


class TextTable:
    """Interned strings, so a repeated summary is stored once and named by index.

    Bounded: past ``capacity`` distinct strings new ones share one overflow
    entry instead of growing the table.
    """

    OVERFLOW = "(summary table full)"

    def __init__(self, capacity: int = 65536) -> None:
        self.texts: list[str] = [self.OVERFLOW]
        self._index: dict[str, int] = {self.OVERFLOW: 0}
        self._capacity = capacity
        self._lock = threading.Lock()

    def intern(self, text: str) -> int:
        """Index of ``text``, adding it if new (and if there is room); safe from several threads."""
        index = self._index.get(text)
        if index is None:
            with self._lock:
                index = self._index.get(text)
                if index is None:
                    if len(self.texts) >= self._capacity:
                        return 0
                    index = len(self.texts)
                    self.texts.append(text)
                    self._index[text] = index
        return index


def summarize(value: object, table: TextTable) -> tuple[int, int]:
    """Reduce ``value`` to ``(kind, number)``; cheap for the common cases."""
    kind = type(value)
    if kind is int:
        if _INT64_MIN <= value <= _INT64_MAX:
            return KIND_INT, value
        return KIND_TEXT, table.intern("int (large)")
    if kind is float:
        return KIND_FLOAT, struct.unpack("<q", struct.pack("<d", value))[0]
    if kind is bool:
        return KIND_BOOL, int(value)
    if value is None:
        return KIND_TEXT, table.intern("None")
    custom = getattr(value, "__rlviz_summary__", None)
    if custom is not None:
        return KIND_TEXT, table.intern(str(custom())[:_MAX_TEXT])
    if kind is str:
        return KIND_TEXT, table.intern(("str " + repr(value))[:_MAX_TEXT])
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        dtype = getattr(value, "dtype", "")
        return KIND_TEXT, table.intern(f"{kind.__name__}{shape} {dtype}"[:_MAX_TEXT])
    try:
        length = len(value)  # type: ignore[arg-type]
    except TypeError:
        return KIND_TEXT, table.intern(kind.__name__)
    return KIND_SIZED, (length << _LENGTH_SHIFT) | table.intern(kind.__name__)


def format_summary(kind: int, number: int, texts: list[str]) -> str | None:
    """The text of a ``(kind, number)`` summary; None for no summary."""
    if kind == KIND_INT:
        return f"int {number}"
    if kind == KIND_TEXT:
        return texts[number]
    if kind == KIND_SIZED:
        return f"{texts[number & SIZED_NAME_MASK]}[{number >> _LENGTH_SHIFT}]"
    if kind == KIND_FLOAT:
        return f"float {struct.unpack('<d', struct.pack('<q', number))[0]:.6g}"
    if kind == KIND_BOOL:
        return f"bool {bool(number)}"
    return None


def short_text(text: str, limit: int = 22) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for on-figure labels.

    Parameters
    ----------
    text : str
        The full text (the long form belongs in tooltips and tables).
    limit : int, default 22
        Most characters kept, ellipsis included.

    Returns
    -------
    str
        ``text`` itself when it fits.
    """
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"
