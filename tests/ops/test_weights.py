"""calculate_rr_weights names a misspelt or missing key instead of quietly returning [1, 1] or a bare KeyError."""
import pytest

from rlviz.ops.weights import calculate_rr_weights, calculate_rr_weights_float, native_ratio

BASE = {"train_batch_size": 32, "rollout_fragment_length": 4, "num_workers": 2}


@pytest.mark.parametrize("config, match", [
    ({**BASE, "training_intesity": 24}, r"config key 'training_intesity' .* did you mean training_intensity\?"),
    ({**BASE, "training_intensity": 4, "rollout_fragment_lenght": 4},
     r"did you mean rollout_fragment_length\?"),
    ({"training_intensity": 4, "train_batch_size": 32},
     r"config lacks rollout_fragment_length, .* add e\.g\. 'rollout_fragment_length': 4"),
    ({"training_intensity": 4}, r"config lacks train_batch_size and rollout_fragment_length"),
])
def test_mistakes_are_named_at_the_call(config, match):
    with pytest.raises(ValueError, match=match):
        calculate_rr_weights(config)
    with pytest.raises(ValueError, match=match):
        calculate_rr_weights_float(config)


def test_a_whole_trainer_config_is_fine():
    config = {**BASE, "training_intensity": 16, "lr": 1e-3, "num_cpus_per_worker": 1, "learning_starts": 100}
    assert calculate_rr_weights(config) == [1, 4]
    assert calculate_rr_weights({"training_intensity": None}) == [1, 1]
    assert native_ratio(BASE) == 4.0
    with pytest.raises(TypeError, match="config must be a mapping"):
        calculate_rr_weights([("training_intensity", 4)])
