"""The Explorer's JavaScript: node's own test runner over tests/js, and the shipped bundle parses."""
import shutil
import subprocess
from pathlib import Path

import pytest

from rlviz.viz.explorer_html import explorer_js

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed; the JS unit tests need `node --test`")


@needs_node
def test_js_unit_tests_pass():
    run = subprocess.run([NODE, "--test", "tests/js"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout


@needs_node
def test_the_bundle_is_one_valid_module(tmp_path):
    bundle = tmp_path / "explorer.mjs"
    bundle.write_text(explorer_js())
    run = subprocess.run([NODE, "--check", str(bundle)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def test_the_front_end_never_parses_data_as_html():
    source = explorer_js()
    for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert risky not in source, risky
    assert 'from "./' not in source               # one module: nothing left to fetch
