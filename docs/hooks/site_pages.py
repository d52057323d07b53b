"""MkDocs hook: add the executed notebooks and the generated API reference pages to the site.

The notebooks are executed once, by ``tests/test_notebooks.py``, which writes each executed
copy into ``build/notebooks/``; this hook renders those copies (with their outputs) and fails
the build when one is missing or older than its source.  The site works offline: each
Explorer output becomes the kernel-free Explorer the kernel embedded in it, every other
widget its picture plus a line saying to run the notebook for the live widget, and no page
loads a script from outside the site (the notebook template's CDN scripts are left out).
The API pages list, module by module, every name in the ``__all__`` of each public package.
A notebook page's table of contents is made from the headings the page shows, so each entry
links to its heading's anchor and keeps the heading's inline code.
"""
from __future__ import annotations

import html
import importlib
import inspect
import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "notebooks"
EXECUTED = ROOT / "build" / "notebooks"
#: Where the offline copies of the executed notebooks are written for the site.
OFFLINE = ROOT / "build" / "site-notebooks"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
EXPLORER_MIME = "application/vnd.rlviz.explorer+html"      # rlviz.widgets.traceview.STANDALONE_MIME
LIVE_NOTE = ("A picture of this widget: run the notebook in Jupyter to use the live one.")
#: A script loaded from outside the site (the notebook template's MathJax, Mermaid, widget manager).
_OUTSIDE_SCRIPT = re.compile(r'<script\b[^>]*\bsrc="(?:https?:)?//[^"]*"[^>]*>\s*</script>'
                             r'|<script\b[^>]*>(?:(?!</script>).)*?import\(\s*"https?://(?:(?!</script>).)*</script>',
                             re.S)
#: A heading with an id in a rendered page: its level, its id and its inner HTML.
_HEADING = re.compile(r'<h([1-6])\b[^>]*\bid="([^"]+)"[^>]*>(.*?)</h\1>', re.S | re.I)

#: The public packages, in the order the API reference lists them.
PUBLIC_PACKAGES = ["rlviz", "rlviz.iter", "rlviz.rollout", "rlviz.rollout.offline", "rlviz.ops", "rlviz.plans", "rlviz.trace",
                   "rlviz.viz", "rlviz.widgets", "rlviz.testing"]


@event_priority(100)                            # before mkdocs-jupyter turns .ipynb files into pages
def on_files(files: Files, config) -> Files:
    for source in sorted(SOURCES.glob("*.ipynb")):
        executed = EXECUTED / source.name
        if not executed.exists() or executed.stat().st_mtime < source.stat().st_mtime:
            raise PluginError(f"{executed.relative_to(ROOT)} is missing or older than {source.name}: "
                              "execute the notebooks first (make docs does: pytest -m notebook "
                              "tests/test_notebooks.py writes the executed copies)")
        offline = OFFLINE / "notebooks" / source.name
        offline.parent.mkdir(parents=True, exist_ok=True)
        offline.write_text(json.dumps(offline_notebook(json.loads(executed.read_text())), indent=1))
        files.append(File(f"notebooks/{source.name}", src_dir=str(OFFLINE),
                          dest_dir=config["site_dir"], use_directory_urls=config["use_directory_urls"]))
    for package in PUBLIC_PACKAGES:
        files.append(File.generated(config, f"api/{package}.md", content=api_page(package)))
    return files


@event_priority(50)                             # before the typeset plugin copies each heading's code into its entry
def on_page_content(page_html: str, page, config, files) -> str:
    """A notebook page's table of contents, made from the headings the page shows.

    mkdocs-jupyter makes it from a Markdown copy of the notebook, whose headings lose their code
    spans: their entries then read "From to weights" and link to anchors the page does not have.
    """
    if page.file.src_uri.endswith(".ipynb"):
        page.toc = get_toc(heading_tokens(page_html))
    return page_html


def heading_tokens(page_html: str) -> list[dict]:
    """The headings of a rendered page as table-of-contents tokens, each nested under the last higher one."""
    tokens: list[dict] = []
    open_headings: list[dict] = []
    for level, anchor, inner in _HEADING.findall(page_html):
        text = re.sub(r"<a\b[^>]*>[^<]*</a>\s*$", "", inner.strip())    # the heading's own permalink
        token = {"level": int(level), "id": anchor, "name": re.sub(r"<[^>]+>", "", text).strip(), "children": []}
        while open_headings and open_headings[-1]["level"] >= token["level"]:
            open_headings.pop()
        (open_headings[-1]["children"] if open_headings else tokens).append(token)
        open_headings.append(token)
    return tokens


def on_post_page(output: str, page, config) -> str:
    """Leave out every script the page would load from outside the site."""
    return _OUTSIDE_SCRIPT.sub("", output)


def offline_notebook(notebook: dict) -> dict:
    """The executed notebook with every widget output replaced by what works without a kernel.

    The widget state is dropped, so the page loads no widget manager.
    """
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = [offline_output(output) for output in cell.get("outputs", [])]
    return notebook


def offline_output(output: dict) -> dict:
    """A widget output as HTML: the embedded Explorer, or the widget's picture and a note."""
    data = output.get("data", {})
    if WIDGET_MIME not in data:
        return output
    if EXPLORER_MIME in data:
        shown = explorer_frame(_text(data[EXPLORER_MIME]))
    elif "image/png" in data:
        shown = (f'<img alt="{html.escape(_text(data.get("text/plain", "widget")))}" '
                 f'src="data:image/png;base64,{_text(data["image/png"]).strip()}">'
                 f'<p class="rlviz-live-note"><em>{LIVE_NOTE}</em></p>')
    else:
        shown = f'<p class="rlviz-live-note"><em>{LIVE_NOTE}</em></p>'
    return {**output, "data": {"text/html": shown}, "metadata": {}}


def explorer_frame(page: str) -> str:
    """The kernel-free Explorer page in a frame of its own (its script and styles stay inside).

    The frame takes the height of what it shows once loaded (900 px until then).
    """
    return (f'<iframe class="rlviz-explorer" title="rlviz Explorer (interactive)" '
            f'style="width: 100%; height: 900px; border: 1px solid #ddd;" '
            f'onload="this.style.height = (this.contentDocument.body.scrollHeight + 40) + \'px\'" '
            f'srcdoc="{html.escape(page, quote=True)}"></iframe>')


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def api_page(package: str) -> str:
    """One Markdown page: the package's docstring, then each module that defines its public names."""
    module = importlib.import_module(package)
    lines = [f"# `{package}`", "", f"::: {package}", "    options:", "      members: false",
             "      show_root_heading: false", "      show_root_toc_entry: false", ""]
    elsewhere = []
    for home, names in _homes(module).items():
        owner = max((p for p in PUBLIC_PACKAGES if home.startswith(p + ".")), key=len, default=package)
        if owner != package:                    # documented on its own package's page
            elsewhere += [f"- `{package}.{name}`: see [`{owner}`]({owner}.md)" for name in names]
            continue
        lines += [f"## `{home}`", "", f"::: {home}", "    options:", "      show_root_heading: false",
                  "      show_root_toc_entry: false", "      members:"]
        lines += [f"        - {name}" for name in names]
        lines.append("")
    if elsewhere:
        lines += ["## Re-exported here", "", *elsewhere, ""]
    return "\n".join(lines)


def _homes(module) -> dict[str, list[str]]:
    """Public name -> the module that defines it, grouped by module (constants: the module holding them)."""
    homes: dict[str, list[str]] = {}
    for name in getattr(module, "__all__", []):
        if name.startswith("__"):
            continue
        value = getattr(module, name)
        if inspect.ismodule(value):
            home = value.__name__
            homes.setdefault(home, [])
            continue
        home = getattr(value, "__module__", None) if callable(value) else None
        if home is None or not home.startswith("rlviz"):
            home = _module_holding(module, name)
        homes.setdefault(home, []).append(name)
    return homes


def _module_holding(package, name: str) -> str:
    """The submodule of ``package`` that assigns ``name`` at its top level (for constants)."""
    import ast

    path = Path(package.__file__)
    candidates = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
    for candidate in candidates:
        tree = ast.parse(candidate.read_text())
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                relative = candidate.relative_to(path.parents[len(package.__name__.split("."))]).with_suffix("")
                parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
                return ".".join(parts)
    raise PluginError(f"{package.__name__}.__all__ names {name!r}, but no module of it assigns it")
