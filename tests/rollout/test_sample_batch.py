"""SampleBatch and MultiAgentBatch: construction, slicing, episodes, concat and summaries."""
import numpy as np
import pytest

from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch, concat_samples
from rlviz.trace import record, span


def _batch():
    return SampleBatch(obs=np.arange(10).reshape(5, 2), actions=[0, 1, 0, 1, 1], rewards=[1.0] * 5,
                       eps_id=[3, 3, 8, 8, 8], t=[5, 6, 0, 1, 2],
                       terminateds=[False, True, False, False, False], truncateds=[False] * 5)


def test_repr_is_rllib_1x_and_the_trace_summary_is_short():
    batch = _batch()
    assert repr(batch) == ("SampleBatch(5: ['obs', 'actions', 'rewards', 'eps_id', 't', 'terminateds', "
                           "'truncateds'])")
    assert str(batch) == repr(batch)
    assert batch.__rlviz_summary__() == "SampleBatch(5: obs, actions, rewards, ...)"


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


def test_shuffle_permutes_in_place_and_returns_the_batch_as_rllib():
    batch = _batch()
    original = batch.copy()
    shuffled = batch.shuffle(seed=1)
    assert shuffled is batch and batch["t"].tolist() != original["t"].tolist()
    assert sorted(shuffled["obs"][:, 0].tolist()) == original["obs"][:, 0].tolist()
    assert original["t"].tolist() == [5, 6, 0, 1, 2]
    assert all(np.array_equal(shuffled["obs"][i] // 2, [shuffled["obs"][i][0] // 2] * 2) for i in range(5))


def test_columns_rows_copy_pad():
    batch = _batch()
    actions, t = batch.columns(["actions", "t"])
    assert actions.tolist() == [0, 1, 0, 1, 1] and t[0] == 5
    assert [int(row["t"]) for row in batch.rows()] == [5, 6, 0, 1, 2]
    copy = batch.copy()
    copy["rewards"][0] = 9
    assert batch["rewards"][0] == 1.0
    assert batch.env_steps() == batch.agent_steps() == 5


@pytest.mark.parametrize("make, error, match", [
    (lambda: SampleBatch(obs=[1, 2], actions=[1]), ValueError, "same number of rows"),
    (lambda: _batch().right_zero_pad(7), ValueError, "has no seq_lens"),
    (lambda: SampleBatch(t=[0, 1, 2], seq_lens=[3]).right_zero_pad(2), ValueError, "max_seq_len=2 is less"),
    (lambda: SampleBatch(t=[0, 1, 2], seq_lens=[2]), ValueError, "seq_lens must add up"),
    (lambda: SampleBatch(t=[0, 1], seq_lens=[2]).shuffle(), ValueError, "not possible with seq_lens"),
    (lambda: _batch().timeslices(), ValueError, "exactly one of size= and num_slices="),
    (lambda: _batch().columns(["q_values"]), KeyError, "no column 'q_values'"),
    (lambda: SampleBatch(t=[1]).split_by_episode(), KeyError, "eps_id' or 'terminateds"),
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
    assert both.__rlviz_summary__() == "MultiAgentBatch(3 env steps: red 3, blue 2)"


# -- what an RLlib 1.x user touches first: each behaves as RLlib's SampleBatch did -------------------
def test_len_is_the_row_count_not_the_column_count():
    batch = _batch()
    assert len(batch) == batch.count == 5
    assert len(batch.keys()) == 7
    assert len(SampleBatch(t=[1, 2, 3])) == 3             # one column, three rows
    assert len(SampleBatch()) == 0 and not SampleBatch()
    assert not SampleBatch(t=[]) and SampleBatch(t=[]).count == 0
    assert [len(b) for b in [SampleBatch(t=range(200)), SampleBatch(t=range(200))]] == [200, 200]


def test_iteration_and_in_see_column_names_like_a_dict():
    batch = _batch()
    assert list(batch) == ["obs", "actions", "rewards", "eps_id", "t", "terminateds", "truncateds"]
    assert "obs" in batch and SampleBatch.REWARDS in batch and "q_values" not in batch
    assert 0 not in batch                                  # rows are not keys
    assert dict(batch).keys() == batch.keys() and isinstance(batch, dict)


def test_slicing_takes_rows_like_a_list():
    batch = _batch()
    assert batch[1:3]["t"].tolist() == [6, 0] and len(batch[1:3]) == 2
    assert batch[:2]["t"].tolist() == [5, 6]
    assert batch[3:]["t"].tolist() == [1, 2]
    assert batch[-2:]["t"].tolist() == [1, 2]
    assert len(batch[2:100]) == 3                          # past the end stops at the end
    assert len(batch[4:1]) == 0
    assert isinstance(batch[1:3], SampleBatch) and list(batch[1:3]) == list(batch)
    with pytest.raises(ValueError, match="consecutive rows; got step 2"):
        batch[::2]


def test_setting_columns_keeps_len_in_step():
    batch = SampleBatch()
    batch["t"] = [0, 1, 2]
    assert len(batch) == 3
    batch["rewards"] = [1.0, 1.0, 0.0]
    assert len(batch) == 3 and len(batch.keys()) == 2
    with pytest.raises(ValueError, match="column 'obs' has 2 rows but the batch has 3"):
        batch["obs"] = [1, 2]


def test_an_empty_batch_with_columns_survives_copying_and_pickling():
    import pickle

    empty = SampleBatch(t=np.zeros(0, int), obs=np.zeros((0, 4)))
    assert list(SampleBatch(empty)) == ["t", "obs"]
    again = pickle.loads(pickle.dumps(_batch()))
    assert len(again) == 5 and list(again) == list(_batch())


def test_concat_samples_adds_rows():
    parts = [SampleBatch(t=range(200)), SampleBatch(t=range(200))]
    merged = concat_samples(parts)
    assert len(merged) == merged.count == 400 and list(merged) == ["t"]
    assert len(SampleBatch.concat_samples([])) == 0


def test_multi_agent_batch_len_count_policy_batches_and_repr():
    batch = MultiAgentBatch({"red": SampleBatch(t=[0, 1]), "blue": SampleBatch(t=[0, 1, 2])}, env_steps=2)
    assert len(batch) == batch.count == batch.env_steps() == 2
    assert batch.agent_steps() == 5
    assert list(batch.policy_batches) == ["red", "blue"] and len(batch.policy_batches["blue"]) == 3
    assert repr(batch) == ("MultiAgentBatch({'red': SampleBatch(2: ['t']), 'blue': SampleBatch(3: ['t'])}, "
                           "env_steps=2)")
    single = SampleBatch(t=[0, 1]).as_multi_agent()
    assert len(single) == 2 and list(single.policy_batches) == ["default_policy"]


# -- the rest of RLlib's SampleBatch / MultiAgentBatch reference, called as RLlib's users call it ----------
def test_rllib_column_constants_are_class_attributes():
    expected = {"OBS": "obs", "NEXT_OBS": "new_obs", "ACTIONS": "actions", "REWARDS": "rewards",
                "TERMINATEDS": "terminateds", "TRUNCATEDS": "truncateds", "INFOS": "infos", "SEQ_LENS": "seq_lens",
                "EPS_ID": "eps_id", "AGENT_INDEX": "agent_index", "UNROLL_ID": "unroll_id", "T": "t",
                "ACTION_DIST_INPUTS": "action_dist_inputs", "ACTION_LOGP": "action_logp", "VF_PREDS": "vf_preds",
                "PREV_ACTIONS": "prev_actions", "PREV_REWARDS": "prev_rewards", "ACTION_PROB": "action_prob"}
    assert {name: getattr(SampleBatch, name) for name in expected} == expected


def test_nested_dict_columns_are_mapped_leaf_by_leaf():
    batch = SampleBatch(obs={"pos": np.arange(4), "cam": {"rgb": np.zeros((4, 2, 2))}}, t=[0, 1, 2, 3])
    assert len(batch) == 4 and batch[1:3]["obs"]["cam"]["rgb"].shape == (2, 2, 2)
    assert concat_samples([batch, batch])["obs"]["pos"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    batch.shuffle(seed=0)
    assert batch["obs"]["pos"].tolist() == batch["t"].tolist()              # one permutation for all leaves
    assert next(batch.rows())["obs"]["cam"]["rgb"].shape == (2, 2)
    assert batch.size_bytes() == 4 * 8 + 16 * 8 + 4 * 8
    with pytest.raises(ValueError, match="same number of rows"):
        SampleBatch(obs={"pos": np.arange(3)}, t=[0, 1])


def test_seq_lens_count_slicing_padding_and_concat_follow_rllib():
    batch = SampleBatch(t=[0, 1, 2, 0, 1, 0], state_in_0=np.zeros((3, 4)), seq_lens=[3, 2, 1])
    assert len(batch) == 6 and batch.max_seq_len == 3 and batch["seq_lens"].dtype == np.int32
    whole = batch[1:4]                                     # rows 1..3 lie in sequences 0 and 1: both, whole
    assert whole["t"].tolist() == [0, 1, 2] and whole["seq_lens"].tolist() == [3] and len(whole["state_in_0"]) == 1
    cut = batch.slice(1, 4)                                # slice() cuts the sequences to the rows
    assert cut["seq_lens"].tolist() == [2, 1] and len(cut["state_in_0"]) == 2 and len(cut) == 3
    assert [s["seq_lens"].tolist() for s in batch.timeslices(3)] == [[3], [2, 1]]
    padded = batch.copy().right_zero_pad(4)
    assert padded["t"].tolist() == [0, 1, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0] and len(padded) == 6
    assert padded.zero_padded and padded.max_seq_len == 4 and len(padded["state_in_0"]) == 3
    assert padded[3:5]["t"].tolist() == [0, 1, 0, 0]       # padded slices take whole padded sequences
    both = concat_samples([batch, SampleBatch(t=[5, 6], state_in_0=np.ones((1, 4)), seq_lens=[2])])
    assert both["seq_lens"].tolist() == [3, 2, 1, 2] and len(both) == 8 and both.max_seq_len == 3
    with pytest.raises(ValueError, match="zero_padded and time_major settings must agree"):
        concat_samples([padded, batch])
    with pytest.raises(ValueError, match="all batches have seq_lens"):
        concat_samples([batch, SampleBatch(t=[1])])


def test_interceptor_training_flag_and_copies():
    batch = SampleBatch(t=[1, 2], obs=np.zeros((2, 3)))
    assert batch.is_training is False
    batch.set_training(True)
    assert batch.is_training is True and SampleBatch(t=[1], _is_training=True).is_training
    calls = []
    batch.set_get_interceptor(lambda v: calls.append(1) or v + 1)
    assert batch["t"].tolist() == [2, 3] and batch.get("t").tolist() == [2, 3] and len(calls) == 1   # cached
    assert batch.get("missing", "default") == "default"
    shallow, deep = batch.copy(shallow=True), batch.copy()
    assert dict.__getitem__(shallow, "obs") is dict.__getitem__(batch, "obs")
    assert dict.__getitem__(deep, "obs") is not dict.__getitem__(batch, "obs") and deep["t"].tolist() == [2, 3]
    assert deep.is_training == 2                           # the interceptor sees the flag too, as in RLlib
    deep.set_get_interceptor(None)
    assert deep.is_training is True


def test_to_device_makes_torch_tensors_and_leaves_infos():
    import torch

    batch = SampleBatch(obs=np.ones((2, 3), np.float32), infos=[{"a": 1}, {}], nested={"x": [1, 2]})
    assert batch.to_device("cpu") is batch
    assert isinstance(batch["obs"], torch.Tensor) and batch["obs"].device.type == "cpu"
    assert isinstance(batch["nested"]["x"], torch.Tensor) and isinstance(batch["infos"], np.ndarray)
    assert len(batch[0:1]["obs"]) == 1 and batch.size_bytes() > 0
    with pytest.raises(NotImplementedError, match="torch"):
        batch.to_device("cpu", framework="tf")


def test_single_trajectory_episodes_and_single_step_input():
    assert SampleBatch(terminateds=[False, False, True]).is_single_trajectory()
    assert not SampleBatch(terminateds=[True, False]).is_single_trajectory()
    assert not _batch().is_single_trajectory() and _batch()[2:].is_single_trajectory()
    by_ends = SampleBatch(terminateds=[False, True, False], truncateds=[False, False, True], t=[0, 1, 0])
    assert [p["t"].tolist() for p in by_ends.split_by_episode()] == [[0, 1], [0]]
    batch = _batch()
    batch["new_obs"] = batch["obs"] + 1
    step = batch.get_single_step_input_dict({"obs": None, "prev_rewards": None})
    assert step["obs"].tolist() == [[9, 10]] and step["prev_rewards"].tolist() == [1.0] and len(step) == 1
    first = SampleBatch(obs=[[0.0], [1.0]], new_obs=[[1.0], [2.0]]).get_single_step_input_dict({"obs": None}, 0)
    assert first["obs"].tolist() == [[0.0]]


def test_compress_and_decompress_round_trip_without_pickle():
    obs = np.random.default_rng(0).random((5, 4))
    batch = SampleBatch(obs=obs, new_obs=obs + 1, t=range(5)).compress()
    assert batch["obs"].dtype.kind == "U" and len(batch) == 5
    assert np.array_equal(batch.decompress_if_needed()["new_obs"], obs + 1)
    bulk = SampleBatch(obs=obs, t=range(5)).compress(bulk=True)
    assert isinstance(dict.__getitem__(bulk, "obs"), str)
    assert np.array_equal(bulk.decompress_if_needed()["obs"], obs)
    multi = MultiAgentBatch({"p": SampleBatch(obs=obs)}, 5).compress()
    assert np.array_equal(multi.decompress_if_needed().policy_batches["p"]["obs"], obs)


def test_multi_agent_env_steps_differ_from_agent_steps_and_timeslices():
    red = SampleBatch(eps_id=[1, 1, 1], t=[0, 1, 2], agent_index=[0, 0, 0], rewards=[1.0, 2.0, 3.0])
    blue = SampleBatch(eps_id=[1, 1], t=[0, 2], agent_index=[1, 1], rewards=[9.0, 8.0])
    batch = MultiAgentBatch({"red": red, "blue": blue}, env_steps=3)
    assert batch.env_steps() == 3 and batch.agent_steps() == 5
    slices = batch.timeslices(2)
    assert [(s.env_steps(), s.agent_steps()) for s in slices] == [(2, 3), (1, 2)]
    assert slices[1].policy_batches["blue"]["rewards"].tolist() == [8.0]
    assert MultiAgentBatch.wrap_as_needed({"default_policy": red}, 3) is red
    assert isinstance(MultiAgentBatch.wrap_as_needed({"red": red}, 3), MultiAgentBatch)
    assert batch.size_bytes() == red.size_bytes() + blue.size_bytes()
    assert batch.copy().policy_batches["red"]["rewards"] is not red["rewards"]
    with pytest.raises(KeyError, match="eps_id and t"):
        MultiAgentBatch({"p": SampleBatch(x=[1])}, 1).timeslices(1)


def test_pickling_keeps_seq_lens_and_flags():
    import pickle

    batch = SampleBatch(t=[0, 1, 2], seq_lens=[2, 1], _is_training=True).right_zero_pad(2)
    again = pickle.loads(pickle.dumps(batch))
    assert again.zero_padded and again.max_seq_len == 2 and again.is_training and len(again) == 3
