"""Sampling the environment or offline data: JSON output and input, MixedInput, samplers, IOContext, recording."""
import json
import os

import gymnasium
import numpy as np
import pytest

import rlviz
from rlviz.rollout import RandomPolicy, RolloutWorker, SampleBatch
from rlviz.rollout.offline import (CorruptRecordError, D4RLReader, InputReader, IOContext, JsonReader,
                                   JsonWriter, MixedInput, OutputWriter, SamplerInput, SyncSampler)
from rlviz.rollout.sampler import make_vector_env
from rlviz.rollout.worker_set import WorkerSet


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _writer_worker(out, config=None):
    return RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=20,
                         seed=0, output=str(out), config=config)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Five CartPole batches a worker sampled with output= set, and the directory they went to."""
    out = tmp_path_factory.mktemp("cartpole-out")
    worker = _writer_worker(out)
    batches = [worker.sample() for _ in range(5)]
    worker.stop()
    return out, batches


def _assert_same(a, b):
    assert list(a) == list(b)
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def test_a_worker_writes_every_sampled_batch_as_one_json_line(written):
    out, batches = written
    files = sorted(os.listdir(out))
    assert len(files) == 1 and files[0].startswith("output-") and files[0].endswith("_worker-0_0.json")
    lines = (out / files[0]).read_text().splitlines()
    assert len(lines) == 5
    record = json.loads(lines[0])
    assert record["type"] == "SampleBatch"
    assert record["actions"] == batches[0]["actions"].tolist()            # plain columns are nested lists
    assert set(record["obs"]) == {"ndarray", "dtype", "shape"}             # obs and new_obs compressed, as RLlib does


def test_another_worker_reads_them_back_with_equal_values(written):
    out, batches = written
    reader = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=20, seed=1, input=str(out))
    assert isinstance(reader.input_reader, JsonReader)
    _assert_same(reader.sample(), batches[0])      # worker 0 starts at the first file, at its first line
    _assert_same(reader.sample(), batches[1])
    assert reader.get_metrics() == []              # no env was stepped
    reader.stop()


def test_read_all_files_yields_every_line_once_in_order(written):
    out, batches = written
    back = list(JsonReader(str(out)).read_all_files())
    assert len(back) == 5
    for a, b in zip(back, batches):
        _assert_same(a, b)


def test_inputs_as_a_file_a_glob_a_list_and_a_directory(written, tmp_path):
    out, batches = written
    (only,) = out.glob("*.json")
    second = tmp_path / "second.json"
    second.write_text(only.read_text().splitlines()[4] + "\n")
    assert JsonReader(str(only)).files == [str(only)]
    assert JsonReader(str(out / "output-*.json")).files == [str(only)]
    assert JsonReader(str(out)).files == [str(only)]
    listed = JsonReader([only, second])
    assert listed.files == [str(only), str(second)]
    assert len(list(listed.read_all_files())) == 6


def test_uncompressed_and_rotated_output(tmp_path):
    worker = _writer_worker(tmp_path, config={"output_compress_columns": [], "output_max_file_size": 1})
    batches = [worker.sample() for _ in range(3)]
    assert isinstance(worker.output_writer, JsonWriter)
    files = worker.output_writer.files
    assert [os.path.basename(f)[-7:] for f in files] == ["_0.json", "_1.json", "_2.json"]   # a file per batch
    assert isinstance(json.loads(open(files[0]).readline())["obs"], list)
    for batch, back in zip(batches, JsonReader(files).read_all_files()):
        _assert_same(batch, back)


def test_multi_agent_batches_round_trip(tmp_path):
    policies = {"agent_0": (RandomPolicy, None), "agent_1": (RandomPolicy, None)}
    worker = RolloutWorker(env_creator="MultiAgentArena", policy_spec=policies, rollout_fragment_length=10, seed=0,
                           output=str(tmp_path), policy_mapping_fn=lambda agent_id, episode, worker, **kw: agent_id)
    batch = worker.sample()
    (back,) = JsonReader(str(tmp_path)).read_all_files()
    assert type(back).__name__ == "MultiAgentBatch" and back.count == batch.count
    for pid, part in batch.policy_batches.items():
        _assert_same(part, back.policy_batches[pid])


def test_mixed_input_draws_each_source_with_its_probability(written):
    out, _ = written
    ctx = IOContext(config={"seed": 3}, worker_index=1)
    ones = _Constant(1.0)
    mixed = MixedInput({lambda _: ones: 0.25, str(out): 0.75}, ctx)
    draws = [mixed.next() for _ in range(400)]
    from_ones = sum(len(b) == 1 for b in draws)
    assert 70 <= from_ones <= 130                  # binomial(400, 0.25): mean 100, sd 8.7
    again = MixedInput({lambda _: _Constant(1.0): 0.25, str(out): 0.75}, ctx)
    assert [len(again.next()) for _ in range(400)] == [len(b) for b in draws]     # seeded: the same sequence


def test_a_worker_mixes_live_and_offline_batches_and_records_both_sources(written):
    out, batches = written
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=20, seed=5,
                           input={"sampler": 0.5, str(out): 0.5})
    assert worker.io_context.default_sampler_input() is worker.sampler_input
    with rlviz.record() as trace:
        got = [worker.sample() for _ in range(12)]
    offline = [b for b in got if any(np.array_equal(b["eps_id"], w["eps_id"]) for w in batches)]
    assert 0 < len(offline) < 12
    ops = [event.op for event in trace.events]
    assert ops.count("SyncSampler") + ops.count("JsonReader") == 12 == ops.count("MixedInput") == ops.count("sample")
    assert ops.count("JsonReader") == len(offline)
    graph = trace.graph()
    fed = {source: graph.edges[f"{source}@driver", "MixedInput@driver"]["items"] for source in ("SyncSampler", "JsonReader")}
    assert fed == {"SyncSampler": 12 - len(offline), "JsonReader": len(offline)}   # each batch linked to its read
    worker.stop()


def test_the_default_sampler_input_is_a_sync_sampler_over_the_workers_envs():
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=6, num_envs=2, seed=0)
    ctx = IOContext(worker=worker, worker_index=0)
    sampler = ctx.default_sampler_input()
    assert isinstance(sampler, SyncSampler) and isinstance(sampler, SamplerInput)
    assert sampler is worker.input_reader
    assert sampler.get_data().count == 12 and sampler.get_extra_batches() == []
    assert sampler.next().count == 12
    assert IOContext().default_sampler_input() is None
    built = SyncSampler(worker=worker, env=make_vector_env(lambda: gymnasium.make("CartPole-v1"), 3),
                        rollout_fragment_length=4, clip_rewards=None, horizon=None)
    assert built.next().count == 12
    with pytest.raises(NotImplementedError, match="clip_rewards"):
        SyncSampler(worker=worker, env=None, rollout_fragment_length=4, clip_rewards=True)
    with pytest.raises(TypeError, match="rollout_fragment_lenght"):
        SyncSampler(worker=worker, env=None, rollout_fragment_length=4, rollout_fragment_lenght=4)
    worker.stop()


def test_a_callable_input_gets_the_io_context():
    seen = []

    def make(ioctx):
        seen.append(ioctx)
        return _Constant(2.0)

    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=3, num_envs=5, seed=0,
                           input=make, input_config={"format": "mine"})
    assert seen[0].worker is worker and seen[0].input_config == {"format": "mine"}
    batch = worker.sample()
    assert batch.count == 3 and batch["rewards"].tolist() == [2.0] * 3     # read until the fragment is full
    one_env = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=3, seed=0, input=make)
    assert one_env.sample().count == 1             # RLlib reads at most num_envs_per_worker batches per sample()
    with pytest.raises(TypeError, match="must return an InputReader"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, input=lambda ioctx: [1, 2])


@pytest.mark.skipif(_has("d4rl"), reason="d4rl is installed here")
def test_d4rl_reader_names_the_package_and_the_fix():
    with pytest.raises(ImportError, match=r"'d4rl'.*pip install"):
        D4RLReader("hopper-medium-v0")
    with pytest.raises(ImportError, match="d4rl"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, input="d4rl.hopper-medium-v0")


@pytest.mark.parametrize("inputs, named", [("{d}/missing.json", "missing.json"), ("{d}/*.jsn", "*.jsn"),
                                           ("{d}", "holds no"), (["{d}/gone.json"], "gone.json")])
def test_a_missing_input_fails_at_construction_naming_the_path(tmp_path, inputs, named):
    inputs = [i.format(d=tmp_path) for i in inputs] if isinstance(inputs, list) else inputs.format(d=tmp_path)
    with pytest.raises(FileNotFoundError, match=named.replace("*", r"\*")):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, input=inputs)


def test_a_corrupt_line_names_file_and_line_and_keeps_what_was_read(written, tmp_path):
    out, batches = written
    lines = next(out.glob("*.json")).read_text().splitlines()
    bad = tmp_path / "bad.json"
    bad.write_text("\n".join([lines[0], lines[1], '{"type": "SampleBatch", "obs": [1, 2', lines[2]]) + "\n")
    kept = []
    with pytest.raises(CorruptRecordError, match=rf"{bad}, line 3") as error:
        for batch in JsonReader(str(bad)).read_all_files():
            kept.append(batch)
    assert (error.value.path, error.value.line) == (str(bad), 3)
    assert len(kept) == 2
    _assert_same(kept[1], batches[1])
    reader = JsonReader(str(bad))
    reader.next(), reader.next()
    with pytest.raises(CorruptRecordError, match="line 3"):
        reader.next()
    _assert_same(reader.next(), batches[2])        # the read after the error goes on after the corrupt line


def test_remote_reads_and_writes_are_spans_and_nodes_on_the_workers_lane(written, ray_local, tmp_path):
    out, _ = written
    readers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy, num_workers=1,
                        config={"rollout_fragment_length": 20, "seed": 0, "input": str(out),
                                "output": str(tmp_path)})
    (lane,) = readers.lanes()
    with rlviz.record() as trace:
        readers.foreach_worker(lambda w: w.sample(), local_worker=False)
        readers.foreach_worker(lambda w: w.sample(), local_worker=False)
    readers.stop()
    events = [e for e in trace.events if e.where == lane]
    assert [e.op for e in events].count("JsonReader") == 2 and [e.op for e in events].count("JsonWriter") == 2
    graph = trace.graph()
    assert graph.has_edge(f"JsonReader@{lane}", f"sample@{lane}")
    assert graph.has_edge(f"sample@{lane}", f"JsonWriter@{lane}")
    assert len(list(JsonReader(str(tmp_path)).read_all_files())) == 2          # worker 1 wrote what it read


def test_bad_output_and_mix_settings_fail_at_construction(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="file"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, output=str(tmp_path / "file"))
    with pytest.raises(ValueError, match="log_dir"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, output="logdir")
    with pytest.raises(ValueError, match="add up to 0.9"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, input={"sampler": 0.5, str(tmp_path): 0.4})
    with pytest.raises(TypeError, match="input must be"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, input=3)
    with pytest.raises(TypeError, match="output callable must return an OutputWriter"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, output=lambda ioctx: "a file")


class _Constant(InputReader):
    """One-row batches with a fixed reward."""

    def __init__(self, reward):
        self.reward = reward

    def next(self):
        return SampleBatch(rewards=[self.reward])


def test_a_callable_output_gets_every_sampled_batch():
    class Keep(OutputWriter):
        def __init__(self, ioctx):
            self.ioctx, self.kept = ioctx, []

        def write(self, sample_batch):
            self.kept.append(sample_batch)

    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=4, seed=0, output=Keep,
                           output_config={"where": "memory"})
    batches = [worker.sample() for _ in range(3)]
    assert worker.output_writer.kept == batches
    assert worker.output_writer.ioctx.output_config == {"where": "memory"}
    assert worker.io_context.config["rollout_fragment_length"] == 4          # the worker's settings, as a dict
    with pytest.raises(TypeError, match="must return an OutputWriter"):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, output=lambda ioctx: None)
