"""The adapter to Ray's private attributes, against the installed Ray; and no other module reads them."""
import pathlib
import re

import pytest
import ray
from ray.actor import ActorHandle

import rlviz
from rlviz.iter.ray_compat import PRIVATE_ATTRIBUTES, actor_class_name, actor_id

pytestmark = pytest.mark.usefixtures("ray_local")


@ray.remote(num_cpus=0)
class Probe:
    """Says its own id through Ray's public API."""

    def own_id(self):
        return ray.get_runtime_context().get_actor_id()


def test_the_installed_ray_has_every_private_attribute_the_adapter_reads():
    handle = Probe.remote()
    missing = [name for name in PRIVATE_ATTRIBUTES if not hasattr(handle, name)]
    assert not missing, f"ActorHandle of Ray {ray.__version__} lacks {missing}: update rlviz/iter/ray_compat.py"
    assert all(isinstance(getattr(ActorHandle, name, None), property) or name in vars(handle)
               for name in PRIVATE_ATTRIBUTES)


def test_actor_id_is_what_the_actor_says_and_the_same_from_every_handle():
    handle = Probe.options(name="rlviz-compat-probe").remote()
    assert actor_id(handle) == ray.get(handle.own_id.remote())
    assert actor_id(ray.get_actor("rlviz-compat-probe")) == actor_id(handle)
    assert actor_id(Probe.remote()) != actor_id(handle)
    ray.kill(handle)


def test_actor_class_name_is_the_class_the_actor_was_made_from():
    assert actor_class_name(Probe.remote()) == "Probe"


def test_no_other_module_reads_the_private_attributes():
    package = pathlib.Path(rlviz.__file__).parent
    pattern = re.compile(r"\.(" + "|".join(map(re.escape, PRIVATE_ATTRIBUTES)) + r")\b")
    readers = sorted(str(path.relative_to(package)) for path in package.rglob("*.py")
                     if path.name != "ray_compat.py" and pattern.search(path.read_text()))
    assert readers == [], f"read Ray's private attributes outside rlviz/iter/ray_compat.py: {readers}"
