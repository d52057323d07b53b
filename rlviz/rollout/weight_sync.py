"""``weight_sync``: each sending of a learner's weights to remote workers is one recorded driver call, ``sync_weights``.

RLlib 1.x sent weights from several places: ``WorkerSet.sync_weights``,
``TrainOneStep``'s broadcast after each update, A3C's ``ApplyGradients`` to the
one worker whose gradients it applied, Ape-X's ``UpdateWorkerWeights``.  Each is
one ``sync_weights`` span on the driver.  The span lists the learner's last
update (``RolloutWorker.weights_item``: its ``learn_on_batch`` or
``apply_gradients``) as its input and tags the weights it sends with its own
id (``Weights.sent_by``); every worker's ``set_weights`` lists the sync as its
input, and that worker's later ``sample`` calls list the ``set_weights``.  So
the trace links an update to the samples taken with its weights.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import ray

from rlviz.rollout.rollout_worker import RolloutWorker
from rlviz.trace import span

__all__ = ["SYNC_OP", "SYNC_LABEL", "weight_sync"]

#: The op of every weight sync on the driver, as RLlib names the call (and rlviz's RLlib 2.x recording).
SYNC_OP = "sync_weights"
SYNC_LABEL = "sync_weights (learner's weights -> remote workers' set_weights)"


@contextlib.contextmanager
def weight_sync(learner: RolloutWorker, lock: Any = None, policies: list[str] | None = None) -> Iterator[Any]:
    """Record the enclosed sending of ``learner``'s weights as one ``sync_weights`` span; yield them put in Ray's store.

    The block calls ``set_weights.remote(weights, ...)`` on the workers it
    updates (and waits for them or not, as the caller did in RLlib 1.x).

    Parameters
    ----------
    learner : RolloutWorker
        The worker whose weights are sent (the WorkerSet's local worker, or Ape-X's learner).
    lock : context manager, optional
        Held while the weights are read, when another thread updates them (Ape-X's learner thread).
    policies : list of str, optional
        Only these policies' weights (default: all).

    Examples
    --------
    >>> import rlviz
    >>> from rlviz.rollout import RandomPolicy, RolloutWorker
    >>> learner = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=5)
    >>> _ = rlviz.init(num_cpus=8)
    >>> with rlviz.record() as trace:
    ...     with weight_sync(learner) as weights:
    ...         learner.set_weights(ray.get(weights))
    >>> [(e.op, e.inputs) for e in trace.events] == [("sync_weights", ()), ("set_weights", (trace.events[0].item_id,))]
    True
    """
    with span(SYNC_OP, SYNC_LABEL) as call:
        with lock if lock is not None else contextlib.nullcontext():
            source = learner.weights_item
            weights = learner.get_weights(policies)
        if source >= 0:
            call.consumed(source)
        weights.sent_by = call.upcoming_id()
        call.produced(weights)
        yield ray.put(weights)
