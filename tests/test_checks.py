"""The shared argument checks: one mistake gets one error type and message wherever it is made."""
import math

import pytest

from rlviz.checks import (check_distinct_indexes, check_int, check_number, check_positive_number,
                          check_round_robin_weights, describe_value, parse_number)

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("value, error, match", [
    (True, TypeError, "n must be an int, got bool True"),
    (1.0, TypeError, "n must be an int, got float 1.0"),
    ("3", TypeError, "n must be an int, got str '3'"),
    (-1, ValueError, "n must be an int >= 0, got -1"),
])
def test_check_int_rejects(value, error, match):
    with pytest.raises(error, match=match):
        check_int("n", value, minimum=0)


def test_check_int_accepts_numpy_integers_as_python_ints():
    import numpy as np

    assert type(check_int("n", np.int64(3), minimum=0)) is int


@pytest.mark.parametrize("value, error, match", [
    (NAN, ValueError, "x must be a finite number >= 0, got nan"),
    (INF, ValueError, "x must be a finite number >= 0, got inf"),
    (-INF, ValueError, "x must be a finite number >= 0, got -inf"),
    (-0.5, ValueError, "x must be a finite number >= 0, got -0.5"),
    (False, TypeError, "x must be a finite number >= 0, got bool False"),
    ("1", TypeError, "x must be a finite number >= 0, got str '1'"),
])
def test_check_number_rejects_non_finite_and_out_of_range(value, error, match):
    with pytest.raises(error, match=match):
        check_number("x", value, minimum=0)


def test_check_positive_number_excludes_zero_and_keeps_the_hint():
    with pytest.raises(ValueError, match="x must be a finite number > 0, got 0; hint: try 1"):
        check_positive_number("x", 0, hint="try 1")
    assert check_positive_number("x", 1e-9) == 1e-9


@pytest.mark.parametrize("weights, error, match", [
    ([1, NAN], ValueError, r'w\[1\] must be a finite number > 0 or "\*", got nan'),
    ([1, INF], ValueError, r'w\[1\] must be a finite number > 0 or "\*", got inf'),
    ([1, -1], ValueError, r"w\[1\] .*got -1"),
    ([1, None], TypeError, r"w\[1\] .*got NoneType None"),
    (["*", "*"], ValueError, r'w must be at least one number \(not all "\*"\)'),
    ([1], ValueError, r"w must be 2 entries, one per op, got 1: \[1\]; hint: give one weight per op, e\.g\. w=\[1, 1\]"),
    ([2, 1, 1], ValueError, r"w must be 2 entries, .* e\.g\. w=\[2, 1\]"),
    ({1: 2, 3: 4}, TypeError, r"w must be a sequence .*; hint: w=\[1, 1\]"),
    ("**", TypeError, "w must be a sequence"),
])
def test_check_round_robin_weights_rejects(weights, error, match):
    with pytest.raises(error, match=match):
        check_round_robin_weights("w", weights, 2)


def test_check_round_robin_weights_takes_any_sequence_of_numbers():
    import numpy as np

    assert check_round_robin_weights("w", (2, "*"), 2) == [2, "*"]
    weights = check_round_robin_weights("w", np.array([2, 1, 3]), 3)
    assert weights == [2, 1, 3] and all(type(w) is int for w in weights)
    assert check_round_robin_weights("w", np.array([0.5, 1.0]), 2) == [0.5, 1.0]


def test_check_distinct_indexes():
    assert check_distinct_indexes("i", (2, 0), 3) == [2, 0]
    with pytest.raises(ValueError, match=r"i must be distinct indexes, got \[0, 0\]; hint: .* \[0\]"):
        check_distinct_indexes("i", [0, 0], 3)
    with pytest.raises(ValueError, match=r"i\[0\] must be an index in 0..2, got -1"):
        check_distinct_indexes("i", [-1], 3)


@pytest.mark.parametrize("text", ["inf", "nan", "-Infinity", "1e400", "two"])
def test_parse_number_rejects_non_finite_text(text):
    with pytest.raises(ValueError, match=f"v must be a finite number, got {text!r}"):
        parse_number("v", text)


def test_one_bad_weight_gets_one_message_in_every_layer():
    """Concurrently (ops), plot_order (viz) and the playground's runner (widgets) word [1, nan] alike."""
    from rlviz.iter import LocalIterator
    from rlviz.ops import Concurrently
    from rlviz.viz import plot_order
    from rlviz.viz.examples import concurrently_trace
    from rlviz.widgets.roundrobin import run_round_robin

    ops = [LocalIterator(lambda timeout: iter("aa"), name="a"), LocalIterator(lambda timeout: iter("bb"), name="b")]
    attempts = {
        "round_robin_weights": lambda: Concurrently(ops, round_robin_weights=[1, NAN]),
        "weights": lambda: run_round_robin([1, NAN]),
        "weights ": lambda: plot_order(concurrently_trace((1, 2)), ops=["store", "train"], weights=[1, NAN]),
    }
    messages = set()
    for name, attempt in attempts.items():
        with pytest.raises(ValueError) as caught:
            attempt()
        messages.add(str(caught.value).replace(name.strip(), "<name>", 1).split("; hint")[0])
    assert messages == {'<name>[1] must be a finite number > 0 or "*", got nan'}


@pytest.mark.parametrize("intensity", [NAN, INF, 0, -2])
def test_training_intensity_must_be_finite_and_positive(intensity):
    from rlviz.ops.weights import calculate_rr_weights

    config = {"train_batch_size": 32, "rollout_fragment_length": 4, "num_workers": 2,
              "training_intensity": intensity}
    with pytest.raises(ValueError, match=f"training_intensity must be a finite number > 0, got {intensity!r}"):
        calculate_rr_weights(config)


@pytest.mark.parametrize("intensity", [NAN, INF])
def test_trainer_rejects_non_finite_training_intensity_before_any_worker(intensity, monkeypatch):
    import rlviz.rollout
    from rlviz import Trainer

    def no_workers(*args, **kwargs):
        raise AssertionError("the Trainer built workers before checking its config")

    monkeypatch.setattr(rlviz.rollout, "WorkerSet", no_workers)
    with pytest.raises(ValueError, match=f"training_intensity must be a finite number > 0, got {intensity!r}"):
        Trainer("dqn", num_workers=0, config={"training_intensity": intensity})


@pytest.mark.parametrize("make", ["Trainer", "WorkerSet"])
def test_num_workers_true_is_the_same_type_error_everywhere(make):
    import rlviz
    from rlviz.rollout import RandomPolicy, WorkerSet

    build = {"Trainer": lambda: rlviz.Trainer("pg", num_workers=True),
             "WorkerSet": lambda: WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                                            num_workers=True)}[make]
    with pytest.raises(TypeError, match=r"^num_workers must be an int, got bool True$"):
        build()



def test_errors_name_a_big_value_by_its_type_alone():
    table = type("Table", (), {"__repr__": lambda self: "op  calls\nA   3\nB   4"})()
    assert describe_value(table) == "Table"
    assert describe_value(list(range(100))) == "list"
    assert describe_value([1, 2]) == "list [1, 2]"
    with pytest.raises(TypeError, match=r"n must be an int, got list$"):
        check_int("n", list(range(100)))
