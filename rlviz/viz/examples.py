"""Example traces and plans for docs, tests and benchmarks: synthetic runs and real plans' graphs.

Deterministic (seeded) and Ray-free, so every view can be shown and measured
without starting actors.
"""
from __future__ import annotations

import importlib.resources
import json
from collections.abc import Sequence

import numpy as np

from rlviz.checks import check_int
from rlviz.trace import Node, Trace

__all__ = ["sharded_trace", "concurrently_trace", "apex_nodes", "large_trace"]

_MS = 1_000_000


def sharded_trace(items: int = 12, shards: int = 2, not_ready: int = 2, seed: int = 0) -> Trace:
    """``from_range(...).for_each(f).gather_sync().batch(4)`` as if run on ``shards`` actors.

    Parameters
    ----------
    items : int, default 12
        Items each shard produces.
    shards : int, default 2
        Shard actors (``shard-0`` ...).
    not_ready : int, default 2
        Not-ready polls the driver's ``batch`` makes before its first batch.
    seed : int, default 0
        Seed for the call durations.

    Returns
    -------
    Trace
        Events with links from each shard value to the gather that took it.

    Raises
    ------
    ValueError
        If ``items`` or ``shards`` is below 1.
    """
    if items < 1 or shards < 1:
        raise ValueError(f"items and shards must be >= 1, got items={items}, shards={shards}")
    rng = np.random.default_rng(seed)
    builder = _Records()
    name = f"from_range[{items * shards}, shards={shards}]"      # Ray's names, as a real run writes them
    srcs = [Node(f"src{s}", "from_range", f"ParallelIterator[{name}]", f"shard-{s}") for s in range(shards)]
    maps = [Node(f"map{s}", "for_each", f"ParallelIterator[{name}.for_each()]", f"shard-{s}", (f"src{s}",))
            for s in range(shards)]
    gathered = f"ParallelIterator[{name}.for_each()].gather_sync()"
    gather = Node("gather", "gather_sync", f"LocalIterator[{gathered}]", "driver", tuple(m.op_id for m in maps))
    batch = Node("batch", "batch", f"LocalIterator[{gathered}.batch(4)]", "driver", ("gather",))
    builder.nodes = [*srcs, *maps, gather, batch]
    t = 0
    for _ in range(not_ready):
        builder.add(batch, 0, t, t + 20_000, "not_ready")
        t += 60_000
    pending: list[int] = []
    for i in range(items):
        for s in range(shards):
            start = t + int(rng.integers(0, 200_000))
            a = builder.add(srcs[s], 1000 + s, start, start + 50_000, "item", f"int {i}")
            b = builder.add(maps[s], 1000 + s, start + 60_000, start + int(rng.integers(300, 900)) * 1000,
                            "item", f"int {2 * i}", [a])
            end = builder.end_of(b)
            g = builder.add(gather, 0, end + 10_000, end + 40_000, "item", f"int {2 * i}", [b])
            pending.append(g)
            t = builder.end_of(g)
        if len(pending) >= 4:
            builder.add(batch, 0, t, t + 30_000, "item", "list[4]", pending[:4])
            pending = pending[4:]
            t += 40_000
    builder.add(gather, 0, t, t + 10_000, "stop")
    return builder.trace()


def concurrently_trace(weights: Sequence[int] = (1, 2), rounds: int = 12, warmup: int = 3,
                       seed: int = 0) -> Trace:
    """A DQN-style ``Concurrently([store_op, replay_op], round_robin_weights=weights)``, synthetic.

    A reduced node set (sampling, store, replay, train, Concurrently) with
    made-up timings, for the order strip; the real DQN plan also has tag,
    target-update and reporting nodes.

    Parameters
    ----------
    weights : sequence of int, default (1, 2)
        Round-robin weights of the store and replay ops.
    rounds : int, default 12
        Round-robin rounds recorded.
    warmup : int, default 3
        Rounds in which Replay is not ready yet (``learning_starts``).
    seed : int, default 0
        Seed for call durations.

    Returns
    -------
    Trace

    Raises
    ------
    ValueError
        If ``weights`` does not hold two positive ints.
    """
    if len(weights) != 2:
        raise ValueError(f"weights must be two ints >= 1, got {weights!r}; hint: weights=(1, 2)")
    for index, weight in enumerate(weights):
        check_int(f"weights[{index}]", weight, minimum=1)
    rng = np.random.default_rng(seed)
    builder = _Records()
    rollouts = [Node(f"sample{k}", "sample", f"RolloutWorker.sample() on worker {k}",
                     f"RolloutWorker-{k}") for k in (1, 2)]
    gathered = "ParallelIterator[from_actors[shards=2]].batch_across_shards()"
    par = Node("par", "ParallelRollouts", f"LocalIterator[{gathered}.for_each()]", "driver", ("sample1", "sample2"))
    store = Node("store", "StoreToReplayBuffer", f"LocalIterator[{gathered}.for_each().for_each()]",
                 "driver", ("par",))
    replay = Node("replay", "Replay", "LocalIterator[Replay]", "driver")
    train = Node("train", "TrainOneStep", "LocalIterator[Replay.for_each()]", "driver", ("replay",))
    conc = Node("conc", "Concurrently", f"LocalIterator[LocalUnion[{store.label}, {train.label}]]",
                "driver", ("store", "train"), (("round_robin_weights", tuple(weights)),))
    builder.nodes = [*rollouts, par, store, replay, train, conc]
    t = 0
    for r in range(rounds):
        for _ in range(weights[0]):
            ids = []
            for k, node in enumerate(rollouts):
                d = int(rng.integers(2, 5)) * _MS
                ids.append(builder.add(node, 2000 + k, t, t + d, "item", "SampleBatch[200]"))
            t = max(builder.end_of(i) for i in ids) + 100_000
            p = builder.add(par, 0, t, t + 200_000, "item", "SampleBatch[400]", ids)
            s = builder.add(store, 0, t + 200_000, t + 500_000, "item", "SampleBatch[400]", [p])
            t = builder.end_of(s)
            builder.add(conc, 0, t, t + 20_000, "item", "SampleBatch[400]", [s])
            t += 50_000
        for _ in range(weights[1]):
            if r < warmup:
                builder.add(replay, 0, t, t + 30_000, "not_ready")
                builder.add(train, 0, t, t + 60_000, "not_ready")
                t += 100_000
                break
            q = builder.add(replay, 0, t, t + 300_000, "item", "SampleBatch[32]")
            d = int(rng.integers(3, 6)) * _MS
            x = builder.add(train, 0, t + 300_000, t + 300_000 + d, "item", "tuple[2]", [q])
            t = builder.end_of(x)
            builder.add(conc, 0, t, t + 20_000, "item", "tuple[2]", [x])
            t += 50_000
    return builder.trace()


def apex_nodes() -> list[Node]:
    """The real Ape-X plan's dataflow (4 rollout workers, 4 replay actors, 36 nodes), as plain ``Node`` data.

    Read from the snapshot ``rlviz.plans.dataflows`` takes of the real plan
    (``rlviz/plans/dataflow_apex.json``; a test keeps it equal to the plan), so
    no actor starts and Ray is not imported.

    Returns
    -------
    list of Node

    Examples
    --------
    >>> nodes = apex_nodes()
    >>> [n.op for n in nodes if n.where == "driver"][-5:]
    ['Concurrently', 'output_indexes', 'OncePerTimestepsElapsed', 'OncePerTimeInterval', 'CollectMetrics']
    """
    text = (importlib.resources.files("rlviz") / "plans" / "dataflow_apex.json").read_text()
    return [Node.from_dict(n) for n in json.loads(text)["nodes"]]


def large_trace(events: int = 100_000, processes: int = 4, ops_per_process: int = 4,
                seed: int = 0) -> Trace:
    """A big random trace built straight into columns (no per-event Python objects).

    Parameters
    ----------
    events : int, default 100_000
        Events to generate.
    processes : int, default 4
        Processes: the driver plus ``processes - 1`` shards.
    ops_per_process : int, default 4
        Nodes per process.
    seed : int, default 0
        Random seed.

    Returns
    -------
    Trace
        About 10% not-ready events, a few errors, one ``worker_restarted``
        event, and every item linked to a later event on the next node.
    """
    rng = np.random.default_rng(seed)
    nodes = []
    for p in range(processes):
        where = "driver" if p == 0 else f"shard-{p - 1}"
        for k in range(ops_per_process):
            parents = (f"p{p}o{k - 1}",) if k else ()
            nodes.append(Node(f"p{p}o{k}", ["from_range", "for_each", "batch", "flatten"][k % 4],
                              f"op {k} on {where}", where, parents))
    nodes.append(Node("restart", "worker_restarted", "worker restarted", "driver"))
    node = rng.integers(0, len(nodes) - 1, events).astype(np.int32)
    node[events // 2] = len(nodes) - 1
    start = np.sort(rng.integers(0, 2_000 * _MS, events)).astype(np.int64)
    end = start + rng.integers(5_000, 400_000, events)
    outcome = np.zeros(events, np.uint8)
    outcome[rng.random(events) < 0.1] = 1
    outcome[rng.random(events) < 0.001] = 3
    item_id = np.where(outcome == 0, np.arange(events), -1).astype(np.int64)
    consumer = np.flatnonzero(outcome == 0)[:-1]
    offsets = np.zeros(events + 1, np.int64)
    offsets[consumer + 2] = 1                # event i + 1 consumed item i
    columns = {"node": node, "pid": (node // ops_per_process).astype(np.int64), "start_ns": start,
               "end_ns": end, "outcome": outcome, "item_kind": np.zeros(events, np.uint8),
               "item_num": np.zeros(events, np.int64), "item_id": item_id,
               "input_offsets": np.cumsum(offsets), "input_ids": consumer.astype(np.int64)}
    return Trace(nodes, columns)


class _Records:
    """Accumulates ``from_records`` dicts, handing out item ids."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.records: list[dict] = []
        self._ends: dict[int, int] = {}

    def add(self, node: Node, pid: int, start: int, end: int, outcome: str,
            item: str | None = None, inputs: Sequence[int] = ()) -> int:
        item_id = len(self.records) + 1 if outcome == "item" else None
        self.records.append({"op": node.op, "label": node.label, "op_id": node.op_id,
                             "where": node.where, "pid": pid, "start_ns": start, "end_ns": end,
                             "outcome": outcome, "item": item, "item_id": item_id,
                             "inputs": list(inputs)})
        if item_id is not None:
            self._ends[item_id] = end
        return item_id if item_id is not None else -1

    def end_of(self, item_id: int) -> int:
        return self._ends[item_id]

    def trace(self) -> Trace:
        return Trace.from_records(self.records, self.nodes)
