"""compute/power.py: each action's outcome, failure and race, with the
manager routing to it. No database: saves, faults and events are fakes."""

from unittest import mock

import pytest

from nova_lite.compute import manager as compute_manager
from nova_lite.compute import power
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action
from tests.unit.compute import fakes

V = fields.VMState
T = fields.TaskState
P = fields.PowerState


class Recorder:
    def __init__(self):
        self.saves, self.faults, self.events = [], [], []
        self.save_error = None


@pytest.fixture
def rec(monkeypatch):
    rec = Recorder()

    def save(self, expected_task_state=None, expected_vm_state=None):
        if rec.save_error:
            raise rec.save_error
        rec.saves.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()

    def fault_create(self):
        rec.faults.append(self.message)

    def start(cls, context, instance_uuid, event, host=None):
        rec.events.append(('start', event, host))

    def finish(cls, context, instance_uuid, event, result=None,
               traceback=None, details=None):
        rec.events.append(('finish', event, result or 'Success'))
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.InstanceFault, 'create', fault_create)
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_start',
                        classmethod(start))
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_finish',
                        classmethod(finish))
    return rec


def _instance(vm_state, task_state):
    instance = fakes.instance(host='host1', node='host1-n0',
                              vm_state=vm_state)
    instance.task_state = task_state
    instance.obj_reset_changes(recursive=True)
    return instance


# method, kwargs, task_state set by the API, start vm_state, end states
OUTCOMES = [
    ('reboot_instance', {'reboot_type': 'SOFT'}, T.REBOOTING, V.ACTIVE,
     V.ACTIVE, P.RUNNING),
    ('reboot_instance', {'reboot_type': 'HARD'}, T.REBOOTING_HARD,
     V.STOPPED, V.ACTIVE, P.RUNNING),
    ('stop_instance', {}, T.POWERING_OFF, V.ACTIVE, V.STOPPED, P.SHUTDOWN),
    ('start_instance', {}, T.POWERING_ON, V.STOPPED, V.ACTIVE, P.RUNNING),
    ('pause_instance', {}, T.PAUSING, V.ACTIVE, V.PAUSED, P.PAUSED),
    ('unpause_instance', {}, T.UNPAUSING, V.PAUSED, V.ACTIVE, P.RUNNING),
    ('suspend_instance', {}, T.SUSPENDING, V.ACTIVE, V.SUSPENDED,
     P.SUSPENDED),
    ('resume_instance', {}, T.RESUMING, V.SUSPENDED, V.ACTIVE, P.RUNNING),
]


CTXT = nl_context.RequestContext(user_id='u1', project_id='p1',
                                 request_id='req-1')


@pytest.mark.parametrize('method,kwargs,task,start,vm_state,power_state',
                         OUTCOMES)
def test_manager_runs_the_action_and_saves_its_outcome(
        rec, method, kwargs, task, start, vm_state, power_state):
    manager = compute_manager.ComputeManager('host1')
    instance = _instance(start, task)
    driver_call = power.ACTIONS[method].driver_call
    with mock.patch.object(manager.driver, driver_call) as call:
        assert getattr(manager, method)(CTXT, instance, **kwargs) is True
    call.assert_called_once_with(CTXT, instance, **kwargs)
    [(changes, expected)] = rec.saves
    assert changes == {'vm_state': vm_state, 'power_state': power_state,
                       'task_state': None}
    assert task in expected
    event = 'compute_' + method
    assert rec.events == [('start', event, 'host1'),
                          ('finish', event, 'Success')]
    assert rec.faults == []


@pytest.mark.parametrize('method,kwargs,task,start,vm_state,power_state',
                         OUTCOMES)
def test_a_driver_failure_clears_the_task_with_a_fault(
        rec, method, kwargs, task, start, vm_state, power_state):
    instance = _instance(start, task)
    driver = mock.Mock()
    getattr(driver, power.ACTIONS[method].driver_call).side_effect = (
        exception.InstanceOperationFailed(operation='x', instance_uuid='u',
                                          reason='boom'))
    assert power.run(None, driver, 'host1', instance, method,
                     **kwargs) is False
    [(changes, expected)] = rec.saves
    # A failed reboot leaves the guest unknown: ERROR, as Nova.
    if method == 'reboot_instance':
        assert changes == {'vm_state': V.ERROR, 'task_state': None}
    else:
        assert changes == {'task_state': None}
    assert len(rec.faults) == 1 and 'boom' in rec.faults[0]
    assert rec.events[-1] == ('finish', 'compute_' + method, 'Error')


def test_a_delete_meanwhile_wins(rec):
    instance = _instance(V.ACTIVE, T.POWERING_OFF)
    rec.save_error = exception.UnexpectedTaskStateError(
        instance_uuid=instance.uuid, expected=[T.POWERING_OFF],
        actual=T.DELETING)
    assert power.run(None, mock.Mock(), 'host1', instance,
                     'stop_instance') is False
    assert rec.faults == []
    assert rec.events[-1] == ('finish', 'compute_stop_instance', 'Error')


def test_an_event_that_cannot_be_recorded_does_not_stop_the_action(
        rec, monkeypatch):
    def refuse(cls, context, instance_uuid, event, host=None):
        raise exception.InstanceActionNotFound(request_id='r',
                                               instance_uuid=instance_uuid)
    monkeypatch.setattr(instance_action.InstanceActionEvent, 'event_start',
                        classmethod(refuse))
    instance = _instance(V.ACTIVE, T.PAUSING)
    assert power.run(None, mock.Mock(), 'host1', instance,
                     'pause_instance') is True
    assert rec.saves[0][0]['vm_state'] == V.PAUSED


def test_an_action_sent_again_runs_once(rec):
    """A conductor sends a lost action again (lost_actions.py); the
    compute that had the first cast runs the request once. Another
    request for the same action runs."""
    manager = compute_manager.ComputeManager('host1')
    instance = _instance(V.ACTIVE, T.POWERING_OFF)
    with mock.patch.object(manager.driver, 'power_off') as call:
        assert manager.stop_instance(CTXT, instance) is True
        assert manager.stop_instance(CTXT, instance) is False
        assert call.call_count == 1
        other = nl_context.RequestContext(user_id='u1', project_id='p1',
                                          request_id='req-2')
        instance.task_state = T.POWERING_OFF
        assert manager.stop_instance(other, instance) is True
        assert call.call_count == 2


def test_ran_requests_forget_the_oldest():
    ran = power.RanRequests(size=2)
    assert ran.first_time('u', 'r1', 'm') and ran.first_time('u', 'r2', 'm')
    assert not ran.first_time('u', 'r1', 'm')
    assert ran.first_time('u', 'r3', 'm')
    assert ran.first_time('u', 'r1', 'm')  # pushed out by r3


def test_a_crash_dump_changes_no_state(rec):
    manager = compute_manager.ComputeManager('host1')
    instance = _instance(V.ACTIVE, None)
    with mock.patch.object(manager.driver, 'trigger_crash_dump') as call:
        assert manager.trigger_crash_dump(CTXT, instance) is True
    call.assert_called_once_with(CTXT, instance)
    assert rec.saves == [] and rec.faults == []
    assert rec.events == [('start', 'compute_trigger_crash_dump', 'host1'),
                          ('finish', 'compute_trigger_crash_dump',
                           'Success')]


def test_a_failed_crash_dump_is_a_fault_only(rec):
    instance = _instance(V.PAUSED, None)
    driver = mock.Mock()
    driver.trigger_crash_dump.side_effect = NotImplementedError()
    assert power.run(None, driver, 'host1', instance,
                     'trigger_crash_dump') is False
    assert rec.saves == [] and len(rec.faults) == 1
    assert rec.events[-1] == ('finish', 'compute_trigger_crash_dump',
                              'Error')


def test_a_prep_sent_again_runs_once(rec):
    """A conductor casts a prep no compute took up again
    (lost_actions.py); a destination that had the first cast after all
    prepares the migration once. Another migration's prep runs."""
    manager = compute_manager.ComputeManager('host1')
    instance = _instance(V.ACTIVE, T.RESIZE_PREP)
    first, other = mock.Mock(uuid='m1'), mock.Mock(uuid='m2')
    with mock.patch.object(manager.moves, 'prep_resize',
                           return_value=True) as prep:
        assert manager.prep_resize(CTXT, instance, first, 'f', 'spec',
                                   ['chosen', 'alt'])
        assert manager.prep_resize(CTXT, instance, first, 'f', None,
                                   []) is False
        assert manager.prep_resize(CTXT, instance, other, 'f', None, [])
    assert [c.kwargs['migration'] for c in prep.call_args_list] == [
        first, other]
    assert prep.call_args_list[0].kwargs['host_list'] == ['chosen', 'alt']

