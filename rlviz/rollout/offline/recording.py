"""Reads from an ``InputReader`` recorded as spans: each reader is a node on the lane of the process reading.

The node's op is the reader's class name (``JsonReader``, ``SyncSampler``,
``MixedInput``), so a trace draws sampling the env and reading offline data
as separate nodes feeding the worker's ``sample``.
"""
from __future__ import annotations

from collections.abc import Callable

from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch
from rlviz.trace import get_recorder, span

__all__ = ["read_recorded", "reader_op", "op_id_here"]


def reader_op(reader: InputReader) -> str:
    """The op name a reader's reads are recorded under: its class name."""
    return type(reader).__name__


def op_id_here(op: str) -> str:
    """The op_id ``span(op)`` gets in this process (``"<op>@<lane>"``), for naming a node as a parent."""
    return f"{op}@{get_recorder().where}"


def read_recorded(reader: InputReader, parents: tuple[str, ...] = (),
                  consumed: Callable[[], tuple[int, ...]] | None = None) -> tuple[SampleBatch | MultiAgentBatch, int]:
    """``reader.next()`` as one span of node ``reader_op(reader)``; returns the batch and the span's item id.

    Parameters
    ----------
    reader : InputReader
        Any reader, a user's subclass included.
    parents : tuple of str
        Op_ids of the nodes this reader takes its batches from (a ``MixedInput``'s sources).
    consumed : callable, optional
        Called after the read: the item ids of the reads it passed on (a ``MixedInput``'s
        ``last_read``), so the trace links each batch to the source read that made it.

    Returns
    -------
    (batch, item_id)
        ``item_id`` is -1 when nothing is recorded.
    """
    op = reader_op(reader)
    with span(op, f"{op}.next()", parents=parents) as call:
        batch = reader.next()
        if consumed is not None:
            call.consumed(*consumed())
        call.produced(batch)
    return batch, call.item_id
