"""The compute manager: builds, reschedules, deletes."""

import threading
import types
from unittest import mock

from oslo_context import context as o_context
import oslo_messaging as messaging
import pytest

from nova_lite.compute import build_outcome
from nova_lite.compute import manager as compute_manager
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from tests.unit.compute import fakes


def test_target_version_matches_rpcapi():
    assert compute_manager.ComputeManager.target.version == \
        compute_rpcapi.RPC_VERSION


@pytest.fixture
def env(conf):
    conf.config(group='fake_driver', node_count=2)
    ns = types.SimpleNamespace(saves=[], save_errors={}, faults=[],
                               destroyed=[], released=['rp-1'],
                               ctxt=nl_context.get_admin_context())
    ns.manager = compute_manager.ComputeManager(host='host1')
    ns.manager.driver.init_host('host1')
    # Pinned below conductor RPC 1.10 unless a test says otherwise
    # (test_build_receipts.py tests the combined receipt and save).
    ns.manager._conductor_api = mock.Mock(**{
        'settle_moves.return_value': [],
        'can_send_build_started.return_value': False})
    ns.manager._scheduler_api = mock.Mock()
    ns.manager.rt._conductor_api = mock.Mock()

    def save(inst, expected_task_state=None, expected_vm_state=None):
        ns.saves.append({'expected': expected_task_state,
                         'changes': inst.obj_get_changes(),
                         'timeout': compute_manager.conductor_rpcapi
                         ._call_timeout()})
        error = ns.save_errors.get(len(ns.saves))
        if error is not None:
            raise error
        inst.obj_reset_changes()

    def create_fault(fault):
        ns.faults.append(fault)

    def destroy(inst):
        ns.destroyed.append(inst.uuid)
        if isinstance(ns.released, Exception):
            raise ns.released
        return ns.released

    with mock.patch.object(objects.Instance, 'save', autospec=True,
                           side_effect=save), \
            mock.patch.object(objects.InstanceFault, 'create',
                              autospec=True, side_effect=create_fault), \
            mock.patch.object(objects.Instance, 'destroy', autospec=True,
                              side_effect=destroy):
        yield ns
    ns.manager.cleanup_host()


def _build(env, inst, node='host1-n0', alternates=0):
    hosts = [fakes.selection('host1', node)] + [
        fakes.selection('host%d' % (i + 2), 'host%d-n0' % (i + 2))
        for i in range(alternates)]
    spec = objects.RequestSpec(instance_uuid=inst.uuid)
    env.manager.build_and_run_instance(
        env.ctxt, inst, node, spec, hosts).result(timeout=10)
    return spec, hosts


def test_periodic_spacing_comes_from_the_configuration(conf):
    conf.config(update_resources_interval=17)
    manager = compute_manager.ComputeManager(host='host1')
    assert manager._periodic_spacing['update_available_resource'] == 17
    assert compute_manager.ComputeManager._periodic_spacing[
        'update_available_resource'] == 60
    manager.cleanup_host()


def test_init_host_reports_at_startup(env):
    with mock.patch.object(env.manager.rt, 'update_available_resource') \
            as update:
        env.manager.init_host()
    assert env.manager.driver.get_available_nodes() == ['host1-n0',
                                                        'host1-n1']
    assert update.call_args.kwargs == {'startup': True}


def test_init_host_survives_a_failed_report(env):
    with mock.patch.object(env.manager.rt, 'update_available_resource',
                           side_effect=exception.NovaLiteException()):
        env.manager.init_host()


def test_periodic_task_updates_resources(env):
    with mock.patch.object(env.manager.rt, 'update_available_resource') \
            as update:
        env.manager.update_available_resource(env.ctxt)
    update.assert_called_once_with(env.ctxt)


def test_build_success(env):
    inst = fakes.instance(vcpus=3)
    _, hosts = _build(env, inst)
    first, second = env.saves
    assert first['expected'] == 'scheduling'
    assert first['changes'] == {
        'host': 'host1', 'node': 'host1-n0', 'task_state': 'spawning',
        'compute_node_uuid': hosts[0].compute_node_uuid}
    assert second['expected'] == 'spawning'
    assert second['changes']['vm_state'] == 'active'
    assert second['changes']['task_state'] is None
    assert second['changes']['power_state'] == fields.PowerState.RUNNING
    assert second['changes']['launched_at'] is not None
    assert env.manager.driver.get_info(inst) == fields.PowerState.RUNNING
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 3
    assert not env.faults
    env.manager._conductor_api.build_instances.assert_not_called()


def test_spawn_failure_records_fault_and_reschedules(env, conf):
    conf.config(group='fake_driver', fail_spawn_nodes=['host1-n1'])
    env.manager.driver.init_host('host1')
    inst = fakes.instance()
    spec, hosts = _build(env, inst, node='host1-n1', alternates=2)

    (fault,) = env.faults
    assert fault.instance_uuid == inst.uuid
    assert fault.host == 'host1'
    assert fault.message.startswith(
        'Build of instance %s failed on host host1 node host1-n1: '
        % inst.uuid)
    assert 'fail_spawn_nodes includes node host1-n1' in fault.message
    assert 'InstanceDeployFailure' in fault.details
    reset = env.saves[-1]
    assert reset['expected'] == ['scheduling', 'spawning']
    assert reset['changes'] == {'host': None, 'node': None,
                                'compute_node_uuid': None,
                                'task_state': 'scheduling'}
    env.manager._conductor_api.build_instances.assert_called_once_with(
        env.ctxt, [inst], spec, host_lists=[hosts[1:]])
    assert env.manager.rt.usage('host1-n1')['VCPU'] == 0
    assert env.manager.driver.list_instance_uuids() == []


def test_failure_on_last_alternate_hands_back_an_empty_list(env, conf):
    conf.config(compute_driver='fake.SpawnFailsFakeDriver')
    env.manager.driver = env.manager.builds.driver = (
        compute_manager.virt_driver.load_compute_driver())
    env.manager.driver.init_host('host1')
    inst = fakes.instance()
    spec, _ = _build(env, inst)
    env.manager._conductor_api.build_instances.assert_called_once_with(
        env.ctxt, [inst], spec, host_lists=[[]])


def test_claim_failure_reschedules_without_spawning(env):
    inst = fakes.instance(vcpus=99)
    _build(env, inst, alternates=1)
    (fault,) = env.faults
    assert 'Insufficient compute resources' in fault.message
    assert 'VCPU: 99 requested' in fault.message
    assert [s['expected'] for s in env.saves] == [['scheduling',
                                                   'spawning']]
    assert env.manager.driver.list_instance_uuids() == []
    assert env.manager._conductor_api.build_instances.call_count == 1


def test_deleted_before_spawn_stops_quietly(env):
    env.save_errors[1] = exception.InstanceNotFound(instance_id='x')
    inst = fakes.instance()
    with mock.patch.object(env.manager.driver, 'spawn') as spawn:
        _build(env, inst, alternates=1)
    spawn.assert_not_called()
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 0
    assert not env.faults
    env.manager._conductor_api.build_instances.assert_not_called()


def test_deleted_during_spawn_cleans_up_vm_and_claim(env):
    env.save_errors[2] = exception.UnexpectedTaskStateError(
        instance_uuid='x', expected='spawning', actual='deleting')
    inst = fakes.instance()
    _build(env, inst, alternates=1)
    assert env.manager.driver.list_instance_uuids() == []
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 0
    assert not env.faults
    env.manager._conductor_api.build_instances.assert_not_called()


def test_deleted_while_failing_is_not_rescheduled(env, conf):
    conf.config(group='fake_driver', fail_spawn_nodes=['0'])
    env.manager.driver.init_host('host1')
    env.save_errors[2] = exception.InstanceNotFound(instance_id='x')
    _build(env, fakes.instance(), alternates=1)
    env.manager._conductor_api.build_instances.assert_not_called()


def test_unrecordable_fault_does_not_stop_the_reschedule(env, conf):
    conf.config(group='fake_driver', fail_spawn_nodes=['0'])
    env.manager.driver.init_host('host1')
    with mock.patch.object(objects.InstanceFault, 'create',
                           side_effect=RuntimeError('conductor busy')):
        _build(env, fakes.instance(), alternates=1)
    assert env.manager._conductor_api.build_instances.call_count == 1


def test_builds_are_bounded_by_max_concurrent_builds(conf):
    conf.config(max_concurrent_builds=2)
    manager = compute_manager.ComputeManager(host='host1')
    running, peak, release = [0], [0], threading.Event()
    lock = threading.Lock()

    def build(*args):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        release.wait(10)
        with lock:
            running[0] -= 1

    with mock.patch.object(manager.builds, 'run',
                           side_effect=build):
        futures = [manager.build_and_run_instance(
            None, fakes.instance(), 'n', None, []) for _ in range(5)]
        threading.Timer(0.2, release.set).start()
        for future in futures:
            future.result(timeout=10)
    assert peak[0] == 2
    manager.cleanup_host()


def test_terminate_waits_for_the_build_of_the_same_instance(env):
    inst = fakes.instance()
    spawning, release = threading.Event(), threading.Event()
    real_spawn = env.manager.driver.spawn

    def slow_spawn(*args):
        spawning.set()
        release.wait(10)
        real_spawn(*args)

    with mock.patch.object(env.manager.driver, 'spawn',
                           side_effect=slow_spawn):
        build = env.manager.build_and_run_instance(
            env.ctxt, inst, 'host1-n0', None,
            [fakes.selection('host1', 'host1-n0')])
        assert spawning.wait(10)
        terminate = threading.Thread(target=env.manager.terminate_instance,
                                     args=(env.ctxt, inst))
        terminate.start()
        terminate.join(0.2)
        assert terminate.is_alive()      # blocked behind the build
        assert env.destroyed == []
        release.set()
        build.result(timeout=10)
        terminate.join(10)
    assert env.destroyed == [inst.uuid]
    assert env.manager.driver.list_instance_uuids() == []


# Delete

def test_terminate_destroys_and_frees(env):
    inst = fakes.instance()
    _build(env, inst)
    env.manager.terminate_instance(env.ctxt, inst)
    assert env.manager.driver.list_instance_uuids() == []
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 0
    assert env.destroyed == [inst.uuid]
    # The schedulers hear of it from the conductor's allocation write
    # (placement.changes), never from the compute by hand.
    env.manager._scheduler_api.update_provider_states.assert_not_called()


def test_terminate_tolerates_a_vm_already_gone(env):
    inst = fakes.instance('host1', 'host1-n0')
    with mock.patch.object(env.manager.driver, 'destroy',
                           side_effect=exception.InstanceNotFound(
                               instance_id=inst.uuid)):
        env.manager.terminate_instance(env.ctxt, inst)
    assert env.destroyed == [inst.uuid]


def test_terminate_of_a_deleted_record_notifies_nobody(env):
    env.released = exception.InstanceNotFound(instance_id='x')
    env.manager.terminate_instance(env.ctxt, fakes.instance())
    env.manager._scheduler_api.update_provider_states.assert_not_called()


def test_terminate_asks_again_when_no_conductor_answered(env):
    # The first destroy's conductor died (no answer); the second answers
    # what the first may have committed: the record is gone.
    answers = [messaging.MessagingTimeout('no reply'),
               exception.InstanceNotFound(instance_id='x')]

    def destroy(inst):
        raise answers.pop(0)

    objects.Instance.destroy.side_effect = destroy   # env's mock
    env.manager.terminate_instance(env.ctxt, fakes.instance())
    assert answers == []
    env.manager._scheduler_api.update_provider_states.assert_not_called()


def test_terminate_failing_in_driver_leaves_instance_in_error(env):
    inst = fakes.instance('host1', 'host1-n0', vm_state='active',
                          task_state='deleting')
    with mock.patch.object(env.manager.driver, 'destroy',
                           side_effect=exception.HypervisorUnavailable(
                               host='host1-n0')):
        env.manager.terminate_instance(env.ctxt, inst)
    assert env.destroyed == []
    assert env.saves[-1]['changes'] == {'vm_state': 'error',
                                        'task_state': None}
    assert 'Connection to the hypervisor is broken' in env.faults[0].message
    env.manager._scheduler_api.update_provider_states.assert_not_called()


def test_reset_on_sighup_resets_the_tracker(env):
    with mock.patch.object(env.manager.rt, 'reset') as reset:
        env.manager.reset()
    reset.assert_called_once_with()


def test_unreachable_node_at_claim_reschedules(env):
    with mock.patch.object(env.manager.rt, 'instance_claim',
                           side_effect=exception.HypervisorUnavailable(
                               host='host1-n0')):
        _build(env, fakes.instance(), alternates=1)
    assert 'hypervisor is broken' in env.faults[0].message
    assert env.manager._conductor_api.build_instances.call_count == 1


def test_the_build_thread_logs_with_the_request_context(env):
    ctxt = nl_context.RequestContext(user_id='u1', project_id='p1',
                                     request_id='req-build-1')
    seen = []
    real_spawn = env.manager.driver.spawn

    def spawn(*args):
        seen.append(o_context.get_current())
        return real_spawn(*args)

    inst = fakes.instance()
    with mock.patch.object(env.manager.driver, 'spawn', side_effect=spawn):
        env.manager.build_and_run_instance(
            ctxt, inst, 'host1-n0', objects.RequestSpec(
                instance_uuid=inst.uuid),
            [fakes.selection('host1', 'host1-n0')]).result(timeout=10)
    assert [c.request_id for c in seen] == ['req-build-1']


# The ACTIVE save without an answer (compute/build_outcome.py).

def _committed(inst, **changes):
    current = objects.Instance(uuid=inst.uuid, host='host1',
                               vm_state='building', task_state='spawning',
                               power_state=0, launched_at=None,
                               updated_at=None)
    for name, value in changes.items():
        setattr(current, name, value)
    return current


@pytest.fixture
def reads(env):
    """objects.Instance.get_by_uuid answers from ``reads.answers`` in
    turn (an exception is raised)."""
    ns = types.SimpleNamespace(answers=[], count=0)

    def get_by_uuid(context, uuid, expected_attrs=None):
        answer = ns.answers[min(ns.count, len(ns.answers) - 1)]
        ns.count += 1
        if isinstance(answer, Exception):
            raise answer
        return answer

    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           side_effect=get_by_uuid), \
            mock.patch.object(build_outcome,
                              'RETRY_INTERVAL', 0):
        yield ns


def _timeout():
    return build_outcome.messaging.MessagingTimeout('late')


def test_active_save_unanswered_but_committed_keeps_the_vm(env, reads):
    inst = fakes.instance(vcpus=2)
    env.save_errors[2] = _timeout()
    reads.answers = [_committed(inst, vm_state='active', task_state=None,
                                power_state=fields.PowerState.RUNNING)]
    _build(env, inst, alternates=1)
    assert reads.count == 1
    assert len(env.saves) == 2          # not saved twice
    assert env.manager.driver.list_instance_uuids() == [inst.uuid]
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 2
    assert not env.faults
    env.manager._conductor_api.build_instances.assert_not_called()


def test_active_save_not_committed_is_sent_again(env, reads):
    inst = fakes.instance()
    env.save_errors[2] = _timeout()
    reads.answers = [_committed(inst)]
    _build(env, inst, alternates=1)
    assert [s['expected'] for s in env.saves] == [
        'scheduling', 'spawning', 'spawning']
    assert env.saves[2]['changes']['vm_state'] == 'active'
    assert env.manager.driver.list_instance_uuids() == [inst.uuid]
    env.manager._conductor_api.build_instances.assert_not_called()


def test_a_second_save_refused_then_read_active_keeps_the_vm(env, reads):
    """The first save committed after the read: the second is refused,
    the next read finds ACTIVE."""
    inst = fakes.instance()
    env.save_errors[2] = _timeout()
    env.save_errors[3] = exception.UnexpectedTaskStateError(
        instance_uuid=inst.uuid, expected='spawning', actual=None)
    reads.answers = [_committed(inst), _committed(
        inst, vm_state='active', task_state=None)]
    _build(env, inst, alternates=1)
    assert reads.count == 2
    assert env.manager.driver.list_instance_uuids() == [inst.uuid]
    env.manager._conductor_api.build_instances.assert_not_called()


def test_active_save_unanswered_and_build_failed_meanwhile_undoes(env,
                                                                  reads):
    """The conductor put the build in ERROR meanwhile (its build timeout):
    the VM and claim go, nothing is rescheduled."""
    inst = fakes.instance()
    env.save_errors[2] = _timeout()
    reads.answers = [_committed(inst, vm_state='error', task_state=None)]
    _build(env, inst, alternates=1)
    assert env.manager.driver.list_instance_uuids() == []
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 0
    env.manager._conductor_api.build_instances.assert_not_called()


def test_no_answer_at_all_keeps_the_vm_and_claim(env, reads, conf):
    conf.config(build_outcome_retries=3)
    inst = fakes.instance(vcpus=2)
    env.save_errors[2] = _timeout()
    reads.answers = [_timeout()]
    _build(env, inst, alternates=1)
    assert reads.count == 3
    assert env.manager.driver.list_instance_uuids() == [inst.uuid]
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 2
    assert not env.faults
    env.manager._conductor_api.build_instances.assert_not_called()


def test_each_save_of_a_build_waits_the_attempt_timeout(env, conf):
    conf.config(build_save_attempt_timeout=3)
    _build(env, fakes.instance())
    assert [s['timeout'] for s in env.saves] == [3, 3]


def test_spawning_save_unanswered_but_committed_goes_on(env, reads):
    """The conductor that took the save died after committing it."""
    inst = fakes.instance()
    env.save_errors[1] = _timeout()
    reads.answers = [_committed(inst, node='host1-n0')]
    _build(env, inst, alternates=1)
    assert reads.count == 1
    assert [s['expected'] for s in env.saves] == ['scheduling',
                                                  'spawning']
    assert env.manager.driver.list_instance_uuids() == [inst.uuid]
    env.manager._conductor_api.build_instances.assert_not_called()


def test_spawning_save_never_answered_hands_the_build_back(env, reads,
                                                           conf):
    conf.config(build_outcome_retries=2)
    inst = fakes.instance(vcpus=2)
    env.save_errors[1] = _timeout()
    reads.answers = [_timeout(), _timeout(), _committed(
        inst, host=None, task_state='scheduling')]
    with mock.patch.object(env.manager.driver, 'spawn') as spawn:
        _build(env, inst, alternates=1)
    spawn.assert_not_called()
    assert env.manager.rt.usage('host1-n0')['VCPU'] == 0
    assert env.saves[-1]['expected'] == ['scheduling', 'spawning']
    env.manager._conductor_api.build_instances.assert_called_once()


def test_hand_back_save_unanswered_but_committed_is_handed_back(env, reads,
                                                                conf):
    conf.config(group='fake_driver', fail_spawn_nodes=['0'])
    env.manager.driver.init_host('host1')
    inst = fakes.instance()
    env.save_errors[2] = _timeout()
    reads.answers = [_committed(inst, host=None, node=None,
                                task_state='scheduling')]
    _build(env, inst, alternates=1)
    assert len(env.saves) == 2
    (call,) = env.manager._conductor_api.build_instances.call_args_list
    assert [h.service_host for h in call[1]['host_lists'][0]] == ['host2']


def test_usage_bookkeeping_failing_after_active_undoes_nothing(env):
    inst = fakes.instance()
    with mock.patch.object(env.manager.rt, 'update_usage',
                           side_effect=RuntimeError('boom')):
        _build(env, inst, alternates=1)
    assert env.manager.driver.list_instance_uuids() == [inst.uuid]
    env.manager._conductor_api.build_instances.assert_not_called()
