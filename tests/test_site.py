"""The documentation site works offline: notebook pages show live, kernel-free Explorers and no blank output.

``test_offline_outputs_*`` check the site hook's conversion on a notebook executed here (no Ray).
``test_built_site_*`` build the site (strict, into ``site/``) from the executed notebooks that
``tests/test_notebooks.py`` wrote, open every notebook page from ``file://`` in
headless chromium with every request outside the site aborted, and check that
each Explorer output is drawn and zooms, that no output is blank, that every
widget shown as a note shows its picture too, and that no page asked for
anything outside the site.  ``test_built_site_navigation_*`` follows every
navigation link of every page from ``file://``: each opens a page, never a
directory listing, the headings' code survives in the table of contents, and
search finds pages.  ``test_built_site_toc_matches_headings_and_anchors_exist`` reads every page's
HTML: each table-of-contents entry reads as its heading does (inline code kept) and every link
into the site lands on an anchor that exists.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from browser_harness import chromium
from explorer_checks import shot, wait_ready, wheel_zoom

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXECUTED = ROOT / "build" / "notebooks"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _hook():
    spec = importlib.util.spec_from_file_location("site_pages", ROOT / "docs" / "hooks" / "site_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _execute(cells: list[str]) -> dict:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "MPLBACKEND"}
    env["RLVIZ_EMBED_EXPLORER"] = "1"
    NotebookClient(notebook, timeout=300, kernel_name="python3").execute(env=env)
    return json.loads(nbformat.writes(notebook))


@pytest.mark.notebook
def test_offline_outputs_replace_every_widget_with_its_explorer_or_its_picture():
    from rlviz.widgets.traceview import STANDALONE_MIME

    hook = _hook()
    assert hook.EXPLORER_MIME == STANDALONE_MIME
    executed = _execute(["import rlviz\nfrom rlviz.viz.examples import sharded_trace\n"
                         "rlviz.show(sharded_trace(), window=(0.0, 0.05))",
                         "from rlviz.widgets import RoundRobinPlayground\nRoundRobinPlayground(weights=[2, 1])",
                         "print('plain output stays')"])
    explorer, playground, printed = (cell["outputs"] for cell in executed["cells"])
    assert WIDGET_MIME in explorer[0]["data"] and STANDALONE_MIME in explorer[0]["data"]
    offline = hook.offline_notebook(executed)
    explorer, playground, printed2 = (cell["outputs"] for cell in offline["cells"])
    assert list(explorer[0]["data"]) == ["text/html"] and explorer[0]["data"]["text/html"].startswith(
        '<iframe class="rlviz-explorer"')
    assert '&quot;window&quot;:[0.0,0.05]' in explorer[0]["data"]["text/html"], "opens where the view stood"
    (picture,) = re.findall(r'src="data:image/png;base64,([^"]+)"', playground[0]["data"]["text/html"])
    assert len(picture) > 1000 and hook.LIVE_NOTE in playground[0]["data"]["text/html"]
    assert printed2 == printed
    assert "widgets" not in offline["metadata"]


def test_outside_scripts_are_left_out_of_pages():
    hook = _hook()
    page = ('<script src="https://cdnjs.cloudflare.com/mathjax.js"> </script><p>kept</p>'
            '<script type="module">\n const mermaid = (await import("https://cdn.jsdelivr.net/m.mjs")).default;'
            '\n</script><script src="../assets/local.js"></script>')
    assert hook.on_post_page(page, None, None) == '<p>kept</p><script src="../assets/local.js"></script>'


@pytest.fixture(scope="module")
def built_site():
    """The site, built strictly into ``site/`` from the executed notebooks (skipped when they were not executed).

    This is the site ``make test`` leaves behind: it is built here, not again after the tests."""
    stale = [p.name for p in NOTEBOOKS if not (EXECUTED / p.name).exists()
             or (EXECUTED / p.name).stat().st_mtime < p.stat().st_mtime]
    if stale:
        pytest.skip(f"no fresh executed copy of {', '.join(stale)}: run pytest -m notebook tests/test_notebooks.py")
    site = ROOT / "site"                  # where `make site` writes: `make test` builds the site here, once
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    return site


@pytest.mark.browser
@pytest.mark.notebook
def test_built_site_notebook_pages_work_offline(built_site, tmp_path):
    outside = [str(p) for p in built_site.rglob("*.html")
               if re.search(r'<script[^>]*src="(https?:)?//|<link[^>]*href="(https?:)?//[^"]*(css|font)',
                            p.read_text(errors="replace"))]
    assert outside == [], f"pages that load scripts, styles or fonts from outside the site: {outside}"
    artifacts = tmp_path / "artifacts"
    print(f"screenshots in {artifacts}")
    asked, explorers = [], 0
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "about:"))
                      else (asked.append(route.request.url), route.abort()))
        for notebook in NOTEBOOKS:
            page = context.new_page()
            page.set_default_timeout(120_000)
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto((built_site / "notebooks" / f"{notebook.stem}.html").as_uri())
            page.wait_for_load_state("load")
            outputs = page.locator(".jp-OutputArea-output")
            assert outputs.count() > 0, f"{notebook.name}: no outputs on the page"
            blank = [k for k in range(outputs.count()) if not _shows_something(outputs.nth(k))]
            assert blank == [], f"{notebook.name}: outputs {blank} show nothing: " + " | ".join(
                outputs.nth(k).evaluate("o => o.outerHTML.slice(0, 300)") for k in blank)
            assert page.locator(f"text={_hook().LIVE_NOTE}").count() == page.locator(
                ".rlviz-live-note").count()
            unpictured = page.locator(".rlviz-live-note").evaluate_all(
                "notes => notes.filter(n => !(n.previousElementSibling && n.previousElementSibling.tagName === 'IMG'"
                " && n.previousElementSibling.naturalHeight > 20)).length")
            assert unpictured == 0, f"{notebook.name}: {unpictured} widget outputs show a note but no picture"
            for k in range(page.locator("iframe.rlviz-explorer").count()):
                frame_element = page.locator("iframe.rlviz-explorer").nth(k)
                frame_element.scroll_into_view_if_needed()
                root = wait_ready(frame_element.content_frame)
                wheel_zoom(page, root)
                shot(frame_element, artifacts, f"{notebook.stem}-{k}")
                explorers += 1
            assert errors == [], f"{notebook.name}: the page raised {errors}"
            page.close()
        context.close()
    assert asked == [], f"the site asked outside itself for {asked}"
    assert explorers >= 5, f"only {explorers} Explorer outputs on the notebook pages"


def _shows_something(output) -> bool:
    """An output shows something: text, a picture or a frame with content."""
    if output.locator("img, iframe, svg, canvas").count():
        return output.locator("img, iframe, svg, canvas").first.bounding_box()["height"] > 20
    return bool(output.inner_text().strip())


#: The page's navigation: the site's sections and pages, the table of contents, previous / next.
_NAV_LINKS = ".md-nav a.md-nav__link[href], .md-header a[href], .md-footer a[href]"


@pytest.mark.browser
@pytest.mark.notebook
def test_built_site_navigation_links_open_pages_from_disk_and_keep_code_in_the_toc(built_site, tmp_path):
    start = (built_site / "index.html").as_uri()
    asked, seen, queue, problems = [], set(), [start], []
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "about:"))
                      else (asked.append(route.request.url), route.abort()))
        page = context.new_page()
        page.set_default_timeout(60_000)
        while queue:
            url = queue.pop()
            if url in seen:
                continue
            seen.add(url)
            page.goto(url, wait_until="domcontentloaded")
            if not page.locator("article.md-content__inner").count():
                problems.append(f"{url} is not a page of the site: {page.title()!r} "
                                f"{page.locator('body').inner_text()[:120]!r}")
                continue
            problems += [f"{url}: heading #{anchor} loses its code in the table of contents"
                         for anchor in _toc_entries_without_code(page)]
            for link in page.locator(_NAV_LINKS).evaluate_all("links => links.map(a => a.href)"):
                target = link.split("#")[0]
                if target.startswith("file:"):
                    queue.append(target)
        assert problems == [], "\n".join(problems)
        page.goto((built_site / "views.html").as_uri())
        shot(page, tmp_path, "views")
        found = _search(page, "round_robin_weights")
        shot(page, tmp_path, "search")
        context.close()
    pages = {p.as_uri() for p in built_site.rglob("*.html")} - {(built_site / "404.html").as_uri()}
    assert pages - seen == set(), f"pages no navigation link reaches: {sorted(pages - seen)}"
    assert found >= 3, f"search for round_robin_weights from file:// listed {found} pages"
    assert asked == [], f"the site asked outside itself for {asked}"


def _toc_entries_without_code(page) -> list[str]:
    """Anchors of the page's own headings with code whose entry in the table of contents has none.

    The API pages' headings (mkdocstrings' ``doc-heading``) name their object in the table of contents
    on purpose.
    """
    return page.evaluate("""() => [...document.querySelectorAll(
            'article h2[id], article h3[id], article h4[id], article h5[id], article h6[id]')]
        .filter(h => h.querySelector('code') && !h.classList.contains('doc-heading'))
        .filter(h => {
            const entry = document.querySelector(`.md-nav--secondary a[href="#${CSS.escape(h.id)}"]`);
            return entry && !entry.querySelector('code');
        }).map(h => h.id)""")


def _search(page, query: str) -> int:
    """Type ``query`` into the site's search box; the number of pages listed."""
    box = page.locator("input.md-search__input")
    assert box.is_visible(), "the search box is hidden: the search worker did not start"
    box.fill(query)
    results = page.locator(".md-search-result__list > li")
    results.first.wait_for(timeout=30_000)
    return results.count()


class _PageAnchors(HTMLParser):
    """A page's ids, its headings and its table-of-contents entries (text with code as `...`), its links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.headings, self.toc, self.api_headings = set(), [], {}, {}, set()
        self._open = []                # (tag, what) per open element; what: "toc", "heading" or None
        self._text = None              # (kind, anchor, parts) of the heading or entry being read

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        self.ids.update(v for k, v in attrs.items() if k == "id" or (tag == "a" and k == "name"))
        in_toc = any(what == "toc" for _, what in self._open)
        what = "toc" if tag == "nav" and "md-nav--secondary" in classes else None
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
            if in_toc and attrs["href"].startswith("#"):
                self._text = ("toc", unquote(attrs["href"][1:]), [])
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and attrs.get("id") and not in_toc:
            self._text, what = ("heading", attrs["id"], []), "heading"
            if "doc-heading" in classes:
                self.api_headings.add(attrs["id"])
        if tag == "code" and self._text:
            self._text[2].append("`")
        if tag not in ("br", "img", "input", "meta", "link", "hr", "source", "wbr"):
            self._open.append((tag, what))

    def handle_endtag(self, tag):
        if tag == "code" and self._text:
            self._text[2].append("`")
        if self._text and (tag == "a" and self._text[0] == "toc" or self._open and self._open[-1][1] == "heading"
                           and tag == self._open[-1][0]):
            kind, anchor, parts = self._text
            (self.toc if kind == "toc" else self.headings)[anchor] = " ".join("".join(parts).replace("¶", "").split())
            self._text = None
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self._text:
            self._text[2].append(data)


@pytest.mark.notebook
def test_built_site_toc_matches_headings_and_anchors_exist(built_site):
    pages = {}
    for path in built_site.rglob("*.html"):
        pages[path] = _PageAnchors()
        pages[path].feed(path.read_text(errors="replace"))
    problems, entries = [], 0
    for path, page in sorted(pages.items()):
        name = path.relative_to(built_site)
        for anchor, entry in page.toc.items():
            entries += 1
            heading = page.headings.get(anchor)
            if heading is None:
                problems.append(f"{name}: the table of contents links #{anchor} ({entry!r}), no heading has that id")
            elif heading != entry and anchor not in page.api_headings:   # API headings add a `property` label
                problems.append(f"{name}: heading {heading!r} reads {entry!r} in the table of contents")
        for link in page.links:
            target, _, anchor = link.partition("#")
            if not anchor or "//" in target or target.startswith(("mailto:", "data:", "javascript:")):
                continue
            linked = pages.get((path.parent / unquote(target)).resolve() if target else path)
            if linked is not None and unquote(anchor) not in linked.ids:
                problems.append(f"{name}: link {link} points to an anchor that does not exist")
    assert problems == [], "\n".join(sorted(set(problems)))
    assert entries > 300 and len(pages) > 30, f"only {entries} entries on {len(pages)} pages: is the site whole?"
