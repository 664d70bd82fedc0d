"""A compute that restarts reconciles the builds its last run left.

Regression: a compute killed and restarted 5 s later left three servers
in ``spawning`` until the conductor's build timeout (600 s) ended them.
"""

import types
from unittest import mock

import pytest

from nova_lite.compute import manager as compute_manager
from nova_lite.compute import recovery
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.virt import fake
from tests.unit.compute import fakes

SPAWNING = fields.TaskState.SPAWNING


@pytest.fixture
def env(conf):
    conf.config(group='fake_driver', node_count=1)
    ns = types.SimpleNamespace(saves=[], save_errors={}, faults=[],
                               instances=[], conductor=mock.Mock(**{
                                   'settle_moves.return_value': []}),
                               ctxt=nl_context.get_admin_context())
    ns.driver = fake.FakeDriver()
    ns.driver.init_host('host1')

    def save(inst, expected_task_state=None, expected_vm_state=None):
        ns.saves.append((inst.uuid, expected_task_state,
                         inst.obj_get_changes()))
        error = ns.save_errors.get(inst.uuid)
        if error is not None:
            raise error
        inst.obj_reset_changes()

    with mock.patch.object(objects.Instance, 'save', autospec=True,
                           side_effect=save), \
            mock.patch.object(objects.InstanceFault, 'create',
                              autospec=True,
                              side_effect=ns.faults.append), \
            mock.patch.object(objects.InstanceList, 'get_by_host',
                              side_effect=lambda ctxt, host: ns.instances):
        yield ns


def _on_host(env, task_state=SPAWNING, vm_state=fields.VMState.BUILDING):
    inst = fakes.instance(host='host1', node='host1-n0',
                          task_state=task_state, vm_state=vm_state)
    env.instances.append(inst)
    return inst


def _with_vm(env, inst):
    env.driver.spawn(env.ctxt, inst, None, 'host1-n0')


def _reconcile(env):
    return recovery.reconcile_builds(env.ctxt, 'host1', env.driver,
                                     env.conductor)


def test_a_build_whose_vm_is_gone_ends_through_the_conductor(env):
    lost = _on_host(env)
    assert _reconcile(env) == {lost.uuid: 'handed back'}
    [fault] = env.faults
    assert 'restarted during the build' in fault.message
    assert 'host1' in fault.message
    [(uuid, expected, changes)] = env.saves
    assert expected == [SPAWNING, fields.TaskState.SCHEDULING]
    assert changes['host'] is None and changes['node'] is None
    assert changes['task_state'] == fields.TaskState.SCHEDULING
    # No alternates: the conductor puts it in ERROR and frees what it held.
    env.conductor.build_instances.assert_called_once_with(
        env.ctxt, [lost], None, host_lists=[[]])


def test_a_build_whose_vm_runs_is_saved_active(env):
    built = _on_host(env)
    _with_vm(env, built)
    assert _reconcile(env) == {built.uuid: 'finished'}
    [(uuid, expected, changes)] = env.saves
    assert expected == SPAWNING
    assert changes['vm_state'] == fields.VMState.ACTIVE
    assert changes['power_state'] == fields.PowerState.RUNNING
    assert changes['task_state'] is None
    assert env.driver.list_instance_uuids() == [built.uuid]
    env.conductor.build_instances.assert_not_called()


def test_a_vm_that_is_not_running_is_destroyed_and_handed_back(env):
    stopped = _on_host(env)
    _with_vm(env, stopped)
    with mock.patch.object(env.driver, 'get_info',
                           return_value=fields.PowerState.SHUTDOWN):
        assert _reconcile(env) == {stopped.uuid: 'handed back'}
    assert env.driver.list_instance_uuids() == []
    assert 'not running' in env.faults[0].message
    env.conductor.build_instances.assert_called_once()


def test_never_an_active_row_without_its_vm(env):
    """The VM runs but the row was deleted meanwhile: the VM goes, no
    ACTIVE save sticks, nothing is handed back."""
    orphan = _on_host(env)
    _with_vm(env, orphan)
    env.save_errors[orphan.uuid] = exception.InstanceNotFound(
        instance_id=orphan.uuid)
    assert _reconcile(env) == {orphan.uuid: 'deleted'}
    assert env.driver.list_instance_uuids() == []
    env.conductor.build_instances.assert_not_called()


def test_finished_and_unrelated_instances_are_left_alone(env):
    _on_host(env, task_state=None, vm_state=fields.VMState.ACTIVE)
    _on_host(env, task_state=None, vm_state=fields.VMState.ERROR)
    _on_host(env, task_state='deleting', vm_state=fields.VMState.ACTIVE)
    assert _reconcile(env) == {}
    assert env.saves == [] and env.faults == []


def test_one_failure_does_not_stop_the_others(env):
    first, second = _on_host(env), _on_host(env)
    env.conductor.build_instances.side_effect = [
        exception.NovaLiteException('bus blip'), None]
    assert _reconcile(env) == {second.uuid: 'handed back'}
    assert env.conductor.build_instances.call_count == 2
    assert first.uuid != second.uuid


def test_an_unreadable_instance_list_does_not_stop_the_start(env):
    with mock.patch.object(objects.InstanceList, 'get_by_host',
                           side_effect=exception.NovaLiteException('db')):
        assert _reconcile(env) == {}


def test_init_host_reconciles_before_it_reports(env):
    lost = _on_host(env)
    manager = compute_manager.ComputeManager(host='host1')
    manager._conductor_api = env.conductor
    with mock.patch.object(manager.rt, 'update_available_resource'):
        manager.init_host()
    env.conductor.build_instances.assert_called_once_with(
        mock.ANY, [lost], None, host_lists=[[]])
    manager.cleanup_host()


# VMs of instances deleted while the compute was away.

def _reap(env, known):
    """reap_deleted with ``known`` as what a read with deleted rows
    finds; returns (reaped, the filters it read with)."""
    seen = []

    def get_by_filters(ctxt, filters):
        seen.append((ctxt.read_deleted, filters))
        return [inst for inst in known if inst.uuid in filters['uuid']]

    with mock.patch.object(objects.InstanceList, 'get_by_filters',
                           side_effect=get_by_filters):
        return recovery.reap_deleted(env.ctxt, 'host1', env.driver), seen


def test_vms_of_deleted_or_unknown_instances_are_destroyed(env):
    live = _on_host(env, task_state=None, vm_state=fields.VMState.ACTIVE)
    _with_vm(env, live)
    deleted = fakes.instance(host='host1', node='host1-n0')
    _with_vm(env, deleted)
    deleted.deleted = True
    unknown = fakes.instance(host='host1', node='host1-n0')
    _with_vm(env, unknown)
    reaped, seen = _reap(env, [deleted])
    assert sorted(reaped) == sorted([deleted.uuid, unknown.uuid])
    assert env.driver.list_instance_uuids() == [live.uuid]
    assert seen == [('yes', {'uuid': sorted([deleted.uuid, unknown.uuid])})]


def test_a_vm_of_a_live_instance_of_another_host_is_kept(env):
    moving = fakes.instance(host='host2', node='host2-n0')
    moving.deleted = False
    _with_vm(env, moving)
    reaped, _ = _reap(env, [moving])
    assert reaped == []
    assert env.driver.list_instance_uuids() == [moving.uuid]


def test_nothing_is_read_when_every_vm_is_accounted_for(env):
    live = _on_host(env, task_state=None, vm_state=fields.VMState.ACTIVE)
    _with_vm(env, live)
    assert _reap(env, []) == ([], [])


# Server actions the last run did not finish.

def test_an_interrupted_stop_is_done_again_at_start(env):
    inst = _on_host(env, task_state=fields.TaskState.POWERING_OFF,
                    vm_state=fields.VMState.ACTIVE)
    _with_vm(env, inst)
    done = recovery.resume_actions(env.ctxt, 'host1', env.driver)
    assert done == {inst.uuid: 'stop_instance'}
    assert env.driver.get_info(inst) == fields.PowerState.SHUTDOWN
    (saved,) = env.saves
    assert saved[1] == [fields.TaskState.POWERING_OFF]
    assert saved[2]['vm_state'] == fields.VMState.STOPPED
    assert saved[2]['task_state'] is None


def test_an_interrupted_hard_reboot_is_done_again_hard(env):
    inst = _on_host(env, task_state=fields.TaskState.REBOOTING_HARD,
                    vm_state=fields.VMState.ACTIVE)
    _with_vm(env, inst)
    with mock.patch.object(env.driver, 'reboot') as reboot:
        recovery.resume_actions(env.ctxt, 'host1', env.driver)
    assert reboot.call_args[1] == {'reboot_type': 'HARD'}


def test_an_action_on_a_vm_that_is_gone_ends_with_a_fault(env):
    inst = _on_host(env, task_state=fields.TaskState.POWERING_ON,
                    vm_state=fields.VMState.STOPPED)
    done = recovery.resume_actions(env.ctxt, 'host1', env.driver)
    assert done == {inst.uuid: 'start_instance'}
    assert len(env.faults) == 1
    (saved,) = env.saves
    assert saved[2] == {'task_state': None}


def test_servers_with_no_action_or_building_are_left_alone(env):
    _on_host(env, task_state=None, vm_state=fields.VMState.ACTIVE)
    _on_host(env)  # a build: reconcile_builds' business
    assert recovery.resume_actions(env.ctxt, 'host1', env.driver) == {}
    assert env.saves == []


# Moves lost with the compute's last run.

def test_a_restarted_compute_has_its_lost_moves_settled(env):
    env.conductor.settle_moves.return_value = ['u1']
    recovery.settle_moves(env.ctxt, 'host1', env.conductor)
    env.conductor.settle_moves.assert_called_once_with(env.ctxt, 'host1')


def test_a_failed_settle_leaves_the_moves_to_their_timeout(env):
    env.conductor.settle_moves.side_effect = RuntimeError('no conductor')
    recovery.settle_moves(env.ctxt, 'host1', env.conductor)  # no raise


def _reap_failed(env, instances, failed):
    """reap_failed_moves with ``instances`` as the records and
    ``failed`` the uuids with a move to host1 in error; the migration
    filters read."""
    seen = []

    def migrations(ctxt, filters, **kwargs):
        seen.append(filters)
        return [mock.Mock(instance_uuid=uuid) for uuid in failed
                if uuid in filters['instance_uuid']]

    def records(ctxt, filters, **kwargs):
        return [i for i in instances if i.uuid in filters['uuid']]

    with mock.patch.object(objects.MigrationList, 'get_by_filters',
                           side_effect=migrations), \
            mock.patch.object(objects.InstanceList, 'get_by_filters',
                              side_effect=records):
        reaped = recovery.reap_failed_moves(env.ctxt, 'host1', env.driver)
    return reaped, seen


def test_a_lost_finish_here_destroys_the_vm_it_left(env):
    """Regression (fault suite, a compute SIGKILLed): a destination
    killed in resize_finish kept the VM its finish had made, while the
    settled server was recorded, in ERROR, on its source."""
    on_source = fakes.instance(host='host2', node='host2-n0',
                               vm_state=fields.VMState.ERROR,
                               task_state=None)
    _with_vm(env, on_source)
    reaped, seen = _reap_failed(env, [on_source], [on_source.uuid])
    assert reaped == [on_source.uuid]
    assert seen == [{'instance_uuid': [on_source.uuid],
                     'dest_compute': 'host1', 'status': 'error'}]
    assert env.driver.list_instance_uuids() == []


def test_vms_of_moves_not_failed_or_still_moving_are_kept(env):
    """A VM of a server recorded elsewhere is kept while its move goes
    on, or when no move to this host failed (an evacuation, say, has
    its own clean-up); a VM of a server recorded here is never read."""
    moving = fakes.instance(host='host2', node='host2-n0',
                            task_state=fields.TaskState.RESIZE_FINISH)
    elsewhere = fakes.instance(host='host2', node='host2-n0',
                               vm_state=fields.VMState.ACTIVE,
                               task_state=None)
    here = _on_host(env, task_state=None, vm_state=fields.VMState.ERROR)
    for inst in (moving, elsewhere, here):
        _with_vm(env, inst)
    reaped, seen = _reap_failed(env, [moving, elsewhere, here],
                                [moving.uuid])
    assert reaped == []
    assert seen[0]['instance_uuid'] == sorted([moving.uuid, elsewhere.uuid])
    assert len(env.driver.list_instance_uuids()) == 3


def test_init_host_settles_the_moves_before_it_consumes(env):
    manager = compute_manager.ComputeManager(host='host1')
    manager._conductor_api = env.conductor
    with mock.patch.object(manager.rt, 'update_available_resource'):
        manager.init_host()
    env.conductor.settle_moves.assert_called_once_with(mock.ANY, 'host1')
    manager.cleanup_host()


# Source copies of moves whose instance was deleted meanwhile.

def _moved_away(env, inst):
    """``inst`` spawned here, then moved away: its copy stays here."""
    _with_vm(env, inst)
    env.driver.migrate_disk_and_power_off(env.ctxt, inst, inst.flavor,
                                          'host2', 'host2-n0')


def _reap_moved(env, known):
    with mock.patch.object(
            objects.InstanceList, 'get_by_filters',
            side_effect=lambda ctxt, filters: [
                inst for inst in known if inst.uuid in filters['uuid']]):
        return recovery.reap_moved_away(env.ctxt, 'host1', env.driver)


def test_copies_of_deleted_or_unknown_instances_are_removed(env):
    # Regression: a server deleted in VERIFY_RESIZE with its destination
    # down left its copy on the source for good (reap_deleted only sees
    # the VMs a host runs, not the copies it keeps for a revert).
    waiting = fakes.instance(host='host2', node='host2-n0')
    waiting.deleted = False
    deleted = fakes.instance(host='host2', node='host2-n0')
    deleted.deleted = True
    unknown = fakes.instance(host='host2', node='host2-n0')
    for inst in (waiting, deleted, unknown):
        _moved_away(env, inst)
    assert recovery.reap_deleted(env.ctxt, 'host1', env.driver) == []
    removed = _reap_moved(env, [waiting, deleted])
    assert sorted(removed) == sorted([deleted.uuid, unknown.uuid])
    assert env.driver.list_moved_away_uuids() == [waiting.uuid]


def test_no_copy_reads_nothing(env):
    with mock.patch.object(objects.InstanceList, 'get_by_filters') as read:
        assert recovery.reap_moved_away(env.ctxt, 'host1', env.driver) == []
    read.assert_not_called()


def test_a_copy_that_cannot_be_removed_is_logged_and_kept(env):
    deleted = fakes.instance(host='host2', node='host2-n0')
    deleted.deleted = True
    _moved_away(env, deleted)
    with mock.patch.object(env.driver, 'confirm_migration',
                           side_effect=RuntimeError('busy')):
        assert _reap_moved(env, [deleted]) == []
    assert env.driver.list_moved_away_uuids() == [deleted.uuid]
