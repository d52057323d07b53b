"""Package-wide promises: docstring and README examples run, and layers only import downwards."""
import ast
import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import rlviz

ROOT = Path(rlviz.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages([str(ROOT)], prefix="rlviz."))

#: What each layer must never import.  Every layer may import ``rlviz.checks``, the shared
#: argument checks, which in turn imports nothing else from rlviz.
FORBIDDEN = {
    "rlviz.checks": {"ray", "matplotlib", "torch", "ipywidgets", "numpy", "rlviz.trace", "rlviz.iter",
                     "rlviz.rollout", "rlviz.ops", "rlviz.plans", "rlviz.viz", "rlviz.widgets", "rlviz.runtime",
                     "rlviz.cli", "rlviz.demos"},
    "rlviz.trace": {"ray", "matplotlib", "torch", "ipywidgets", "rlviz.iter", "rlviz.rollout", "rlviz.ops",
                    "rlviz.plans", "rlviz.viz", "rlviz.widgets"},
    "rlviz.iter": {"matplotlib", "torch", "rlviz.rollout", "rlviz.ops", "rlviz.plans", "rlviz.viz", "rlviz.widgets"},
    "rlviz.rollout": {"matplotlib", "rlviz.ops", "rlviz.plans", "rlviz.viz", "rlviz.widgets"},
    "rlviz.ops": {"matplotlib", "rlviz.plans", "rlviz.viz", "rlviz.widgets"},
    "rlviz.viz": {"ray", "torch", "rlviz.iter", "rlviz.rollout", "rlviz.ops", "rlviz.plans"},
    # reads traces for users' tests; draws with viz
    "rlviz.testing": {"ray", "torch", "rlviz.iter", "rlviz.rollout", "rlviz.ops", "rlviz.plans", "rlviz.widgets"},
    # the top layer: reads traces and draws with viz; only the playground runs local iter/ops chains
    "rlviz.widgets": {"ray", "torch", "rlviz.rollout", "rlviz.plans"},
}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _module_path(name: str) -> Path:
    relative = Path(*name.split(".")[1:])
    package = ROOT / relative / "__init__.py"
    return package if package.exists() else (ROOT / relative).with_suffix(".py")


@pytest.mark.parametrize("name", [m for m in MODULES if any(m.startswith(layer) for layer in FORBIDDEN)])
def test_layers_import_only_downwards(name):
    layer = next(layer for layer in FORBIDDEN if name.startswith(layer))
    imported = _imports(_module_path(name))
    bad = {i for i in imported for f in FORBIDDEN[layer] if i == f or i.startswith(f + ".")}
    assert not bad, f"{name} imports {sorted(bad)}, which layer {layer} must not use"


@pytest.mark.parametrize("name", [m for m in MODULES if ">>>" in _module_path(m).read_text()])
def test_docstring_examples_run(name, ray_local):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_import_rlviz_is_cheap():
    import subprocess
    import sys

    code = "import sys, rlviz; print(sorted(m for m in ('ray', 'torch', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_init_is_idempotent(ray_local):
    assert rlviz.init() == rlviz.init()


README = ROOT.parent / "README.md"


def _python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text, except those marked as fragments just above."""
    return [body for mark, body in re.findall(r"(<!-- fragment[^\n]*\n)?```python\n(.*?)```", text, flags=re.S)
            if not mark]


DOC_PAGES = [page for page in sorted((ROOT.parent / "docs").glob("*.md")) if _python_blocks(page.read_text())]


@pytest.mark.slow
def test_readme_examples_run_as_written(ray_local, tmp_path, monkeypatch):
    """The README's Python blocks, in order, in one namespace (the second uses the first's imports)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    blocks = _python_blocks(README.read_text())
    assert len(blocks) >= 2, "the README lost its examples"
    monkeypatch.chdir(tmp_path)                 # the first block saves run.trace.json
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    plt.close("all")
    assert (tmp_path / "run.trace.json").exists()
    assert len(namespace["items"]) == 10 and namespace["result"]["counters"]


@pytest.mark.slow
@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.name)
def test_doc_page_examples_run_as_written(page, ray_local, tmp_path, monkeypatch):
    """Each complete ```python block of docs/*.md runs on its own; fragments are marked in the page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)                 # examples write reports and checkpoints here
    for block in _python_blocks(page.read_text()):
        namespace: dict = {}
        try:
            exec(compile(block, str(page), "exec"), namespace)
        finally:
            _stop_what_it_started(namespace)
            plt.close("all")


def _stop_what_it_started(namespace: dict) -> None:
    """Stop the trainers and worker sets an example left running, so their actors go."""
    from rlviz.plans import Trainer
    from rlviz.rollout import WorkerSet

    for value in namespace.values():
        if isinstance(value, (Trainer, WorkerSet)):
            value.stop()
