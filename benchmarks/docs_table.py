"""Writing a benchmark's table into its docs page, between ``<!-- bench:NAME:start -->`` and ``<!-- bench:NAME:end -->``.

Every figure in docs/ comes from a script through here, so none is typed by
hand and none goes stale silently: a table's text says when and under what
load it was measured.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["DOCS", "write_table", "markers"]

DOCS = Path(__file__).resolve().parent.parent / "docs"


def markers(name: str | None = None) -> tuple[str, str]:
    """The start and end markers of table ``name`` (``None``: the page's one unnamed table)."""
    tag = "bench" if name is None else f"bench:{name}"
    return f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"


def write_table(page: Path, table: str, name: str | None = None) -> None:
    """Replace what lies between the markers of table ``name`` in ``page``.

    Raises
    ------
    ValueError
        If ``page`` lacks those markers: a figure with nowhere to go is a
        mistake to see, not to skip.
    """
    start, end = markers(name)
    text = page.read_text()
    if start not in text or end not in text:
        raise ValueError(f"{page} has no {start} ... {end} markers; add them where the table belongs")
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    page.write_text(f"{head}{start}\n{table}\n{end}{tail}")
