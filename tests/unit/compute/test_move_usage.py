"""The resource tracker and the compute side of a move: a move is
counted on both hosts until it settles, and each compute step moves the
instance through Nova's states.

The database is replaced as in test_resource_tracker; the fake driver
is real.
"""

from unittest import mock

from oslo_utils import uuidutils
import oslo_messaging as messaging
import pytest

from nova_lite.compute import moves as moves_mod
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from tests.unit.compute import fakes
from tests.unit.compute import test_resource_tracker as rt_tests

V, T = fields.VMState, fields.TaskState
env = rt_tests.env
ZERO = {'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0}


@pytest.fixture(autouse=True)
def _stop_patches():
    yield
    mock.patch.stopall()


def _migration(inst, source_node, dest_node, status='finished'):
    return objects.Migration(uuid=uuidutils.generate_uuid(),
                             instance_uuid=inst.uuid,
                             source_compute='host1', source_node=source_node,
                             dest_compute='host1', dest_node=dest_node,
                             status=status)


def _resizing(old, new, **where):
    inst = fakes.instance(vm_state=V.ACTIVE, task_state=None, **old)
    inst.old_flavor = inst.flavor
    inst.new_flavor = fakes.flavor(**new)
    for name, value in where.items():
        setattr(inst, name, value)
    return inst


def test_resize_claim_holds_the_new_flavor_on_the_destination(env):
    inst = fakes.instance(vcpus=1, memory_mb=1024, root_gb=10)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    claim = env.tracker.resize_claim(env.ctxt, inst,
                                     fakes.flavor(vcpus=4, memory_mb=4096,
                                                  root_gb=10), migration)
    assert env.tracker.usage('host1-n1') == {'VCPU': 4, 'MEMORY_MB': 4096,
                                             'DISK_GB': 10}
    claim.abort()
    assert env.tracker.usage('host1-n1') == ZERO


def test_resize_claim_that_does_not_fit_says_why(env):
    inst = fakes.instance()
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    with pytest.raises(exception.ComputeResourcesUnavailable) as err:
        env.tracker.resize_claim(env.ctxt, inst,
                                 fakes.flavor(memory_mb=70000), migration)
    assert 'MEMORY_MB: 70000 requested' in err.value.format_message()
    assert env.tracker.usage('host1-n1') == ZERO


def test_an_unsettled_move_counts_on_both_nodes_then_only_where_it_is(env):
    inst = _resizing({'vcpus': 1, 'memory_mb': 1024},
                     {'vcpus': 2, 'memory_mb': 2048},
                     host='host1', node='host1-n1')
    migration = _migration(inst, 'host1-n0', 'host1-n1')
    env.instances.append(inst)
    env.migrations.append(migration)
    env.by_uuid[inst.uuid] = inst
    env.tracker.update_available_resource(env.ctxt)
    assert env.tracker.usage('host1-n0')['MEMORY_MB'] == 1024
    assert env.tracker.usage('host1-n1')['MEMORY_MB'] == 2048
    # The move's source share is usage, not another instance.
    assert env.tracker._node_stats('host1-n0')['num_instances'] == '0'
    # Confirmed: the migration is no longer listed as active.
    env.migrations.clear()
    inst.flavor = inst.new_flavor
    env.tracker.update_available_resource(env.ctxt)
    assert env.tracker.usage('host1-n0') == ZERO
    assert env.tracker.usage('host1-n1')['MEMORY_MB'] == 2048


def test_free_migration_and_track_instance_after_a_revert(env):
    inst = _resizing({'vcpus': 1, 'memory_mb': 1024},
                     {'vcpus': 2, 'memory_mb': 2048},
                     host='host1', node='host1-n0')
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    env.tracker.resize_claim(env.ctxt, inst, inst.new_flavor, migration)
    env.tracker.free_migration(migration)
    env.tracker.track_instance(inst)
    assert env.tracker.usage('host1-n1') == ZERO
    assert env.tracker.usage('host1-n0')['MEMORY_MB'] == 1024


# The compute steps, with the fake driver and fake RPC clients.

@pytest.fixture
def compute(env, monkeypatch):
    saves = []

    def save(self, expected_task_state=None, expected_vm_state=None):
        saves.append((dict(self.obj_get_changes()), expected_task_state))
        self.obj_reset_changes()
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.Migration, 'save',
                        lambda self: saves.append(({'migration':
                                                    self.status}, None)))
    monkeypatch.setattr(objects.InstanceFault, 'create', lambda self: None)
    # What the database says of a migration: as cast, unless a test
    # changes it.
    recorded = {}
    monkeypatch.setattr(
        objects.Migration, 'get_by_uuid',
        lambda ctxt, uuid: mock.Mock(status=recorded.get(uuid,
                                                         'pre-migrating')))
    rpc, conductor = mock.Mock(), mock.Mock()
    steps = moves_mod.Moves('host1', env.driver, env.tracker, lambda: rpc,
                            lambda: conductor)
    with mock.patch('nova_lite.compute.power.event_start'), \
            mock.patch('nova_lite.compute.power.event_finish'):
        steps.recorded = recorded
        yield steps, rpc, conductor, saves


def _spawned(env, inst, node='host1-n0'):
    env.driver.spawn(None, inst, None, node)


def test_a_full_move_through_the_compute_steps(env, compute):
    steps, rpc, _conductor, saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    inst.obj_reset_changes(recursive=True)
    _spawned(env, inst)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    assert steps.prep_resize(None, inst, migration, inst.new_flavor, None,
                             [])
    rpc.resize_instance.assert_called_once()
    assert steps.resize_instance(None, inst, migration, inst.new_flavor)
    assert [s[0] for s in saves] == [
        {'task_state': T.RESIZE_MIGRATING}, {'migration': 'migrating'},
        {'migration': 'post-migrating'}, {'task_state': T.RESIZE_MIGRATED}]
    rpc.finish_resize.assert_called_once()
    assert steps.finish_resize(None, inst, migration, inst.new_flavor)
    assert inst.vm_state == V.RESIZED and inst.task_state is None
    assert (inst.host, inst.node, inst.flavor.vcpus) == ('host1',
                                                         'host1-n1', 2)
    assert migration.status == 'finished'
    assert env.driver.get_info(inst) == fields.PowerState.RUNNING
    # Revert: the destination's VM goes, the source copy comes back.
    inst.task_state = T.RESIZE_REVERTING
    inst.node = 'host1-n0'
    inst.obj_reset_changes()
    assert steps.revert_resize(None, inst, migration)
    rpc.finish_revert_resize.assert_called_once()
    assert steps.finish_revert_resize(None, inst, migration)
    assert (inst.vm_state, migration.status) == (V.ACTIVE, 'reverted')
    assert env.driver.get_info(inst) == fields.PowerState.RUNNING


def test_a_failed_prep_hands_the_move_back_with_the_alternates(env,
                                                               compute, conf):
    steps, rpc, conductor, _saves = compute
    conf.config(fail_operations=['prep_resize:host1-n1'],
                group='fake_driver')
    env.driver.init_host('host1')
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0')
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    host_list = ['chosen', 'alt1', 'alt2']
    assert not steps.prep_resize(None, inst, migration, inst.new_flavor,
                                 'spec', host_list)
    rpc.resize_instance.assert_not_called()
    kwargs = conductor.migrate_server.call_args.kwargs
    assert kwargs['host_list'] == ['alt1', 'alt2']
    assert kwargs['migration'] is migration
    # The failed destination holds nothing.
    assert env.tracker.usage('host1-n1') == ZERO


def test_a_failed_send_puts_the_server_in_error(env, compute, conf):
    steps, rpc, _conductor, _saves = compute
    conf.config(fail_operations=['migrate_disk_and_power_off:host1-n0'],
                group='fake_driver')
    env.driver.init_host('host1')
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    _spawned(env, inst)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    assert not steps.resize_instance(None, inst, migration, inst.new_flavor)
    assert (inst.vm_state, migration.status) == (V.ERROR, 'error')
    rpc.finish_resize.assert_not_called()


def test_a_vm_missing_on_the_source_puts_the_server_in_error(env, compute):
    """The driver's InstanceNotFound is a failed step with a fault, not
    a deleted server: the move must not sit in RESIZE_MIGRATING until
    its timeout."""
    steps, rpc, _conductor, _saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    with mock.patch('nova_lite.compute.power.record_fault') as fault:
        assert not steps.resize_instance(None, inst, migration,
                                         inst.new_flavor)
    assert (inst.vm_state, inst.task_state) == (V.ERROR, None)
    assert migration.status == 'error'
    error = fault.call_args.args[-1]
    assert 'the hypervisor has no such VM' in error.format_message()
    rpc.finish_resize.assert_not_called()


def test_a_prep_of_a_move_given_up_on_does_nothing(env, compute):
    """A prep_resize that waited in the queue of a compute that was down
    arrives after the conductor undid the move: it claims nothing and
    sends nothing on."""
    steps, rpc, conductor, saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0')
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    steps.recorded[migration.uuid] = 'error'
    assert not steps.prep_resize(None, inst, migration, inst.new_flavor,
                                 'spec', ['chosen', 'alt'])
    assert env.tracker.usage('host1-n1') == ZERO
    rpc.resize_instance.assert_not_called()
    conductor.migrate_server.assert_not_called()
    assert saves == []


def test_a_prep_that_cannot_read_its_migration_hands_the_move_back(
        env, compute, monkeypatch):
    """The conductor (or the database behind it) does not answer whether
    the move still stands: the move goes back to the conductor with no
    alternate, to be undone, instead of staying in resize_prep."""
    steps, rpc, conductor, _saves = compute

    def unanswered(ctxt, uuid):
        raise messaging.MessagingTimeout('no answer')
    monkeypatch.setattr(objects.Migration, 'get_by_uuid', unanswered)
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0')
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    assert not steps.prep_resize(None, inst, migration, inst.new_flavor,
                                 'spec', ['chosen', 'alt'])
    assert env.tracker.usage('host1-n1') == ZERO
    rpc.resize_instance.assert_not_called()
    kwargs = conductor.migrate_server.call_args.kwargs
    assert (kwargs['host_list'], kwargs['migration']) == ([], migration)


def _verify_resize(env, steps, inst):
    """``inst`` moved from host1-n0 to host1-n1, waiting in
    VERIFY_RESIZE; returns its migration."""
    _spawned(env, inst)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    assert steps.prep_resize(None, inst, migration, inst.new_flavor, None,
                             [])
    assert steps.resize_instance(None, inst, migration, inst.new_flavor)
    assert steps.finish_resize(None, inst, migration, inst.new_flavor)
    inst.task_state = T.RESIZE_REVERTING
    inst.obj_reset_changes()
    return migration


def test_a_revert_the_conductor_finishes_hands_back_once_the_vm_is_gone(
        env, compute):
    """Nova's order: the destination destroys its VM first, then the
    records go back to the source (the conductor's, here); the
    destination never casts to the source itself."""
    steps, rpc, conductor, saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    inst.obj_reset_changes(recursive=True)
    migration = _verify_resize(env, steps, inst)
    del saves[:]

    def vm_gone(context, instance, migration):
        # The VM was gone before the conductor was asked.
        assert env.driver.list_instance_uuids() == []
    conductor.finish_revert_resize.side_effect = vm_gone
    assert steps.revert_resize(None, inst, migration,
                               conductor_finishes=True)
    conductor.finish_revert_resize.assert_called_once_with(None, inst,
                                                           migration)
    rpc.finish_revert_resize.assert_not_called()
    # The records are the conductor's to change: nothing saved here.
    assert saves == []


def test_a_conductor_pinned_below_finish_revert_keeps_the_vm(env, compute):
    steps, rpc, conductor, _saves = compute
    conductor.can_send_finish_revert.return_value = False
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    migration = _verify_resize(env, steps, inst)
    assert not steps.revert_resize(None, inst, migration,
                                   conductor_finishes=True)
    assert (inst.vm_state, migration.status) == (V.ERROR, 'error')
    assert env.driver.list_instance_uuids() == [inst.uuid]
    conductor.finish_revert_resize.assert_not_called()
    rpc.finish_revert_resize.assert_not_called()


def test_a_destination_that_cannot_destroy_its_vm_errors_the_revert(
        env, compute):
    steps, rpc, conductor, _saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    migration = _verify_resize(env, steps, inst)
    with mock.patch.object(env.driver, 'destroy',
                           side_effect=RuntimeError('stuck')), \
            mock.patch('nova_lite.compute.power.record_fault') as fault:
        assert not steps.revert_resize(None, inst, migration,
                                       conductor_finishes=True)
    assert (inst.vm_state, inst.task_state) == (V.ERROR, None)
    assert migration.status == 'error'
    assert 'stuck' in str(fault.call_args.args[-1])
    conductor.finish_revert_resize.assert_not_called()
    rpc.finish_revert_resize.assert_not_called()


@pytest.mark.parametrize('step, task', [
    ('resize_instance', T.RESIZE_PREP),
    ('finish_resize', T.RESIZE_MIGRATED)])
def test_a_second_copy_of_a_step_records_nothing(env, compute, monkeypatch,
                                                 step, task):
    """A resent cast that crossed its slow first copy finds the task
    moved on: it stops without touching the migration, the VM or the
    action's events (no failed event on a move that went well)."""
    steps, rpc, _conductor, _saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=task)
    _spawned(env, inst)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'post-migrating')

    def moved_on(self, expected_task_state=None, expected_vm_state=None):
        raise exception.UnexpectedTaskStateError(
            instance_uuid=self.uuid, expected=expected_task_state,
            actual=T.RESIZE_FINISH)
    monkeypatch.setattr(objects.Instance, 'save', moved_on)
    with mock.patch('nova_lite.compute.power.event_start') as start, \
            mock.patch('nova_lite.compute.power.event_finish') as finish, \
            mock.patch('nova_lite.compute.power.record_fault') as fault:
        assert not getattr(steps, step)(None, inst, migration,
                                        inst.new_flavor)
    start.assert_not_called()
    finish.assert_not_called()
    fault.assert_not_called()
    assert migration.status == 'post-migrating'
    assert inst.vm_state == V.ACTIVE
    assert env.driver.get_info(inst) == fields.PowerState.RUNNING
    rpc.finish_resize.assert_not_called()


def test_a_step_whose_first_save_fails_errors_the_move(env, compute,
                                                       monkeypatch):
    """A save that fails for another reason (the conductor away) fails
    the step with its event recorded, as any failure after the start."""
    steps, rpc, _conductor, _saves = compute
    inst = _resizing({'vcpus': 1}, {'vcpus': 2}, host='host1',
                     node='host1-n0', task_state=T.RESIZE_PREP)
    migration = _migration(inst, 'host1-n0', 'host1-n1', 'pre-migrating')
    calls = []

    def away(self, expected_task_state=None, expected_vm_state=None):
        calls.append(expected_task_state)
        if len(calls) == 1:
            raise messaging.MessagingTimeout('no reply')
        self.obj_reset_changes()
    monkeypatch.setattr(objects.Instance, 'save', away)
    with mock.patch('nova_lite.compute.power.event_start') as start, \
            mock.patch('nova_lite.compute.power.event_finish') as finish, \
            mock.patch('nova_lite.compute.power.record_fault'):
        assert not steps.resize_instance(None, inst, migration,
                                         inst.new_flavor)
    start.assert_called_once()
    assert finish.call_args.args[2] == 'compute_resize_instance'
    assert isinstance(finish.call_args.args[3], messaging.MessagingTimeout)
    assert (inst.vm_state, migration.status) == (V.ERROR, 'error')
    rpc.finish_resize.assert_not_called()
