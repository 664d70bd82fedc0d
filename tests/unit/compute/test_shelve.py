"""compute/shelve.py: the task states of a snapshot, a backup (and its
rotation) and a shelve, the offload (now, on request, after
shelved_offload_time), both unshelves and what each failure leaves. No
database: saves, images, faults and events are fakes; the driver is a
mock."""

import datetime
from unittest import mock

from oslo_utils import timeutils
import pytest

from nova_lite.compute import shelve
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action
from tests.unit.compute import fakes

V = fields.VMState
T = fields.TaskState
P = fields.PowerState
IMAGE = '0a4e7c36-0d39-4d4e-8f0b-0c9f5f3b2d11'
NODE_UUID = '6f0c7a52-1b0e-4f43-9f7a-2d3c4b5a6e70'


class Recorder:
    def __init__(self):
        self.saves, self.faults, self.events, self.images = [], [], [], []
        self.offloads = []


@pytest.fixture
def rec(monkeypatch):
    rec = Recorder()

    def save(self, expected_task_state=None, expected_vm_state=None):
        rec.saves.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()

    def save_offloaded(self, expected_task_state):
        rec.offloads.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()
        return [NODE_UUID]

    def set_status(cls, context, image_id, status, size=None):
        rec.images.append((image_id, status, size))

    def delete_by_id(cls, context, image_id):
        rec.images.append((image_id, 'deleted', None))

    def start(cls, context, instance_uuid, event, host=None):
        rec.events.append(('start', event))

    def finish(cls, context, instance_uuid, event, result=None,
               traceback=None, details=None):
        rec.events.append(('finish', event, result or 'Success'))
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.Instance, 'save_offloaded', save_offloaded)
    monkeypatch.setattr(objects.Image, 'set_status', classmethod(set_status))
    monkeypatch.setattr(objects.Image, 'delete_by_id',
                        classmethod(delete_by_id))
    monkeypatch.setattr(objects.InstanceFault, 'create',
                        lambda self: rec.faults.append(self.message))
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_start',
                        classmethod(start))
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_finish',
                        classmethod(finish))
    return rec


@pytest.fixture
def shelving(rec):
    driver = mock.Mock()
    driver.snapshot.return_value = 4096
    driver.get_node_uuid.return_value = NODE_UUID
    s = shelve.Shelving('host1', driver, mock.Mock(), mock.Mock(),
                        mock.Mock())
    s.scheduler = s._scheduler_api.return_value
    s.conductor = s._conductor_api.return_value

    def shelve_offloaded(context, instance):
        # The conductor's task decides what an offload writes; it is
        # sent the instance as the compute left it.
        rec.offloads.append((instance.obj_get_changes(), 'conductor'))
        saved = instance.obj_clone()
        saved.vm_state = V.SHELVED_OFFLOADED
        saved.host = saved.node = None
        saved.task_state = None
        saved.obj_reset_changes()
        return saved
    s.conductor.shelve_offloaded.side_effect = shelve_offloaded
    return s


def _instance(vm_state, task_state, host='host1', **kwargs):
    instance = fakes.instance(host=host, node=host and 'host1-n0',
                              vm_state=vm_state)
    instance.task_state = task_state
    instance.power_state = P.RUNNING
    instance.shelved_at = None
    instance.shelved_image_id = None
    instance.shelved_host = None
    for name, value in kwargs.items():
        setattr(instance, name, value)
    instance.obj_reset_changes(recursive=True)
    return instance


def _task_walk(rec):
    return [(changes.get('task_state'), expected)
            for changes, expected in rec.saves if 'task_state' in changes]


def test_snapshot_walks_nova_s_task_states_and_activates_the_image(
        rec, shelving):
    instance = _instance(V.ACTIVE, T.IMAGE_SNAPSHOT)
    assert shelving.snapshot_instance(None, instance, IMAGE)
    assert _task_walk(rec) == [
        (T.IMAGE_PENDING_UPLOAD, [T.IMAGE_SNAPSHOT]),
        (T.IMAGE_UPLOADING, [T.IMAGE_PENDING_UPLOAD]),
        (None, [T.IMAGE_UPLOADING])]
    assert rec.images == [(IMAGE, 'saving', None), (IMAGE, 'active', 4096)]
    assert instance.vm_state == V.ACTIVE
    assert rec.events[-1] == ('finish', 'compute_snapshot_instance',
                              'Success')


def test_a_failed_snapshot_deletes_the_image_and_clears_the_task(
        rec, shelving):
    shelving.driver.snapshot.side_effect = exception.InstanceOperationFailed(
        operation='snapshot', instance_uuid='x', reason='injected')
    instance = _instance(V.ACTIVE, T.IMAGE_SNAPSHOT)
    assert not shelving.snapshot_instance(None, instance, IMAGE)
    assert rec.images[-1] == (IMAGE, 'deleted', None)
    assert rec.saves[-1] == ({'task_state': None}, [T.IMAGE_UPLOADING])
    assert instance.vm_state == V.ACTIVE
    assert rec.faults and 'injected' in rec.faults[0]
    assert rec.events[-1] == ('finish', 'compute_snapshot_instance',
                              'Error')


def test_shelve_without_offload_leaves_it_shelved_on_its_host(
        rec, shelving, conf):
    conf.config(shelved_offload_time=-1)
    instance = _instance(V.ACTIVE, T.SHELVING)
    assert shelving.shelve_instance(None, instance, IMAGE)
    shelving.driver.power_off.assert_called_once()
    assert [t for t, _e in _task_walk(rec)] == [
        T.SHELVING_IMAGE_PENDING_UPLOAD, T.SHELVING_IMAGE_UPLOADING, None]
    final = rec.saves[-1][0]
    assert final['vm_state'] == V.SHELVED
    assert final['power_state'] == P.SHUTDOWN
    assert final['shelved_image_id'] == IMAGE
    assert final['shelved_host'] == 'host1'
    assert final['shelved_at'] is not None
    assert rec.offloads == [] and instance.host == 'host1'


def test_shelve_with_offload_time_0_offloads_at_once(rec, shelving, conf):
    conf.config(shelved_offload_time=0)
    instance = _instance(V.ACTIVE, T.SHELVING)
    assert shelving.shelve_instance(None, instance, IMAGE)
    assert rec.saves[-1][0]['task_state'] == T.SHELVING_OFFLOADING
    # The conductor records the offload (its task decides what that
    # writes and frees): the compute sends it nothing changed.
    assert rec.offloads == [({}, 'conductor')]
    shelving.driver.shelve_offload.assert_called_once()
    [((saved,), _kw)] = shelving.rt.free_instance.call_args_list
    assert (saved.uuid, saved.vm_state, saved.host) == (
        instance.uuid, V.SHELVED_OFFLOADED, None)
    # The offload's allocation write tells the schedulers, in the
    # conductor (placement.changes).
    shelving.scheduler.update_provider_states.assert_not_called()


def test_a_conductor_pinned_below_1_9_gets_the_remotable_save(rec,
                                                              shelving):
    # Older conductors save what they are sent (the wire entry of older
    # computes); a newer one runs its offload task from it.
    shelving.conductor.can_send_shelve_offloaded.return_value = False
    instance = _instance(V.SHELVED, T.SHELVING_OFFLOADING)
    assert shelving.shelve_offload_instance(None, instance)
    shelving.conductor.shelve_offloaded.assert_not_called()
    [(changes, expected)] = rec.offloads
    assert expected == [T.SHELVING_OFFLOADING]
    assert changes['vm_state'] == V.SHELVED_OFFLOADED
    assert changes['host'] is None and changes['node'] is None
    assert changes['task_state'] is None
    shelving.rt.free_instance.assert_called_once_with(instance)


@pytest.mark.parametrize('gone', [
    exception.InstanceNotFound(instance_id='x'),
    exception.UnexpectedTaskStateError(instance_uuid='x', expected='y',
                                       actual='deleting')])
def test_an_offload_of_a_server_that_moved_on_frees_nothing_here(
        rec, shelving, gone):
    shelving.conductor.shelve_offloaded.side_effect = gone
    instance = _instance(V.SHELVED, T.SHELVING_OFFLOADING)
    assert not shelving.shelve_offload_instance(None, instance)
    shelving.rt.free_instance.assert_not_called()
    assert rec.events[-1][:2] == ('finish',
                                  'compute_shelve_offload_instance')


def test_a_failed_offload_stays_shelved_on_its_host(rec, shelving):
    shelving.driver.shelve_offload.side_effect = RuntimeError('stuck')
    instance = _instance(V.SHELVED, T.SHELVING_OFFLOADING)
    assert not shelving.shelve_offload_instance(None, instance)
    assert rec.offloads == []
    assert rec.saves[-1] == ({'task_state': None}, [T.SHELVING_OFFLOADING])
    assert instance.vm_state == V.SHELVED and instance.host == 'host1'
    shelving.rt.free_instance.assert_not_called()


def test_the_periodic_offload_takes_only_what_is_due(rec, shelving,
                                                     monkeypatch):
    now = timeutils.utcnow()
    old = _instance(V.SHELVED, None,
                    shelved_at=now - datetime.timedelta(seconds=100))
    new = _instance(V.SHELVED, None,
                    shelved_at=now - datetime.timedelta(seconds=5))
    busy = _instance(V.SHELVED, T.UNSHELVING,
                     shelved_at=now - datetime.timedelta(seconds=100))
    active = _instance(V.ACTIVE, None)
    monkeypatch.setattr(objects.InstanceList, 'get_by_host', classmethod(
        lambda cls, context, host: [old, new, busy, active]))
    assert shelving.offload_expired(None, 60) == [old.uuid]
    assert len(rec.offloads) == 1


def test_unshelve_of_a_shelved_server_powers_it_on(rec, shelving):
    instance = _instance(V.SHELVED, T.UNSHELVING, shelved_image_id=IMAGE,
                         shelved_host='host1')
    instance.power_state = P.SHUTDOWN
    assert shelving.unshelve_instance(None, instance)
    shelving.driver.power_on.assert_called_once()
    final = rec.saves[-1][0]
    assert final['vm_state'] == V.ACTIVE and final['task_state'] is None
    assert final['shelved_image_id'] is None
    assert rec.images == [(IMAGE, 'deleted', None)]


def test_unshelve_of_an_offloaded_server_spawns_from_the_snapshot(
        rec, shelving):
    instance = _instance(V.SHELVED_OFFLOADED, T.UNSHELVING, host=None,
                         shelved_image_id=IMAGE)
    spec = mock.Mock()
    hosts = [fakes.selection('host1', 'host1-n0')]
    assert shelving.unshelve_instance(None, instance, node='host1-n0',
                                      request_spec=spec, host_list=hosts)
    shelving.rt.instance_claim.assert_called_once_with(None, instance,
                                                       'host1-n0')
    shelving.driver.unshelve.assert_called_once_with(
        None, instance, spec.image, 'host1-n0')
    assert instance.host == 'host1' and instance.node == 'host1-n0'
    assert instance.vm_state == V.ACTIVE
    assert rec.images == [(IMAGE, 'deleted', None)]
    shelving.conductor.unshelve_instance.assert_not_called()


def test_a_failed_unshelve_spawn_goes_back_with_the_alternates(rec,
                                                               shelving):
    shelving.driver.unshelve.side_effect = exception.InstanceDeployFailure(
        instance_uuid='x', reason='injected')
    instance = _instance(V.SHELVED_OFFLOADED, T.UNSHELVING, host=None,
                         shelved_image_id=IMAGE)
    hosts = [fakes.selection('host1', 'host1-n0'),
             fakes.selection('host2', 'host2-n0')]
    spec = mock.Mock()
    assert not shelving.unshelve_instance(None, instance, node='host1-n0',
                                          request_spec=spec,
                                          host_list=hosts)
    shelving.rt.instance_claim.return_value.abort.assert_called_once()
    shelving.driver.destroy.assert_called_once()
    assert instance.host is None and instance.node is None
    assert instance.vm_state == V.SHELVED_OFFLOADED
    shelving.conductor.unshelve_instance.assert_called_once_with(
        None, instance, request_spec=spec, host_list=hosts[1:])
    assert rec.images == []   # the snapshot is still needed
    assert rec.events[-1] == ('finish', 'compute_unshelve_instance',
                              'Error')


def test_a_failed_unshelve_claim_goes_back_too(rec, shelving):
    shelving.rt.instance_claim.side_effect = (
        exception.ComputeResourcesUnavailable(reason='full'))
    instance = _instance(V.SHELVED_OFFLOADED, T.UNSHELVING, host=None,
                         shelved_image_id=IMAGE)
    assert not shelving.unshelve_instance(
        None, instance, node='host1-n0', request_spec=None,
        host_list=[fakes.selection('host1', 'host1-n0')])
    shelving.driver.unshelve.assert_not_called()
    shelving.conductor.unshelve_instance.assert_called_once_with(
        None, instance, request_spec=None, host_list=[])


def test_the_manager_routes_shelving_and_polls_only_when_positive(conf):
    from nova_lite.compute import manager as compute_manager
    mgr = compute_manager.ComputeManager.__new__(
        compute_manager.ComputeManager)
    mgr._instance_locks = compute_manager._InstanceLocks()
    mgr.shelving = mock.Mock()
    instance = _instance(V.ACTIVE, T.SHELVING)
    mgr.shelve_instance(None, instance, IMAGE)
    mgr.shelving.shelve_instance.assert_called_once_with(
        None, instance, image_id=IMAGE, clean_shutdown=True)
    conf.config(shelved_offload_time=0)
    mgr._poll_shelved_instances(None)
    mgr.shelving.offload_expired.assert_not_called()
    conf.config(shelved_offload_time=30, shelved_poll_interval=10)
    mgr._poll_shelved_instances(None)
    mgr.shelving.offload_expired.assert_called_once_with(None, 30)


# -- createBackup (RPC 1.8) --------------------------------------------

class _Rotations(list):
    """The rotations asked for; ``result`` is what the next returns (or
    raises)."""
    result = ['old-1']


@pytest.fixture
def rotations(monkeypatch):
    calls = _Rotations()

    def rotate(cls, context, instance_uuid, backup_type, rotation):
        calls.append((instance_uuid, backup_type, rotation))
        if isinstance(calls.result, Exception):
            raise calls.result
        return calls.result
    monkeypatch.setattr(objects.Image, 'rotate_backups',
                        classmethod(rotate))
    return calls


def test_backup_walks_novas_task_states_then_rotates(rec, shelving,
                                                     rotations):
    instance = _instance(V.ACTIVE, T.IMAGE_BACKUP)
    assert shelving.backup_instance(None, instance, IMAGE, 'daily', 2)
    assert _task_walk(rec) == [
        (T.IMAGE_PENDING_UPLOAD, [T.IMAGE_BACKUP]),
        (T.IMAGE_UPLOADING, [T.IMAGE_PENDING_UPLOAD]),
        (None, [T.IMAGE_UPLOADING])]
    assert rec.images == [(IMAGE, 'saving', None), (IMAGE, 'active', 4096)]
    assert rotations == [(instance.uuid, 'daily', 2)]
    assert rec.events[-1] == ('finish', 'compute_backup_instance',
                              'Success')


def test_a_failed_backup_deletes_its_image_and_does_not_rotate(
        rec, shelving, rotations):
    shelving.driver.snapshot.side_effect = exception.InstanceOperationFailed(
        operation='snapshot', instance_uuid='x', reason='injected')
    instance = _instance(V.STOPPED, T.IMAGE_BACKUP)
    assert not shelving.backup_instance(None, instance, IMAGE, 'daily', 0)
    assert rec.images[-1] == (IMAGE, 'deleted', None)
    assert rec.saves[-1] == ({'task_state': None}, [T.IMAGE_UPLOADING])
    assert instance.vm_state == V.STOPPED
    assert rotations == []
    assert rec.events[-1] == ('finish', 'compute_backup_instance', 'Error')


def test_a_failed_rotation_keeps_the_backup(rec, shelving, rotations):
    rotations.result = exception.ImageServiceUnavailable(reason='down')
    instance = _instance(V.ACTIVE, T.IMAGE_BACKUP)
    assert shelving.backup_instance(None, instance, IMAGE, 'weekly', 1)
    assert (IMAGE, 'deleted', None) not in rec.images
    assert rec.faults == []
    assert rec.events[-1] == ('finish', 'compute_backup_instance',
                              'Success')
