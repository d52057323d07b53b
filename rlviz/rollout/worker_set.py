"""``WorkerSet``: one local RolloutWorker plus N remote ones on Ray actors, with weight sync and crash recovery.

Every remote worker is tracked (``rlviz.iter.track_actor``) under the lane
label ``RolloutWorker-i``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ray

from rlviz.checks import check_int
from rlviz.iter import CONCURRENCY_GROUPS, release_actor, track_actor
from rlviz.rollout.config import RolloutConfig, make_config
from rlviz.rollout.rollout_worker import PolicySpec, RolloutWorker
from rlviz.rollout.weight_sync import weight_sync
from rlviz.runtime import check_same_ray, ensure_ray, ray_session
from rlviz.trace import span
from rlviz.trace.event import RESTART_OP

__all__ = ["WorkerSet", "WorkerCrashedError"]

_PROBE_TIMEOUT_S = 30.0


class WorkerCrashedError(RuntimeError):
    """A remote rollout worker died.

    ``worker_index`` names it; ``results`` holds what the other workers of the
    same call returned (worker index -> result), so nothing they produced is lost.
    """

    def __init__(self, message: str, worker_index: int, results: dict[int, Any] | None = None) -> None:
        super().__init__(message)
        self.worker_index = worker_index
        self.results = results or {}


class WorkerSet:
    """A local ``RolloutWorker`` (index 0) and ``num_workers`` remote ones (indices 1..N).

    Parameters
    ----------
    env_creator : str or callable
        As for ``RolloutWorker``.
    policy : Policy subclass or dict
        As for ``RolloutWorker``.
    num_workers : int
        Remote worker actors to start (0: sample on the local worker only).
    config : RolloutConfig or dict, optional
        Shared by every worker; ``num_cpus_per_worker`` and
        ``recreate_failed_workers`` apply to the set.
    **settings
        ``RolloutConfig`` fields overriding ``config``.

    Raises
    ------
    ValueError
        For bad settings, env ids or policy ids: the local worker is built
        first, so these fail before any actor starts.

    Examples
    --------
    >>> import rlviz
    >>> from rlviz.rollout import RandomPolicy
    >>> _ = rlviz.init(num_cpus=8)
    >>> workers = WorkerSet("CartPole-v1", RandomPolicy, num_workers=2, rollout_fragment_length=5)
    >>> workers
    WorkerSet(local + 2 remote RolloutWorkers)
    >>> [batch.count for batch in workers.foreach_worker(lambda w: w.sample())]
    [5, 5, 5]
    >>> workers.stop()
    """

    def __init__(self, env_creator: str | Callable[..., Any], policy: PolicySpec, num_workers: int = 0,
                 config: RolloutConfig | dict | None = None, **settings: Any) -> None:
        check_int("num_workers", num_workers, minimum=0)
        self.config = make_config(RolloutConfig, config, **settings)
        self._env_creator = env_creator
        self._policy_spec = policy
        self._local = RolloutWorker(env_creator, policy, self.config, worker_index=0)
        self._remote: dict[int, Any] = {}
        self._labels: dict[int, str] = {}           # worker index -> its lane in traces
        self._unhealthy: set[int] = set()
        self._in_flight: dict[Any, int] = {}
        self.num_restarts = 0
        self._session: tuple | None = None          # the Ray the remote workers live on
        self.add_workers(num_workers)

    # -- the workers ------------------------------------------------------------
    def local_worker(self) -> RolloutWorker:
        """The worker in this process (index 0); it holds the weights that count."""
        return self._local

    def remote_workers(self) -> list:
        """Actor handles of the healthy remote workers, by index.

        Raises
        ------
        RuntimeError
            If the Ray they were started on has shut down: build the WorkerSet again.
        """
        if self._remote:
            check_same_ray(self._session, repr(self))
        return [h for i, h in sorted(self._remote.items()) if i not in self._unhealthy]

    def add_workers(self, num_workers: int) -> None:
        """Start ``num_workers`` more remote workers and track each as ``RolloutWorker-i``.

        Examples
        --------
        >>> import rlviz
        >>> from rlviz.rollout import RandomPolicy
        >>> _ = rlviz.init(num_cpus=8)
        >>> workers = WorkerSet("CartPole-v1", RandomPolicy, rollout_fragment_length=5)
        >>> workers.add_workers(1)
        >>> workers.num_healthy_remote_workers()
        1
        >>> workers.stop()
        """
        if num_workers <= 0:
            return
        if self._remote:
            check_same_ray(self._session, repr(self))
        ensure_ray()
        self._session = ray_session()
        first = max(self._remote, default=0) + 1
        started = {i: self._start_actor(i) for i in range(first, first + num_workers)}
        ray.get([handle.ping.remote() for handle in started.values()])  # construct in parallel, then track
        for i, handle in started.items():
            self._labels[i] = track_actor(handle, _label(i), control_group=True)
        self._remote.update(started)

    def lanes(self) -> list[str]:
        """The trace lane of each remote worker, in index order (``RolloutWorker-1``, ...).

        A lane name another live WorkerSet already uses gets a suffix (``RolloutWorker-1#2``).
        """
        return [self._labels[i] for i in sorted(self._remote)]

    def num_healthy_remote_workers(self) -> int:
        """Remote workers not known to be dead."""
        return len(self._remote) - len(self._unhealthy)

    # -- calling every worker -----------------------------------------------------
    def foreach_worker(self, fn: Callable[[RolloutWorker], Any], local_worker: bool = True) -> list:
        """``fn(worker)`` on the local worker, then on every healthy remote worker (remotely).

        Returns
        -------
        list
            Local result first, then remote results by worker index.  With
            ``recreate_failed_workers`` a worker that died during the call is
            replaced and contributes no result.

        Raises
        ------
        WorkerCrashedError
            If a remote worker died and ``recreate_failed_workers`` is off.
        """
        local = [fn(self._local)] if local_worker else []
        refs = {i: h.apply.remote(fn) for i, h in self._healthy_items()}
        return local + list(self._get_all(refs).values())

    def foreach_worker_with_id(self, fn: Callable[[int, RolloutWorker], Any], local_worker: bool = True) -> list:
        """``fn(worker_index, worker)`` on every worker; as ``foreach_worker``."""
        local = [fn(0, self._local)] if local_worker else []
        refs = {i: h.apply.remote(_with_id, fn, i) for i, h in self._healthy_items()}
        return local + list(self._get_all(refs).values())

    def foreach_worker_async(self, fn: Callable[[RolloutWorker], Any]) -> int:
        """Start ``fn(worker)`` on every healthy remote worker without waiting.

        Returns
        -------
        int
            How many calls were started; collect them with ``fetch_ready_async_reqs``.
        """
        for i, handle in self._healthy_items():
            self._in_flight[handle.apply.remote(fn)] = i
        return self.num_healthy_remote_workers()

    def fetch_ready_async_reqs(self, timeout_seconds: float = 0.0) -> list[tuple[int, Any]]:
        """Results of calls from ``foreach_worker_async`` that are done, as ``(worker_index, result)``.

        Parameters
        ----------
        timeout_seconds : float
            How long to wait for at least one result (0: don't wait).

        Raises
        ------
        WorkerCrashedError
            If a worker died and ``recreate_failed_workers`` is off (the
            error's ``results`` holds the results that were ready).
        """
        if not self._in_flight:
            return []
        ready, _ = ray.wait(list(self._in_flight), num_returns=len(self._in_flight), timeout=timeout_seconds)
        refs = {}
        for ref in ready:
            refs.setdefault(self._in_flight.pop(ref), []).append(ref)
        out: list[tuple[int, Any]] = []
        failure = None
        for i, worker_refs in refs.items():
            for ref in worker_refs:
                try:
                    out.append((i, ray.get(ref)))
                except ray.exceptions.RayActorError as err:
                    failure = failure or (i, err)
        if failure is not None:
            self._on_crash(*failure, results=dict(out))
        return out

    def num_in_flight_async_reqs(self) -> int:
        """Calls from ``foreach_worker_async`` not yet fetched."""
        return len(self._in_flight)

    # -- weights --------------------------------------------------------------
    def sync_weights(self, policies: list[str] | None = None, global_vars: dict | None = None) -> None:
        """Send the local worker's weights to every remote worker (one ``ray.put``, waits until loaded).

        Recorded as one driver call ``sync_weights`` that lists the local worker's last update as its input;
        each remote worker's ``set_weights`` lists the sync (``rlviz.rollout.weight_sync``).

        Parameters
        ----------
        policies : list of str, optional
            Only these policies' weights (default: all).
        global_vars : dict, optional
            Also set these global vars (``timestep``) everywhere, locally too.

        Examples
        --------
        >>> import rlviz
        >>> from rlviz.rollout import RandomPolicy
        >>> _ = rlviz.init(num_cpus=8)
        >>> workers = WorkerSet("CartPole-v1", RandomPolicy, num_workers=1, rollout_fragment_length=5)
        >>> workers.sync_weights(global_vars={"timestep": 100})
        >>> workers.foreach_worker(lambda w: w.get_global_vars()["timestep"])
        [100, 100]
        >>> workers.stop()
        """
        if global_vars:
            self._local.set_global_vars(global_vars)
        if not self._remote:
            return
        with weight_sync(self._local, policies=policies) as weights:
            self._get_all({i: h.set_weights.remote(weights, global_vars) for i, h in self._healthy_items()})

    # -- faults ---------------------------------------------------------------
    def probe_unhealthy_workers(self) -> list[int]:
        """Ping every remote worker; replace each dead one and restore its weights.

        Returns
        -------
        list of int
            Indices of the workers that were replaced.
        """
        refs = {i: h.ping.remote() for i, h in self._remote.items()}
        replaced = []
        for i, ref in refs.items():
            try:
                ray.get(ref, timeout=_PROBE_TIMEOUT_S)
            except ray.exceptions.RayActorError as err:
                self._restart(i, err)
                replaced.append(i)
        return replaced

    def stop(self) -> None:
        """Close the local worker's envs and end every remote actor (inside ``rlviz.record()``, lanes are kept)."""
        self._local.stop()
        alive = self._session is None or ray_session() == self._session    # after ray.shutdown() they are gone
        for handle in self._remote.values() if alive else ():
            release_actor(handle)
            ray.kill(handle, no_restart=True)
        self._remote.clear()
        self._unhealthy.clear()
        self._in_flight.clear()

    def __repr__(self) -> str:
        return f"WorkerSet(local + {len(self._remote)} remote RolloutWorkers)"

    # -- helpers ------------------------------------------------------------
    def _start_actor(self, index: int) -> Any:
        actor_cls = ray.remote(num_cpus=self.config.num_cpus_per_worker,
                               resources=dict(self.config.custom_resources_per_worker) or None,
                               concurrency_groups=CONCURRENCY_GROUPS)(RolloutWorker)
        return actor_cls.remote(self._env_creator, self._policy_spec, self.config, index)

    def _healthy_items(self) -> list[tuple[int, Any]]:
        if self._remote:
            check_same_ray(self._session, repr(self))
        return [(i, h) for i, h in sorted(self._remote.items()) if i not in self._unhealthy]

    def _get_all(self, refs: dict[int, Any]) -> dict[int, Any]:
        """``ray.get`` each worker's ref; every live result is kept even if another worker died."""
        results: dict[int, Any] = {}
        failure = None
        for i, ref in refs.items():
            try:
                results[i] = ray.get(ref)
            except ray.exceptions.RayActorError as err:
                failure = failure or (i, err)
        if failure is not None:
            self._on_crash(*failure, results=results)
        return results

    def _on_crash(self, index: int, err: Exception, results: dict[int, Any]) -> None:
        if self.config.recreate_failed_workers:
            self._restart(index, err)
            return
        self._unhealthy.add(index)
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise WorkerCrashedError(f"{self._labels.get(index, _label(index))} died: {reason}; pass recreate_failed_workers=True to "
                                 f"replace it automatically, or call probe_unhealthy_workers()",
                                 index, results) from err

    def _restart(self, index: int, err: Exception) -> None:
        """Replace worker ``index`` with a new actor carrying the local worker's weights."""
        label = self._labels.get(index, _label(index))
        with span(RESTART_OP, label="WorkerSet replaced a dead RolloutWorker") as call:
            release_actor(self._remote[index])
            try:
                ray.kill(self._remote[index], no_restart=True)
            except Exception:  # noqa: BLE001 - the actor is gone already; nothing to clean up
                pass
            self._in_flight = {ref: i for ref, i in self._in_flight.items() if i != index}
            handle = self._start_actor(index)
            ray.get(handle.ping.remote())
            self._labels[index] = track_actor(handle, label, control_group=True)
            with weight_sync(self._local) as weights:
                ray.get(handle.set_weights.remote(weights, self._local.get_global_vars()))
            self._remote[index] = handle
            self._unhealthy.discard(index)
            self.num_restarts += 1
            call.produced(f"{label} ({type(err).__name__})")


def _label(index: int) -> str:
    return f"RolloutWorker-{index}"


def _with_id(worker: RolloutWorker, fn: Callable[[int, RolloutWorker], Any], index: int) -> Any:
    return fn(index, worker)
