"""Argument checks shared by every layer, so one mistake gets one error type and message wherever it is made.

Imports nothing else from rlviz.  ``TypeError`` for a wrong type, ``ValueError`` for a bad value;
each message names the parameter, the value received, what is allowed and a hint.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Set
from numbers import Integral, Real

__all__ = ["describe_value", "check_int", "check_number", "check_positive_number", "check_round_robin_weight",
           "check_round_robin_weights", "check_distinct_indexes", "parse_number"]


#: The longest repr an error message quotes; a longer one (a table, a whole object) is left out.
SHORT_REPR = 60


def describe_value(value: object) -> str:
    """A wrong argument as an error message names it: its type, and its repr when that is short and one line.

    A big object's repr (a diff's 12-line table, a trainer's config) would bury the message.

    Examples
    --------
    >>> describe_value(3.5), describe_value("x" * 100), describe_value({"a": [1]})
    ('float 3.5', 'str', "dict {'a': [1]}")
    """
    shown = repr(value)
    kind = type(value).__name__
    return f"{kind} {shown}" if len(shown) <= SHORT_REPR and "\n" not in shown else kind


def check_int(name: str, value: object, minimum: int | None = None, *, hint: str = "") -> int:
    """``value`` must be an int (not a bool) and, if given, ``>= minimum``.

    Parameters
    ----------
    name : str
        The parameter's name as the caller wrote it, used in the message.
    value : object
        What the caller passed.
    minimum : int, optional
        The smallest allowed value.
    hint : str
        A fix to suggest, appended to the message.

    Returns
    -------
    int
        ``value`` as a Python int (numpy integers are accepted).

    Raises
    ------
    TypeError
        If ``value`` is not an int, or is a bool.
    ValueError
        If ``value < minimum``.

    Examples
    --------
    >>> check_int("num_workers", 2, minimum=0)
    2
    >>> check_int("num_workers", True)
    Traceback (most recent call last):
    TypeError: num_workers must be an int, got bool True
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(_message(name, "an int", describe_value(value), hint))
    if minimum is not None and value < minimum:
        raise ValueError(_message(name, f"an int >= {minimum}", repr(value), hint))
    return int(value)


def check_number(name: str, value: object, *, minimum: float | None = None, above: float | None = None,
                 hint: str = "") -> float:
    """``value`` must be a finite real number (not a bool, NaN or infinity), ``>= minimum`` or ``> above``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the message.
    value : object
        What the caller passed.
    minimum, above : float, optional
        Inclusive and exclusive lower bounds.
    hint : str
        A fix to suggest, appended to the message.

    Returns
    -------
    int or float
        ``value`` unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not a real number, or is a bool.
    ValueError
        If ``value`` is NaN, infinite or below the bound.

    Examples
    --------
    >>> check_number("delay", 0.5, minimum=0)
    0.5
    >>> check_number("delay", float("nan"), minimum=0)
    Traceback (most recent call last):
    ValueError: delay must be a finite number >= 0, got nan
    """
    allowed = "a finite number" + (f" >= {minimum}" if minimum is not None else "") \
        + (f" > {above}" if above is not None else "")
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(_message(name, allowed, describe_value(value), hint))
    if not math.isfinite(value) or (minimum is not None and value < minimum) \
            or (above is not None and not value > above):
        raise ValueError(_message(name, allowed, repr(value), hint))
    return value


def check_positive_number(name: str, value: object, *, hint: str = "") -> float:
    """``value`` must be a finite number > 0 (see :func:`check_number`).

    Examples
    --------
    >>> check_positive_number("training_intensity", 2)
    2
    >>> check_positive_number("training_intensity", float("inf"))
    Traceback (most recent call last):
    ValueError: training_intensity must be a finite number > 0, got inf
    """
    return check_number(name, value, above=0, hint=hint)


def check_round_robin_weights(name: str, weights: object, count: int, *, what: str = "op") -> list:
    """Round-robin weights: one per ``what``, each a finite number > 0 or ``"*"``, not all ``"*"``.

    Any sequence of numbers is accepted (list, tuple, numpy array); numpy
    numbers come back as Python numbers.

    Parameters
    ----------
    name : str
        The parameter's name (``round_robin_weights``, ``weights``).
    weights : object
        What the caller passed.
    count : int
        How many weights are needed.
    what : str
        What each weight belongs to, for the messages (``"op"``, ``"iterator"``).

    Returns
    -------
    list
        The weights as a list.

    Raises
    ------
    TypeError
        If ``weights`` is not a sequence (a str, dict or set is not), or an entry is neither a number nor ``"*"``.
    ValueError
        If the length is wrong, an entry is not finite or not > 0, or all entries are ``"*"``.

    Examples
    --------
    >>> check_round_robin_weights("round_robin_weights", [1, "*"], 2)
    [1, '*']
    >>> check_round_robin_weights("round_robin_weights", [1, float("nan")], 2)
    Traceback (most recent call last):
    ValueError: round_robin_weights[1] must be a finite number > 0 or "*", got nan; hint: ...
    """
    if isinstance(weights, (str, bytes, Mapping, Set)) or not isinstance(weights, Iterable) \
            or not hasattr(weights, "__len__"):
        raise TypeError(_message(name, f'a sequence (list, tuple, numpy array) with one number or "*" per {what}',
                                 describe_value(weights), f"{name}={[1] * count}"))
    weights = [weight.item() if hasattr(weight, "item") and not isinstance(weight, str) else weight
               for weight in weights]
    if len(weights) != count:
        fixed = [*weights[:count], *([1] * (count - len(weights)))]
        raise ValueError(_message(name, f"{count} entries, one per {what}", f"{len(weights)}: {weights!r}",
                                  f"give one weight per {what}, e.g. {name}={fixed!r}"))
    for index, weight in enumerate(weights):
        check_round_robin_weight(f"{name}[{index}]", weight, what=what)
    if all(isinstance(weight, str) for weight in weights):
        raise ValueError(_message(name, 'at least one number (not all "*")', repr(list(weights)),
                                  f"give the {what} that sets the pace a number, e.g. 1"))
    return weights


def check_round_robin_weight(name: str, weight: object, *, what: str = "op") -> float | str:
    """One round-robin weight: a finite number > 0, or ``"*"`` (pull whatever is ready without blocking).

    Raises
    ------
    TypeError
        If ``weight`` is neither a number nor ``"*"`` (a bool is not a number here).
    ValueError
        If ``weight`` is NaN, infinite or not > 0.

    Examples
    --------
    >>> check_round_robin_weight("w", "*"), check_round_robin_weight("w", 0.5)
    ('*', 0.5)
    """
    if isinstance(weight, str) and weight == "*":
        return weight
    allowed = 'a finite number > 0 or "*"'
    hint = f'"*" pulls whatever is ready without blocking; a number n pulls n items from its {what} per round'
    if isinstance(weight, bool) or not isinstance(weight, Real):
        raise TypeError(_message(name, allowed, describe_value(weight), hint))
    if not (math.isfinite(weight) and weight > 0):
        raise ValueError(_message(name, allowed, repr(weight), hint))
    return weight


def check_distinct_indexes(name: str, indexes: object, count: int) -> list[int]:
    """A non-empty list of distinct ints in ``0 .. count - 1``.

    Raises
    ------
    TypeError
        If ``indexes`` is not a list or tuple, or an entry is not an int.
    ValueError
        If it is empty, an entry is out of range, or an entry repeats.

    Examples
    --------
    >>> check_distinct_indexes("output_indexes", [1, 0], 2)
    [1, 0]
    >>> check_distinct_indexes("output_indexes", [1, 1], 2)
    Traceback (most recent call last):
    ValueError: output_indexes must be distinct indexes, got [1, 1]; hint: list each index once, e.g. [1]
    """
    if not isinstance(indexes, (list, tuple)):
        raise TypeError(_message(name, f"a list of indexes in 0..{count - 1}",
                                 describe_value(indexes), f"{name}=[0]"))
    if not indexes:
        raise ValueError(_message(name, "a non-empty list of indexes", "[]", f"{name}=[0], or None for all"))
    for position, index in enumerate(indexes):
        check_int(f"{name}[{position}]", index)
        if not 0 <= index < count:
            raise ValueError(_message(f"{name}[{position}]", f"an index in 0..{count - 1}", repr(index),
                                      f"there are {count} ops"))
    if len(set(indexes)) != len(indexes):
        unique = list(dict.fromkeys(indexes))
        raise ValueError(_message(name, "distinct indexes", repr(list(indexes)), f"list each index once, e.g. {unique}"))
    return [int(index) for index in indexes]


def parse_number(name: str, text: str, *, hint: str = "") -> float | int:
    """A finite number from text typed by a person (``" 2 "`` -> 2, ``"0.5"`` -> 0.5).

    Raises
    ------
    ValueError
        If ``text`` is not a number, or is NaN or infinite (``"inf"``, ``"nan"``).

    Examples
    --------
    >>> parse_number("weights[0]", " 2 "), parse_number("weights[0]", "0.5")
    (2, 0.5)
    """
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(_message(name, "a finite number", repr(text), hint)) from None
    if not math.isfinite(value):
        raise ValueError(_message(name, "a finite number", repr(text), hint))
    return int(value) if value.is_integer() else value


def _message(name: str, allowed: str, received: str, hint: str) -> str:
    return f"{name} must be {allowed}, got {received}" + (f"; hint: {hint}" if hint else "")
