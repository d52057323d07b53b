"""SampleBatch and MultiAgentBatch: construction, slicing, episodes, concat and summaries."""
import numpy as np
import pytest

from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch, concat_samples
from rlviz.trace import record, span


def _batch():
    return SampleBatch(obs=np.arange(10).reshape(5, 2), actions=[0, 1, 0, 1, 1], rewards=[1.0] * 5,
                       eps_id=[3, 3, 8, 8, 8], t=[5, 6, 0, 1, 2],
                       terminateds=[False, True, False, False, False], truncateds=[False] * 5)


def test_repr_and_summary_are_short_and_equal():
    batch = _batch()
    assert repr(batch) == "SampleBatch(5: obs, actions, rewards, ...)"
    assert batch.__rlviz_summary__() == repr(batch)


def test_trace_uses_the_summary():
    with record() as trace:
        with span("sample") as call:
            call.produced(_batch())
    assert trace.events[0].item == "SampleBatch(5: obs, actions, rewards, ...)"


def test_split_by_episode_slice_and_concat_round_trip():
    batch = _batch()
    parts = batch.split_by_episode()
    assert [p.count for p in parts] == [2, 3]
    assert parts[0].is_terminated_or_truncated() and not parts[1].is_terminated_or_truncated()
    again = SampleBatch.concat_samples(parts)
    assert all(np.array_equal(again[k], batch[k]) for k in batch)
    assert batch[1:3]["t"].tolist() == [6, 0]


def test_shuffle_returns_a_permutation_and_leaves_the_original():
    batch = _batch()
    shuffled = batch.shuffle(seed=1)
    assert sorted(shuffled["obs"][:, 0].tolist()) == batch["obs"][:, 0].tolist()
    assert batch["t"].tolist() == [5, 6, 0, 1, 2]
    assert all(np.array_equal(shuffled["obs"][i] // 2, [shuffled["obs"][i][0] // 2] * 2) for i in range(5))


def test_columns_rows_copy_pad():
    batch = _batch()
    actions, t = batch.columns(["actions", "t"])
    assert actions.tolist() == [0, 1, 0, 1, 1] and t[0] == 5
    assert [int(row["t"]) for row in batch.rows()] == [5, 6, 0, 1, 2]
    copy = batch.copy()
    copy["rewards"][0] = 9
    assert batch["rewards"][0] == 1.0
    padded = batch.right_zero_pad(7)
    assert padded.count == 7 and padded["rewards"][5:].tolist() == [0.0, 0.0]
    assert batch.env_steps() == batch.agent_steps() == 5


@pytest.mark.parametrize("make, error, match", [
    (lambda: SampleBatch(obs=[1, 2], actions=[1]), ValueError, "same number of rows"),
    (lambda: _batch().right_zero_pad(2), ValueError, "max_len=2 is less than"),
    (lambda: _batch().columns(["q_values"]), KeyError, "no column 'q_values'"),
    (lambda: SampleBatch(t=[1]).split_by_episode(), KeyError, "eps_id"),
    (lambda: concat_samples([SampleBatch(t=[1]), SampleBatch(x=[1])]), ValueError, "columns"),
    (lambda: MultiAgentBatch([SampleBatch(t=[1])], 1), TypeError, "policy_batches must be a dict"),
])
def test_bad_inputs(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_multi_agent_counts_and_concat():
    a = MultiAgentBatch({"red": SampleBatch(t=[0, 1]), "blue": SampleBatch(t=[0, 1])}, env_steps=2)
    b = MultiAgentBatch({"red": SampleBatch(t=[2])}, env_steps=1)
    both = concat_samples([a, b])
    assert both.env_steps() == 3 and both.agent_steps() == 5
    assert repr(both) == "MultiAgentBatch(3 env steps: red 3, blue 2)"
