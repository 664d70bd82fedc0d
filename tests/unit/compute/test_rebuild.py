"""compute/rebuild.py with the real fake driver: the task states of a
rebuild, where it ends (ACTIVE, SHUTOFF, ERROR), an evacuation's target
claiming, landing or handing back, and the clean-up of evacuated
instances at start. No database: saves, faults, events, the migration
and the conductor are fakes."""

from unittest import mock

import pytest

from nova_lite.compute import manager as compute_manager
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action
from tests.unit.compute import fakes

V = fields.VMState
T = fields.TaskState
P = fields.PowerState
EVENT = 'compute_rebuild_instance'


class Recorder:
    def __init__(self):
        self.saves, self.faults, self.events, self.migrations = [], [], [], []
        self.conductor = mock.Mock()


@pytest.fixture
def rec(monkeypatch):
    rec = Recorder()

    def save(self, expected_task_state=None, expected_vm_state=None):
        rec.saves.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.InstanceFault, 'create',
                        lambda self: rec.faults.append(self.message))
    monkeypatch.setattr(objects.Migration, 'save',
                        lambda self: rec.migrations.append(self.status))
    monkeypatch.setattr(
        instance_action.InstanceActionEvent, 'event_start',
        classmethod(lambda cls, c, u, e, host=None: rec.events.append(
            ('start', e))))
    monkeypatch.setattr(
        instance_action.InstanceActionEvent, 'event_finish',
        classmethod(lambda cls, c, u, e, **kw: rec.events.append(
            ('finish', e, kw.get('result', 'Success')))))
    return rec


@pytest.fixture
def manager(rec, conf):
    manager = compute_manager.ComputeManager('host1')
    manager.driver.init_host('host1')
    manager._conductor_api = rec.conductor
    manager.rt._resources = {'host1-n0': {}}
    return manager


def _running(manager, vm_state=V.ACTIVE):
    instance = fakes.instance(host='host1', node='host1-n0',
                              vm_state=vm_state, task_state=T.REBUILDING,
                              vcpus=1, memory_mb=512, root_gb=1)
    instance.image_ref = 'img'
    instance.obj_reset_changes()
    manager.driver.spawn(None, instance, None, 'host1-n0')
    return instance


def _task_states(rec):
    return [changes.get('task_state', '-') for changes, _ in rec.saves]


@pytest.mark.parametrize('start,end,power', [
    (V.ACTIVE, V.ACTIVE, P.RUNNING), (V.ERROR, V.ACTIVE, P.RUNNING),
    (V.STOPPED, V.STOPPED, P.SHUTDOWN)])
def test_rebuild_in_place_goes_through_nova_task_states(
        rec, manager, start, end, power):
    instance = _running(manager, start)
    assert manager.rebuild_instance(None, instance, 'img', 'old') is True
    assert _task_states(rec) == [T.REBUILD_BLOCK_DEVICE_MAPPING,
                                 T.REBUILD_SPAWNING, None]
    assert [expected for _c, expected in rec.saves] == [
        [T.REBUILDING], [T.REBUILD_BLOCK_DEVICE_MAPPING],
        [T.REBUILD_SPAWNING]]
    final = rec.saves[-1][0]
    assert (final['vm_state'], final['power_state']) == (end, power)
    assert manager.driver.get_info(instance) == power
    assert rec.events == [('start', EVENT), ('finish', EVENT, 'Success')]


def test_a_failed_rebuild_is_error_with_a_fault(rec, manager, conf):
    instance = _running(manager)
    conf.config(fail_operations=['rebuild:*'], group='fake_driver')
    manager.driver.init_host('host1')
    assert manager.rebuild_instance(None, instance, 'img', 'old') is False
    assert rec.saves[-1][0] == {'vm_state': V.ERROR, 'task_state': None}
    assert 'fault injection' in rec.faults[0]
    assert rec.events[-1] == ('finish', EVENT, 'Error')



def test_a_rebuild_whose_vm_is_missing_is_error_with_a_fault(rec, manager):
    """The hypervisor's missing VM is no deleted server: ERROR at once,
    not REBUILDING until the task timeout."""
    instance = _running(manager)
    manager.driver.destroy(None, instance)
    assert manager.rebuild_instance(None, instance, 'img', 'old') is False
    assert rec.saves[-1][0] == {'vm_state': V.ERROR, 'task_state': None}
    assert 'the hypervisor has no such VM' in rec.faults[0]

def _migration():
    return objects.Migration(uuid='0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b',
                             source_compute='gone', source_node='gone-n0',
                             dest_compute='host1', dest_node='host1-n0',
                             status='pre-migrating',
                             migration_type='evacuation')


def _evacuated(vm_state=V.ACTIVE):
    instance = fakes.instance(host='gone', node='gone-n0',
                              vm_state=vm_state, task_state=T.REBUILDING,
                              vcpus=1, memory_mb=512, root_gb=1)
    instance.image_ref = 'img'
    instance.obj_reset_changes()
    return instance


def test_an_evacuation_lands_here(rec, manager):
    instance, migration = _evacuated(), _migration()
    with mock.patch.object(manager.rt, 'instance_claim') as claim:
        assert manager.rebuild_instance(
            None, instance, 'img', 'img', recreate=True,
            migration=migration, node='host1-n0',
            host_list=[fakes.selection('host1', 'host1-n0')]) is True
    claim.assert_called_once_with(None, instance, 'host1-n0')
    final = rec.saves[-1][0]
    assert (final['host'], final['node'], final['vm_state']) == (
        'host1', 'host1-n0', V.ACTIVE)
    assert final['compute_node_uuid'] == manager.driver.get_node_uuid(
        'host1-n0')
    assert rec.migrations == ['done']
    assert manager.driver.get_info(instance) == P.RUNNING


def test_an_evacuation_asked_stopped_lands_stopped(rec, manager):
    instance = _evacuated()
    with mock.patch.object(manager.rt, 'instance_claim'):
        manager.rebuild_instance(None, instance, 'img', 'img',
                                 recreate=True, migration=_migration(),
                                 node='host1-n0', target_state=V.STOPPED)
    assert rec.saves[-1][0]['vm_state'] == V.STOPPED
    assert manager.driver.get_info(instance) == P.SHUTDOWN


@pytest.mark.parametrize('failing', ['claim', 'driver'])
def test_a_failed_target_hands_the_evacuation_back(rec, manager, conf,
                                                   failing):
    instance, migration = _evacuated(), _migration()
    host_list = [fakes.selection('host1', 'host1-n0'),
                 fakes.selection('alt', 'alt-n0')]
    claim = mock.Mock()
    if failing == 'driver':
        conf.config(fail_operations=['rebuild:*'], group='fake_driver')
        manager.driver.init_host('host1')
    with mock.patch.object(manager.rt, 'instance_claim') as make_claim:
        if failing == 'claim':
            make_claim.side_effect = exception.ComputeResourcesUnavailable(
                reason='full')
        else:
            make_claim.return_value = claim
        assert manager.rebuild_instance(
            None, instance, 'img', 'img', recreate=True,
            migration=migration, node='host1-n0',
            host_list=host_list) is False
    assert claim.abort.called is (failing == 'driver')
    assert rec.saves[-1] == ({'task_state': T.REBUILDING}, [
        T.REBUILDING, T.REBUILD_BLOCK_DEVICE_MAPPING, T.REBUILD_SPAWNING])
    call = rec.conductor.rebuild_instance.call_args
    assert call.kwargs['recreate'] is True
    assert call.kwargs['migration'] is migration
    assert [s.service_host for s in call.kwargs['host_list']] == ['alt']
    assert rec.migrations == [] and len(rec.faults) == 1
    with pytest.raises(exception.InstanceNotFound):
        manager.driver.get_info(instance)


def test_init_host_cleans_up_the_instances_evacuated_away(rec, manager,
                                                          monkeypatch):
    instance = _running(manager)
    done = objects.Migration(uuid='0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b',
                             instance_uuid=instance.uuid, status='done',
                             source_compute='host1')
    accepted = objects.Migration(uuid='1cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b',
                                 instance_uuid=instance.uuid,
                                 status='accepted', source_compute='host1')
    asked = []

    def get_by_filters(cls, context, filters, limit=None):
        asked.append(filters)
        return [done, accepted]
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters',
                        classmethod(get_by_filters))
    rec.conductor.complete_evacuation.return_value = True
    completed = manager.rebuilds.destroy_evacuated_instances(None)
    assert asked == [{'source_compute': 'host1',
                      'migration_type': 'evacuation',
                      'status': ['accepted', 'pre-migrating', 'done']}]
    assert completed == [done.uuid]
    rec.conductor.complete_evacuation.assert_called_once_with(None, done)
    assert instance.uuid not in manager.driver.list_instance_uuids()


def test_init_host_clean_up_never_raises(rec, manager, monkeypatch):
    def fail(cls, context, filters, limit=None):
        raise exception.NovaLiteException('conductor gone')
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters',
                        classmethod(fail))
    assert manager.rebuilds.destroy_evacuated_instances(None) == []
