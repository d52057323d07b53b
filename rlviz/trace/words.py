"""Counts in words: "1 process", "48 calls".  Every count-and-noun text rlviz writes goes through ``counted``.

The Explorer's front end has its twin, ``counted`` in ``explorer_dom.js``.
"""
from __future__ import annotations

__all__ = ["counted"]

#: Nouns whose plural is not the noun plus "s" or "es".
IRREGULAR = {"child": "children", "entry": "entries", "policy": "policies", "reply": "replies"}


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural unless the count is exactly one; thousands comma-grouped.

    Examples
    --------
    >>> counted(1, "process"), counted(48, "call"), counted(1234, "match"), counted(0, "policy")
    ('1 process', '48 calls', '1,234 matches', '0 policies')
    """
    if count == 1:
        return f"1 {noun}"
    return f"{count:,} {plural or plural_of(noun)}"


def plural_of(noun: str) -> str:
    """The plural of an English ``noun`` as rlviz uses them (``process`` -> ``processes``)."""
    if noun in IRREGULAR:
        return IRREGULAR[noun]
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
