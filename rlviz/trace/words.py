"""Counts in words: "1 process", "48 calls".  Every count-and-noun text rlviz writes goes through ``counted``.

The Explorer's front end has its twin, ``counted`` in ``explorer_dom.js``.
"""
from __future__ import annotations

from collections.abc import Callable

__all__ = ["counted"]

#: Nouns whose plural is not the noun plus "s" or "es".
IRREGULAR = {"child": "children", "entry": "entries", "policy": "policies", "reply": "replies"}


def counted(count: int, noun: str, plural: str | None = None, *, shown: Callable[[int], str] = "{:,}".format) -> str:
    """``count`` and ``noun``, the noun plural unless the count is exactly one; ``shown`` writes the number
    (comma-grouped by default).

    Examples
    --------
    >>> counted(1, "process"), counted(48, "call"), counted(1234, "match"), counted(0, "policy")
    ('1 process', '48 calls', '1,234 matches', '0 policies')
    """
    return f"{shown(count)} {noun if count == 1 else plural or plural_of(noun)}"


def plural_of(noun: str) -> str:
    """The plural of an English ``noun`` as rlviz uses them (``process`` -> ``processes``)."""
    if noun in IRREGULAR:
        return IRREGULAR[noun]
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
