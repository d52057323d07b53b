"""Writing a benchmark's table into its docs page, between ``<!-- bench:start -->`` and ``<!-- bench:end -->``."""
from __future__ import annotations

from pathlib import Path

__all__ = ["DOCS", "write_table"]

DOCS = Path(__file__).resolve().parent.parent / "docs"
_START, _END = "<!-- bench:start -->", "<!-- bench:end -->"


def write_table(page: Path, table: str) -> None:
    """Replace what lies between the bench markers of ``page``; leave a page without markers alone."""
    if not page.exists():
        return
    text = page.read_text()
    if _START in text and _END in text:
        head, rest = text.split(_START, 1)
        tail = rest.split(_END, 1)[1]
        page.write_text(f"{head}{_START}\n{table}\n{_END}{tail}")
