"""The views load without Ray: the playground's weights arithmetic and the example graphs are pure."""
import subprocess
import sys

import pytest


@pytest.mark.parametrize("statement", [
    "from rlviz.widgets.playground import RoundRobinPlayground",
    "from rlviz.ops.weights import calculate_rr_weights, DQN_SAMPLING",
    "from rlviz.viz.examples import apex_nodes; apex_nodes()",
    "import rlviz.plans, rlviz.cli",
])
def test_statement_does_not_load_ray_or_torch(statement):
    code = f"{statement}\nimport sys; print(sorted(m for m in ('ray', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
