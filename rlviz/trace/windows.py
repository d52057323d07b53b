"""``LaneIndex``: a store's lanes, its pyramid and block index, and the window queries they answer.

A lane is a node's ``where``.  As events arrive (``count_in``) and leave
(``count_out``) this part keeps the ``Pyramid`` (counts and busy time per time bucket) and
the ``BlockIndex`` (where each lane's events sit among the store ids) up to
date, so ``window`` answers "what lies in [start, end] drawn this wide" in
time that grows with the window, not with the run (docs/design.md, "Window
queries").  It reads events from a ``HeldEvents`` and never changes them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.held_events import HeldEvents
from rlviz.trace.pyramid import BLOCK, BLOCK_SHIFT, BlockIndex, Buckets, Pyramid
from rlviz.trace.rows import ERROR, NOT_READY, outcome_of

__all__ = ["LaneIndex", "Window", "LaneWindow", "EXACT_PER_PIXEL", "SCAN_BUDGET", "check_window"]

#: A window query answers a lane with its exact events when it holds at most this many per pixel.
EXACT_PER_PIXEL = 4
#: At most this many held events a window query reads one by one; lanes beyond it are answered from the pyramid.
SCAN_BUDGET = 1 << 19


@dataclass
class LaneWindow:
    """One lane's answer to ``TraceStore.window``: its exact events, or aggregates per time bucket.

    ``events`` (when the lane holds few events in the window) has a
    ``Trace``'s columns plus ``event_id`` (store ids), ordered by start, the
    ``node`` column indexing the store's node table; ``buckets`` otherwise
    (``rlviz.trace.pyramid.Buckets``: per bucket its count, busiest node,
    errors, not-ready calls and busy time).  ``count`` is the events the answer stands
    for: exact for ``events`` and for buckets counted from the events
    themselves, the pyramid's count of events starting in the buckets otherwise.
    """

    lane: str
    count: int
    events: dict[str, np.ndarray] | None = None
    buckets: Buckets | None = None

    def to_json(self) -> dict:
        """The lane's answer as JSON-ready lists (what a page asks the kernel for)."""
        out: dict = {"lane": self.lane, "count": self.count}
        if self.events is not None:
            out["events"] = {name: values.tolist() for name, values in self.events.items()}
        if self.buckets is not None:
            b = self.buckets
            out["buckets"] = {"width_ns": b.width_ns, "start_ns": b.start_ns.tolist(), "count": b.count.tolist(),
                              "busiest": b.busiest.tolist(), "errors": b.errors.tolist(),
                              "not_ready": b.not_ready.tolist(), "busy_ns": b.busy_ns.tolist()}
        return out


@dataclass
class Window:
    """What ``TraceStore.window`` answers: per lane (in the store's lane order) exact events or buckets."""

    start_ns: int
    end_ns: int
    pixels: int
    lanes: list[LaneWindow]
    nodes: list[Node]

    def lane(self, name: str) -> LaneWindow:
        """The answer for lane ``name`` (``KeyError`` if the store has no such lane)."""
        for lane in self.lanes:
            if lane.lane == name:
                return lane
        raise KeyError(f"no lane {name!r} in this window; lanes: {[lane.lane for lane in self.lanes]}")

    def to_json(self) -> dict:
        """The whole answer as JSON-ready data: nodes as ``Node.to_dict``, lanes as ``LaneWindow.to_json``."""
        return {"start_ns": self.start_ns, "end_ns": self.end_ns, "pixels": self.pixels,
                "nodes": [node.to_dict() for node in self.nodes], "lanes": [lane.to_json() for lane in self.lanes]}


class LaneIndex:
    """Lanes in order of first sight, per node its lane, and the pyramid and block index of the held events.

    ``nodes`` is the store's node table (a list that only grows, shared).
    """

    def __init__(self, events: HeldEvents, nodes: list[Node]) -> None:
        self.events = events
        self.nodes = nodes
        self.pyramid = Pyramid()
        self.index = BlockIndex()
        self.lane_names: list[str] = []
        self._node_lane = np.zeros(0, np.int64)

    def lanes_of(self, node: np.ndarray) -> np.ndarray:
        """The lane of each node index in ``node`` (lanes are named by the nodes' ``where``)."""
        if len(self._node_lane) < len(self.nodes):
            lanes = []
            for added in self.nodes[len(self._node_lane):]:
                if added.where not in self.lane_names:
                    self.lane_names.append(added.where)
                lanes.append(self.lane_names.index(added.where))
            self._node_lane = np.append(self._node_lane, np.asarray(lanes, np.int64))
        return self._node_lane[np.asarray(node, np.int64)]

    def count_in(self, first_position: int) -> None:
        """Note the held events from ``first_position`` on (the ones just added, consecutive ids) in the pyramid
        and the block index."""
        positions = np.arange(first_position, len(self.events))
        if not len(positions):
            return
        columns = self.events.columns(positions)
        node = columns["node"].astype(np.int64)
        lane = self.lanes_of(node)
        self.pyramid.add(columns["start_ns"], node, lane, columns["outcome"], columns["end_ns"] - columns["start_ns"])
        self.index.add(int(self.events.column("id")[first_position]), lane, columns["start_ns"], columns["end_ns"])

    def count_out(self, positions: np.ndarray) -> None:
        """Take the held events at ``positions`` out of the pyramid (they leave the store)."""
        if len(positions):
            node = self.events.column("node")[positions].astype(np.int64)
            start = self.events.column("start_ns")[positions]
            self.pyramid.add(start, node, self.lanes_of(node), outcome_of(self.events.column("code")[positions]),
                             self.events.ends(positions) - start, sign=-1)

    def memory(self) -> dict[str, int]:
        """Bytes held: ``"pyramid"`` and ``"index"``."""
        return {"pyramid": self.pyramid.nbytes, "index": self.index.nbytes}

    # -- window queries ----------------------------------------------------------
    def window(self, start_ns: int, end_ns: int, pixels: int, exact_per_pixel: int, scan_budget: int) -> Window:
        """What lies in ``[start_ns, end_ns]`` drawn ``pixels`` wide (``TraceStore.window`` says how)."""
        lanes = len(self.lane_names)
        first_block = self.events.first_id >> BLOCK_SHIFT
        scanned = self._scan_lanes(start_ns, end_ns, scan_budget, first_block)
        positions = self._scan(scanned, start_ns, end_ns, first_block)
        lane_of = self._node_lane[self.events.column("node")[positions].astype(np.int64)]
        by_lane = np.argsort(lane_of, kind="stable")          # each lane's positions stay by start
        bounds = np.searchsorted(lane_of[by_lane], np.arange(lanes + 1))
        level = self.pyramid.level_for((end_ns - start_ns) / pixels)
        answers = []
        for lane in range(lanes):
            if lane in scanned:
                mine = positions[by_lane[bounds[lane]:bounds[lane + 1]]]
                answers.append(self._lane_from_events(lane, mine, start_ns, end_ns, pixels, exact_per_pixel))
            else:
                nodes = np.flatnonzero(self._node_lane == lane)
                buckets = self.pyramid.buckets(level, start_ns, end_ns, nodes, lane)
                answers.append(LaneWindow(self.lane_names[lane], int(buckets.count.sum()), buckets=buckets))
        return Window(int(start_ns), int(end_ns), int(pixels), answers, list(self.nodes))

    def _scan_lanes(self, start_ns: int, end_ns: int, budget: int, first_block: int) -> set[int]:
        """The lanes answered from their events: the cheapest first, while the blocks to read stay within ``budget``."""
        reads = self.index.estimate(start_ns, end_ns, first_block)[:len(self.lane_names)]
        covered = np.zeros(0, np.int64)
        chosen: set[int] = set()
        for lane in np.argsort(reads, kind="stable").tolist():
            blocks = np.union1d(covered, self.index.blocks(np.array([lane]), start_ns, end_ns, first_block))
            if len(blocks) * BLOCK > budget and reads[lane] and self.pyramid.kept:     # else no other answer
                break
            covered = blocks
            chosen.add(lane)
        return chosen

    def _scan(self, lanes: set[int], start_ns: int, end_ns: int, first_block: int) -> np.ndarray:
        """Positions of the held events of ``lanes`` that meet the window, by start."""
        blocks = self.index.blocks(np.array(sorted(lanes), np.int64), start_ns, end_ns, first_block)
        if not len(blocks):
            return np.zeros(0, np.int64)
        bounds = self.events.search_ids(np.stack((blocks, blocks + 1)) * BLOCK)
        positions = np.concatenate([np.arange(lo, hi) for lo, hi in bounds.T.tolist()])
        start = self.events.column("start_ns")[positions]
        positions = positions[start < end_ns]
        positions = positions[self.events.ends(positions) >= start_ns]
        wanted = np.zeros(max(len(self.lane_names), 1), bool)
        wanted[list(lanes)] = True
        positions = positions[wanted[self._node_lane[self.events.column("node")[positions].astype(np.int64)]]]
        return positions[np.argsort(self.events.column("start_ns")[positions], kind="stable")]

    def _lane_from_events(self, lane: int, positions: np.ndarray, start_ns: int, end_ns: int, pixels: int,
                          exact_per_pixel: int) -> LaneWindow:
        """One lane's answer from its events in the window (``positions``, by start): them, or a bucket per pixel."""
        name = self.lane_names[lane]
        if len(positions) <= exact_per_pixel * pixels:
            events = self.events.columns(positions)
            events["event_id"] = self.events.ids_at(positions)
            return LaneWindow(name, len(positions), events=events)
        span = end_ns - start_ns
        start = self.events.column("start_ns")[positions]
        pixel = np.clip((start - start_ns) * pixels // span, 0, pixels - 1)
        node = self.events.column("node")[positions].astype(np.int64)
        outcome = outcome_of(self.events.column("code")[positions])
        per_node = np.bincount(pixel * len(self.nodes) + node, minlength=pixels * len(self.nodes))
        per_node = per_node.reshape(pixels, len(self.nodes))
        count = per_node.sum(axis=1)
        busy = outcome != NOT_READY
        busy_ns = np.bincount(pixel[busy], weights=self.events.ends(positions[busy]) - start[busy], minlength=pixels)
        buckets = Buckets(span // pixels, start_ns + np.arange(pixels, dtype=np.int64) * span // pixels, count,
                          np.where(count > 0, per_node.argmax(axis=1), -1),
                          np.bincount(pixel[outcome == ERROR], minlength=pixels),
                          np.bincount(pixel[outcome == NOT_READY], minlength=pixels), busy_ns.astype(np.int64))
        return LaneWindow(name, len(positions), buckets=buckets)


def check_window(start_ns: int, end_ns: int, pixels: int, exact_per_pixel: int, scan_budget: int) -> None:
    """Refuse a window query's bad arguments, naming the one at fault."""
    if not end_ns > start_ns:
        raise ValueError(f"window end_ns={end_ns} must be after start_ns={start_ns} (epoch ns, driver clock)")
    for name, value in (("pixels", pixels), ("exact_per_pixel", exact_per_pixel), ("scan_budget", scan_budget)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
