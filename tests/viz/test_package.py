"""The viz package: cheap to import, no Ray (its doctests run in tests/test_layers_and_docs.py)."""
import importlib
import subprocess
import sys

import pytest

MODULES = ["canvas", "examples", "explorer_html", "explorer_payload", "graph", "layout", "order", "palette", "report",
           "timeline"]


def test_import_loads_no_matplotlib_networkx_or_ray():
    code = ("import sys, rlviz.viz; "
            "print(sorted(m for m in ('matplotlib', 'networkx', 'ray') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", MODULES)
def test_module_has_docstring_and_all(name):
    module = importlib.import_module(f"rlviz.viz.{name}")
    summary = (module.__doc__ or "").strip().splitlines()
    assert summary and summary[0].endswith("."), "a module docstring opens with a one-line summary"
    assert all(hasattr(module, n) for n in module.__all__)
