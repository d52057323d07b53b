"""Starting or joining Ray: an embedded local instance by default, a cluster with ``address=``.

The one place that calls ``ray.init``; everything else assumes Ray is up.
"""
from __future__ import annotations

import logging
import os

__all__ = ["init", "RayAddress", "ensure_ray", "ray_session", "check_same_ray"]

#: How often a local Ray start is tried when Ray times out registering its own node (a busy machine).
_LOCAL_START_ATTEMPTS = 3


class RayAddress(str):
    """The address of the Ray in use: a ``str`` whose repr also says what runs there.

    A notebook cell ending in ``rlviz.init(...)`` then shows "Ray is running
    on this machine: 1 node, 8 CPUs for actors (its address:
    '127.0.0.1:6379')", not a bare ``host:port``.  It compares, formats and
    pickles as the plain address.

    Parameters
    ----------
    address : str
        The cluster's address (``host:port``).
    description : str
        What runs there, in words.
    """

    description: str

    def __new__(cls, address: str, description: str = "Ray is running") -> "RayAddress":
        value = super().__new__(cls, address)
        value.description = description
        return value

    def __repr__(self) -> str:
        return f"{self.description} (its address: {str.__repr__(self)})"

    def __reduce__(self) -> tuple:
        return str, (str(self),)


def init(address: str | None = None, **ray_kwargs) -> RayAddress:
    """Start an embedded local Ray (quiet, no dashboard) or join ``address``.

    Idempotent: if Ray is already running in this process and the call asks
    for nothing it no longer gives (same ``num_cpus``, same address, the same
    settings rlviz started it with), it is left as it is.

    Parameters
    ----------
    address : str, optional
        A running cluster's address (``"auto"`` or ``"host:port"``); None
        starts a local instance on this machine.
    **ray_kwargs
        Passed to ``ray.init`` (for example ``num_cpus=8``).

    Returns
    -------
    RayAddress
        The address of the Ray cluster in use (a ``str``); its repr says
        where Ray runs, on how many nodes, with how many CPUs.

    Raises
    ------
    ValueError
        If Ray is already running (started by an earlier ``rlviz.init``, by
        ``ray.init``, or implicitly by an iterator, WorkerSet or Trainer built
        first) and ``address`` or a setting would differ from what it runs
        with: they cannot take effect any more, so the call names them and
        says to call ``ray.shutdown()`` first instead of ignoring them.

    Examples
    --------
    >>> import rlviz
    >>> address = rlviz.init()
    >>> rlviz.init() == address
    True
    """
    import ray

    if ray.is_initialized():
        _check_unchanged(ray, address, ray_kwargs)
    else:
        _start_local(ray, address, ray_kwargs, implicit=False)
    return RayAddress(ray.get_runtime_context().gcs_address, _describe_ray(ray))


def _describe_ray(ray) -> str:
    """Where the running Ray is, its nodes and CPUs, in words."""
    nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    cpus = int(ray.cluster_resources().get("CPU", 0))
    ours = _STARTED.get("job") == ray.get_runtime_context().get_job_id()
    where = " on this machine" if ours and _STARTED.get("local") else ""
    return (f"Ray is running{where}: {nodes} node{'s' if nodes != 1 else ''}, "
            f"{cpus} CPU{'s' if cpus != 1 else ''} for actors")


def ensure_ray() -> None:
    """Start an embedded local Ray if none is running (what iterators call first)."""
    import ray

    if not ray.is_initialized():
        _start_local(ray, None, {}, implicit=True)


def ray_session() -> tuple | None:
    """Which Ray this process is connected to (its node and job ids, new at every start), or None."""
    import ray

    if not ray.is_initialized():
        return None
    context = ray.get_runtime_context()
    return context.get_node_id(), context.get_job_id()


def check_same_ray(session: tuple | None, what: str) -> None:
    """Raise if ``what`` (its actors) was built on a Ray ``session`` that has shut down since.

    Raises
    ------
    RuntimeError
        Naming ``what``, that its Ray has shut down (or restarted) and that it must be built again.
    """
    if session is not None and ray_session() != session:
        now = "Ray is not running now" if ray_session() is None else "a new Ray has started since"
        raise RuntimeError(f"{what} was built on a Ray that has shut down ({now}), so its actors are gone; "
                           f"hint: build it again after rlviz.init() (re-run the cell that creates it)")


#: How rlviz started the Ray running now: its job id, the settings given, and whether it was implicit.
_STARTED: dict = {}


def _start_local(ray, address: str | None, ray_kwargs: dict, *, implicit: bool) -> None:
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    options = {"include_dashboard": False, "logging_level": logging.ERROR,
               "configure_logging": True, **ray_kwargs}
    # "local" unless RAY_ADDRESS says otherwise: a bare ray.init() would quietly join whatever cluster
    # `ray start` (or a stale /tmp/ray/ray_current_cluster file) left behind, then reject num_cpus=...
    options["address"] = address or os.environ.get("RAY_ADDRESS") or "local"
    _start(ray, options)
    _STARTED.clear()
    _STARTED.update(job=ray.get_runtime_context().get_job_id(), settings=dict(ray_kwargs),
                    address=address, implicit=implicit, local=options["address"] == "local")


def _check_unchanged(ray, address: str | None, ray_kwargs: dict) -> None:
    """Refuse settings the running Ray cannot take any more, naming them and the fix."""
    ours = _STARTED if _STARTED.get("job") == ray.get_runtime_context().get_job_id() else {}
    given = ours.get("settings", {})
    differ = [f"{key}={value!r}" for key, value in ray_kwargs.items()
              if not (key in given and given[key] == value) and not _runs_with(ray, key, value)]
    if address not in (None, "auto", ours.get("address"), ray.get_runtime_context().gcs_address):
        differ.insert(0, f"address={address!r}")
    if not differ:
        return
    if not ours:
        how = "by ray.init() outside rlviz"
    elif ours["implicit"]:
        how = ("implicitly, with default settings, by an iterator, WorkerSet or Trainer built before "
               "rlviz.init() was called")
    else:
        how = "by rlviz.init(" + ", ".join(f"{k}={v!r}" for k, v in given.items()) + ")"
    raise ValueError(f"rlviz.init({', '.join(differ)}): Ray is already running in this process, started {how}, "
                     f"so {', '.join(item.split('=')[0] for item in differ)} cannot take effect any more; "
                     f"hint: call ray.shutdown() first, then rlviz.init({', '.join(differ)}) before building "
                     f"iterators, WorkerSets or Trainers")


def _runs_with(ray, key: str, value) -> bool:
    """True if the running Ray already has ``key=value`` (only ``num_cpus`` and ``num_gpus`` can be read back)."""
    resource = {"num_cpus": "CPU", "num_gpus": "GPU"}.get(key)
    return resource is not None and ray.cluster_resources().get(resource, 0) == value


def _start(ray, options: dict) -> None:
    """``ray.init``, tried again (up to ``_LOCAL_START_ATTEMPTS`` times) when a local start misses Ray's 30 s window.

    On a busy 2-core machine the raylet can take longer than Ray allows to register; Ray then raises
    a bare ``Exception`` ("The current node timed out during startup") and leaves nothing running, so
    another attempt is safe.  Joining a cluster is never retried: its failure is the user's to see.
    """
    for attempt in range(1, _LOCAL_START_ATTEMPTS + 1):
        try:
            ray.init(**options)
            return
        except Exception as err:                 # Ray raises a bare Exception here
            if (options["address"] != "local" or "timed out during startup" not in str(err)
                    or attempt == _LOCAL_START_ATTEMPTS):
                raise
            ray.shutdown()
