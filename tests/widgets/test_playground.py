"""The round-robin playground: exact interleavings for given weights, driven through its widgets."""
import pytest

from rlviz.widgets.playground import RoundRobinPlayground
from rlviz.widgets.roundrobin import run_round_robin


@pytest.mark.parametrize("weights, items, pattern", [
    ([1, 1], 6, "S T S T S T"),
    ([2, 1], 9, "S S T S S T S S T"),
    ([1, 3], 8, "S T T T S T T T"),
    ([1, 1, 1], 6, "S T U S T U"),
    ([2, 1, 1], 8, "S S T U S S T U"),
])
def test_weights_give_exact_order(weights, items, pattern):
    run = run_round_robin(weights, items=items)
    assert run.pattern == pattern
    assert len(run.output) == items


def test_learning_starts_delays_train_and_output_indexes_drop_store():
    run = run_round_robin([1, 2], output_indexes=[1], items=4, learning_starts=3)
    assert run.pattern == "S S S T T S T T"
    assert run.output == ["T0", "T1", "T2", "T3"]
    assert run.counts == {"store": 4, "train": 4}


def test_star_drains_what_is_ready():
    run = run_round_robin([1, "*"], items=6, learning_starts=2)
    assert run.pattern == "S S T T T T"        # store paces; train takes everything once ready


def test_fractional_weight_is_seeded_and_leaves_random_alone():
    import random

    random.seed(123)
    before = random.random()
    random.seed(123)
    a = run_round_robin([1, 0.5], items=20, seed=4)
    assert random.random() == before
    assert a.pattern == run_round_robin([1, 0.5], items=20, seed=4).pattern
    assert 0 < a.counts["train"] < a.counts["store"]


def test_playground_reruns_when_widgets_change():
    pg = RoundRobinPlayground(weights=[2, 1], items=6)
    assert pg.pattern == "S S T S S T" and pg.error is None
    first = bytes(pg.picture.value)
    pg.weight_boxes[1].value = "2"
    assert pg.weights == [2, 2] and pg.pattern == "S S T T S S"
    assert bytes(pg.picture.value) != first
    assert pg._rows[2].layout.display == "none"                  # the update op is not in use
    pg.ops_toggle.value = 3
    assert pg._rows[2].layout.display is None
    assert pg.weights == [2, 2, 1] and pg.order[:5] == ["store", "store", "train", "train", "update"]
    pg.pass_boxes[0].value = False
    assert pg.output_indexes == [1, 2] and pg.run.output[:3] == ["T0", "T1", "U0"]
    assert "output_indexes=[1, 2]" in pg.status.value
    pg.items_slider.value = 3
    pg.learning_slider.value = 2
    assert pg.run.output == ["T0", "T1", "U0"] and pg.pattern == "S S T T U"   # 2 stores fill the buffer


def test_bad_widget_input_is_reported_not_raised():
    pg = RoundRobinPlayground(weights=[1, 1], items=4)
    pg.weight_boxes[0].value = "fast"
    assert pg.error.startswith("store weight must be a finite number, got 'fast'; hint: a number > 0")
    assert "cannot run" in pg.status.value and pg.pattern == "S T S T"      # the last good run stays
    pg.weight_boxes[0].value = "*"
    pg.weight_boxes[1].value = "*"
    assert 'not all "*"' in pg.error
    pg.weight_boxes[1].value = "1"
    pg.pass_boxes[0].value = pg.pass_boxes[1].value = False
    assert "no op is passed on" in pg.error
    pg.pass_boxes[1].value = True
    assert pg.error is None



def test_an_error_replaces_the_strip_and_a_good_run_brings_it_back():
    pg = RoundRobinPlayground(weights=[1, 1], items=4)
    assert pg.picture.layout.display is None and "image/png" in pg._repr_mimebundle_()[0]
    pg.weight_boxes[0].value = "fast"
    assert pg.picture.layout.display == "none", "the old strip stays under the new error"
    shown, _ = pg._repr_mimebundle_()
    assert "image/png" not in shown and "cannot run" in shown["text/plain"]
    pg.weight_boxes[0].value = "2"
    assert pg.error is None and pg.picture.layout.display is None and pg.pattern == "S S T S"


@pytest.mark.parametrize("intensity, rr, ray", [
    (8.0, [1, 1], [1, 1.0]),
    (2.0, [4, 1], [1, 0.25]),
    (32.0, [1, 4], [1, 4.0]),
    (12.0, [1, 2], [1, 1.5]),
])
def test_training_intensity_slider_shows_both_weight_rules(intensity, rr, ray):
    pg = RoundRobinPlayground(items=4)
    pg.intensity.value = intensity
    assert (pg.rr_weights, pg.ray_weights) == (rr, ray)
    assert f"<b>{rr}</b>" in pg.intensity_text.value


def test_use_button_copies_rounded_weights():
    pg = RoundRobinPlayground(weights=[1, 1, 1], items=10)
    pg.intensity.value = 2.0
    pg.use_button.click()
    assert pg.weights == [4, 1] and pg.pattern == "S S S S T S S S S T"


@pytest.mark.parametrize("kwargs, match", [
    ({"weights": [1]}, r"weights must have 2 or 3 entries .* got 1: \[1\]; hint: weights=\[1, 1\]"),
    ({"weights": [1, 1, 1, 1]}, "weights must have 2 or 3 entries"),
    ({"weights": [1, 0]}, r'weights\[1\] must be a finite number > 0 or "\*", got 0'),
    ({"weights": [1, float("inf")]}, r'weights\[1\] must be a finite number > 0 or "\*", got inf'),
    ({"weights": [1, float("nan")]}, r'weights\[1\] must be a finite number > 0 or "\*", got nan'),
    ({"weights": [1, "inf"]}, r"weights\[1\] must be a finite number, got 'inf'"),
    ({"weights": ["*", "*"]}, 'weights must be at least one number \\(not all "\\*"\\)'),
    ({"output_indexes": [2]}, r"output_indexes\[0\] must be an index in 0..1, got 2"),
    ({"output_indexes": [1, 1]}, r"output_indexes must be distinct indexes, got \[1, 1\]"),
    ({"items": -1}, "items must be an int >= 0"),
    ({"training_intensity": 0}, "training_intensity must be a finite number > 0, got 0"),
    ({"training_intensity": float("nan")}, "training_intensity must be a finite number > 0, got nan"),
    ({"sampling": {"num_workers": 2}}, "sampling lacks train_batch_size, rollout_fragment_length"),
])
def test_bad_input_fails_at_construction(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RoundRobinPlayground(**kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"weights": "21"}, "weights must be a list, got str '21'"),
    ({"weights": [1, True]}, r'weights\[1\] must be a finite number > 0 or "\*", got bool True'),
    ({"output_indexes": [0.5]}, r"output_indexes\[0\] must be an int, got float 0.5"),
    ({"items": 2.5}, "items must be an int, got float 2.5"),
])
def test_wrong_types_fail_at_construction_as_type_errors(kwargs, match):
    with pytest.raises(TypeError, match=match):
        RoundRobinPlayground(**kwargs)


@pytest.mark.parametrize("typed", ["inf", "-inf", "nan", "1e999"])
def test_non_finite_text_in_a_box_is_shown_in_the_widget(typed):
    pg = RoundRobinPlayground(weights=[1, 1], items=4)
    pg.weight_boxes[1].value = typed
    assert pg.error.startswith(f"train weight must be a finite number, got {typed!r}")
    assert "cannot run" in pg.status.value and pg.pattern == "S T S T"


def test_an_unexpected_failure_is_shown_in_the_widget_not_lost(monkeypatch):
    """An observer's exception only reaches the kernel log, so the widget would silently stop updating."""
    import rlviz.widgets.playground as playground

    pg = RoundRobinPlayground(weights=[1, 1], items=4)

    def broken(*args, **kwargs):
        raise RuntimeError("the recorder could not reach a shard")

    monkeypatch.setattr(playground, "run_round_robin", broken)
    pg.weight_boxes[0].value = "2"
    assert pg.error == "RuntimeError: the recorder could not reach a shard"
    assert "RuntimeError: the recorder could not reach a shard" in pg.status.value


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@pytest.mark.parametrize("weights", [[2, 1, "*"], [1, 2]])
def test_strip_is_shown_at_half_its_pixels_and_never_stretched(weights):
    """Two image pixels per CSS pixel (sharp on a high-density screen), the width fixed, the height following it.

    An image of auto width in the widget's flex column is widened to the
    column and keeps its height: stretched.  A picture drawn at 80 dpi and
    shown at its pixel size is blurred by a 2x screen.
    """
    from rlviz.widgets.playground import PIXEL_RATIO

    pg = RoundRobinPlayground(weights=weights)
    width, height = _png_size(bytes(pg.picture.value))
    assert PIXEL_RATIO == 2 and width == 2 * int(pg.picture.width) and height % 2 == 0
    assert pg.picture.height == "" and pg.picture.layout.height == "auto"
    assert pg.picture.layout.align_self == "flex-start"
    data, metadata = pg._repr_mimebundle_()
    assert metadata["image/png"] == {"width": int(pg.picture.width)}   # static views show it at that size too


def test_star_weights_are_explained_under_the_strip(monkeypatch):
    import rlviz.widgets.playground as playground
    from rlviz.widgets.playground import star_caption, strip_png

    run = run_round_robin([2, 1, "*"])
    caption = star_caption(run)
    assert caption.splitlines() == [
        'weight "*" (update): in its turn the op gives every item it has ready, at most 100, '
        "then passes the turn on (it never waits)",
        "update is always ready, so each of its turns gives 100 items (this run stopped after 24)"]
    assert star_caption(run_round_robin([2, 1])) == ""
    assert star_caption(run_round_robin([1, "*"])).splitlines()[0].startswith('weight "*" (train):')
    _, (_, tall) = strip_png(run)
    monkeypatch.setattr(playground, "star_caption", lambda run: "")
    _, (_, short) = strip_png(run)
    assert tall > short + 20                    # the caption's two lines are in the picture
