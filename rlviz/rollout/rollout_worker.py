"""``RolloutWorker``: envs plus policies in one process, sampling batches and learning from them.

Runs locally or as a Ray actor; as a ``ParallelIteratorWorker`` its shard is
an endless stream of ``sample()`` batches.
"""
from __future__ import annotations

import functools
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import ray

from rlviz.iter import CONCURRENCY_GROUPS, ParallelIteratorWorker
from rlviz.rollout.env import is_multi_agent, make_env_creator
from rlviz.rollout.env_context import EnvContext
from rlviz.rollout.filters import get_filter
from rlviz.rollout.offline.worker_io import attach_io, sample_and_write
from rlviz.rollout.policy import Policy
from rlviz.rollout.policy_map import PolicyMap
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch
from rlviz.rollout.sampler import EpisodeMetrics, MultiAgentSampler, VectorSampler, make_vector_env
from rlviz.rollout.worker_args import resolve_worker_args
from rlviz.trace import gauge, span
from rlviz.trace.gauges import EPISODES_FINISHED, WEIGHTS_VERSION

__all__ = ["RolloutWorker", "PolicySpec", "Weights", "get_global_worker", "LEARNER_STATS_KEY"]

#: A policy class, or a dict policy id -> (policy class, config or None) or RLlib's 4-tuple spec.
PolicySpec = type | dict
#: Where ``learn_on_batch`` puts each policy's learner statistics (RLlib's key).
LEARNER_STATS_KEY = "learner_stats"


class Weights(dict):
    """Policy id -> weights, as ``RolloutWorker.get_weights`` returns them, plus the sender's ``version``.

    The version is the learner's update count when the weights were taken;
    it travels with them (a dict subclass pickles its attributes), so a
    worker that loads them knows which update it holds, whichever op sent them.
    ``sent_by`` travels the same way: the id of the recorded ``sync_weights``
    call that sent them, which the receiving ``set_weights`` lists as its input.

    >>> w = Weights({"default_policy": {}}, version=3)
    >>> dict(w), w.version
    ({'default_policy': {}}, 3)
    """

    def __init__(self, weights: dict, version: int = 0, sent_by: int = -1) -> None:
        super().__init__(weights)
        self.version = version
        #: The trace id of the weight sync that sent them (-1: not sent by a recorded sync).
        self.sent_by = sent_by

    def __rlviz_summary__(self) -> str:
        return f"weights v{self.version} ({len(self)} {'policy' if len(self) == 1 else 'policies'})"


class RolloutWorker(ParallelIteratorWorker):
    """Environments and policies in one process: ``sample()`` returns the next batch of experience.

    Built as RLlib's: keyword-only, with the API reference's signature, and
    RLlib 1.x's keywords (``policy_spec``, ``rollout_fragment_length``,
    ``num_envs``, ...) so 1.x code runs unchanged.

    Parameters
    ----------
    env_creator : callable or str
        ``env_creator(env_context)`` returns a ``gymnasium.Env`` or
        ``MultiAgentEnv``; it always receives one ``EnvContext`` (the env
        config dict plus ``worker_index``, ``vector_index`` ...), so RLlib's
        ``lambda _: gym.make("CartPole-v1")`` works. A gymnasium id or an id
        registered with ``register_env`` works too.
    validate_env : callable, optional
        ``validate_env(env, env_context)`` is called on the first env; it raises to refuse it.
    config : RolloutConfig, dict or object with ``to_dict()``, optional
        An RLlib config: ``RolloutConfig`` fields, ``multiagent`` /
        ``policies`` / ``policy_mapping_fn``, the default policy's settings
        (``lr`` ...) and trainer keys (``env``, ``num_workers`` ...).
    worker_index : int
        0 for the local worker, 1.. for remote ones; offsets the seed.
    num_workers : int, optional
        Remote workers in the set (goes to the ``EnvContext``).
    recreated_worker : bool
        Whether this worker replaces one that died.
    log_dir : str, optional
        Kept; rlviz writes no logs of its own.
    spaces : dict, optional
        Policy id -> (observation space, action space), overriding the env's.
    default_policy_class : Policy subclass, optional
        The policy of a single-agent env, and of multi-agent policy specs
        that name no class.
    dataset_shards : list, optional
        Kept as ``self.dataset_shards``; offline input reads its own files.
    **kwargs
        RLlib 1.x's keywords: ``policy_spec`` (and its alias ``policy``),
        ``policy_mapping_fn``, ``policies_to_train``,
        ``rollout_fragment_length``, ``batch_mode``, ``num_envs``,
        ``observation_filter``, ``env_config``, ``policy_config``, ``seed``
        and the others of its constructor.

    Raises
    ------
    TypeError
        An unknown keyword (naming RLlib's nearest), or no policy class.
    ValueError
        Unknown env id or config key, a policy id returned by
        ``policy_mapping_fn`` that is not in the policy dict, or a space the
        policy does not support.

    Examples
    --------
    >>> import gymnasium as gym
    >>> from rlviz.rollout import RandomPolicy
    >>> worker = RolloutWorker(env_creator=lambda _: gym.make("CartPole-v1"), default_policy_class=RandomPolicy,
    ...                        num_envs=2, rollout_fragment_length=5, seed=0)
    >>> batch = worker.sample()
    >>> len(batch), batch.count, list(batch)[:3]
    (10, 10, ['obs', 'actions', 'rewards'])
    """

    @classmethod
    def as_remote(cls, num_cpus: float | None = None, num_gpus: float | None = None, memory: int | None = None,
                  resources: dict | None = None, **ray_options: Any) -> Any:
        """The Ray actor class of this worker, as RLlib's ``as_remote``: ``ray.remote(**options)(cls)``.

        The class also declares rlviz's concurrency groups, so a tracked actor
        (``rlviz.iter.track_actor(handle, label, control_group=True)``, which
        ``WorkerSet`` does) reports its recordings while it streams.

        Examples
        --------
        >>> RolloutWorker.as_remote(num_cpus=0).__class__.__name__
        'ActorClass(RolloutWorker)'
        """
        import ray

        return ray.remote(num_cpus=num_cpus, num_gpus=num_gpus, memory=memory, resources=resources,
                          concurrency_groups=CONCURRENCY_GROUPS, **ray_options)(cls)

    def __init__(self, *, env_creator: str | Callable[..., Any], validate_env: Callable[..., None] | None = None,
                 config: Any = None, worker_index: int = 0, num_workers: int | None = None,
                 recreated_worker: bool = False, log_dir: str | None = None, spaces: dict | None = None,
                 default_policy_class: type | None = None, dataset_shards: list | None = None,
                 **kwargs: Any) -> None:
        self._creation_args = {"env_creator": env_creator, "validate_env": validate_env, "config": config,
                               "worker_index": worker_index, "num_workers": num_workers,
                               "recreated_worker": recreated_worker, "log_dir": log_dir, "spaces": spaces,
                               "default_policy_class": default_policy_class, "dataset_shards": dataset_shards,
                               **kwargs}
        args = resolve_worker_args(config, default_policy_class, kwargs)
        self.config = args.rollout
        self.stored_settings = args.stored
        self.worker_index = worker_index
        self.num_workers = num_workers if num_workers is not None else (args.num_workers or 0)
        self.recreated_worker = recreated_worker
        self.log_dir = log_dir
        self.dataset_shards = dataset_shards
        #: What ``lock()`` / ``unlock()`` take (RLlib's own ``threading.Lock`` of the worker).
        self.user_lock = threading.Lock()
        self._torch_group = False
        global _GLOBAL_WORKER
        _GLOBAL_WORKER = self                            # what get_global_worker() returns in this process
        if worker_index > 0 and "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)      # several workers share few cores
        self.env_creator = make_env_creator(env_creator, self.config.env_config)
        self.env_context = EnvContext(self.config.env_config, worker_index, self.num_workers)
        self.seed = None if self.config.seed is None else self.config.seed + 1000 * worker_index
        first_env = self.env_creator(self.env_context)
        if validate_env is not None:
            validate_env(first_env, self.env_context)
        self.multi_agent = is_multi_agent(first_env)
        #: RLlib's ``PolicyMap``: at most ``capacity`` (100) policies in memory, the least recently used stashed.
        self.policy_map = PolicyMap(worker_index=worker_index, num_workers=self.num_workers, seed=self.seed)
        self.global_vars: dict = {"timestep": 0}
        #: The weights this worker holds: its own update count on a learner, the learner's count at the sync elsewhere.
        self.weights_version = 0
        #: The trace id of the recorded call that last changed these weights (learn_on_batch, apply_gradients,
        #: set_weights; -1: none recorded): a sync lists it as its input, a ``sample`` as the weights it acted with.
        self.weights_item = -1
        self.policy_mapping_fn: Callable[..., str] = self.config.policy_mapping_fn or _only_policy(args.policies)
        self.is_policy_to_train: Callable[..., bool] = _trainable_test(self.config.policies_to_train)
        if self.multi_agent:
            self._build_multi_agent(first_env, args.policies, spaces or {})
        else:
            self._build_single_agent(first_env, args.policies, spaces or {})
        attach_io(self, self.config)                     # input_reader, output_writer, io_context, sampler_input
        ParallelIteratorWorker.__init__(self, self._sample_forever, False)

    def _build_single_agent(self, first_env: Any, policies: dict, spaces: dict) -> None:
        if set(policies) != {DEFAULT_POLICY_ID}:
            raise ValueError(f"a single-agent env needs exactly one policy with id {DEFAULT_POLICY_ID!r}, "
                             f"got {sorted(policies)}; pass the policy class itself")
        cls, obs_space, act_space, policy_config = policies[DEFAULT_POLICY_ID]
        obs_space, act_space = spaces.get(DEFAULT_POLICY_ID, (obs_space or first_env.observation_space,
                                                              act_space or first_env.action_space))
        self.policy_map[DEFAULT_POLICY_ID] = self._new_policy(cls, obs_space, act_space, policy_config)
        self.filters = {DEFAULT_POLICY_ID: get_filter(self.config.observation_filter, obs_space.shape)}
        first_env.close()
        thunks = [functools.partial(self.env_creator, self.env_context.copy_with_overrides(vector_index=i))
                  for i in range(self.config.num_envs_per_worker)]
        self.sampler: VectorSampler | MultiAgentSampler = VectorSampler(
            make_vector_env(thunks, len(thunks)), self.policy_map[DEFAULT_POLICY_ID],
            self.config.rollout_fragment_length, self.seed, self.worker_index,
            obs_filter=self.filters[DEFAULT_POLICY_ID])

    def _build_multi_agent(self, first_env: Any, policies: dict, spaces: dict) -> None:
        if self.config.observation_filter != "NoFilter":
            raise ValueError(f"observation_filter={self.config.observation_filter!r} is built for single-agent "
                             f"envs only in rlviz; use 'NoFilter' with a MultiAgentEnv")
        self._check_mapping(first_env, policies, self.policy_mapping_fn)
        for pid, (cls, obs_space, act_space, policy_config) in policies.items():
            env_obs, env_act = self._agent_spaces(pid, first_env)
            obs_space, act_space = spaces.get(pid, (obs_space or env_obs, act_space or env_act))
            self.policy_map[pid] = self._new_policy(cls, obs_space, act_space, policy_config)
        self.filters = {pid: get_filter("NoFilter", ()) for pid in self.policy_map}
        envs = [first_env] + [self.env_creator(self.env_context.copy_with_overrides(vector_index=i))
                              for i in range(1, self.config.num_envs_per_worker)]
        self.sampler = MultiAgentSampler(envs, self.policy_map, self._policy_for_agent,
                                         self.config.rollout_fragment_length, self.seed, self.worker_index)

    # -- sampling -------------------------------------------------------------
    def sample(self) -> SampleBatch | MultiAgentBatch:
        """Step every sub-env ``rollout_fragment_length`` times and return the batch.

        A single-agent batch has ``rollout_fragment_length * num_envs_per_worker``
        rows, postprocessed per episode segment by the policy.  With an ``input``
        setting other than ``"sampler"``, the batch is read from ``self.input_reader``
        instead (``rlviz.rollout.offline``); with an ``output`` setting, it is
        also written to ``self.output_writer``.

        Returns
        -------
        SampleBatch or MultiAgentBatch
            ``MultiAgentBatch`` for a ``MultiAgentEnv``.
        """
        return self._sample_recorded()[0]

    @ray.method(num_returns=2)
    def sample_with_count(self) -> tuple[SampleBatch | MultiAgentBatch, int]:
        """``(batch, batch.count)``: remotely two refs, so the count travels without fetching the batch."""
        batch = self.sample()
        return batch, batch.count

    def get_metrics(self) -> list[EpisodeMetrics]:
        """Episodes completed since the last call (return summed over agents, length)."""
        return self.sampler.pop_metrics()

    # -- learning -------------------------------------------------------------
    def learn_on_batch(self, batch: SampleBatch | MultiAgentBatch) -> dict[str, dict]:
        """Update each trainable policy on its part of ``batch``.

        Returns
        -------
        dict of str to dict
            Policy id -> ``{"learner_stats": {...}}``, RLlib's nesting (read
            a loss as ``info["default_policy"]["learner_stats"]["policy_loss"]``).
        """
        with span("learn_on_batch") as call:
            info = {pid: {LEARNER_STATS_KEY: self.policy_map[pid].learn_on_batch(part)}
                    for pid, part in self._parts_to_train(batch).items()}
            call.produced(info)
        self._updated(self.weights_version + 1, call.item_id)
        return info

    def compute_gradients(self, batch: SampleBatch | MultiAgentBatch) -> tuple[Any, dict]:
        """Gradients without applying them.

        Returns
        -------
        grads, info
            For a ``SampleBatch``: the default policy's list of numpy arrays and
            ``{"learner_stats": {...}, "batch_count": n}``.  For a
            ``MultiAgentBatch``: grads keyed by policy id, and info
            ``{policy_id: {"learner_stats": {...}}, "batch_count": n}`` (RLlib's shapes).
        """
        with span("compute_gradients") as call:
            if isinstance(batch, SampleBatch):
                grads, stats = self.policy_map[DEFAULT_POLICY_ID].compute_gradients(batch)
                info: dict = {LEARNER_STATS_KEY: stats, "batch_count": batch.count}
            else:
                grads, info = {}, {}
                for pid, part in self._parts_to_train(batch).items():
                    grads[pid], stats = self.policy_map[pid].compute_gradients(part)
                    info[pid] = {LEARNER_STATS_KEY: stats}
                info["batch_count"] = batch.count
            call.produced(grads)
        return grads, info

    def apply_gradients(self, grads: list | dict) -> None:
        """Apply gradients from ``compute_gradients`` (a list, or a dict keyed by policy id)."""
        with span("apply_gradients") as call:
            if isinstance(grads, dict):
                for pid, policy_grads in grads.items():
                    self.policy_map[pid].apply_gradients(policy_grads)
            else:
                self.policy_map[DEFAULT_POLICY_ID].apply_gradients(grads)
        self._updated(self.weights_version + 1, call.item_id)

    def sample_and_learn(self) -> tuple[dict[str, dict], int]:
        """Sample one batch and learn on it here; returns ``(learner info, env steps)``."""
        batch = self.sample()
        return self.learn_on_batch(batch), batch.count

    # -- weights and global vars -----------------------------------------------
    def get_weights(self, policies: list[str] | None = None) -> "Weights":
        """Policy id -> that policy's weights (numpy arrays), for all or the listed policies, with their version."""
        return Weights({pid: self.policy_map[pid].get_weights() for pid in policies or self.policy_map},
                       self.weights_version)

    def set_weights(self, weights: dict[str, dict], global_vars: dict | None = None) -> None:
        """Load weights from ``get_weights`` (policies not listed keep theirs); optionally set global vars.

        ``Weights`` from ``get_weights`` carry the sender's version, which this worker then holds (and records
        as the ``"weights version"`` gauge); a plain dict leaves the version as it was.  Weights sent by a
        recorded ``sync_weights`` name it (``Weights.sent_by``): this call lists it as its input.
        """
        with span("set_weights") as call:
            sent_by = getattr(weights, "sent_by", -1)
            if sent_by >= 0:
                call.consumed(sent_by)
            for pid, policy_weights in weights.items():
                self._policy(pid).set_weights(policy_weights)
            if global_vars:
                self.set_global_vars(global_vars)
        self.weights_item = call.item_id
        version = getattr(weights, "version", None)
        if version is not None:
            self._updated(version, call.item_id)

    def get_global_vars(self) -> dict:
        """The global variables last set (``timestep``)."""
        return dict(self.global_vars)

    def set_global_vars(self, global_vars: dict) -> None:
        """Store ``global_vars`` and pass them to every policy (DQN's epsilon reads ``timestep``)."""
        self.global_vars.update(global_vars)
        for policy in self.policy_map.values():
            policy.on_global_var_update(self.global_vars)

    # -- policies ---------------------------------------------------------------
    def get_policy(self, policy_id: str = DEFAULT_POLICY_ID) -> Policy | None:
        """The policy with this id, or None (as RLlib's) when there is none."""
        return self.policy_map.get(policy_id)

    def get_policies_to_train(self, batch: SampleBatch | MultiAgentBatch | None = None) -> set[str]:
        """Ids of the policies ``learn_on_batch`` updates (``is_policy_to_train(pid, batch)`` holds)."""
        return {pid for pid in self.policy_map if self.is_policy_to_train(pid, batch)}

    def set_is_policy_to_train(self, is_policy_to_train: Callable[..., bool] | list[str] | set[str]) -> None:
        """Replace the test of which policies learn: a callable ``(policy_id, batch) -> bool``, or a list of ids."""
        self.is_policy_to_train = _trainable_test(is_policy_to_train)

    def set_policy_mapping_fn(self, policy_mapping_fn: Callable[..., str] | None = None) -> None:
        """Use a new ``policy_mapping_fn(agent_id, episode, worker, **kwargs)`` (None keeps the current one).

        Raises
        ------
        ValueError
            If it maps an agent of the env to a policy this worker lacks.
        """
        if policy_mapping_fn is not None:
            self._change_mapping(policy_mapping_fn, None)

    def add_policy(self, policy_id: str, policy_cls: type, config: Any = None,
                   policy_mapping_fn: Callable[..., str] | None = None,
                   policies_to_train: list[str] | None = None) -> Policy:
        """Create and add a policy (multi-agent workers), optionally changing the mapping.

        Raises
        ------
        ValueError
            If the id exists already, the worker is single-agent, or the new
            mapping names an unknown policy.
        """
        if policy_id in self.policy_map:
            raise ValueError(f"policy {policy_id!r} exists already; remove_policy it first")
        if not self.multi_agent:
            raise ValueError(f"add_policy needs a multi-agent env; this worker's env is single-agent "
                             f"and uses only {DEFAULT_POLICY_ID!r}")
        env = self.sampler.sub_envs()[0]
        obs_space, act_space = self._agent_spaces(policy_id, env, policy_mapping_fn)
        self.policy_map[policy_id] = self._new_policy(policy_cls, obs_space, act_space, config)
        self.filters[policy_id] = get_filter("NoFilter", ())
        self._change_mapping(policy_mapping_fn, policies_to_train)
        return self.policy_map[policy_id]

    def remove_policy(self, policy_id: str, policy_mapping_fn: Callable[..., str] | None = None,
                      policies_to_train: list[str] | None = None) -> None:
        """Remove a policy; pass a new mapping if agents were mapped to it."""
        self._policy(policy_id)
        removed = self.policy_map.pop(policy_id)
        try:
            self._change_mapping(policy_mapping_fn, policies_to_train)
        except ValueError:
            self.policy_map[policy_id] = removed
            raise

    def for_policy(self, fn: Callable[[Policy], Any], policy_id: str = DEFAULT_POLICY_ID) -> Any:
        """``fn(policy)`` for one policy."""
        return fn(self._policy(policy_id))

    def foreach_policy(self, fn: Callable[[Policy, str], Any]) -> list:
        """``[fn(policy, policy_id) for each policy]``."""
        return [fn(policy, pid) for pid, policy in self.policy_map.items()]

    def foreach_policy_to_train(self, fn: Callable[[Policy, str], Any]) -> list:
        """``fn(policy, policy_id)`` for each policy in ``policies_to_train``."""
        return [fn(self.policy_map[pid], pid) for pid in self._trainable_ids()]

    def foreach_env(self, fn: Callable[[Any], Any]) -> list:
        """``[fn(env) for each sub-env]``."""
        return [fn(env) for env in self.sampler.sub_envs()]

    def foreach_env_with_context(self, fn: Callable[[Any, EnvContext], Any]) -> list:
        """``[fn(env, env_context) for each sub-env]``; each context carries the sub-env's ``vector_index``."""
        return [fn(env, self.env_context.copy_with_overrides(vector_index=i))
                for i, env in enumerate(self.sampler.sub_envs())]

    # -- filters ----------------------------------------------------------------
    def get_filters(self, flush_after: bool = False) -> dict:
        """Policy id -> a copy of its observation filter; ``flush_after`` then clears the filters' buffers.

        The driver merges the flushed copies (``apply_changes``) and sends the
        result back with ``sync_filters``: RLlib's ``FilterManager`` cycle.
        """
        snapshot = {pid: f.as_serializable() for pid, f in self.filters.items()}
        if flush_after:
            for obs_filter in self.filters.values():
                obs_filter.clear_buffer()
        return snapshot

    def sync_filters(self, new_filters: dict) -> None:
        """Take the given filters' statistics; rows seen since the last flush are rebased on top.

        Raises
        ------
        ValueError
            If ``new_filters`` lacks one of this worker's policies.
        """
        missing = sorted(set(self.filters) - set(new_filters))
        if missing:
            raise ValueError(f"sync_filters got no filter for policies {missing}; pass get_filters() of a "
                             f"worker with the same policies")
        for pid, obs_filter in self.filters.items():
            obs_filter.sync(new_filters[pid])

    # -- state, locking, health ------------------------------------------------------
    def get_state(self) -> dict:
        """What restores this worker's learning state: weights, filters, global vars, policies to train."""
        return {"policy_states": self.get_weights(), "filters": self.get_filters(),
                "global_vars": self.get_global_vars(),
                "policies_to_train": sorted(self.get_policies_to_train()), "weights_version": self.weights_version}

    def set_state(self, state: dict) -> None:
        """Restore a ``get_state()`` dict (of this or a like worker).

        Raises
        ------
        ValueError
            If ``state`` names policies this worker does not have.
        """
        unknown = sorted(set(state["policy_states"]) - set(self.policy_map))
        if unknown:
            raise ValueError(f"state holds policies {unknown} this worker lacks (it has {sorted(self.policy_map)}); "
                             f"add_policy them first")
        self.set_weights(state["policy_states"], state.get("global_vars"))
        self.sync_filters({**self.filters, **state.get("filters", {})})
        self.set_is_policy_to_train(state.get("policies_to_train", list(self.policy_map)))
        self._updated(state.get("weights_version", self.weights_version), self.weights_item)

    def creation_args(self) -> dict:
        """The keyword arguments this worker was built with (``RolloutWorker(**w.creation_args())`` builds a twin)."""
        return dict(self._creation_args)

    def assert_healthy(self) -> None:
        """Raise ``AssertionError`` unless ``__init__`` completed: policies and envs exist."""
        assert self.policy_map and hasattr(self, "sampler"), "RolloutWorker was not fully built"
        assert self.sampler.sub_envs(), "RolloutWorker has no sub-environments"

    def find_free_port(self) -> int:
        """A TCP port free right now on this worker's node (the OS picks it; a race with other users remains)."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("", 0))
            return sock.getsockname()[1]

    def setup_torch_data_parallel(self, url: str, world_rank: int, world_size: int, backend: str = "gloo") -> None:
        """Join a ``torch.distributed`` process group (CPU: gloo) and wrap each torch policy's model in DDP.

        Parameters
        ----------
        url : str
            ``"tcp://host:port"`` of rank 0 (``find_free_port`` on that worker picks the port).
        world_rank, world_size : int
            This worker's rank and the group's size.
        backend : str
            Only ``"gloo"``: rlviz trains on CPU.

        Raises
        ------
        ValueError
            For another backend.
        """
        if backend != "gloo":
            raise ValueError(f"backend {backend!r}: rlviz trains on CPU, use 'gloo'")
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel

        dist.init_process_group(backend=backend, init_method=url, rank=world_rank, world_size=world_size)
        self._torch_group = True
        for policy in self.policy_map.values():
            model = getattr(policy, "model", None)
            if model is not None and not isinstance(model, DistributedDataParallel):
                policy.model = DistributedDataParallel(model)

    # -- plumbing -------------------------------------------------------------
    def get_host(self) -> str:
        """The host name of the machine running this worker."""
        return socket.gethostname()

    def get_node_ip(self) -> str:
        """The IP address of the Ray node running this worker."""
        import ray

        return ray.util.get_node_ip_address()

    def ping(self) -> str:
        """``"pong"``: a cheap liveness check."""
        return "pong"

    def apply(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(self, *args)``: run any function against this worker (remotely, on its actor)."""
        return fn(self, *args)

    def stop(self) -> None:
        """Close the envs, and leave the torch process group if ``setup_torch_data_parallel`` joined one."""
        self.sampler.close()
        if self._torch_group:
            import torch.distributed as dist

            dist.destroy_process_group()
            self._torch_group = False

    def __repr__(self) -> str:
        if not hasattr(self, "sampler"):              # Ray may ask before __init__ finished
            return "RolloutWorker(starting)"
        kind = "multi-agent " if self.multi_agent else ""
        return (f"RolloutWorker({self.worker_index}, {kind}policies={list(self.policy_map)}, "
                f"envs={self.config.num_envs_per_worker}, fragment={self.config.rollout_fragment_length})")

    # -- helpers ------------------------------------------------------------
    def _sample_forever(self) -> Iterator[SampleBatch | MultiAgentBatch]:
        while True:
            batch, sampled = self._sample_recorded()
            self.rlviz_made_from(sampled)             # the shard's source links to this sample() call
            yield batch

    def _sample_recorded(self) -> tuple[SampleBatch | MultiAgentBatch, int]:
        """A batch and the id of its ``sample`` span (-1 when nothing is recorded)."""
        batch, item_id = sample_and_write(self)          # the config's input, then its output
        gauge(EPISODES_FINISHED, self.sampler.episodes.finished)
        return batch, item_id

    def _updated(self, version: int, item_id: int) -> None:
        """The weights this worker holds changed to ``version`` by the recorded call ``item_id``: keep both,
        and record the version as a gauge."""
        self.weights_version = version
        self.weights_item = item_id
        gauge(WEIGHTS_VERSION, version)

    def _policy(self, policy_id: str) -> Policy:
        try:
            return self.policy_map[policy_id]
        except KeyError:
            raise KeyError(f"no policy {policy_id!r} on this worker; it has {sorted(self.policy_map)}") from None

    def _new_policy(self, cls: type, obs_space: Any, act_space: Any, policy_config: Any) -> Policy:
        seed = None if self.seed is None else self.seed + 100 + len(self.policy_map)
        return cls(obs_space, act_space, policy_config, seed=seed)

    def _agent_spaces(self, pid: str, env: Any, mapping_fn: Callable[..., str] | None = None) -> tuple[Any, Any]:
        """The spaces of the first agent mapped to ``pid`` (any agent when none is)."""
        mapping_fn = mapping_fn or self.policy_mapping_fn
        agents = [a for a in env.possible_agents if mapping_fn(a, None, worker=self) == pid] or env.possible_agents
        return env.observation_spaces[agents[0]], env.action_spaces[agents[0]]

    def _policy_for_agent(self, agent_id: str) -> str:
        return self.policy_mapping_fn(agent_id, None, worker=self)

    def _check_mapping(self, env: Any, policy_ids: Any, mapping_fn: Callable[..., str]) -> None:
        for agent in env.possible_agents:
            pid = mapping_fn(agent, None, worker=self)
            if pid not in policy_ids:
                raise ValueError(f"policy_mapping_fn maps agent {agent!r} to policy {pid!r}, which is not "
                                 f"one of the policies {sorted(policy_ids)}; add it to the policy dict or fix "
                                 f"the mapping")

    def _change_mapping(self, mapping_fn: Callable[..., str] | None, to_train: list[str] | None) -> None:
        new_fn = mapping_fn or self.policy_mapping_fn
        self._check_mapping(self.sampler.sub_envs()[0], self.policy_map, new_fn)
        self.policy_mapping_fn = new_fn
        if to_train is not None:
            self.config.policies_to_train = tuple(to_train)
            self.is_policy_to_train = _trainable_test(self.config.policies_to_train)

    def _trainable_ids(self, batch: Any = None) -> list[str]:
        return [pid for pid in self.policy_map if self.is_policy_to_train(pid, batch)]

    def _parts_to_train(self, batch: SampleBatch | MultiAgentBatch) -> dict[str, SampleBatch]:
        if isinstance(batch, SampleBatch):
            return {DEFAULT_POLICY_ID: batch}
        if not isinstance(batch, MultiAgentBatch):
            raise TypeError(f"expected a SampleBatch or MultiAgentBatch, got {type(batch).__name__}")
        trainable = set(self._trainable_ids(batch))
        return {pid: part for pid, part in batch.policy_batches.items() if pid in trainable}


def _lock(worker: RolloutWorker) -> None:
    """Take this worker's own ``threading.Lock`` (blocks while another thread holds it)."""
    worker.user_lock.acquire()


def _unlock(worker: RolloutWorker) -> None:
    """Release the lock taken with ``lock()``."""
    worker.user_lock.release()


# Set after the class is built: ParallelIteratorWorker runs every public method under the actor's call lock,
# and a thread blocked in lock() must not hold that lock, or unlock() could never run.
RolloutWorker.lock = _lock
RolloutWorker.unlock = _unlock

_GLOBAL_WORKER: RolloutWorker | None = None


def get_global_worker() -> RolloutWorker:
    """The RolloutWorker of this process (on an actor: that actor; on the driver: the local worker).

    Code shipped to workers, such as ``AsyncGradients``' remote step, uses it
    to reach the worker it runs on, as RLlib's ``get_global_worker()`` did.

    Raises
    ------
    RuntimeError
        If no RolloutWorker was created in this process.
    """
    if _GLOBAL_WORKER is None:
        raise RuntimeError("no RolloutWorker exists in this process; get_global_worker() works inside "
                           "a RolloutWorker actor or after a local worker was built")
    return _GLOBAL_WORKER


def _trainable_test(policies_to_train: Any) -> Callable[..., bool]:
    """RLlib's ``is_policy_to_train(policy_id, batch=None)`` from None (all), a collection of ids or a callable."""
    if policies_to_train is None:
        return lambda policy_id, batch=None: True
    if callable(policies_to_train):
        return policies_to_train
    if isinstance(policies_to_train, str):
        raise TypeError(f"policies_to_train must be a list of policy ids, not the string {policies_to_train!r}; "
                        f"write [{policies_to_train!r}]")
    wanted = frozenset(policies_to_train)
    return lambda policy_id, batch=None: policy_id in wanted


def _only_policy(specs: dict) -> Callable[..., str]:
    if len(specs) != 1:
        return _missing_mapping(sorted(specs))
    (pid,) = specs
    return lambda agent_id, episode=None, worker=None, **kwargs: pid


def _missing_mapping(policy_ids: list[str]) -> Callable[..., str]:
    def mapping(agent_id: str, episode: Any = None, worker: Any = None, **kwargs: Any) -> str:
        raise ValueError(f"with {len(policy_ids)} policies {policy_ids} a multi-agent worker needs "
                         f"policy_mapping_fn(agent_id, episode, worker, **kwargs) -> policy id")
    return mapping
