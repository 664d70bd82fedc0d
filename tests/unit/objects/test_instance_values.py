"""The row values a new Instance is written from."""

from oslo_serialization import jsonutils

from nova_lite import objects


def _flavor_in(values):
    return jsonutils.loads(values['flavor'])['nova_lite_object.data']


def test_a_new_instance_writes_its_flavor_once(monkeypatch):
    """Its flavor's JSON is made once, whether or not the flavor is among
    the instance's changes."""
    flavor = objects.Flavor(flavorid='1', name='f', vcpus=1, memory_mb=64,
                            root_gb=1, ephemeral_gb=0, extra_specs={})
    made = []
    to_primitive = objects.Flavor.obj_to_primitive

    def counted(self, *args, **kwargs):
        made.append(self)
        return to_primitive(self, *args, **kwargs)
    monkeypatch.setattr(objects.Flavor, 'obj_to_primitive', counted)
    instance = objects.Instance(uuid='00000000-0000-0000-0000-000000000001',
                                flavor=flavor)
    assert _flavor_in(instance._new_values())['name'] == 'f'
    assert len(made) == 1
    instance.obj_reset_changes(['flavor'])
    made.clear()
    assert _flavor_in(instance._new_values())['memory_mb'] == 64
    assert len(made) == 1
