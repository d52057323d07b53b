"""Starting or joining Ray: an embedded local instance by default, a cluster with ``address=``.

The one place that calls ``ray.init``; everything else assumes Ray is up.
"""
from __future__ import annotations

import logging
import os

__all__ = ["init", "ensure_ray"]


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
    """``ray.init``, tried once more when a local start misses Ray's 30 s registration window.

    On a busy 2-core machine the raylet can take longer than Ray allows to register; Ray then raises
    a bare ``Exception`` ("The current node timed out during startup") and leaves nothing running, so
    one more attempt is safe.  Joining a cluster is never retried: its failure is the user's to see.
    """
    try:
        ray.init(**options)
    except Exception as err:                     # Ray raises a bare Exception here
        if options["address"] != "local" or "timed out during startup" not in str(err):
            raise
        ray.shutdown()
        ray.init(**options)
