"""The Explorer's JavaScript: node's own test runner over tests/js, and the shipped bundle parses."""
import shutil
import subprocess
from pathlib import Path

import pytest

from rlviz.viz.explorer_html import explorer_js

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def node() -> str:
    """node's path; the Explorer's logic is never left untested because node is missing (make test installs it)."""
    path = shutil.which("node")
    if path is None:
        pytest.fail("node is not installed, so the Explorer's JS unit tests cannot run: `make test` installs it "
                    "(apt-get install nodejs npm)")
    return path


def test_js_unit_tests_pass(node):
    run = subprocess.run([node, "--test", "tests/js"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout


def test_the_bundle_is_one_valid_module(tmp_path, node):
    bundle = tmp_path / "explorer.mjs"
    bundle.write_text(explorer_js())
    run = subprocess.run([node, "--check", str(bundle)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def test_the_front_end_never_parses_data_as_html():
    source = explorer_js()
    for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert risky not in source, risky
    assert 'from "./' not in source               # one module: nothing left to fetch
