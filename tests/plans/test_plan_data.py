"""What other layers read about the plans without Ray: the Ape-X graph snapshot, DQN's sampling defaults."""
import dataclasses
import re

import pytest

from rlviz.ops.weights import DQN_SAMPLING, native_ratio
from rlviz.plans import PLANS
from rlviz.plans.dataflows import SNAPSHOTS, plan_dataflow, snapshot_path
from rlviz.viz.examples import apex_nodes


@pytest.mark.slow
@pytest.mark.parametrize("plan", list(SNAPSHOTS))
def test_dataflow_snapshot_is_the_real_plans_graph(plan, ray_local):
    assert plan in PLANS
    stored = {"apex": apex_nodes}[plan]()
    assert _unmarked(plan_dataflow(plan)) == stored, (f"{snapshot_path(plan).name} no longer matches the real {plan} "
                                                      f"plan; rewrite it with `python -m rlviz.plans.dataflows`")


def _unmarked(nodes):
    """The nodes with lanes' copy marks dropped: an actor of an earlier test still alive makes ``ReplayActor-0#2``."""
    return [dataclasses.replace(node, where=re.sub(r"#\d+$", "", node.where)) for node in nodes]


def test_dqn_sampling_is_what_a_default_dqn_trainer_samples():
    from rlviz.plans import dqn
    from rlviz.plans.trainer import COMMON_CONFIG, DEFAULT_NUM_WORKERS

    config = {**COMMON_CONFIG, **dqn.DEFAULT_CONFIG, "num_workers": DEFAULT_NUM_WORKERS}
    assert {key: config[key] for key in DQN_SAMPLING} == DQN_SAMPLING
    assert native_ratio(config) == native_ratio(DQN_SAMPLING) == 8.0


def test_snapshot_path_names_the_plans_that_have_one():
    with pytest.raises(ValueError, match=r"plan must be one of \['apex'\].*got 'dqn'"):
        snapshot_path("dqn")
