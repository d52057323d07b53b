"""Sampling the environment or offline data: input readers, samplers, JSON output and input, their context.

A ``RolloutWorker``'s ``input`` setting picks what ``sample()`` reads
(``"sampler"``: its envs; a path, glob or list: a ``JsonReader``; a dict: a
``MixedInput``; ``"d4rl.<id>"``: a ``D4RLReader``; a callable ``ioctx -> InputReader``),
its ``output`` setting where every sampled batch is written (a ``JsonWriter``
directory).  Every read and write is recorded on the worker's lane.
"""
from __future__ import annotations

from rlviz.rollout.offline.d4rl_reader import D4RLReader
from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.offline.io_context import IOContext
from rlviz.rollout.offline.json_format import batch_from_json, batch_to_json
from rlviz.rollout.offline.json_reader import CorruptRecordError, JsonReader
from rlviz.rollout.offline.json_writer import JsonWriter, NoopOutput, OutputWriter
from rlviz.rollout.offline.mixed_input import MixedInput
from rlviz.rollout.offline.sampler_input import SamplerInput, SyncSampler

__all__ = ["InputReader", "SamplerInput", "SyncSampler", "IOContext", "JsonReader", "JsonWriter",
           "OutputWriter", "NoopOutput", "MixedInput", "D4RLReader", "CorruptRecordError",
           "batch_to_json", "batch_from_json"]
