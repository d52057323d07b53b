"""Snapshots of real plans' dataflow graphs, as JSON next to this module, for Ray-free examples.

``rlviz.viz.examples.apex_nodes`` reads ``dataflow_apex.json``; a test rebuilds
the plan and compares, and ``python -m rlviz.plans.dataflows`` rewrites the files.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlviz.trace import Node

__all__ = ["SNAPSHOTS", "snapshot_path", "plan_dataflow", "write_snapshot"]

#: Plan name -> the ``Trainer`` arguments its snapshot is taken with.
SNAPSHOTS: dict[str, dict[str, Any]] = {
    "apex": {"num_workers": 4, "config": {"num_replay_shards": 4}},
}


def snapshot_path(plan: str) -> Path:
    """Where the snapshot of ``plan`` is stored (``rlviz/plans/dataflow_<plan>.json``).

    Raises
    ------
    ValueError
        If ``plan`` has no snapshot.
    """
    if plan not in SNAPSHOTS:
        raise ValueError(f"plan must be one of {sorted(SNAPSHOTS)} (the plans with a dataflow snapshot), "
                         f"got {plan!r}")
    return Path(__file__).with_name(f"dataflow_{plan}.json")


def plan_dataflow(plan: str) -> list[Node]:
    """Build ``plan`` with its snapshot's arguments (starts Ray actors), read its dataflow, stop it.

    Node ids are renamed ``n0``, ``n1``, ... in the order of the list, so the
    result does not depend on how many iterators the process made before.

    Parameters
    ----------
    plan : str
        A key of ``SNAPSHOTS``.

    Returns
    -------
    list of Node
    """
    from rlviz.plans.trainer import Trainer

    snapshot_path(plan)
    trainer = Trainer(plan, **SNAPSHOTS[plan])
    try:
        nodes = trainer.dataflow()
    finally:
        trainer.stop()
    names = {node.op_id: f"n{i}" for i, node in enumerate(nodes)}
    return [Node(names[n.op_id], n.op, n.label, n.where, tuple(names[p] for p in n.parents), n.details)
            for n in nodes]


def write_snapshot(plan: str) -> Path:
    """Rewrite ``plan``'s snapshot from the real plan (see ``plan_dataflow``) and return its path."""
    path = snapshot_path(plan)
    nodes = ",\n".join(json.dumps(n.to_dict()) for n in plan_dataflow(plan))     # one node per line
    head = json.dumps({"plan": plan, **SNAPSHOTS[plan]})[:-1]
    path.write_text(f'{head}, "nodes": [\n{nodes}\n]}}\n')
    return path


if __name__ == "__main__":
    import rlviz

    rlviz.init()
    for name in SNAPSHOTS:
        print(write_snapshot(name))
