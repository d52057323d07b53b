"""Runnable demos, one linear file each (CleanRL style); ``rlviz demo`` runs them."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["wrote_list"]


def wrote_list(out_dir: Path, files: Sequence[tuple[Path, str]]) -> str:
    """The "wrote" list a demo prints at its end: the folder, then each file's name and what it is, aligned.

    Parameters
    ----------
    out_dir : Path
        The folder the files were written to.
    files : sequence of (Path, str)
        Each file and a few words on what it is, in the order to list them.

    Returns
    -------
    str
        The lines, the descriptions starting in one column.

    Examples
    --------
    >>> print(wrote_list(Path("/tmp/out"), [(Path("a.rlviz"), "rlviz trace"),
    ...                                     (Path("a.chrome.json.gz"), "Chrome trace")]))
    wrote /tmp/out/
      a.rlviz           rlviz trace
      a.chrome.json.gz  Chrome trace
    """
    width = max((len(path.name) for path, _ in files), default=0)
    return "\n".join([f"wrote {out_dir.resolve()}/", *(f"  {path.name:<{width}}  {what}" for path, what in files)])
