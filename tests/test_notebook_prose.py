"""Notebook prose names only ops its notebook's plan has, and "takes turns" only among the ops that take turns.

The plans the notebooks build (``rlviz.Trainer("dqn", ...)``) are built here and their
dataflow read, nothing trained: a backticked op name of ``rlviz.ops`` in a notebook's
Markdown must be an op of one of its plans, and a sentence saying ops alternate or take
turns must name the branches ``Concurrently`` pulls (what the order pane shows), not ops
nested inside them.
"""
import json
import re
from pathlib import Path

import pytest

import rlviz.ops

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: A backticked CamelCase name in prose (`StoreToReplayBuffer`).
_NAME = re.compile(r"`([A-Z][a-z]+(?:[A-Z][A-Za-z]*)+)`")
_PLAN = re.compile(r"""rlviz\.Trainer\(\s*["'](\w+)["']""")
#: A sentence that says ops take turns.
_TURNS = re.compile(r"alternat\w*|tak\w* turns|in turns", re.I)
OP_NAMES = {name for name in rlviz.ops.__all__ if name[0].isupper() and not name.isupper()}
#: Op names a notebook names on purpose although its plans do not run them, and why.
NAMED_NOT_RUN = {
    "10_from_execution_plans_to_training_step": {"StandardizeFields": "RLlib 1.x PPO's op, named as what PG's plan lacks"},
}


def _cells(notebook: Path, kind: str) -> list[str]:
    return ["".join(cell["source"]) for cell in json.loads(notebook.read_text())["cells"]
            if cell["cell_type"] == kind]


def _sentences(notebook: Path) -> list[str]:
    prose = " ".join(" ".join(_cells(notebook, "markdown")).split())
    return re.split(r"(?<=[.:;!?])\s+(?=[A-Z*`(])", prose)


def _plans(notebook: Path) -> set[str]:
    return {plan for code in _cells(notebook, "code") for plan in _PLAN.findall(code)}


@pytest.fixture(scope="module")
def dataflows(ray_local) -> dict:
    """Plan -> (its ops and the actor classes it runs on, the ops whose items Concurrently takes in turns)."""
    from rlviz.plans import Trainer

    flows = {}
    for plan in sorted(set().union(*map(_plans, NOTEBOOKS))):
        trainer = Trainer(plan, env="CartPole-v1", num_workers=1)
        try:
            nodes = {node.op_id: node for node in trainer.dataflow()}
        finally:
            trainer.stop()
        turns = {op for node in nodes.values() if node.op == "Concurrently"
                 for parent in node.parents for op in _ops_above(nodes, parent)}
        actors = {node.where.split("-")[0] for node in nodes.values()}
        flows[plan] = ({node.op for node in nodes.values()} | actors, turns)
    return flows


def _ops_above(nodes: dict, op_id: str) -> set[str]:
    """The nearest ops of ``rlviz.ops`` at or above ``op_id`` (Concurrently's ``tag[k]`` nodes are not ops)."""
    node = nodes[op_id]
    if node.op in OP_NAMES:
        return {node.op}
    return set().union(*(_ops_above(nodes, parent) for parent in node.parents))


@pytest.mark.slow
@pytest.mark.parametrize("notebook", [p for p in NOTEBOOKS if _plans(p)], ids=lambda p: p.stem)
def test_notebook_prose_names_ops_its_plans_have_and_turns_they_take(notebook, dataflows):
    plans = _plans(notebook)
    ops = set().union(*(dataflows[plan][0] for plan in plans))
    turns = set().union(*(dataflows[plan][1] for plan in plans))
    sentences = _sentences(notebook)
    named = {name for sentence in sentences for name in _NAME.findall(sentence) if name in OP_NAMES}
    named -= set(NAMED_NOT_RUN.get(notebook.stem, {}))
    assert named - ops == set(), f"{notebook.name} names ops its plans {sorted(plans)} do not have: {named - ops}"
    wrong = [(sorted(set(_NAME.findall(s)) & OP_NAMES - {"Concurrently"} - turns), s) for s in sentences
             if _TURNS.search(s) and set(_NAME.findall(s)) & OP_NAMES - {"Concurrently"} - turns]
    assert wrong == [], (f"{notebook.name} says ops take turns that Concurrently does not pull "
                         f"(it pulls {sorted(turns)}): {wrong}")


def test_the_prose_check_reads_op_names_and_turn_claims():
    notebook = next(p for p in NOTEBOOKS if p.name.startswith("09_"))
    assert _plans(notebook) == {"dqn"}
    assert {"StoreToReplayBuffer", "TrainOneStep", "UpdateTargetNetwork", "Concurrently"} <= OP_NAMES
    assert any(_TURNS.search(s) and "`StoreToReplayBuffer`" in s for s in _sentences(notebook))
