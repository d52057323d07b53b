"""A ``RolloutWorker``'s input and output, built from its ``input`` / ``output`` settings, and its recorded sample step.

Two calls wire this into a worker: ``attach_io(worker, config)`` in its
constructor and ``sample_and_write(worker)`` in its ``sample()``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rlviz.rollout.offline.d4rl_reader import D4RLReader
from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.offline.io_context import IOContext
from rlviz.rollout.offline.json_reader import JsonReader
from rlviz.rollout.offline.json_writer import JsonWriter, NoopOutput, OutputWriter
from rlviz.rollout.offline.mixed_input import MixedInput
from rlviz.rollout.offline.recording import op_id_here, read_recorded, reader_op
from rlviz.rollout.offline.sampler_input import SyncSampler
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch, concat_samples
from rlviz.trace import span

__all__ = ["attach_io", "sample_and_write", "make_input_reader", "make_output_writer"]

_D4RL_PREFIX = "d4rl."


def attach_io(worker: Any, config: Any) -> None:
    """Give ``worker`` its ``io_context``, ``sampler_input``, ``input_reader`` and ``output_writer``.

    Called once the worker's ``sampler`` exists; a missing input file fails here, at construction.
    """
    worker.io_context = IOContext(getattr(worker, "log_dir", None), config, worker.worker_index, worker)
    worker.sampler_input = SyncSampler.wrapping(worker.sampler, worker)
    worker.input_reader = make_input_reader(worker.io_context.config.get("input", "sampler"), worker.io_context)
    worker.output_writer = make_output_writer(worker.io_context.config.get("output"), worker.io_context)


def make_input_reader(setting: Any, ioctx: IOContext) -> InputReader:
    """The reader an ``input`` setting asks for.

    ``"sampler"``: the worker's envs; ``"d4rl.<env id>"``: a ``D4RLReader``;
    a dict: a ``MixedInput``; a callable: ``setting(ioctx)``; a path, glob or
    list: a ``JsonReader``.

    Raises
    ------
    FileNotFoundError
        For a path or glob that names no file.
    TypeError
        For a value of none of these kinds, or a callable not returning an ``InputReader``.
    """
    if isinstance(setting, str) and setting == "sampler":
        return ioctx.default_sampler_input()
    if isinstance(setting, str) and setting.startswith(_D4RL_PREFIX):
        return D4RLReader(setting[len(_D4RL_PREFIX):], ioctx)
    if isinstance(setting, Mapping):
        return MixedInput(setting, ioctx)
    if callable(setting):
        return _built_by(setting, ioctx, InputReader, "input")
    if isinstance(setting, (str, os.PathLike, list, tuple)):
        return JsonReader(setting, ioctx)
    raise TypeError(f"input must be 'sampler', a path, glob or list of files, a dict input -> probability, "
                    f"or a callable ioctx -> InputReader; got {setting!r}")


def make_output_writer(setting: Any, ioctx: IOContext) -> OutputWriter:
    """The writer an ``output`` setting asks for: None (nothing written), ``"logdir"``, a directory or a callable.

    The ``output_max_file_size`` and ``output_compress_columns`` settings configure a ``JsonWriter``.

    Raises
    ------
    ValueError
        For ``"logdir"`` on a worker without a log directory.
    TypeError
        For a value of none of these kinds.
    """
    if setting is None:
        return NoopOutput()
    if callable(setting):
        return _built_by(setting, ioctx, OutputWriter, "output")
    if setting == "logdir":
        if ioctx.log_dir is None:
            raise ValueError("output='logdir' needs the worker's log_dir, which is not set; give a directory "
                             "instead, e.g. output='/tmp/cartpole-out'")
        setting = ioctx.log_dir
    if isinstance(setting, (str, os.PathLike)):
        options = {key: ioctx.config[name] for key, name in (("max_file_size", "output_max_file_size"),
                                                              ("compress_columns", "output_compress_columns"))
                   if name in ioctx.config}
        return JsonWriter(setting, ioctx, **options)
    raise TypeError(f"output must be None, 'logdir', a directory or a callable ioctx -> OutputWriter; "
                    f"got {setting!r}")


def sample_and_write(worker: Any) -> tuple[SampleBatch | MultiAgentBatch, int]:
    """One ``sample()`` of ``worker``: read its input, write the batch to its output; returns (batch, span item id).

    With the default input, a batch is one fragment of the envs, recorded as
    the ``sample`` span as always.  Any other input is read as RLlib reads it
    (batches until ``rollout_fragment_length`` env steps, at most
    ``num_envs_per_worker`` of them), each read a span of the reader's node,
    which becomes the ``sample`` node's parent.  A write is a span of the
    writer's node, fed by ``sample``.
    """
    reader = worker.input_reader
    if reader is worker.sampler_input:
        with span("sample") as call:
            _consume_weights(worker, call)
            batch = reader.next()
            call.produced(batch)
    else:
        with span("sample", parents=(op_id_here(reader_op(reader)),)) as call:
            _consume_weights(worker, call)
            batch, read_ids = _read_fragment(worker, reader)
            call.consumed(*read_ids)
            call.produced(batch)
    _write_recorded(worker.output_writer, batch, call.item_id)
    return batch, call.item_id


def _consume_weights(worker: Any, call: Any) -> None:
    """The weights a sample acts with are one of its inputs: lineage reaches from an update to its samples."""
    weights_item = getattr(worker, "weights_item", -1)
    if weights_item >= 0:
        call.consumed(weights_item)


def _read_fragment(worker: Any, reader: InputReader) -> tuple[SampleBatch | MultiAgentBatch, list[int]]:
    mixed = isinstance(reader, MixedInput)
    parents, consumed = (reader.source_ops(), lambda: (reader.last_read,)) if mixed else ((), None)
    wanted, most = worker.config.rollout_fragment_length, worker.config.num_envs_per_worker
    batches, ids, steps = [], [], 0
    while not batches or (steps < wanted and len(batches) < most):
        batch, item_id = read_recorded(reader, parents, consumed)
        batches.append(batch)
        ids.append(item_id)
        steps += batch.count
    return (batches[0] if len(batches) == 1 else concat_samples(batches)), ids


def _write_recorded(writer: OutputWriter, batch: SampleBatch | MultiAgentBatch, sampled: int) -> None:
    if isinstance(writer, NoopOutput):
        return
    op = type(writer).__name__
    with span(op, f"{op}.write()", parents=(op_id_here("sample"),)) as call:
        call.consumed(sampled)
        writer.write(batch)


def _built_by(factory: Any, ioctx: IOContext, expected: type, setting_name: str) -> Any:
    """What a user's ``factory(ioctx)`` returns for the ``input``/``output`` setting, checked to be an ``expected``."""
    built = factory(ioctx)
    if not isinstance(built, expected):
        raise TypeError(f"{setting_name}={factory!r} returned {type(built).__name__}; an {setting_name} callable "
                        f"must return an {expected.__name__} (rlviz.rollout.offline.{expected.__name__})")
    return built
