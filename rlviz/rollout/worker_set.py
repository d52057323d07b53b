"""``WorkerSet``: one local RolloutWorker plus N remote ones on Ray actors, with weight sync and crash recovery.

Every remote worker is tracked (``rlviz.iter.track_actor``) under the lane
label ``RolloutWorker-i``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ray

from rlviz.checks import check_int
from rlviz.iter import release_actor, track_actor
from rlviz.rollout.config import reconcile
from rlviz.rollout.rollout_worker import RolloutWorker
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

    Built the ways RLlib's code builds one: from an env creator, a policy
    class and a config (RLlib 2.x's keywords, or 1.x's ``policy_class`` and
    ``trainer_config``), or from workers that exist already with
    ``WorkerSet._from_existing(local_worker, remote_workers)``.

    Parameters
    ----------
    env_creator : callable or str
        As for ``RolloutWorker``: ``env_creator(env_context)``, or an env id.
    validate_env : callable, optional
        As for ``RolloutWorker``.
    default_policy_class : Policy subclass, optional
        As for ``RolloutWorker`` (1.x's keyword: ``policy_class``).
    config : RolloutConfig, dict or object with ``to_dict()``, optional
        Shared by every worker (1.x's keyword: ``trainer_config``);
        ``num_workers``, ``num_cpus_per_worker``, ``custom_resources_per_worker``
        and ``recreate_failed_workers`` apply to the set.
    num_workers : int, optional
        Remote worker actors to start (default: ``config["num_workers"]``, else 0).
    local_worker : bool
        Must be True: rlviz's set always has its local worker (it learns).
    logdir : str, optional
        Passed to the workers as ``log_dir``.

    Raises
    ------
    TypeError
        For an unknown keyword (RolloutWorker's message).
    ValueError
        For bad settings, env ids or policy ids: the local worker is built
        first, so these fail before any actor starts.

    Examples
    --------
    >>> import rlviz
    >>> from rlviz.rollout import RandomPolicy
    >>> _ = rlviz.init(num_cpus=8)
    >>> workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
    ...                     config={"rollout_fragment_length": 5}, num_workers=2)
    >>> workers
    WorkerSet(local + 2 remote RolloutWorkers)
    >>> [batch.count for batch in workers.foreach_worker(lambda w: w.sample())]
    [5, 5, 5]
    >>> workers.stop()
    """

    def __init__(self, *, env_creator: str | Callable[..., Any] | None = None,
                 validate_env: Callable[..., None] | None = None, default_policy_class: type | None = None,
                 config: Any = None, num_workers: int | None = None, local_worker: bool = True,
                 logdir: str | None = None, policy_class: type | None = None, trainer_config: Any = None,
                 _setup: bool = True) -> None:
        if not local_worker:
            raise ValueError("local_worker=False is not built in rlviz: the local worker holds the weights that "
                             "count and learns; keep local_worker=True")
        self._remote: dict[int, Any] = {}
        self._labels: dict[int, str] = {}           # worker index -> its lane in traces
        self._unhealthy: set[int] = set()
        self._in_flight: dict[Any, int] = {}
        self.num_restarts = 0
        self._session: tuple | None = None          # the Ray the remote workers live on
        if not _setup:
            return
        config = config if config is not None else trainer_config
        num_workers = reconcile("num_workers", num_workers, config if isinstance(config, Mapping) else {}, 0)
        check_int("num_workers", num_workers, minimum=0)
        local = RolloutWorker(env_creator=env_creator, validate_env=validate_env, config=config,
                              default_policy_class=default_policy_class or policy_class, worker_index=0,
                              num_workers=num_workers, log_dir=logdir)
        self._adopt_local(local)
        self.add_workers(num_workers)

    @classmethod
    def _from_existing(cls, local_worker: RolloutWorker, remote_workers: list | None = None) -> "WorkerSet":
        """A set around workers built already (RLlib 1.x's constructor of the same name).

        The remote workers are tracked as ``RolloutWorker-1..N``; make them with
        ``RolloutWorker.as_remote()`` so they report while they stream.
        """
        workers = cls(_setup=False)
        workers._adopt_local(local_worker)
        workers.reset(remote_workers or [])
        return workers

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
        >>> workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
        ...                     config={"rollout_fragment_length": 5})
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
        total = len(self._remote) + num_workers
        started = {i: self._start_actor(i, total) for i in range(first, first + num_workers)}
        ray.get([handle.ping.remote() for handle in started.values()])  # construct in parallel, then track
        for i, handle in started.items():
            self._labels[i] = track_actor(handle, _label(i), control_group=True)
        self._remote.update(started)

    def reset(self, new_remote_workers: list) -> None:
        """Replace the remote workers with ``new_remote_workers`` (indices 1..N), as RLlib's ``reset``.

        The old actors are no longer tracked or called; they are not killed
        (whoever made them owns them). The new ones are tracked as
        ``RolloutWorker-i`` and must come from ``RolloutWorker.as_remote()``.
        """
        for handle in self._remote.values():
            release_actor(handle)
        self._remote.clear()
        self._unhealthy.clear()
        self._in_flight.clear()
        if not new_remote_workers:
            return
        ensure_ray()
        self._session = ray_session()
        for i, handle in enumerate(new_remote_workers, start=1):
            self._labels[i] = track_actor(handle, _label(i), control_group=True)
            self._remote[i] = handle

    def lanes(self) -> list[str]:
        """The trace lane of each remote worker, in index order (``RolloutWorker-1``, ...).

        A lane name another live WorkerSet already uses gets a suffix (``RolloutWorker-1#2``).
        """
        return [self._labels[i] for i in sorted(self._remote)]

    def num_healthy_remote_workers(self) -> int:
        """Remote workers not known to be dead."""
        return len(self._remote) - len(self._unhealthy)

    def num_healthy_workers(self) -> int:
        """Healthy remote workers plus the local one."""
        return self.num_healthy_remote_workers() + 1

    def num_remote_worker_restarts(self) -> int:
        """Times a dead remote worker was replaced (``recreate_failed_workers``, ``probe_unhealthy_workers``)."""
        return self.num_restarts

    # -- pass-throughs -------------------------------------------------------------
    def add_policy(self, policy_id: str, policy_cls: type, *, config: Any = None,
                   policy_mapping_fn: Callable[..., str] | None = None,
                   policies_to_train: list[str] | None = None, workers: list | None = None) -> None:
        """``add_policy`` on every worker (or on ``workers``: RolloutWorkers or actor handles)."""
        def add(worker: RolloutWorker) -> None:
            worker.add_policy(policy_id, policy_cls, config, policy_mapping_fn, policies_to_train)

        if workers is None:
            self.foreach_worker(add)
            return
        remote = [w for w in workers if not isinstance(w, RolloutWorker)]
        for worker in workers:
            if isinstance(worker, RolloutWorker):
                add(worker)
        ray.get([handle.apply.remote(add) for handle in remote])

    def foreach_env(self, fn: Callable[[Any], Any]) -> list[list]:
        """Per worker (local first), ``[fn(env) for each of its sub-envs]``."""
        return self.foreach_worker(lambda worker: worker.foreach_env(fn))

    def foreach_env_with_context(self, fn: Callable[[Any, Any], Any]) -> list[list]:
        """Per worker (local first), ``[fn(env, env_context) for each of its sub-envs]``."""
        return self.foreach_worker(lambda worker: worker.foreach_env_with_context(fn))

    def foreach_policy(self, fn: Callable[[Any, str], Any]) -> list:
        """``fn(policy, policy_id)`` for every policy of every worker, in one flat list (local worker first)."""
        return [out for results in self.foreach_worker(lambda worker: worker.foreach_policy(fn)) for out in results]

    def foreach_policy_to_train(self, fn: Callable[[Any, str], Any]) -> list:
        """As ``foreach_policy``, for the policies each worker trains."""
        return [out for results in self.foreach_worker(lambda worker: worker.foreach_policy_to_train(fn))
                for out in results]

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
        >>> workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
        ...                     config={"rollout_fragment_length": 5}, num_workers=1)
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
        """Stop every worker (envs closed, torch groups left) and end the remote actors.

        Inside ``rlviz.record()``, their lanes are kept.
        """
        self._local.stop()
        alive = self._session is None or ray_session() == self._session    # after ray.shutdown() they are gone
        if alive and self._remote:
            _stop_quietly([h for i, h in self._remote.items() if i not in self._unhealthy])
        for handle in self._remote.values() if alive else ():
            release_actor(handle)
            ray.kill(handle, no_restart=True)
        self._remote.clear()
        self._unhealthy.clear()
        self._in_flight.clear()

    def __repr__(self) -> str:
        return f"WorkerSet(local + {len(self._remote)} remote RolloutWorkers)"

    # -- helpers ------------------------------------------------------------
    def _adopt_local(self, local: RolloutWorker) -> None:
        self._local = local
        self.config = local.config
        self._worker_args = {k: v for k, v in local.creation_args().items()
                             if k not in ("worker_index", "num_workers", "recreated_worker")}

    def _start_actor(self, index: int, num_workers: int, recreated: bool = False) -> Any:
        actor_cls = RolloutWorker.as_remote(num_cpus=self.config.num_cpus_per_worker,
                                            resources=dict(self.config.custom_resources_per_worker) or None)
        return actor_cls.remote(**self._worker_args, worker_index=index, num_workers=num_workers,
                                recreated_worker=recreated)

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
            handle = self._start_actor(index, len(self._remote), recreated=True)
            ray.get(handle.ping.remote())
            self._labels[index] = track_actor(handle, label, control_group=True)
            with weight_sync(self._local) as weights:
                ray.get(handle.set_weights.remote(weights, self._local.get_global_vars()))
            self._remote[index] = handle
            self._unhealthy.discard(index)
            self.num_restarts += 1
            call.produced(f"{label} ({type(err).__name__})")


def _stop_quietly(handles: list) -> None:
    """``stop()`` on each actor before it is killed (it leaves torch groups); a dead or stuck one is skipped."""
    try:
        ray.get([handle.stop.remote() for handle in handles], timeout=_PROBE_TIMEOUT_S)
    except (ray.exceptions.RayError, TimeoutError):
        pass


def _label(index: int) -> str:
    return f"RolloutWorker-{index}"


def _with_id(worker: RolloutWorker, fn: Callable[[int, RolloutWorker], Any], index: int) -> Any:
    return fn(index, worker)
