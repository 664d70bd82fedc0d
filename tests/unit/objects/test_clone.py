"""obj_clone: a deep copy as oslo.versionedobjects makes it, without its
generic copy.deepcopy walk (the conductor clones the instance template
and the request spec of every boot)."""

import copy
import datetime

from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.objects import base

UUID = '3b0e8f0a-1d5e-4a4c-9d53-0c9f1a2b3c4d'
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5)


def _flavor():
    return objects.Flavor(flavorid='1', name='tiny', memory_mb=64, vcpus=1,
                          root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={'hw:cpu_policy': 'shared'})


def _instance():
    inst = objects.Instance(
        context=nl_context.get_admin_context(),
        uuid=UUID, project_id='p', user_id='u', display_name='vm',
        flavor=_flavor(), vcpus=1, memory_mb=64, root_gb=1, ephemeral_gb=0,
        vm_state='building', task_state='scheduling', host=None,
        metadata={'k': 'v'}, created_at=WHEN)
    inst.obj_reset_changes(['uuid', 'project_id'])
    return inst


def _spec():
    return objects.RequestSpec(
        project_id='p', user_id='u', num_instances=2, flavor=_flavor(),
        image=objects.ImageMeta(id=UUID, name='cirros', status='active',
                                min_ram=0, min_disk=0),
        scheduler_hints={'group': ['g']}, force_hosts=['h1'],
        retry=objects.SchedulerRetries(num_attempts=1,
                                       hosts=[['h1', 'n1']]))


def test_the_clone_equals_what_oslo_deepcopy_makes():
    for original in (_instance(), _spec()):
        clone = original.obj_clone()
        reference = copy.deepcopy(original)
        assert type(clone) is type(original)
        assert base.obj_to_primitive(clone) == base.obj_to_primitive(
            reference)
        assert clone.obj_what_changed() == reference.obj_what_changed()
        assert clone._context is original._context
        assert ({n for n in clone.fields if clone.obj_attr_is_set(n)} ==
                {n for n in original.fields if original.obj_attr_is_set(n)})


def test_the_clone_shares_nothing_mutable():
    inst = _instance()
    clone = inst.obj_clone()
    assert clone.flavor is not inst.flavor
    clone.metadata['k'] = 'changed'
    clone.flavor.extra_specs['new'] = 'x'
    clone.flavor.memory_mb = 128
    assert inst.metadata == {'k': 'v'}
    assert inst.flavor.extra_specs == {'hw:cpu_policy': 'shared'}
    assert inst.flavor.memory_mb == 64
    spec = _spec()
    copied = spec.obj_clone()
    copied.retry.num_attempts += 1
    copied.retry.hosts[0].append('x')
    copied.scheduler_hints['group'].append('h')
    assert spec.retry.num_attempts == 1
    assert spec.retry.hosts == [['h1', 'n1']]
    assert spec.scheduler_hints == {'group': ['g']}


def test_changed_fields_are_the_clones_own():
    inst = _instance()
    clone = inst.obj_clone()
    clone.obj_reset_changes(recursive=True)
    assert 'display_name' in inst.obj_what_changed()
    assert 'flavor' in inst.obj_what_changed()


def test_a_sub_object_shared_twice_stays_shared_in_the_clone():
    flavor = _flavor()
    spec = objects.RequestSpec(flavor=flavor)
    inst = objects.Instance(flavor=flavor)
    pair = objects.InstanceList(objects=[inst, inst])
    clone = pair.obj_clone()
    assert clone[0] is clone[1]
    assert clone[0] is not inst
    assert spec.obj_clone().flavor is not flavor


def test_the_clones_collections_still_coerce_for_the_clone():
    inst = _instance()
    clone = inst.obj_clone()
    assert type(clone.metadata) is type(inst.metadata)
    clone.metadata['n'] = 5
    assert clone.metadata['n'] == '5'
    assert clone.metadata._obj is clone
    assert inst.metadata._obj is inst
    hints = _spec().obj_clone().scheduler_hints
    hints['group'].append(7)
    assert hints['group'] == ['g', '7']
