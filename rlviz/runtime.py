"""Starting or joining Ray: an embedded local instance by default, a cluster with ``address=``.

The one place that calls ``ray.init``; everything else assumes Ray is up.
"""
from __future__ import annotations

import logging
import os

__all__ = ["init", "ensure_ray"]

#: How often a local Ray start is tried when Ray times out registering its own node (a busy machine).
_LOCAL_START_ATTEMPTS = 3


def init(address: str | None = None, **ray_kwargs) -> str:
    """Start an embedded local Ray (quiet, no dashboard) or join ``address``.

    Idempotent: if Ray is already running in this process it is left as it is.

    Parameters
    ----------
    address : str, optional
        A running cluster's address (``"auto"`` or ``"host:port"``); None
        starts a local instance on this machine.
    **ray_kwargs
        Passed to ``ray.init`` (for example ``num_cpus=8``).

    Returns
    -------
    str
        The address of the Ray cluster in use.

    Examples
    --------
    >>> import rlviz
    >>> address = rlviz.init()
    >>> rlviz.init() == address
    True
    """
    import ray

    if not ray.is_initialized():
        os.environ.setdefault("RAY_DEDUP_LOGS", "0")
        options = {"include_dashboard": False, "logging_level": logging.ERROR,
                   "configure_logging": True, **ray_kwargs}
        # "local" unless RAY_ADDRESS says otherwise: a bare ray.init() would quietly join whatever cluster
        # `ray start` (or a stale /tmp/ray/ray_current_cluster file) left behind, then reject num_cpus=...
        options["address"] = address or os.environ.get("RAY_ADDRESS") or "local"
        _start(ray, options)
    return ray.get_runtime_context().gcs_address


def ensure_ray() -> None:
    """Start an embedded local Ray if none is running (what iterators call first)."""
    import ray

    if not ray.is_initialized():
        init()


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
