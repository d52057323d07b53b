"""Making environments: from a gymnasium id, a registered name or a callable, always given an ``EnvContext``.

Unknown ids fail at construction with the closest registered names.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from rlviz.rollout.env_context import EnvContext
from rlviz.rollout.multi_agent import MultiAgentEnv

__all__ = ["make_env_creator", "is_multi_agent", "register_env"]


def _arena(env_context: Mapping[str, Any]) -> Any:
    from rlviz.rollout.arena import MultiAgentArena

    return MultiAgentArena(**env_context)


_RLVIZ_ENVS: dict[str, Callable[..., Any]] = {"MultiAgentArena": _arena}


def register_env(name: str, creator: Callable[..., Any]) -> None:
    """Make ``name`` usable wherever an env id is accepted.

    Parameters
    ----------
    name : str
        The id, e.g. ``"MultiAgentArena"``.
    creator : callable
        Called with one ``EnvContext`` (the env config dict), as RLlib's
        ``register_env`` creators are; returns the env.

    Examples
    --------
    >>> register_env("TinyArena", lambda env_context: None)
    >>> "TinyArena" in _RLVIZ_ENVS
    True
    """
    if not callable(creator):
        raise TypeError(f"creator must be callable, not {type(creator).__name__}")
    _RLVIZ_ENVS[name] = creator


def make_env_creator(env: str | Callable[..., Any], env_config: Mapping[str, Any] | None = None
                     ) -> Callable[..., Any]:
    """A function ``creator(env_context=None)`` that makes one env, checked now rather than on first use.

    Parameters
    ----------
    env : str or callable
        A gymnasium id (``"CartPole-v1"``), an id registered with
        ``register_env`` (``"MultiAgentArena"``), or a callable
        ``env_creator(env_context)`` returning a ``gymnasium.Env`` or a
        ``MultiAgentEnv`` (RLlib's form: ``lambda _: gym.make("CartPole-v1")``).
    env_config : dict, optional
        The env config: keyword arguments for ``gymnasium.make``; the
        context a callable receives when ``creator`` is called without one.

    Returns
    -------
    callable
        ``creator(env_context=None)`` returns a new env each time; a callable
        ``env`` always receives exactly one ``EnvContext``.

    Raises
    ------
    TypeError
        If ``env`` is neither a string nor callable.
    ValueError
        If ``env`` is an unknown id; the message lists close matches.

    Examples
    --------
    >>> make_env_creator("CartPole-v1")().spec.id
    'CartPole-v1'
    >>> make_env_creator("CartPol-v1")
    Traceback (most recent call last):
    ...
    ValueError: unknown env id 'CartPol-v1'; close matches: ['CartPole-v1', ...
    """
    config = dict(env_config or {})
    if isinstance(env, str):
        if env in _RLVIZ_ENVS:
            return _bind(_RLVIZ_ENVS[env], config, env)
        import gymnasium

        if env not in gymnasium.registry:
            known = [*gymnasium.registry.keys(), *_RLVIZ_ENVS]
            close = difflib.get_close_matches(env, known, n=3, cutoff=0.6)
            hint = f"close matches: {close}" if close else "no close match"
            raise ValueError(f"unknown env id {env!r}; {hint}. Pass a registered gymnasium id, "
                             f"one of rlviz's {sorted(_RLVIZ_ENVS)}, or a callable returning an env")
        return _bind(lambda env_context: gymnasium.make(env, **env_context), config, env)
    if callable(env):
        return _bind(env, config, getattr(env, "__name__", "env"))
    raise TypeError(f"env must be a gymnasium id string or a callable returning an env, "
                    f"not {type(env).__name__}")


def is_multi_agent(env: object) -> bool:
    """Whether ``env`` follows the ``MultiAgentEnv`` dict interface.

    Raises
    ------
    TypeError
        If ``env`` is neither a ``gymnasium.Env`` nor a ``MultiAgentEnv``.
    """
    import gymnasium

    if isinstance(env, MultiAgentEnv):
        return True
    if isinstance(env, gymnasium.Env):
        return False
    raise TypeError(f"the env creator returned a {type(env).__name__}; it must return a "
                    f"gymnasium.Env or an rlviz.rollout.MultiAgentEnv")


# -- helpers ------------------------------------------------------------------
def _bind(fn: Callable[[EnvContext], Any], config: dict, name: str) -> Callable[..., Any]:
    def creator(env_context: Mapping[str, Any] | None = None) -> Any:
        return fn(EnvContext(config) if env_context is None else env_context)

    creator.__qualname__ = f"env_creator[{name}]"
    return creator
