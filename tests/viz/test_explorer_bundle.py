"""The shipped front end is exactly esbuild's build of the sources in rlviz/viz/static."""
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


def test_every_module_the_sources_import_is_in_the_bundle():
    static = ROOT / "rlviz" / "viz" / "static"
    shipped = (static / BUNDLE).read_text(encoding="utf-8")
    sources = sorted(p for p in static.rglob("*.js") if p.name != BUNDLE)
    assert len(sources) >= 7
    for source in sources:
        assert f"rlviz/viz/static/{source.relative_to(static).as_posix()}" in shipped, source
