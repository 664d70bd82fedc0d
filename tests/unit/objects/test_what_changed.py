"""obj_what_changed: the same answer as oslo.versionedobjects', looking
for changed sub-objects only in the fields that can hold one."""

from oslo_versionedobjects import base as ovo_base

from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import fields

UUID = '3b0e8f0a-1d5e-4a4c-9d53-0c9f1a2b3c4d'


def _oslo(obj):
    return ovo_base.VersionedObject.obj_what_changed(obj)


def _spec():
    spec = objects.RequestSpec(
        project_id='p', num_instances=1,
        flavor=objects.Flavor(flavorid='1', name='tiny', memory_mb=64,
                              vcpus=1, extra_specs={}),
        image=objects.ImageMeta(id=UUID, name='cirros', status='active'),
        retry=None)
    spec.obj_reset_changes(recursive=True)
    return spec


def test_nothing_changed():
    spec = _spec()
    assert spec.obj_what_changed() == set() == _oslo(spec)


def test_a_changed_sub_object_marks_its_field():
    spec = _spec()
    spec.flavor.memory_mb = 128
    assert spec.obj_what_changed() == {'flavor'} == _oslo(spec)
    spec.num_instances = 2
    assert spec.obj_what_changed() == {'flavor', 'num_instances'}


def test_a_change_two_levels_down_marks_the_top():
    inst = objects.Instance(uuid=UUID, flavor=objects.Flavor(name='x'))
    holder = objects.InstanceList(objects=[inst])
    inst.obj_reset_changes(recursive=True)
    holder.obj_reset_changes()
    inst.flavor.name = 'y'
    assert inst.obj_what_changed() == {'flavor'} == _oslo(inst)
    assert holder.obj_what_changed() == {'objects'}


def test_only_fields_that_can_hold_objects_are_looked_into():
    found = base._fields_holding_objects(objects.RequestSpec)
    assert {'flavor', 'image', 'instance_group', 'retry'} <= set(found)
    assert 'project_id' not in found and 'scheduler_hints' not in found


@base.NovaLiteObjectRegistry.register_if(False)
class _Loose(base.NovaLiteObject):
    fields = {'anything': fields.JSONField(nullable=True),
              'name': fields.StringField(nullable=True)}


def test_a_field_of_no_fixed_type_holding_an_object_is_looked_into():
    flavor = objects.Flavor(name='x')
    loose = _Loose(anything=flavor, name='n')
    loose.obj_reset_changes()
    flavor.obj_reset_changes()
    assert loose.obj_what_changed() == set()
    flavor.name = 'y'
    assert loose.obj_what_changed() == {'anything'} == _oslo(loose)
