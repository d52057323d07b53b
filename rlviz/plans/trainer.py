"""``Trainer``: build workers for a named plan, call ``next()`` on it once per ``train()``, save and restore.

Configuration is one flat dict checked against the plan's and policy's keys
(typos fail with the closest valid name).
"""
from __future__ import annotations

import dataclasses
import difflib
import importlib
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

from rlviz.checks import check_int, check_number, check_positive_number
from rlviz.plans import PLANS
from rlviz.rollout.threads import torch_threads

__all__ = ["Trainer", "COMMON_CONFIG", "RLLIB_FIXED", "WORKER_SET_KEYS", "DEFAULT_NUM_WORKERS", "DEFAULT_ENV"]

#: Settings every plan understands (each plan's DEFAULT_CONFIG overrides some).
COMMON_CONFIG: dict[str, Any] = {
    "rollout_fragment_length": 200,      # env steps per sample() per sub-env
    "num_envs_per_worker": 1,            # sub-envs each worker steps together
    "train_batch_size": 200,             # steps per learning batch
    "timesteps_per_iteration": 0,        # a train() waits until this many more steps were sampled
    "min_iter_time_s": 0,                # ... and at least this many seconds passed
    "metrics_smoothing_episodes": 100,   # episodes averaged in episode_reward_mean
    "seed": None,                        # base seed of workers and policies
    "counters_as_gauges": False,         # record metrics.counters as gauges ("counter <name>") once per train()
    "num_cpus_for_driver": 1,            # torch threads the learner computes with (None: torch's default)
}

#: Remote workers and env when neither the arguments nor the config name them.
DEFAULT_NUM_WORKERS = 2
DEFAULT_ENV = "CartPole-v1"

#: RLlib 1.x keys taken with the one value rlviz honours; any other value is a contradiction.
RLLIB_FIXED: dict[str, tuple[Any, str]] = {
    "framework": ("torch", "rlviz's policies are torch modules"),
    "num_gpus": (0, "rlviz learns on the CPU"),
}

#: Keys passed on to the WorkerSet's ``RolloutConfig`` (RLlib 1.x spells them the same).
WORKER_SET_KEYS: dict[str, Any] = {
    "recreate_failed_workers": False,    # replace a dead remote worker (weights restored) and rebuild the plan
    "num_cpus_per_worker": 0,            # CPUs each remote worker reserves
    "custom_resources_per_worker": {},   # Ray custom resources each remote worker reserves (node placement)
    "env_config": {},                    # keyword arguments of the env creator
}

#: Settings checked at construction: (smallest allowed, ints only, None allowed).
_NUMBERS = {
    "rollout_fragment_length": (1, True, False), "num_envs_per_worker": (1, True, False),
    "train_batch_size": (1, True, False), "timesteps_per_iteration": (0, True, False),
    "min_iter_time_s": (0, False, False), "metrics_smoothing_episodes": (1, True, False),
    "seed": (0, True, True), "microbatch_size": (1, True, True), "buffer_size": (1, True, False),
    "learning_starts": (0, True, False), "target_network_update_freq": (1, True, False),
    "num_replay_shards": (1, True, False), "max_weight_sync_delay": (1, True, False),
    "learner_queue_size": (1, True, False), "num_cpus_per_worker": (0, False, False),
    "num_cpus_for_driver": (1, True, True), "prioritized_replay_alpha": (0, False, False),
    "prioritized_replay_beta": (0, False, False), "prioritized_replay_eps": (0, False, False),
}

_NEEDS_REMOTE = {"a3c", "apex"}


class Trainer:
    """Runs one execution plan: ``train()`` is one ``next()`` of it.

    Parameters
    ----------
    plan : str
        Which plan: one of ``rlviz.plans.PLANS`` (``rlviz.plans.<plan>``).
    env : str or callable, optional
        A gymnasium id or env creator; also taken from ``config["env"]``
        (default ``"CartPole-v1"``).
    num_workers : int, optional
        Remote rollout workers (a3c and apex need at least 1); also taken
        from ``config["num_workers"]`` (default 2).
    config : dict, optional
        Overrides of ``COMMON_CONFIG``, the plan's ``DEFAULT_CONFIG``, the
        policy's config fields (``lr``, ``gamma``, ...) and ``WORKER_SET_KEYS``.
        A config written for RLlib 1.x is accepted where it is consistent:
        ``num_workers`` and ``env`` may sit in it (if also given as
        arguments, they must agree), and ``RLLIB_FIXED`` keys may carry the
        value rlviz honours (``framework="torch"``, ``num_gpus=0``).

    Raises
    ------
    TypeError
        ``num_workers`` not an int, ``config`` not a dict, or a config value
        of the wrong type; raised before any actor starts.
    ValueError
        Unknown plan or config key (naming the closest valid one), a config
        value out of range, NaN or infinite (``training_intensity``, ``lr``,
        ``train_batch_size``, ...), an argument contradicting the config, or
        too few workers for the plan; raised before any actor starts.

    Notes
    -----
    With ``recreate_failed_workers``, a ``train()`` that meets a dead remote
    worker does what RLlib 1.x's trainer did: replace the dead workers (their
    weights restored from the local worker), rebuild the execution plan over
    the new set, and train again.  Both show in the trace
    (``worker_restarted``, ``plan_rebuilt``).  Unlike RLlib 1.x, the
    counters carry over into the rebuilt plan; a DQN replay buffer starts
    empty again, as in RLlib.  A ``train()`` interrupted by Ctrl-C ends the
    plan's generators, so the next ``train()`` rebuilds the plan the same way.

    Examples
    --------
    >>> trainer = Trainer("pg", num_workers=0, config={"rollout_fragment_length": 20, "train_batch_size": 40})
    >>> result = trainer.train()
    >>> result["timesteps_total"], result["num_steps_trained"]
    (40, 40)
    >>> Trainer("dqm")
    Traceback (most recent call last):
    ...
    ValueError: unknown plan 'dqm'; did you mean 'dqn'? plans are ['pg', 'a2c', 'a3c', 'dqn', 'apex']
    >>> Trainer("pg", num_workers=1, config={"num_workers": 2})
    Traceback (most recent call last):
    ...
    ValueError: num_workers=1 contradicts config['num_workers']=2; give it once (either place works)
    >>> trainer.stop()
    """

    def __init__(self, plan: str, env: Any = None, num_workers: int | None = None,
                 config: dict | None = None) -> None:
        from rlviz.rollout import RolloutConfig, WorkerSet
        from rlviz.rollout.config import reconcile

        if plan not in PLANS:
            raise ValueError(_unknown("plan", plan, list(PLANS)) + f" plans are {list(PLANS)}")
        if config is not None and not isinstance(config, dict):
            raise TypeError(f"config must be a dict, not {type(config).__name__}")
        config = dict(config or {})
        num_workers = reconcile("num_workers", num_workers, config, default=DEFAULT_NUM_WORKERS)
        env = reconcile("env", env, config, default=DEFAULT_ENV)
        check_int("num_workers", num_workers, minimum=0)
        if plan in _NEEDS_REMOTE and num_workers < 1:
            raise ValueError(f"plan {plan!r} samples asynchronously on remote workers: num_workers must be "
                             f">= 1, got {num_workers}")
        self.plan_name = plan
        self.module = importlib.import_module(f"rlviz.plans.{plan}")
        policy_fields = [f.name for f in dataclasses.fields(self.module.POLICY.config_class)]
        _check_config(plan, config, sorted(set(COMMON_CONFIG) | set(self.module.DEFAULT_CONFIG) | set(policy_fields)
                                           | set(WORKER_SET_KEYS) | set(RLLIB_FIXED) | {"num_workers", "env"}))
        self.config = {**COMMON_CONFIG, **WORKER_SET_KEYS, **self.module.DEFAULT_CONFIG, **config,
                       "num_workers": num_workers, "env": env}
        if self.config.get("training_intensity") is not None:
            check_positive_number("training_intensity", self.config["training_intensity"],
                                  hint="None for the plan's native ratio, or e.g. 2 to train on each sample twice")
        if "lr" in self.config:
            check_positive_number("lr", self.config["lr"])
        self.env = env
        policy_config = {k: self.config[k] for k in policy_fields if k in self.config}
        rollout = RolloutConfig(rollout_fragment_length=self.config["rollout_fragment_length"],
                                num_envs_per_worker=self.config["num_envs_per_worker"], seed=self.config["seed"],
                                **{key: self.config[key] for key in WORKER_SET_KEYS})
        self.workers = WorkerSet(env_creator=env, default_policy_class=self.module.POLICY,
                                 config={**dataclasses.asdict(rollout), **policy_config}, num_workers=num_workers)
        self.plan = self.module.execution_plan(self.workers, self.config)
        self.iteration = 0
        self.history: list[dict] = []
        self._last_result: dict | None = None
        self._results_lock = threading.Lock()
        self._interrupted = False
        self._stopped = False

    def train(self) -> dict:
        """One ``next()`` of the plan: the metrics of one training iteration.

        Returns
        -------
        dict
            ``episode_reward_mean``, ``episode_len_mean``, ``timesteps_total``,
            ``counters``, ``timers``, ``info`` ... plus ``training_iteration``.

        Raises
        ------
        RuntimeError
            If the trainer was stopped (``stop()``): its workers are gone.
        """
        if self._stopped:
            raise RuntimeError(f"{self!r} was stopped (trainer.stop()), so its workers are gone; hint: build a new "
                               f"Trainer (re-run the cell that creates it)")
        if self._interrupted:
            self._rebuild_plan("KeyboardInterrupt: the previous train() was interrupted")
        with torch_threads(self.config["num_cpus_for_driver"]):
            try:
                result = self._next_result()
            except _worker_errors() as err:
                if not self.config["recreate_failed_workers"]:
                    raise
                self._recover(err)
                result = self._next_result()
            except KeyboardInterrupt:    # Ctrl-C ends the plan's generators: the next train() rebuilds it
                self._interrupted = True
                raise
        with self._results_lock:
            self.iteration += 1
            result["training_iteration"] = self.iteration
            self.history.append({k: result[k] for k in ("training_iteration", "timesteps_total", "num_steps_trained",
                                                         "episode_reward_mean", "episode_len_mean")})
            self._last_result = result
        return result

    def results(self, since: int = 0) -> list[dict]:
        """The summaries of the ``train()`` calls after the first ``since``, as they come: safe from another thread.

        Each is ``training_iteration``, ``timesteps_total``,
        ``num_steps_trained``, ``episode_reward_mean`` and
        ``episode_len_mean`` (a copy: ``history`` holds the same).  A reader
        that keeps ``since = len(all it read)`` gets each result once.

        Parameters
        ----------
        since : int, default 0
            How many results the caller already has.

        Returns
        -------
        list of dict

        Raises
        ------
        ValueError
            If ``since`` is negative.
        TypeError
            If ``since`` is not an int.

        Examples
        --------
        >>> trainer = Trainer("pg", num_workers=0, config={"rollout_fragment_length": 20, "train_batch_size": 40})
        >>> _ = trainer.train(); _ = trainer.train()
        >>> [r["training_iteration"] for r in trainer.results(since=1)]
        [2]
        >>> trainer.stop()
        """
        check_int("since", since, minimum=0, hint="how many results you already read, e.g. len(seen)")
        with self._results_lock:
            return [dict(entry) for entry in self.history[since:]]

    @property
    def last_result(self) -> dict | None:
        """The whole dict the latest ``train()`` returned (None before the first)."""
        with self._results_lock:
            return self._last_result

    def _next_result(self) -> dict:
        result = next(self.plan)
        while not isinstance(result, dict):          # not-ready markers of async plans
            result = next(self.plan)
        return result

    def _recover(self, err: Exception) -> None:
        """Replace dead remote workers and rebuild the plan over them, as RLlib 1.x's trainer did."""
        replaced = self.workers.probe_unhealthy_workers()
        self._rebuild_plan(f"{type(err).__name__}; replaced workers {replaced or 'already replaced'}")

    def _rebuild_plan(self, why: str) -> None:
        """A fresh execution plan over the current workers, counters carried over; a ``plan_rebuilt`` event's item says ``why``."""
        from rlviz.trace import span

        with span("plan_rebuilt", label="Trainer rebuilt the execution plan") as call:
            counters = dict(self.metrics.counters)
            stop_plan = getattr(self.module, "stop", None)
            if stop_plan is not None:
                stop_plan(self.workers)
            self.plan = self.module.execution_plan(self.workers, self.config)
            self.metrics.counters.update(counters)
            self._interrupted = False
            call.produced(why)

    def dataflow(self) -> list:
        """The plan's dataflow graph as plain ``Node``s (for ``rlviz.viz.plot_graph``)."""
        return self.plan.dataflow()

    @property
    def metrics(self) -> Any:
        """The plan's shared ``MetricsContext`` (counters, timers, info)."""
        return self.plan.shared_metrics.get()

    def save(self, path: str | Path) -> Path:
        """Write ``trainer.json`` (plan, config, counters, history) and ``weights.npz`` into folder ``path``.

        JSON and numpy only, never pickle.
        """
        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        state = {"plan": self.plan_name, "iteration": self.iteration, "history": self.history,
                 "counters": dict(self.metrics.counters),
                 "config": {k: _jsonable(v) for k, v in self.config.items()}}
        (folder / "trainer.json").write_text(json.dumps(state, indent=1))
        weights = self.workers.local_worker().get_weights()
        np.savez(folder / "weights.npz", **{f"{pid}/{name}": array for pid, params in weights.items()
                                           for name, array in params.items()})
        return folder

    def restore(self, path: str | Path) -> None:
        """Load what ``save`` wrote: weights (then synced to every worker), counters and history.

        Raises
        ------
        ValueError
            If the checkpoint was written by another plan.
        """
        folder = Path(path)
        state = json.loads((folder / "trainer.json").read_text())
        if state["plan"] != self.plan_name:
            raise ValueError(f"checkpoint {folder} is of plan {state['plan']!r}, this trainer runs "
                             f"{self.plan_name!r}")
        weights: dict[str, dict] = {}
        with np.load(folder / "weights.npz", allow_pickle=False) as data:
            for key in data.files:
                pid, name = key.split("/", 1)
                weights.setdefault(pid, {})[name] = data[key]
        self.workers.local_worker().set_weights(weights)
        self.workers.local_worker().foreach_policy(_update_target_if_any)
        self.workers.sync_weights()
        self.metrics.counters.clear()
        self.metrics.counters.update(state["counters"])
        self.iteration = state["iteration"]
        self.history = list(state["history"])

    def stop(self) -> None:
        """Stop plan threads/actors and every worker; ``train()`` is refused from now on."""
        self._stopped = True
        stop_plan = getattr(self.module, "stop", None)
        if stop_plan is not None:
            stop_plan(self.workers)
        self.workers.stop()

    def __repr__(self) -> str:
        return f"Trainer({self.plan_name!r}, env={self.env!r}, num_workers={self.config['num_workers']})"


def _check_config(plan: str, config: dict, valid: list[str]) -> None:
    """Unknown keys, RLlib keys with a value rlviz cannot honour, and numbers out of range all fail here."""
    for key, value in config.items():
        if key not in valid:
            raise ValueError(_unknown(f"{plan} config key", key, valid) + f" valid keys are {valid}")
        if key in RLLIB_FIXED and value != RLLIB_FIXED[key][0]:
            honoured, why = RLLIB_FIXED[key]
            raise ValueError(f"config[{key!r}]={value!r} cannot be honoured: {why}; use {honoured!r} "
                             f"or leave the key out")
        minimum, integer, optional = _NUMBERS.get(key, (None, False, True))
        if minimum is None or (optional and value is None):
            continue
        if integer:
            check_int(f"config[{key!r}]", value, minimum=minimum)
        else:
            check_number(f"config[{key!r}]", value, minimum=minimum)
    if not isinstance(config.get("recreate_failed_workers", False), bool):
        raise TypeError(f"config['recreate_failed_workers'] must be True or False, "
                        f"not {config['recreate_failed_workers']!r}")


def _worker_errors() -> tuple[type[Exception], ...]:
    """What a dead remote worker raises out of a plan: Ray's actor error, or the WorkerSet's."""
    import ray

    from rlviz.rollout import WorkerCrashedError

    return (ray.exceptions.RayActorError, WorkerCrashedError)


def _unknown(what: str, value: object, valid: list[str]) -> str:
    close = difflib.get_close_matches(str(value), valid, n=1, cutoff=0.5)
    return f"unknown {what} {value!r};" + (f" did you mean {close[0]!r}?" if close else "")


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if callable(value):
        return repr(value)
    return value


def _update_target_if_any(policy: Any, pid: str) -> None:
    if hasattr(policy, "update_target"):
        policy.update_target()
