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
    # the RLlib 2.x bridge: records through trace and iter, never draws
    "rlviz.rllib": {"matplotlib", "ipywidgets", "rlviz.rollout", "rlviz.ops", "rlviz.plans", "rlviz.viz", "rlviz.widgets"},
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


@pytest.mark.parametrize("name", ["rlviz.testing.assertions", "rlviz.testing.diff", "rlviz.testing.strip"])
def test_the_logic_of_users_checks_needs_no_views(name):
    """Assertions, diff and strip read traces (rounds and order live in rlviz.trace); only figures import viz."""
    tree = ast.parse(_module_path(name).read_text())
    top = {node.module for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
    top |= {alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    assert not {i for i in top if i == "rlviz.viz" or i.startswith("rlviz.viz.")}, f"{name} imports rlviz.viz"


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


def test_what_a_ray_worker_imports_for_an_iterator_leaves_out_pandas_torch_and_plotting():
    """A shard actor's worker imports ``rlviz.iter``: every module it pulls in is paid once per actor (a pa.array at
    import once brought pandas in, half a second of CPU per actor)."""
    import subprocess
    import sys

    code = ("import sys, rlviz.iter; print(sorted(m for m in ('pandas', 'torch', 'matplotlib', 'gymnasium', "
            "'ipywidgets') if m in sys.modules))")
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
    monkeypatch.chdir(tmp_path)                 # the first block saves run.rlviz
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    plt.close("all")
    assert (tmp_path / "run.rlviz").exists()
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


# -- private names stay in their module; no import circles --------------------
def _tree(name: str) -> ast.Module:
    return ast.parse(_module_path(name).read_text())


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_private_names(tree: ast.Module) -> set[str]:
    """Private names a module defines: functions, classes, variables, and attributes it assigns."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if _private(n)}


PRIVATE_DEFINITIONS = {name: _defined_private_names(_tree(name)) for name in MODULES}


@pytest.mark.parametrize("name", MODULES)
def test_no_private_name_crosses_a_module_boundary(name):
    """``from rlviz.x import _y`` and ``obj._y`` (where ``_y`` belongs to another rlviz module) are not allowed.

    An attribute counts as another module's when some other rlviz module defines
    that private name and this one does not (attributes of Ray's or Python's
    objects, such as ``handle._actor_id``, are not rlviz's and are left alone).
    """
    tree = _tree(name)
    own = PRIVATE_DEFINITIONS[name]
    elsewhere = {private: other for other, defined in PRIVATE_DEFINITIONS.items() if other != name
                 for private in defined}
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rlviz"):
            bad += [f"line {node.lineno}: from {node.module} import {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own and node.attr in elsewhere:
            bad.append(f"line {node.lineno}: .{node.attr} (private to {elsewhere[node.attr]})")
    assert not bad, f"{name} uses private names of other modules: {bad}"


def _rlviz_imports(name: str) -> set[str]:
    """rlviz modules ``name`` imports: at module level or inside functions, not in ``if TYPE_CHECKING:`` blocks."""
    imported = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            return                                  # annotations only: never runs
        if isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{a.name}" for a in node.names} & MODULE_SET
            imported.update(submodules or {node.module})
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(_tree(name))
    return imported & MODULE_SET


MODULE_SET = set(MODULES) | {"rlviz"}


def test_no_import_circle_inside_a_package():
    """The modules of one package import each other without a circle.

    Function-level (lazy) imports count too: inside one package a lazy import
    only hides a circle.  Imports under ``if TYPE_CHECKING:`` (annotations
    only) do not count; lazy imports of other packages (Ray, ``rlviz.ops``
    from a widget) are not circles inside a package.
    """
    circles = []
    for package in sorted({m.rsplit(".", 1)[0] for m in MODULES}):
        members = {m for m in MODULE_SET if m != package and m.rsplit(".", 1)[0] == package}
        graph = {m: _rlviz_imports(m) & members for m in members}
        circles += [sorted(c) for c in _strongly_connected(graph) if len(c) > 1]
    assert not circles, f"import circles: {circles}"


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components of ``graph``."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            components.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return components


def test_the_layer_checks_catch_what_they_forbid(tmp_path):
    """The helpers above do find a private import, a private attribute and a circle."""
    tree = ast.parse("from rlviz.iter.worker import _collect\nx = y._rlviz_items\n")
    assert _private("_collect") and not _private("__init__")
    assert "_rlviz_items" in PRIVATE_DEFINITIONS["rlviz.iter.worker"]
    assert any(isinstance(n, ast.ImportFrom) and _private(n.names[0].name) for n in ast.walk(tree))
    assert [sorted(c) for c in _strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}) if len(c) > 1] == [["a", "b"]]
    assert "rlviz.iter.chain" in _rlviz_imports("rlviz.iter.local")


def test_init_shows_what_the_address_is_not_only_the_address(ray_local):
    """A notebook cell ending in ``rlviz.init(...)`` shows what runs there, then the address it still returns."""
    import ray

    address = rlviz.init()
    assert address == ray.get_runtime_context().gcs_address and isinstance(address, str)
    cpus = int(ray.cluster_resources()["CPU"])
    assert repr(address) == (f"Ray is running on this machine: 1 node, {cpus} CPUs for actors "
                             f"(its address: '{address}')")
