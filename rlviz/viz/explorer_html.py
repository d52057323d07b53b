"""``write_html``: the Explorer as one self-contained HTML file, data embedded, no network request.

The viewer sits on top; the static report (per-node table, matplotlib
pictures) follows below it as the printable part.  A diff of two runs
(``rlviz.diff``) is saved the same way: one stream per run, mounted as two
linked Explorers (``diff_html``); a notebook shows that page in a frame
(``diff_frame``).
"""
from __future__ import annotations

import base64
import json
import zlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from rlviz.trace import Trace
from rlviz.viz.canvas import check_trace
from rlviz.viz.explorer_diff import ComparedRuns, diff_payloads
from rlviz.viz.explorer_long import LongPayload, encode_long

__all__ = ["write_html", "explorer_html", "diff_html", "diff_frame", "explorer_js", "embed_json", "encode_blob",
           "decode_blob", "BUNDLE"]

#: The shipped front end, in ``rlviz/viz/static``.
BUNDLE = "explorer.bundle.js"

_TITLE = "rlviz trace explorer"
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
        JavaScript source exporting the mounts pages call (``mountSaved``,
        ``mountSavedDiff``, ``mountLong``) and the widget's default ``{render}``.
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


def explorer_html(trace: Trace, above: str = "", below: str = "", title: str = _TITLE,
                  css: str = "", view: dict | None = None) -> str:
    """The standalone page as a string (see ``write_html``).

    Every trace is saved as a long trace (``rlviz.viz.explorer_long``): an
    overview the page draws at once, and detail chunks, each in its own
    element, that it inflates when its window needs them.  A short trace is
    a long trace of one chunk, which the page opens on.

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
        ``selected`` is a trace index on a long trace's page too: the page
        loads the detail chunk holding it.
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
    trace = check_trace(trace, "explorer_html")
    view = _check_view(view)
    return _page(title, css, above, _long_elements(encode_long(trace), view), _BOOT, below)


def diff_html(compared: ComparedRuns, title: str | None = None) -> str:
    """The standalone page of two compared runs: one Explorer per run, one above the other, linked.

    Each run is embedded as ``write_html`` embeds a trace (``encode_long``:
    its overview and detail chunks, each in its own checked element, ids
    suffixed by the run's number) and its lanes are labelled with its name.
    Zoom, pan, selection and filter of one run move the other, in ms since
    each run's own start; the first divergence is marked in each run
    (``[data-rlviz=divergence]``) and a button brings both runs to it.  The
    text report (``repr``) follows as the printable part.

    Parameters
    ----------
    compared : TraceDiff
        What ``rlviz.diff(a, b)`` returned.
    title : str, optional
        Page title (escaped); by default "rlviz: <first> vs <second>".

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``compared`` is not what ``rlviz.diff`` returns.
    """
    import html

    runs = diff_payloads(_check_compared(compared, "diff_html"))
    data = [f'<script type="application/json" id="rlviz-runs">'
            f'{embed_json([{"name": run.name, "divergence": run.divergence} for run in runs])}</script>']
    for k, run in enumerate(runs):
        data += _long_elements(run.long, None, f"-{k}")
    below = f'<h2>Report</h2><pre class="rlviz-report">{html.escape(repr(compared))}</pre>'
    return _page(title or f"rlviz: {compared.names[0]} vs {compared.names[1]}", _REPORT_CSS, "", data,
                 _DIFF_BOOT, below)


def diff_frame(compared: ComparedRuns) -> str:
    """``diff_html``'s page inside an ``<iframe srcdoc>``: what a notebook shows for a ``TraceDiff``.

    The frame keeps the page's ids and style apart from the notebook's and
    needs no kernel once drawn.

    Parameters
    ----------
    compared : TraceDiff
        What ``rlviz.diff(a, b)`` returned.

    Returns
    -------
    str
        One ``<iframe>`` element, its page escaped into ``srcdoc``.

    Raises
    ------
    TypeError
        If ``compared`` is not what ``rlviz.diff`` returns.
    """
    import html

    page = diff_html(_check_compared(compared, "diff_frame"))
    height = sum(_run_height(trace) for trace in compared.traces) + _FRAME_EXTRA_PX
    return (f'<iframe title="{html.escape(f"{compared.names[0]} vs {compared.names[1]}")}" '
            f'style="width: 100%; height: {height}px; border: 0" srcdoc="{html.escape(page, quote=True)}"></iframe>')


def write_html(trace: Trace | ComparedRuns, path: str | Path, title: str | None = None) -> Path:
    """Write the Explorer with ``trace`` embedded as one HTML file that works offline from ``file://``.

    Zoom, hover, click and step need no kernel and no network: the viewer's
    JavaScript is inlined and the columns are embedded (base85) as a long
    trace's overview and packed detail chunks of the same binary format the
    notebook widget receives (``rlviz.viz.explorer_long``).  Every text is escaped or set
    as text.  Given a diff of two runs (``rlviz.diff(a, b)``), the file holds
    both runs, one above the other, linked (``diff_html``).

    Parameters
    ----------
    trace : Trace or TraceDiff
        The recorded trace, or two runs compared by ``rlviz.diff``.
    path : str or Path
        The HTML file to write.
    title : str, optional
        Page title (escaped); by default "rlviz trace explorer" for a trace
        and "rlviz: <first> vs <second>" for a diff.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    TypeError
        If ``trace`` is neither a Trace nor a TraceDiff, or ``path`` is not a path.
    OSError
        If ``path`` cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rlviz.viz.examples import sharded_trace
    >>> out = write_html(sharded_trace(), pathlib.Path(tempfile.mkdtemp()) / "t.html")
    >>> page = out.read_text()
    >>> "mountSaved(host, document)" in page, 'src="http' in page or 'href="http' in page
    (True, False)
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"write_html's path must be a str or Path, not {type(path).__name__}; "
                        f"hint: write_html(trace, 'run.html')")
    if isinstance(trace, Trace):
        page = explorer_html(trace, title=title or _TITLE)
    elif isinstance(trace, ComparedRuns):
        page = diff_html(trace, title=title)
    else:
        raise TypeError(f"write_html needs a Trace (from rlviz.record() or Trace.load) or a TraceDiff "
                        f"(from rlviz.diff(a, b)), not {type(trace).__name__}")
    path = Path(path)
    path.write_text(page, encoding="utf-8")
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


_DIFF_BOOT = """
{
  const host = document.getElementById("rlviz-root");
  try {
    window.rlvizDiff = mountSavedDiff(host, document);
  } catch (error) {
    const box = document.createElement("pre");
    box.dataset.rlviz = "error";
    box.textContent = "The Explorer failed: " + error.message;
    host.replaceChildren(box);
  }
}
"""

_REPORT_CSS = ".rlviz-report { font-size: 12px; overflow-x: auto; }"
# The notebook frame's height: per run, its heading, toolbar, ruler and lower panes, plus its rows and lane gaps.
_RUN_CHROME_PX, _ROW_PX, _LANE_GAP_PX, _FRAME_EXTRA_PX, _MAX_ROWS_PX = 520, 13, 7, 60, 420


def _page(title: str, css: str, above: str, data: list[str], boot: str, below: str) -> str:
    """One standalone page: the viewer's root, the bundle and its ``boot`` script, then the embedded ``data``.

    The script comes before the data: a module runs once the page is parsed,
    so a file cut short in its data still runs it and says the file is
    damaged (the opening note stays if the script itself was cut).
    """
    import html

    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{html.escape(title)}</title><style>{_PAGE_CSS}{css}</style></head><body>",
        above, f'<div id="rlviz-root">{_OPENING}<noscript>The interactive viewer needs JavaScript; '
        "the static report below does not.</noscript></div>",
        f'<script type="module">{explorer_js() + boot}</script>', *data, below, "</body></html>", ""])


def _check_compared(compared: object, caller: str) -> ComparedRuns:
    if not isinstance(compared, ComparedRuns):
        raise TypeError(f"{caller} needs what rlviz.diff(a, b) returns (a TraceDiff), not {type(compared).__name__}")
    return compared


def _run_height(trace: Trace) -> int:
    """About how tall one run's Explorer is, in pixels (its timeline scrolls past ``_MAX_ROWS_PX``)."""
    wheres = {node.where for node in trace.nodes}
    rows = min(len(trace.nodes) * _ROW_PX + len(wheres) * _LANE_GAP_PX, _MAX_ROWS_PX)
    return _RUN_CHROME_PX + rows


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

    The same text as ``base64.b85encode``, in numpy: its Python loop took
    about 3 s of a 16 MB page (400k events) on an idle core.
    """
    tail = len(data) % 4
    padded = np.frombuffer(bytes(data) + b"\0" * (-len(data) % 4), dtype=">u4").astype(np.uint32)
    digits = np.empty((len(padded), 5), np.uint8)
    for place in range(4, -1, -1):
        padded, digits[:, place] = np.divmod(padded, 85)
    text = _PAGE_ALPHABET[digits].tobytes()
    return (text[:len(text) - 4 + tail] if tail else text).decode("ascii")


def decode_blob(text: str) -> bytes:
    """The bytes ``encode_blob`` turned into ``text``."""
    return base64.b85decode(text.translate(_FROM_PAGE))


_FROM_PAGE = str.maketrans(".", "<")
#: RFC 1924's base85 digits as ``base64.b85encode`` writes them, with ``.`` for ``<``: digit k is byte k.
_PAGE_ALPHABET = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;.=>?@^_`{|}~",
                               dtype=np.uint8)


def _long_elements(long: LongPayload, view: dict | None, suffix: str = "") -> list[str]:
    """A long trace's elements: its meta, the view (a diff's run has none), the packed overview and each packed
    detail chunk in its own; ``suffix`` ends each id (a diff page's ``-0`` and ``-1``: ``rlviz-detail-1-4``)."""
    shown = [] if view is None else [f'<script type="application/json" id="rlviz-view">{embed_json(view)}</script>']
    return [f'<script type="application/json" id="rlviz-meta{suffix}">{embed_json(long.meta)}</script>', *shown,
            _packed_element(f"rlviz-overview{suffix}", long.overview),
            *(_packed_element(f"rlviz-detail{suffix}-{k}", chunk) for k, chunk in enumerate(long.detail))]


def _packed_element(element_id: str, data: bytes) -> str:
    """An element holding packed bytes (base85) with their Adler-32 checksum for the page to check."""
    return (f'<script type="application/octet-stream" id="{element_id}" data-adler32="{zlib.adler32(data)}">'
            f"{encode_blob(data)}</script>")
