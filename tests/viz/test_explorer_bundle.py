"""The shipped front end is exactly esbuild's build of the sources in rlviz/viz/static."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rlviz.viz.explorer_html import BUNDLE

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed; building the bundle needs node")
def test_the_committed_bundle_is_the_build_of_its_sources(tmp_path):
    if not (ROOT / "js" / "node_modules" / "esbuild").is_dir():
        pytest.fail("esbuild is not installed in js/node_modules; run `make bundle` (npm ci in js/) first")
    rebuilt = tmp_path / BUNDLE
    run = subprocess.run([NODE, "js/build.mjs", str(rebuilt)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    shipped = (ROOT / "rlviz" / "viz" / "static" / BUNDLE).read_text(encoding="utf-8")
    assert rebuilt.read_text(encoding="utf-8") == shipped, (
        f"rlviz/viz/static/{BUNDLE} is not the build of the sources in rlviz/viz/static; run `make bundle` and commit it")


@pytest.mark.skipif(NODE is None, reason="node is not installed; building the bundle needs node")
def test_every_source_module_goes_into_the_bundle(tmp_path):
    """No module of the front end is left out of the build (a file nothing imports any more is dead code)."""
    static = ROOT / "rlviz" / "viz" / "static"
    meta = tmp_path / "meta.json"
    run = subprocess.run([NODE, "js/build.mjs", str(tmp_path / BUNDLE), str(meta)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    inputs = set(json.loads(meta.read_text())["inputs"])
    sources = sorted(p.relative_to(ROOT).as_posix() for p in static.rglob("*.js") if p.name != BUNDLE)
    assert len(sources) >= 7
    assert [source for source in sources if source not in inputs] == []
