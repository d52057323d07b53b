"""The documentation site: every page and notebook in the nav, and the RLlib name map true to both packages.

The strict site build itself runs in ``make test`` after pytest (it renders the notebooks
the notebook tests executed); these checks are the cheap ones.
"""
import importlib
import inspect
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
RLLIB_PAGE = (DOCS / "rllib.md").read_text()


def _nav_entries(nav) -> list[str]:
    entries = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        entries += _nav_entries(value) if isinstance(value, list) else [value]
    return entries


class _IgnoreTags(yaml.SafeLoader):
    """mkdocs.yml may use !!python tags in other setups; the nav needs none of them."""


_IgnoreTags.add_multi_constructor("", lambda loader, suffix, node: None)
NAV = _nav_entries(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_IgnoreTags)["nav"])


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_every_docs_page_is_in_the_nav(page):
    assert page in NAV, f"docs/{page} is not in mkdocs.yml's nav; add it so the site links it"


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_readme_and_index_list_every_notebook(page):
    text = (ROOT / page).read_text()
    missing = [p.name for p in NOTEBOOKS if f"notebooks/{p.name}" not in text and f"`{p.stem}`" not in text]
    assert missing == [], f"{page} does not list {missing}: give each notebook its line"
    counted = re.findall(r"\b(" + "|".join(NUMBER_WORDS) + r")\s+(?:short\s+)?(?:notebooks|walkthroughs)\b", text)
    assert all(NUMBER_WORDS.index(word) == len(NOTEBOOKS) for word in counted), \
        f"{page} counts {counted} notebooks where notebooks/ holds {len(NOTEBOOKS)}"


@pytest.mark.parametrize("notebook", sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_every_notebook_is_in_the_nav(notebook):
    assert f"notebooks/{notebook}" in NAV, f"notebooks/{notebook} is not in mkdocs.yml's nav"


@pytest.mark.parametrize("path", sorted(DOCS.glob("*.md")) + sorted((ROOT / "notebooks").glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_docs_cite_only_the_repository(path):
    text = path.read_text()
    assert not re.search(r"\bSPEC\b|shared/", text), \
        f"{path.name} points outside the repository; cite docs/behaviour.md instead"


def _ray_names(prefix: str) -> list[str]:
    return sorted(set(re.findall(rf"`({re.escape(prefix)}\.[A-Za-z_.]+)`", RLLIB_PAGE)))


@pytest.mark.parametrize("name", _ray_names("ray.util"))
def test_rllib_page_ray_util_names_exist_in_ray(name):
    module, _, attribute = name.rpartition(".")
    assert hasattr(importlib.import_module(module), attribute), f"{name} is not in the installed Ray"


@pytest.mark.parametrize("name", _ray_names("rlviz"))
def test_rllib_page_rlviz_names_exist(name):
    parts = name.split(".")
    value = importlib.import_module(parts[0])
    for part in parts[1:]:
        value = getattr(value, part)
    assert value is not None


@pytest.mark.parametrize("cls", ["ParallelIterator", "LocalIterator", "ParallelIteratorWorker"])
def test_rllib_page_lists_every_public_method_of_ray_iterators(cls):
    import ray.util.iter

    ray_class = getattr(ray.util.iter, cls)
    methods = [n for n, v in vars(ray_class).items()
               if not n.startswith("_") and (inspect.isfunction(v) or isinstance(v, staticmethod))]
    missing = [m for m in methods if f"`{m}`" not in RLLIB_PAGE]
    assert not missing, f"docs/rllib.md does not list Ray's {cls} methods {missing}"
    rlviz_class = getattr(importlib.import_module("rlviz.iter"), cls)
    absent = [m for m in methods if not hasattr(rlviz_class, m)]
    assert not absent, f"rlviz.iter.{cls} lacks Ray's methods {absent}"


def test_performance_prose_quotes_the_generated_iterator_table():
    """The analysis under the benchmark's table says what the table says (verdicts and the figures it quotes)."""
    text = (DOCS / "performance.md").read_text()
    table = text.split("<!-- bench:iter:start -->")[1].split("<!-- bench:iter:end -->")[0]
    prose = " ".join(text.split("## Where recording time goes")[1].split("\n## ")[0].split())
    rows = {cells[0]: cells for line in table.splitlines() if line.startswith("| local chain")
            for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    on, off = rows["local chain, 200,000 ints, recording ON"], rows["local chain, 200,000 ints, recording OFF"]
    off_ms = float(off[1].split()[0])
    events = int(re.search(r"collecting ([\d,]+) events", table)[1].replace(",", ""))
    per_event_ns = re.search(r"\(ON - OFF\) / events: (\d+) ns", table)[1]
    two_reads_ns = re.search(r"two time.time_ns\(\) reads ~(\d+) ns", table)[1]
    ratio, spread = on[3].split()[-1], on[4]
    assert f"**ON <= 1.0x Ray is {'met' if on[6] == 'met' else 'not met'}**" in prose, on
    assert f"takes {ratio} the time of Ray's unrecorded one at the median ({spread} per repeat)" in prose
    assert f"**ON/OFF <= 1.3x is {'met' if off[6] == 'met' else 'not met'}** ({off[3].split()[-1]})" in prose
    assert f"{per_event_ns} ns per event ((ON - OFF) / events)" in prose
    assert f"{off_ms * 1e6 / events:.0f} ns per event for the whole chain with recording off ({off[1]} / " \
           f"{events:,} events)" in prose
    assert f"(0.3 x {off[1]}) / {events:,} = {0.3 * off_ms * 1e6 / events:.0f} ns" in prose
    assert f"~{two_reads_ns} ns for the two" in prose
