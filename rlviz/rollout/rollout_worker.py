"""``RolloutWorker``: envs plus policies in one process, sampling batches and learning from them.

Runs locally or as a Ray actor; as a ``ParallelIteratorWorker`` its shard is
an endless stream of ``sample()`` batches.
"""
from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

from rlviz.iter import ParallelIteratorWorker
from rlviz.rollout.config import RolloutConfig, make_config
from rlviz.rollout.env import is_multi_agent, make_env_creator
from rlviz.rollout.offline.worker_io import attach_io, sample_and_write
from rlviz.rollout.policy import Policy
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch
from rlviz.rollout.sampler import EpisodeMetrics, MultiAgentSampler, VectorSampler, make_vector_env
from rlviz.trace import gauge, span
from rlviz.trace.gauges import EPISODES_FINISHED, WEIGHTS_VERSION

__all__ = ["RolloutWorker", "PolicySpec", "Weights", "get_global_worker"]

#: A policy class, or a dict policy id -> (policy class, config or None).
PolicySpec = type | dict


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

    Parameters
    ----------
    env_creator : str or callable
        A gymnasium id, ``"MultiAgentArena"``, or a callable returning a
        ``gymnasium.Env`` or ``MultiAgentEnv`` (called with ``env_config``).
    policy : Policy subclass or dict
        One policy class (its id is ``"default_policy"``), or a dict of
        policy id -> ``(policy class, config)`` for multi-agent envs.
    config : RolloutConfig or dict, optional
        Sampling settings (see ``RolloutConfig``).
    worker_index : int
        0 for the local worker, 1.. for remote ones; offsets the seed.
    **settings
        ``RolloutConfig`` fields overriding ``config``, e.g. ``num_envs_per_worker=4``,
        or ``input="/tmp/out"`` / ``output="/tmp/out"`` to read or write offline data.

    Raises
    ------
    ValueError
        Unknown env id, unknown config key, a policy id returned by
        ``policy_mapping_fn`` that is not in the policy dict, or a space the
        policy does not support.
    TypeError
        If ``policy`` is neither a Policy class nor a dict of them.

    Examples
    --------
    >>> from rlviz.rollout import RandomPolicy
    >>> worker = RolloutWorker("CartPole-v1", RandomPolicy, num_envs_per_worker=2,
    ...                        rollout_fragment_length=5, seed=0)
    >>> batch = worker.sample()
    >>> len(batch), batch.count, list(batch)[:3]
    (10, 10, ['obs', 'actions', 'rewards'])
    """

    def __init__(self, env_creator: str | Callable[..., Any], policy: PolicySpec,
                 config: RolloutConfig | dict | None = None, worker_index: int = 0, **settings: Any) -> None:
        self.config = make_config(RolloutConfig, config, **settings)
        self.worker_index = worker_index
        global _GLOBAL_WORKER
        _GLOBAL_WORKER = self                            # what get_global_worker() returns in this process
        if worker_index > 0 and "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)      # several workers share few cores
        self.env_creator = make_env_creator(env_creator, self.config.env_config)
        self.seed = None if self.config.seed is None else self.config.seed + 1000 * worker_index
        first_env = self.env_creator()
        self.multi_agent = is_multi_agent(first_env)
        specs = _normalize_policy_spec(policy)
        self.policy_map: dict[str, Policy] = {}
        self.global_vars: dict = {"timestep": 0}
        #: The weights this worker holds: its own update count on a learner, the learner's count at the sync elsewhere.
        self.weights_version = 0
        #: The trace id of the recorded call that last changed these weights (learn_on_batch, apply_gradients,
        #: set_weights; -1: none recorded): a sync lists it as its input, a ``sample`` as the weights it acted with.
        self.weights_item = -1
        if self.multi_agent:
            self._mapping_fn = self.config.policy_mapping_fn or _only_policy(specs)
            self._check_mapping(first_env, specs, self._mapping_fn)
            for pid, (cls, policy_config) in specs.items():
                self.policy_map[pid] = self._build_policy(pid, cls, policy_config, first_env)
            envs = [first_env] + [self.env_creator() for _ in range(self.config.num_envs_per_worker - 1)]
            self.sampler: VectorSampler | MultiAgentSampler = MultiAgentSampler(
                envs, self.policy_map, self._policy_for_agent, self.config.rollout_fragment_length,
                self.seed, worker_index)
        else:
            if set(specs) != {DEFAULT_POLICY_ID}:
                raise ValueError(f"a single-agent env needs exactly one policy with id {DEFAULT_POLICY_ID!r}, "
                                 f"got {sorted(specs)}; pass the policy class itself")
            cls, policy_config = specs[DEFAULT_POLICY_ID]
            self.policy_map[DEFAULT_POLICY_ID] = self._build_policy(DEFAULT_POLICY_ID, cls, policy_config, first_env)
            first_env.close()
            vector_env = make_vector_env(self.env_creator, self.config.num_envs_per_worker)
            self.sampler = VectorSampler(vector_env, self.policy_map[DEFAULT_POLICY_ID],
                                         self.config.rollout_fragment_length, self.seed, worker_index)
        attach_io(self, self.config)                     # input_reader, output_writer, io_context, sampler_input
        ParallelIteratorWorker.__init__(self, self._sample_forever, False)

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

    def sample_with_count(self) -> tuple[SampleBatch | MultiAgentBatch, int]:
        """``(batch, batch.count)``: the count travels without unpickling the batch."""
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
            Policy id -> learner statistics.
        """
        with span("learn_on_batch") as call:
            info = {pid: self.policy_map[pid].learn_on_batch(part)
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
            its statistics (with ``batch_count``).  For a ``MultiAgentBatch``:
            dicts keyed by policy id.
        """
        with span("compute_gradients") as call:
            if isinstance(batch, SampleBatch):
                grads, info = self.policy_map[DEFAULT_POLICY_ID].compute_gradients(batch)
                info["batch_count"] = batch.count
            else:
                grads, info = {}, {}
                for pid, part in self._parts_to_train(batch).items():
                    grads[pid], info[pid] = self.policy_map[pid].compute_gradients(part)
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
    def get_policy(self, policy_id: str = DEFAULT_POLICY_ID) -> Policy:
        """The policy with this id.

        Raises
        ------
        KeyError
            Naming the known policy ids.
        """
        return self._policy(policy_id)

    def add_policy(self, policy_id: str, policy_cls: type, config: Any = None,
                   policy_mapping_fn: Callable[[str], str] | None = None,
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
        self.policy_map[policy_id] = self._build_policy(policy_id, policy_cls, config, env)
        self._change_mapping(policy_mapping_fn, policies_to_train)
        return self.policy_map[policy_id]

    def remove_policy(self, policy_id: str, policy_mapping_fn: Callable[[str], str] | None = None,
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
        """Close the envs."""
        self.sampler.close()

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

    def _build_policy(self, pid: str, cls: type, policy_config: Any, env: Any) -> Policy:
        if self.multi_agent:
            agents = [a for a in env.possible_agents if self._mapping_fn(a) == pid] or env.possible_agents
            obs_space, act_space = env.observation_spaces[agents[0]], env.action_spaces[agents[0]]
        else:
            obs_space, act_space = env.observation_space, env.action_space
        seed = None if self.seed is None else self.seed + 100 + len(self.policy_map)
        return cls(obs_space, act_space, policy_config, seed=seed)

    def _policy_for_agent(self, agent_id: str) -> str:
        return self._mapping_fn(agent_id)

    def _check_mapping(self, env: Any, specs: dict, mapping_fn: Callable[[str], str]) -> None:
        for agent in env.possible_agents:
            pid = mapping_fn(agent)
            if pid not in specs:
                raise ValueError(f"policy_mapping_fn maps agent {agent!r} to policy {pid!r}, which is not "
                                 f"one of the policies {sorted(specs)}; add it to the policy dict or fix "
                                 f"the mapping")

    def _change_mapping(self, mapping_fn: Callable[[str], str] | None, to_train: list[str] | None) -> None:
        new_fn = mapping_fn or self._mapping_fn
        self._check_mapping(self.sampler.sub_envs()[0], self.policy_map, new_fn)
        self._mapping_fn = new_fn
        if to_train is not None:
            self.config.policies_to_train = tuple(to_train)

    def _trainable_ids(self) -> list[str]:
        wanted = self.config.policies_to_train
        return [pid for pid in self.policy_map if wanted is None or pid in wanted]

    def _parts_to_train(self, batch: SampleBatch | MultiAgentBatch) -> dict[str, SampleBatch]:
        if isinstance(batch, SampleBatch):
            return {DEFAULT_POLICY_ID: batch}
        if not isinstance(batch, MultiAgentBatch):
            raise TypeError(f"expected a SampleBatch or MultiAgentBatch, got {type(batch).__name__}")
        trainable = set(self._trainable_ids())
        return {pid: part for pid, part in batch.policy_batches.items() if pid in trainable}


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


def _normalize_policy_spec(policy: PolicySpec) -> dict[str, tuple[type, Any]]:
    """Policy class or dict -> {policy id: (class, config)}, with type checks."""
    if isinstance(policy, type):
        policy = {DEFAULT_POLICY_ID: (policy, None)}
    if not isinstance(policy, dict) or not policy:
        raise TypeError(f"policy must be a Policy subclass or a non-empty dict of policy id -> "
                        f"(Policy subclass, config), not {policy!r}")
    specs = {}
    for pid, entry in policy.items():
        cls, policy_config = (entry, None) if isinstance(entry, type) else tuple(entry)
        if not (isinstance(cls, type) and issubclass(cls, Policy)):
            raise TypeError(f"policy {pid!r}: expected a Policy subclass, got {cls!r}")
        specs[pid] = (cls, policy_config)
    return specs


def _only_policy(specs: dict) -> Callable[[str], str]:
    if len(specs) != 1:
        raise ValueError(f"with {len(specs)} policies {sorted(specs)} a multi-agent worker needs "
                         f"policy_mapping_fn (agent id -> policy id)")
    (pid,) = specs
    return lambda agent_id: pid
