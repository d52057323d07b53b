"""A large synthetic trace shaped like a sharded pipeline, built straight into ``Trace`` columns.

Used by the Explorer benchmark: ``lanes - 1`` shard actors each run
``from_range -> for_each``; the driver gathers their values (``gather_async``),
batches them by eight and polls while nothing is ready.  Plain numpy, seeded.
``with_gauges`` adds gauge readings drawn like the DQN demo's (about one per
event).
"""
from __future__ import annotations

import numpy as np

from rlviz.trace import Node, Trace
from rlviz.trace.gauges import REPLAY_HELD, WEIGHTS_VERSION, Gauge
from rlviz.trace.items import KIND_INT, KIND_SIZED, KIND_TEXT, TextTable

__all__ = ["pipeline_trace", "with_gauges"]

_US = 1_000
_BATCH = 8                  # gathered values per driver batch
_POLL_EVERY = 10            # one not-ready poll of the batch op per this many values
_SIZED_SHIFT = 24           # KIND_SIZED packs (length << 24) | type-name index


def pipeline_trace(events: int = 1_000_000, lanes: int = 16, span_s: float = 300.0, seed: int = 0) -> Trace:
    """A ``from_range(...).for_each(f).gather_async().batch(8)`` run on ``lanes - 1`` shards.

    Every value is linked from the event that produced it to the one that
    consumed it (shard source -> shard map -> driver gather -> driver batch),
    so flow arrows and the inspector have real producers and consumers.
    About 1 in 30 events is a not-ready poll, 1 in 20,000 an error, and one
    ``worker_restarted`` event sits in the middle.

    Parameters
    ----------
    events : int, default 1_000_000
        Events in the trace (exactly).
    lanes : int, default 16
        Processes: the driver plus ``lanes - 1`` shards.
    span_s : float, default 300.0
        Seconds the run lasts.
    seed : int, default 0
        Random seed (durations and jitter).

    Returns
    -------
    Trace

    Raises
    ------
    ValueError
        If ``events`` is below 100, ``lanes`` below 2 or ``span_s`` not positive.
    """
    if not isinstance(events, int) or events < 100:
        raise ValueError(f"events must be an int >= 100, got {events!r}")
    if not isinstance(lanes, int) or lanes < 2:
        raise ValueError(f"lanes must be an int >= 2 (the driver and at least one shard), got {lanes!r}")
    if not span_s > 0:
        raise ValueError(f"span_s must be a positive number of seconds, got {span_s!r}")
    rng = np.random.default_rng(seed)
    shards = lanes - 1
    nodes = _nodes(shards)
    src, mapped, gather, batch, restart = (np.arange(shards), shards + np.arange(shards),
                                           2 * shards, 2 * shards + 1, 2 * shards + 2)
    # events per value: source, map, gather, 1/8 batch, 1/10 poll
    values = int(events / (3 + 1 / _BATCH + 1 / _POLL_EVERY)) + _BATCH
    shard = np.arange(values) % shards
    period = int(span_s * 1e9 * shards / values)
    t0 = (np.arange(values) // shards) * period + rng.integers(0, period, values)
    src_end = t0 + rng.integers(20, 120, values) * _US
    map_start = src_end + 5 * _US
    map_end = map_start + rng.integers(100, max(101, period // _US // 2), values) * _US
    arrival = np.argsort(map_end, kind="stable")               # the driver gathers in arrival order
    gather_start = np.empty(values, np.int64)
    gather_start[arrival] = np.maximum(map_end[arrival] + 30 * _US,
                                       np.arange(values) * (period // shards))
    gather_end = gather_start + rng.integers(10, 60, values) * _US
    batches = values // _BATCH
    members = arrival[:batches * _BATCH].reshape(batches, _BATCH)     # gathered values, in arrival order
    batch_start = gather_end[members[:, -1]] + 5 * _US
    batch_end = batch_start + rng.integers(20, 80, batches) * _US
    polls = values // _POLL_EVERY
    poll_start = np.sort(rng.integers(0, int(values * period / shards), polls))
    poll_end = poll_start + 15 * _US
    texts = TextTable()
    list_name = texts.intern("list")
    error_text = texts.intern("ValueError('bad value')")

    # pre-sort rows: sources, maps, gathers, batches, polls, the restart
    value_ids = np.arange(values, dtype=np.int64)
    node = np.concatenate([src[shard], mapped[shard], np.full(values, gather), np.full(batches, batch),
                           np.full(polls, batch), [restart]]).astype(np.int32)
    start = np.concatenate([t0, map_start, gather_start, batch_start, poll_start, [int(span_s * 5e8)]])
    end = np.concatenate([src_end, map_end, gather_end, batch_end, poll_end, [int(span_s * 5e8) + 1000 * _US]])
    n = len(node)
    outcome = np.zeros(n, np.uint8)
    outcome[3 * values + batches:3 * values + batches + polls] = 1          # not ready
    kind = np.full(n, KIND_INT, np.uint8)
    number = np.concatenate([value_ids, value_ids * 2, value_ids * 2, np.zeros(batches, np.int64),
                             np.zeros(polls + 1, np.int64)])
    kind[3 * values:3 * values + batches] = KIND_SIZED
    number[3 * values:3 * values + batches] = (_BATCH << _SIZED_SHIFT) | list_name
    kind[3 * values + batches:] = 0
    errors = rng.choice(2 * values, size=max(1, n // 20_000), replace=False) + values   # maps and gathers
    outcome[errors] = 3
    kind[errors] = KIND_TEXT
    number[errors] = error_text
    item_id = np.where(outcome == 0, np.arange(n, dtype=np.int64) + 1, -1)
    item_id[3 * values + batches + polls] = -1                                # the restart carries nothing
    counts = np.concatenate([np.zeros(values, np.int64), np.ones(2 * values, np.int64),
                             np.full(batches, _BATCH, np.int64), np.zeros(polls + 1, np.int64)])
    inputs = np.concatenate([value_ids + 1,                    # a map consumed its source value
                             values + value_ids + 1,            # a gather consumed its map value
                             2 * values + members.ravel() + 1])   # a batch consumed eight gathered values

    order = np.lexsort((end, start))[:events]        # exactly `events`, the earliest, by start then end as a Trace
    flat_first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    new_counts = counts[order]
    offsets = np.concatenate([[0], np.cumsum(new_counts)])
    within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], new_counts)
    pid = np.concatenate([1000 + np.arange(shards), 1000 + np.arange(shards), [100, 100, 100]])
    columns = {"node": node[order], "pid": pid[node[order]].astype(np.int64),
               "start_ns": start[order].astype(np.int64), "end_ns": end[order].astype(np.int64),
               "outcome": outcome[order], "item_kind": kind[order], "item_num": number[order],
               "item_id": item_id[order], "input_offsets": offsets.astype(np.int64),
               "input_ids": inputs[np.repeat(flat_first[order], new_counts) + within].astype(np.int64)}
    return Trace(nodes, columns, texts=texts.texts)


def _nodes(shards: int) -> list[Node]:
    sources = [Node(f"src{s}", "from_range", f"from_range(1000000, num_shards={shards})[{s}]", f"shard-{s}")
               for s in range(shards)]
    maps = [Node(f"map{s}", "for_each", f"from_range(...).for_each(<lambda>) on shard {s}", f"shard-{s}",
                 (f"src{s}",)) for s in range(shards)]
    gather = Node("gather", "gather_async", "ParallelIterator[from_range].for_each().gather_async()", "driver",
                  tuple(m.op_id for m in maps))
    batch = Node("batch", "batch", "LocalIterator[...gather_async()].batch(8)", "driver", ("gather",))
    restart = Node("restart", "worker_restarted", "worker restarted", "driver")
    return [*sources, *maps, gather, batch, restart]


def with_gauges(trace: Trace, per_event: float = 1.0, spike_at: float = 0.5, seed: int = 0) -> Trace:
    """``trace`` with gauge readings as the DQN demo records them: the driver's replay rows held (rising, then
    held at capacity, with one reading 1,000 times the rest at ``spike_at`` of the run) and each shard's
    weights version (a step per sync), ``per_event`` readings per event in all.

    Parameters
    ----------
    trace : Trace
        A ``pipeline_trace`` (its lanes: the driver, ``shard-0`` on).
    per_event : float, default 1.0
        Readings per event.
    spike_at : float, default 0.5
        Where the spike lies, as a share of the run.
    seed : int, default 0

    Returns
    -------
    Trace
        The same events, with ``gauges``.
    """
    rng = np.random.default_rng(seed)
    c = trace.columns
    first, last = int(c["start_ns"][0]), int(c["end_ns"].max())
    shards = sorted({node.where for node in trace.nodes} - {"driver"})
    total = max(2, int(len(trace) * per_event))
    held_n, sync_n = total - total // 8, total // 8
    times = np.sort(rng.integers(first, last, held_n))
    rows = np.minimum(np.arange(1, held_n + 1) * 4, 50_000).astype(np.float64)
    rows[int(spike_at * (held_n - 1))] *= 1000
    syncs = np.sort(rng.integers(first, last, sync_n))
    lane = rng.integers(0, len(shards), sync_n)
    version = np.zeros(sync_n)
    for k in range(len(shards)):
        mine = lane == k
        version[mine] = np.arange(1, int(mine.sum()) + 1)
    where = np.array(shards, dtype=object)[lane]
    gauges = {REPLAY_HELD: Gauge(times, rows, np.full(held_n, 100, np.int64), np.full(held_n, "driver", dtype=object)),
              WEIGHTS_VERSION: Gauge(syncs, version, 1000 + lane.astype(np.int64), where)}
    return Trace(trace.nodes, trace.columns, trace.texts, trace.dropped, trace.decisions, gauges, trace.gaps)
