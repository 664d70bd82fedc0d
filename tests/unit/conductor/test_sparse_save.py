"""Instance.save through the conductor carries the uuid and the changed
fields only (conductor RPC 1.5), and leaves the caller's copy whole."""

import datetime
from unittest import mock

import oslo_messaging as messaging
import pytest

from nova_lite.conductor import manager
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base

UUID = '3b0e8f0a-1d5e-4a4c-9d53-0c9f1a2b3c4d'
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5)


def _instance():
    flavor = objects.Flavor(flavorid='1', name='tiny', memory_mb=64,
                            vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                            extra_specs={'hw:cpu_policy': 'shared'})
    inst = objects.Instance(
        uuid=UUID, project_id='p', user_id='u', display_name='vm',
        flavor=flavor, vcpus=1, memory_mb=64, root_gb=1, ephemeral_gb=0,
        vm_state='building', task_state='scheduling', host=None, node=None,
        metadata={'k': 'v'})
    inst.obj_reset_changes(recursive=True)
    return inst


def test_the_sparse_copy_holds_identity_and_changes():
    inst = _instance()
    inst.host, inst.task_state = 'c1', 'spawning'
    sparse = inst.obj_sparse_for('save')
    assert {n for n in sparse.fields if sparse.obj_attr_is_set(n)} == {
        'uuid', 'host', 'task_state'}
    assert sparse.obj_what_changed() == {'host', 'task_state'}
    # Other methods need the whole object; the original is untouched.
    assert inst.obj_sparse_for('destroy') is None
    assert inst.obj_what_changed() == {'host', 'task_state'}
    assert objects.Flavor().obj_sparse_for('save') is None


class _Conductor:
    """The indirection API as the compute's ConductorAPI uses it, with the
    bus replaced by a serializer round trip each way."""

    def __init__(self):
        self.serializer = base.NovaLiteObjectSerializer()
        self.sent = []

    def object_action(self, context, objinst, objmethod, args, kwargs):
        wire = self.serializer.serialize_entity(
            context, objinst.obj_sparse_for(objmethod))
        self.sent.append(wire)
        received = self.serializer.deserialize_entity(context, wire)
        # The conductor runs the method itself.
        base.NovaLiteObject.indirection_api = None
        try:
            return manager.ConductorManager.object_action(
                mock.sentinel.self, context, received, objmethod, args,
                kwargs)
        except messaging.ExpectedException as exc:
            raise exc.exc_info[1]   # as the client re-raises it
        finally:
            base.NovaLiteObject.indirection_api = self


@pytest.fixture
def conductor(monkeypatch):
    fake = _Conductor()
    monkeypatch.setattr(base.NovaLiteObject, 'indirection_api', fake)
    saved = []

    def save_in_db(context, uuid, values, expected_task_state,
                   expected_vm_state, noted=None):
        if expected_task_state == 'deleting':
            raise exception.UnexpectedTaskStateError(
                instance_uuid=uuid, expected=expected_task_state,
                actual='spawning')
        saved.append((uuid, values, expected_task_state))
        return WHEN
    monkeypatch.setattr(objects.Instance, '_save_in_db',
                        staticmethod(save_in_db))
    fake.saved = saved
    return fake


def test_a_save_sends_only_what_changed_and_keeps_the_rest(conductor):
    inst = _instance()
    inst._context = nl_context.get_admin_context()
    inst.host, inst.task_state = 'c1', 'spawning'
    inst.save(expected_task_state='scheduling')
    [wire] = conductor.sent
    assert set(wire['nova_lite_object.data']) == {'uuid', 'host',
                                                  'task_state'}
    assert set(wire['nova_lite_object.changes']) == {'host', 'task_state'}
    [(uuid, values, expected)] = conductor.saved
    assert (uuid, expected) == (UUID, 'scheduling')
    assert set(values) == {'host', 'task_state', 'updated_at'}
    # The caller's copy: saved, nothing left to save, nothing lost.
    assert inst.obj_what_changed() == set()
    assert inst.updated_at.replace(tzinfo=None) == WHEN
    assert (inst.host, inst.task_state) == ('c1', 'spawning')
    assert inst.flavor.extra_specs == {'hw:cpu_policy': 'shared'}
    assert (inst.display_name, inst.metadata) == ('vm', {'k': 'v'})


def test_a_refused_save_keeps_the_changes_for_a_retry(conductor):
    inst = _instance()
    inst._context = nl_context.get_admin_context()
    inst.vm_state = 'active'
    with pytest.raises(exception.UnexpectedTaskStateError):
        inst.save(expected_task_state='deleting')
    assert inst.obj_what_changed() == {'vm_state'}


def test_a_changed_flavor_travels_whole(conductor):
    inst = _instance()
    inst._context = nl_context.get_admin_context()
    inst.flavor.extra_specs = {'hw:cpu_policy': 'dedicated'}
    inst.save()
    [(_uuid, values, _expected)] = conductor.saved
    assert '"dedicated"' in values['flavor']
