"""Instance 1.1 told to an acorn reader (1.0): the new fields dropped,
states it cannot hold mapped to the nearest it has."""

import pytest

from nova_lite import objects
from nova_lite.objects import fields


def _instance(vm_state, task_state):
    flavor = objects.Flavor(flavorid='1', name='tiny', memory_mb=64,
                            vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                            extra_specs={})
    return objects.Instance(
        uuid='0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b', project_id='p',
        user_id='u', flavor=flavor, vm_state=vm_state,
        task_state=task_state, locked=True, locked_by='owner',
        description='d', old_flavor=flavor, shelved_host='h')


@pytest.mark.parametrize('vm_state,task_state,old_vm,old_task', [
    ('paused', 'unpausing', 'active', None),
    ('suspended', None, 'active', None),
    ('shelved_offloaded', 'unshelving', 'stopped', None),
    ('resized', 'resize_reverting', 'active', None),
    ('active', 'rebooting', 'active', None),
    ('stopped', 'deleting', 'stopped', 'deleting'),
    ('building', 'spawning', 'building', 'spawning'),
])
def test_backport_to_1_0(vm_state, task_state, old_vm, old_task):
    primitive = _instance(vm_state, task_state).obj_to_primitive(
        target_version='1.0')
    data = primitive['nova_lite_object.data']
    assert (data['vm_state'], data.get('task_state')) == (old_vm, old_task)
    assert not {'locked', 'locked_by', 'description', 'old_flavor',
                'shelved_host'} & set(data)
    assert old_vm in fields.VMState.ACORN
    assert old_task in (None,) + fields.TaskState.ACORN


def test_backport_to_1_1_drops_trusted_certs():
    instance = _instance('active', None)
    instance.trusted_certs = ['cert-1']
    data = instance.obj_to_primitive(target_version='1.1')[
        'nova_lite_object.data']
    assert 'trusted_certs' not in data
    assert data['locked'] is True
    data = instance.obj_to_primitive()['nova_lite_object.data']
    assert data['trusted_certs'] == ['cert-1']


def test_backport_to_1_2_drops_user_data():
    instance = _instance('active', None)
    instance.trusted_certs = ['cert-1']
    instance.user_data = 'aGVsbG8='
    data = instance.obj_to_primitive(target_version='1.2')[
        'nova_lite_object.data']
    assert 'user_data' not in data
    assert data['trusted_certs'] == ['cert-1']
    data = instance.obj_to_primitive()['nova_lite_object.data']
    assert data['user_data'] == 'aGVsbG8='
