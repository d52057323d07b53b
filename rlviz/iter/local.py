"""``LocalIterator``: a lazy, chainable iterator that records every ``next()``.

Each transform returns a new iterator holding the same source plus one more
step; nothing runs until the first ``next()``.  Built chains wrap every stage
in ``instrument`` so a ``rlviz.record()`` block sees each call.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rlviz.checks import check_int
from rlviz.iter import transforms
from rlviz.iter.chain import Chain, Details, NodeId, Source, Step
from rlviz.iter.metrics import MetricsContext, SharedMetrics, current_metrics
from rlviz.iter.union import duplicate_sources, union_source
from rlviz.iter.validate import check_concurrency, check_weights
from rlviz.trace.event import DRIVER, Node

__all__ = ["LocalIterator"]


class LocalIterator:
    """An iterator over one stream of items, transformed lazily on this process.

    Parameters
    ----------
    base_iterator : callable
        ``base_iterator(timeout)`` returns the iterable to start from.  A
        callable (not an iterator) keeps the LocalIterator serialisable.
    shared_metrics : SharedMetrics, optional
        The metrics context shared along the chain (a new one by default).
    local_transforms : list of callable, optional
        Functions ``iterator -> iterator`` applied on top of the base.
    timeout : float, optional
        Passed to the source: None blocks; a number makes waits non-blocking
        and a ``NextValueNotReady`` is yielded after each wait round.
    name : str, optional
        The source's name (Ray's default: ``unknown``).  ``repr`` is Ray's,
        ``LocalIterator[<name>]``, and is the trace label; a given name is
        also the source node's op (``name="Replay"``: op ``Replay``).

    Examples
    --------
    >>> it = LocalIterator(lambda timeout: range(6)).for_each(lambda x: x * 10).batch(4)
    >>> it
    LocalIterator[unknown.for_each().batch(4)]
    >>> list(it)
    [[0, 10, 20, 30], [40, 50]]
    """

    def __init__(self, base_iterator: Callable[[Any], Iterable], shared_metrics: SharedMetrics | None = None,
                 local_transforms: list[Callable] | None = None, timeout: float | None = None,
                 name: str | None = None) -> None:
        if not callable(base_iterator):
            raise TypeError(f"base_iterator must be a callable taking a timeout and returning an "
                            f"iterable, not {type(base_iterator).__name__}; wrap it: lambda timeout: items")
        source = Source(name or "source", NodeId.new(), name or "unknown",
                        lambda timeout, consumed: iter(base_iterator(timeout)))
        chain = Chain(source, timeout=timeout)
        for fn in local_transforms or ():
            chain = chain.then(_as_step(fn, chain.name))
        self.chain = chain
        self.shared_metrics = shared_metrics or SharedMetrics()
        self._built: Iterator | None = None

    @classmethod
    def from_chain(cls, chain: Chain, shared_metrics: SharedMetrics | None = None) -> "LocalIterator":
        """The public face of ``chain``: how rlviz's own sources (gathers, union) make an iterator.

        Parameters
        ----------
        chain : Chain
            The source, its steps and its timeout.
        shared_metrics : SharedMetrics, optional
            The metrics context shared along the chain (a new one by default).
        """
        it = cls.__new__(cls)
        it.chain = chain
        it.shared_metrics = shared_metrics or SharedMetrics()
        it._built = None
        return it

    # -- identity ----------------------------------------------------------
    @property
    def name(self) -> str:
        """Ray's name of the whole chain, without the ``LocalIterator[...]`` around it."""
        return self.chain.name

    @property
    def timeout(self) -> float | None:
        """How long the source waits (None blocks; a number yields not-ready after each wait)."""
        return self.chain.timeout

    def __repr__(self) -> str:
        return self.chain.label

    __str__ = __repr__

    def dataflow(self, where: str = DRIVER) -> list[Node]:
        """The dataflow graph feeding this iterator, as plain ``Node``s (nothing runs)."""
        return self.chain.dataflow(where)

    # -- iteration ---------------------------------------------------------
    def __iter__(self) -> Iterator:
        return self._running()

    def __next__(self) -> Any:
        return next(self._running())

    def _running(self) -> Iterator:
        """The built chain; an error if an exception (Ctrl-C included) ended it, which Python would hide.

        A generator that raised is finished: asked again it would just stop, so
        a loop re-run after an interrupt would quietly see no items.
        """
        if self._built is None:
            self._built, self._last_tap = self.chain.build_watched(self.shared_metrics)
        elif self._last_tap.failure is not None:
            failure = self._last_tap.failure
            raise RuntimeError(f"{self!r} was ended by {type(failure).__name__}"
                               f"{f': {failure}' if str(failure) else ''} and cannot go on; "
                               f"build the iterator again (run the cell that made it)") from failure
        return self._built

    def take(self, n: int) -> list:
        """The next ``n`` items (fewer if the stream ends)."""
        check_int("n", n, minimum=0)
        out: list = []
        if n == 0:
            return out
        for item in self:
            out.append(item)
            if len(out) >= n:
                break
        return out

    def show(self, n: int = 20) -> None:
        """Print the next ``n`` items."""
        for item in self.take(n):
            print(item)

    @staticmethod
    def get_metrics() -> MetricsContext:
        """The metrics context of the iterator function running now.

        Raises
        ------
        ValueError
            Outside a function called by an iterator (for_each, filter, ...).
        """
        return current_metrics()

    # -- transforms: each returns a new iterator with one more step ----------
    def for_each(self, fn: Callable, max_concurrency: int = 1,
                 resources: dict | None = None, *, name: str | None = None) -> "LocalIterator":
        """Apply ``fn`` to each item (``max_concurrency != 1``: as Ray tasks, 0 = unbounded).

        The name is Ray's (``.for_each()``); the step's node op is ``name``,
        else ``fn.__rlviz_op__`` (execution ops such as ``TrainOneStep`` set
        it), else ``"for_each"``.  A ``max_concurrency`` other than 1 is one of
        the node's details.

        Examples
        --------
        >>> it = LocalIterator(lambda timeout: range(3)).for_each(abs, name="Abs")
        >>> it, it.dataflow()[-1].op
        (LocalIterator[unknown.for_each()], 'Abs')
        """
        check_concurrency(max_concurrency)
        op = _op_name(fn, name) or "for_each"
        if max_concurrency == 1:
            return self._then_fn(op, ".for_each()", lambda up, shared: transforms.for_each(up, fn, shared))
        return self._then_fn(op, ".for_each()",
                             lambda up, shared: transforms.for_each_concurrent(up, fn, max_concurrency, resources),
                             (("max_concurrency", max_concurrency),))

    def filter(self, fn: Callable[[Any], bool]) -> "LocalIterator":
        """Keep items for which ``fn(item)`` is true."""
        return self.then(Step("filter", NodeId.new(), self.name + ".filter()",
                              lambda up, shared: transforms.filter_items(up, fn, shared), drops=True))

    def batch(self, n: int) -> "LocalIterator":
        """Group items into lists of ``n`` (the last list may be shorter)."""
        check_int("n", n, minimum=1)
        return self._then_fn("batch", f".batch({n})", lambda up, shared: transforms.batch(up, n))

    def flatten(self) -> "LocalIterator":
        """Yield the elements of each (iterable) item."""
        return self._then_fn("flatten", ".flatten()", lambda up, shared: transforms.flatten(up))

    def shuffle(self, shuffle_buffer_size: int, seed: int | None = None) -> "LocalIterator":
        """Shuffle through a buffer of ``shuffle_buffer_size`` items."""
        check_int("shuffle_buffer_size", shuffle_buffer_size, minimum=1)
        return self._then_fn("shuffle", f".shuffle(shuffle_buffer_size={shuffle_buffer_size}, seed={seed})",
                             lambda up, shared: transforms.shuffle(up, shuffle_buffer_size, seed))

    def transform(self, fn: Callable[[Iterator], Iterator]) -> "LocalIterator":
        """Apply ``fn`` to the whole iterator (``fn(iterator) -> iterator``)."""
        return self._then_fn("transform", ".transform()", lambda up, shared: iter(fn(up)))

    def combine(self, fn: Callable[[Any], Iterable], *, name: str | None = None) -> "LocalIterator":
        """``fn(item)`` returns a list; yield its elements (for_each + flatten as one step).

        Named like ``for_each``: ``name``, else ``fn.__rlviz_op__``, else ``"combine"``.
        """
        return self._then_fn(_op_name(fn, name) or "combine", ".combine()",
                             lambda up, shared: transforms.flatten(transforms.for_each(up, fn, shared)))

    def zip_with_source_actor(self) -> "LocalIterator":
        """Pair each item with the actor that produced it (only gather_async knows it)."""
        return self._then_fn("zip_with_source_actor", ".zip_with_source_actor()",
                             lambda up, shared: transforms.for_each(up, _zip_with_source, shared))

    def duplicate(self, n: int) -> list["LocalIterator"]:
        """``n`` iterators over one shared stream, in step.

        A child that is ahead of the slowest one yields not-ready until the
        others catch up, so memory stays bounded.
        """
        check_int("n", n, minimum=1)
        return [LocalIterator.from_chain(Chain(source), self.shared_metrics)
                for source in duplicate_sources(self.chain, self.shared_metrics, n)]

    def union(self, *others: "LocalIterator", deterministic: bool = False,
              round_robin_weights: list | None = None) -> "LocalIterator":
        """Interleave this iterator with ``others``, round by round.

        Each round every child is pulled up to its weight times (a fractional
        weight ``w`` gives ``int(w)`` pulls plus one more with probability
        ``w - int(w)``; ``"*"`` pulls without blocking, up to
        ``rlviz.iter.union.STAR_MAX_PULL``, until nothing is ready).  The
        first not-ready ends a child's turn; an exhausted child is dropped.
        With weights, numeric children block and ``"*"`` children don't;
        without weights every weight is 1 and children block only if
        ``deterministic``.  All children share one metrics context.

        Raises
        ------
        TypeError
            If a child is not a LocalIterator.
        ValueError
            If the weights are not one per child, not finite numbers > 0 or "*", or all "*".
        """
        iterators = [self, *others]
        for index, it in enumerate(iterators):
            if not isinstance(it, LocalIterator):
                raise TypeError(f"union() takes LocalIterators; argument {index} is a "
                                f"{type(it).__name__} (gather a ParallelIterator first)")
        if round_robin_weights is not None:
            weights = check_weights(round_robin_weights, len(iterators))
            timeouts = [0 if w == "*" else None for w in weights]
            details = (("round_robin_weights", tuple(weights)),)
        else:
            weights = [1] * len(iterators)
            timeouts = [None if deterministic else 0] * len(iterators)
            details = (("deterministic", deterministic),)
        shared = SharedMetrics(parents=[it.shared_metrics for it in iterators])
        chains = [it.chain.with_timeout(t) for it, t in zip(iterators, timeouts)]
        name = f"LocalUnion[{self}, {', '.join(map(str, others))}]"      # Ray's, ", ]" with no others included
        return LocalIterator.from_chain(Chain(union_source(chains, weights, shared, name, details)), shared)

    def named(self, op: str) -> "LocalIterator":
        """The same chain with its last node shown as ``op`` in graphs and traces.

        For ops built from other pieces, e.g. ``Concurrently`` (a union): the
        ``repr`` (the node's label) stays Ray's, nothing else changes.

        Examples
        --------
        >>> it = LocalIterator(lambda timeout: range(3)).for_each(abs).named("Abs")
        >>> it, it.dataflow()[-1].op
        (LocalIterator[unknown.for_each()], 'Abs')
        """
        if not isinstance(op, str) or not op:
            raise TypeError(f"op must be a non-empty str, got {op!r}")
        return LocalIterator.from_chain(self.chain.named(op), self.shared_metrics)

    def then(self, step: Step) -> "LocalIterator":
        """This chain with a prepared ``step`` appended (what calling a ``Step`` on it does)."""
        return LocalIterator.from_chain(self.chain.then(step), self.shared_metrics)

    # -- building ----------------------------------------------------------
    def _then_fn(self, op: str, suffix: str, build: Callable, details: Details = ()) -> "LocalIterator":
        return self.then(Step(op, NodeId.new(), self.name + suffix, build, details=details))


def _as_step(fn: Callable, name: str) -> Step:
    """A user's ``iterator -> iterator`` function as a step."""
    if isinstance(fn, Step):
        return fn
    return Step("transform", NodeId.new(), name + ".transform()", lambda up, shared: iter(fn(up)))


def _op_name(fn: Callable, name: str | None) -> str | None:
    """The node name for ``fn``: ``name``, else ``fn.__rlviz_op__``, else None (generic)."""
    op = name if name is not None else getattr(fn, "__rlviz_op__", None)
    if op is not None and (not isinstance(op, str) or not op):
        raise TypeError(f"name must be a non-empty str, got {op!r}")
    return op


def _zip_with_source(item: Any) -> tuple:
    actor = current_metrics().current_actor
    if actor is None:
        raise ValueError("zip_with_source_actor() found no source actor for this item: only "
                         "gather_async() records which shard sent an item; gather with it first")
    return actor, item
