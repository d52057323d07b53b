"""``write_html``: the Explorer as one self-contained HTML file, data embedded, no network request.

The viewer sits on top; the static report (per-node table, matplotlib
pictures) follows below it as the printable part.
"""
from __future__ import annotations

import base64
import json
import zlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from rlviz.trace import Trace
from rlviz.viz.canvas import check_trace
from rlviz.viz.explorer_stream import encode_trace

__all__ = ["write_html", "explorer_html", "explorer_js", "embed_json", "encode_blob", "decode_blob", "BUNDLE"]

#: The shipped front end, in ``rlviz/viz/static``.
BUNDLE = "explorer.bundle.js"

_PAGE_CSS = "body { font-family: system-ui, -apple-system, Segoe UI, sans-serif; margin: 1.2em; color: #222; }"


@lru_cache(maxsize=1)
def explorer_js() -> str:
    """The Explorer's front end as one ES module: the bundle esbuild built from ``static/*.js``.

    The widget uses it as its ``_esm``; the standalone file inlines it.  The
    bundle is built by ``make bundle`` (``js/build.mjs``) and shipped in the
    package, so installing rlviz never needs node; a test checks it is the
    build of the sources.

    Returns
    -------
    str
        JavaScript source exporting ``mountExplorer`` and a default ``{render}``.
    """
    return (resources.files("rlviz.viz") / "static" / BUNDLE).read_text(encoding="utf-8")


def embed_json(value: object) -> str:
    """``value`` as JSON safe inside an HTML ``<script>`` element (no ``<``, ``>`` or ``&``).

    Parameters
    ----------
    value : object
        JSON-ready data.

    Returns
    -------
    str
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def explorer_html(trace: Trace, above: str = "", below: str = "", title: str = "rlviz trace explorer",
                  css: str = "", view: dict | None = None) -> str:
    """The standalone page as a string (see ``write_html``).

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    above, below : str, default ""
        HTML placed over and under the viewer (already escaped; the report's
        heading and its static part).
    title : str, default "rlviz trace explorer"
        Page title (escaped).
    css : str, default ""
        Extra style rules for ``above`` and ``below``.
    view : dict, optional
        What the page shows first, as ``TraceView``'s traits: ``window``
        (ms since the trace start), ``selected``, ``op``, ``where``,
        ``skip_not_ready``; missing keys keep the defaults (everything).

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace or ``view`` is not a dict.
    ValueError
        If ``view`` has a key other than those listed.
    """
    import html

    trace = check_trace(trace, "explorer_html")
    view = _check_view(view)
    payload = encode_trace(trace)
    blob = b"".join(payload.buffers)
    script = explorer_js() + _BOOT
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{html.escape(title)}</title><style>{_PAGE_CSS}{css}</style></head><body>",
        above, f'<div id="rlviz-root">{_OPENING}<noscript>The interactive viewer needs JavaScript; '
        "the static report below does not.</noscript></div>",
        # the script before the data: a module runs once the page is parsed, so a file cut short in its data
        # still runs it, and it says the file is damaged (the note above stays if the script itself was cut)
        f'<script type="module">{script}</script>',
        f'<script type="application/json" id="rlviz-meta">{embed_json(payload.meta)}</script>',
        f'<script type="application/json" id="rlviz-view">{embed_json(view)}</script>',
        f'<script type="application/octet-stream" id="rlviz-data" data-adler32="{zlib.adler32(blob)}">'
        f"{encode_blob(blob)}</script>",
        below, "</body></html>", ""])


def write_html(trace: Trace, path: str | Path, title: str = "rlviz trace explorer") -> Path:
    """Write the Explorer with ``trace`` embedded as one HTML file that works offline from ``file://``.

    Zoom, hover, click and step need no kernel and no network: the viewer's
    JavaScript is inlined and the columns are embedded as base64 of the same
    binary format the notebook widget receives.  Every text is escaped or set
    as text.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    path : str or Path
        The HTML file to write.
    title : str, default "rlviz trace explorer"
        Page title (escaped).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace.
    OSError
        If ``path`` cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rlviz.viz.examples import sharded_trace
    >>> out = write_html(sharded_trace(), pathlib.Path(tempfile.mkdtemp()) / "t.html")
    >>> page = out.read_text()
    >>> "mountExplorer" in page, 'src="http' in page or 'href="http' in page
    (True, False)
    """
    trace = check_trace(trace, "write_html")
    path = Path(path)
    path.write_text(explorer_html(trace, title=title), encoding="utf-8")
    return path


_BOOT = """
{
  const host = document.getElementById("rlviz-root");
  try {
    window.rlvizExplorer = mountSaved(host, document);
  } catch (error) {
    const box = document.createElement("pre");
    box.dataset.rlviz = "error";
    box.textContent = "The Explorer failed: " + error.message;
    host.replaceChildren(box);
  }
}
"""

#: What the page's root says until the viewer replaces it: if it stays, the viewer's script never ran.
_OPENING = ('<p data-rlviz="opening">Opening the trace… If this stays, the viewer\'s script did not run: the file '
            "may be cut short (write it again with rlviz.viz.write_html), or JavaScript is off.</p>")


_VIEW_KEYS = ("window", "selected", "op", "where", "skip_not_ready")


def _check_view(view: dict | None) -> dict:
    if view is None:
        return {}
    if not isinstance(view, dict):
        raise TypeError(f"view must be a dict of {', '.join(_VIEW_KEYS)}, not {type(view).__name__}")
    unknown = sorted(set(view) - set(_VIEW_KEYS))
    if unknown:
        raise ValueError(f"view has an unknown key {unknown[0]!r}; it accepts {', '.join(_VIEW_KEYS)}")
    return dict(view)


def encode_blob(data: bytes) -> str:
    """``data`` as the text a standalone page embeds: base85 (RFC 1924's alphabet with ``.`` for ``<``).

    Five characters per four bytes (base64 takes six per four and a half),
    and no ``<``, so the text can never open a tag or a comment inside its
    ``<script>`` element.  ``base85Bytes`` in the page's script reads it.

    Examples
    --------
    >>> encode_blob(bytes([1, 253, 241, 3])), decode_blob(encode_blob(b"rlviz"))
    ('0sZj.', b'rlviz')
    """
    return base64.b85encode(data).decode("ascii").translate(_TO_PAGE)


def decode_blob(text: str) -> bytes:
    """The bytes ``encode_blob`` turned into ``text``."""
    return base64.b85decode(text.translate(_FROM_PAGE))


_TO_PAGE, _FROM_PAGE = str.maketrans("<", "."), str.maketrans(".", "<")
