"""A saved page cut short or changed after ``write_html`` wrote it says so in words, in chromium: never a blank page.

A file cut in its data, a character of the data changed to another valid
one (the checksum catches it), a character the encoding never writes, a
broken description: each shows ``[data-rlviz=damaged]`` naming what is wrong
and what to do.  A file cut inside the viewer's own script cannot run it, so
the note the page opens with (``[data-rlviz=opening]``) stays and says the
same.  A whole file opens as before, and the note is gone.  A diff page (two runs)
checks each run the same way and names the damaged one.
"""
import re

import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready

from rlviz.testing import diff
from rlviz.viz import write_html
from rlviz.viz.examples import concurrently_trace, large_trace

pytestmark = pytest.mark.browser

_DATA = re.compile(r'(id="rlviz-detail-0"[^>]*>)([^<]*)(</script>)')


@pytest.fixture(scope="module")
def page_text(tmp_path_factory) -> str:
    return write_html(large_trace(events=4000), tmp_path_factory.mktemp("saved") / "whole.html").read_text()


def _data_span(text: str) -> tuple[int, int]:
    found = _DATA.search(text)
    return found.start(2), found.end(2)


def _cut_in_data(text: str) -> str:
    start, end = _data_span(text)
    return text[:start + (end - start) * 2 // 3]


def _changed_in_data(text: str) -> str:
    start, end = _data_span(text)
    at = (start + end) // 2
    return text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1:]


def _foreign_in_data(text: str) -> str:
    start, end = _data_span(text)
    at = (start + end) // 2
    return text[:at] + "é" + text[at + 1:]


def _broken_description(text: str) -> str:
    return text.replace('id="rlviz-meta">{', 'id="rlviz-meta">{"chunks":', 1)


def _cut_in_script(text: str) -> str:
    return text[:text.index('<script type="module">') + 40_000]


DAMAGES = [(_cut_in_data, "the file was cut short"), (_changed_in_data, "does not match the checksum"),
           (_foreign_in_data, "not base85"), (_broken_description, "does not parse")]


def test_a_damaged_file_says_what_is_wrong_and_what_to_do_and_a_whole_one_opens(page_text, tmp_path):
    from playwright.sync_api import expect

    with chromium_page(1200, 800) as page:                    # one browser for every case: each is a page load
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for damage, says in DAMAGES:
            path = tmp_path / f"{damage.__name__}.html"
            path.write_text(damage(page_text), encoding="utf-8")
            page.goto(path.as_uri())
            message = page.locator('[data-rlviz="damaged"]')
            expect(message).to_be_visible(timeout=30_000)
            text = message.inner_text()
            assert "This saved rlviz page is damaged" in text and says in text, (damage.__name__, text)
            assert "rlviz.viz.write_html(trace, path)" in text
            assert page.locator('[data-rlviz="explorer"]').count() == 0
            assert page.locator('[data-rlviz="opening"]').count() == 0
        path = tmp_path / "cut_in_script.html"
        path.write_text(_cut_in_script(page_text), encoding="utf-8")
        page.goto(path.as_uri())
        note = page.locator('[data-rlviz="opening"]')        # the script never ran: the note it opens with stays
        expect(note).to_be_visible(timeout=30_000)
        assert "cut short" in note.inner_text() and "rlviz.viz.write_html" in note.inner_text()
        path = tmp_path / "whole.html"
        path.write_text(page_text, encoding="utf-8")
        page.goto(path.as_uri())
        wait_ready(page)
        assert page.locator('[data-rlviz="opening"]').count() == 0
        assert page.locator('[data-rlviz="damaged"]').count() == 0
        assert errors == [], errors


def test_a_damaged_diff_page_names_the_run_and_a_whole_one_opens_both(tmp_path):
    from playwright.sync_api import expect

    compared = diff(concurrently_trace((1, 2)), concurrently_trace((1, 3), seed=1), names=("before", "after"))
    text = write_html(compared, tmp_path / "diff.html").read_text()
    second = re.compile(r'(id="rlviz-detail-1-0"[^>]*>)([^<]*)(</script>)').search(text)
    at = (second.start(2) + second.end(2)) // 2
    damages = {"changed": (text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1:], "does not match the checksum"),
               "cut": (text[:at], "the file was cut short")}
    with chromium_page(1200, 1000) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for name, (damaged, says) in damages.items():
            path = tmp_path / f"{name}.html"
            path.write_text(damaged, encoding="utf-8")
            page.goto(path.as_uri())
            message = page.locator('[data-rlviz="damaged"]')
            expect(message).to_be_visible(timeout=30_000)
            words = message.inner_text()
            assert "run 2 (after)" in words and says in words, (name, words)
            assert page.locator('[data-rlviz="explorer"]').count() == 0
        page.goto((tmp_path / "diff.html").as_uri())
        expect(page.locator('[data-rlviz="run"] [data-rlviz="explorer"]')).to_have_count(2, timeout=30_000)
        assert page.locator('[data-rlviz="damaged"]').count() == 0
        assert errors == [], errors
