"""The one place rlviz reads Ray's private attributes: what an actor handle cannot tell through public APIs.

Ray's public API gives an actor's id only inside the actor
(``ray.get_runtime_context().get_actor_id()``) and an actor's class name not
at all, yet the driver needs both from a handle without a remote call: the id
to find a tracked actor again from any handle to it, the class name to name
its lane.  ``PRIVATE_ATTRIBUTES`` lists the private names this module reads;
tests/iter/test_ray_compat.py checks them against the installed Ray, so a Ray
release that renames one fails there, not deep inside a recording.
"""
from __future__ import annotations

__all__ = ["PRIVATE_ATTRIBUTES", "actor_id", "actor_class_name"]

#: The private attributes of ``ray.actor.ActorHandle`` read here.
PRIVATE_ATTRIBUTES = ("_actor_id", "_ray_actor_creation_function_descriptor")


def actor_id(handle) -> str:
    """The id of the actor behind ``handle``, in hex: what ``get_actor_id()`` says inside the actor.

    Parameters
    ----------
    handle : ray.actor.ActorHandle
        Any handle to the actor (handles to one actor give the same id).

    Returns
    -------
    str
        The actor id in hex.
    """
    return handle._actor_id.hex()


def actor_class_name(handle) -> str:
    """The name of the class the actor behind ``handle`` was created from (``RolloutWorker``).

    Parameters
    ----------
    handle : ray.actor.ActorHandle
        A handle to the actor.

    Returns
    -------
    str
        The class name, without its module.
    """
    return handle._ray_actor_creation_function_descriptor.class_name
