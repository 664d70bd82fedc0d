"""obj_what_changed: the same answer as oslo.versionedobjects', looking
for changed sub-objects only in the fields that can hold one."""

import functools

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


# obj_reset_changes: the same marks left as oslo.versionedobjects' reset,
# at every level, while looking only into object and list fields.

def _changed_everywhere(obj):
    """The changed-field marks of ``obj`` and of every object under it."""
    marks = {'': set(obj._changed_fields)}
    for name in obj.fields:
        value = getattr(obj, '_obj_' + name, None)
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            if isinstance(item, ovo_base.VersionedObject):
                for path, changed in _changed_everywhere(item).items():
                    marks['%s[%d].%s' % (name, index, path)] = changed
    return marks


def _all_changed():
    spec = _spec()
    spec.flavor.memory_mb = 128
    spec.image.name = 'other'
    spec.num_instances = 3
    spec.retry = None
    inst = objects.Instance(uuid=UUID, flavor=objects.Flavor(name='x'),
                            host='h')
    holder = objects.InstanceList(objects=[inst])
    return [spec, inst, holder, _Loose(anything=objects.Flavor(name='z'),
                                       name='n')]


def _both(reset):
    ours, theirs = _all_changed(), _all_changed()
    for obj in ours:
        reset(obj, obj.obj_reset_changes)
    for obj in theirs:
        reset(obj, functools.partial(
            ovo_base.VersionedObject.obj_reset_changes, obj))
    return ([_changed_everywhere(obj) for obj in ours],
            [_changed_everywhere(obj) for obj in theirs])


def test_a_recursive_reset_leaves_what_oslos_leaves():
    ours, theirs = _both(lambda obj, reset: reset(recursive=True))
    assert ours == theirs
    assert all(not marks for tree in ours[:3] for marks in tree.values())
    # Neither looks into a field of no fixed type (it is no ObjectField).
    assert ours[3]['anything[0].'] == {'name'}


def test_a_recursive_reset_of_some_fields_leaves_what_oslos_leaves():
    ours, theirs = _both(
        lambda obj, reset: reset(fields=['flavor', 'objects', 'host'],
                                 recursive=True))
    assert ours == theirs
    # The spec's fields not named stay changed, and so does its image's
    # change; its flavor's is gone.
    assert ours[0][''] == {'num_instances', 'retry'}
    assert ours[0]['flavor[0].'] == set()
    assert ours[0]['image[0].'] == {'name'}


def test_a_plain_reset_leaves_what_oslos_leaves():
    ours, theirs = _both(lambda obj, reset: reset())
    assert ours == theirs
    assert ours[0]['flavor[0].'] == {'memory_mb'}


def test_obj_set_values_holds_the_set_fields_only():
    inst = objects.Instance(uuid=UUID, host=None)
    assert inst.obj_set_values() == {'uuid': UUID, 'host': None}
