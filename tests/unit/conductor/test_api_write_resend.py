"""The API's writes whose answer was lost are read back and sent again
(conductor/api.py): a conductor killed while it held one costs the
request seconds, not rpc_response_timeout and a server left in a task."""

from unittest import mock

import oslo_messaging as messaging
import pytest

from nova_lite.conductor import api as conductor_api
from nova_lite.conductor import rpcapi
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from tests.unit.compute import fakes

LOST = messaging.MessagingTimeout('no reply')
UUID = 'b2f0c5a4-6c1e-4f0e-9d55-3f4f8e2a9c10'


@pytest.fixture
def sent(conf):
    """What reached the conductor: each call's (object, timeout); the
    answers to give come from ``sent.answers`` (an exception is raised).
    """
    conf.config(group='api', write_attempt_timeout=2, write_attempts=3)
    calls = mock.Mock(answers=[], log=[])

    def object_action(self, context, objinst, objmethod, args, kwargs):
        calls.log.append((objmethod, rpcapi._call_timeout()))
        answer = calls.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    with mock.patch.object(rpcapi.ConductorAPI, 'object_action',
                           object_action):
        yield calls


def _api():
    return conductor_api.ReadLocallyConductorAPI.__new__(
        conductor_api.ReadLocallyConductorAPI)


def _save(instance, **kwargs):
    ctxt = nl_context.get_admin_context()
    return _api().object_action(ctxt, instance, 'save', (), kwargs)


def _row(instance, **values):
    current = fakes.instance()
    current.uuid = instance.uuid
    for name, value in values.items():
        setattr(current, name, value)
    return current


def test_an_answered_save_is_sent_once_with_the_attempt_timeout(sent):
    inst = fakes.instance(task_state=None)
    inst.obj_reset_changes()
    inst.task_state = 'rebooting'
    sent.answers = [({}, None)]
    assert _save(inst, expected_task_state=[None]) == ({}, None)
    assert sent.log == [('save', 2)]


def test_a_lost_save_that_committed_is_not_sent_again(sent):
    inst = fakes.instance(task_state=None)
    inst.obj_reset_changes()
    inst.task_state = 'rebooting'
    sent.answers = [LOST]
    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           return_value=_row(inst, task_state='rebooting')):
        updates, result = _save(inst, expected_task_state=[None])
    assert updates['task_state'] == 'rebooting'
    assert len(sent.log) == 1


def test_a_lost_save_that_did_not_commit_is_sent_again(sent):
    inst = fakes.instance(task_state=None)
    inst.obj_reset_changes()
    inst.task_state = 'rebooting'
    sent.answers = [LOST, ({}, None)]
    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           return_value=_row(inst, task_state=None)):
        assert _save(inst, expected_task_state=[None]) == ({}, None)
    assert len(sent.log) == 2


def test_a_condition_no_longer_met_is_the_saves_own_error(sent):
    inst = fakes.instance(task_state=None)
    inst.obj_reset_changes()
    inst.task_state = 'rebooting'
    sent.answers = [LOST]
    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           return_value=_row(inst, task_state='deleting')):
        with pytest.raises(exception.UnexpectedTaskStateError):
            _save(inst, expected_task_state=[None])


def test_the_last_attempt_unanswered_raises_the_timeout(sent):
    inst = fakes.instance(task_state=None)
    inst.obj_reset_changes()
    inst.task_state = 'rebooting'
    sent.answers = [LOST, LOST, LOST]
    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           return_value=_row(inst, task_state=None)):
        with pytest.raises(messaging.MessagingTimeout):
            _save(inst, expected_task_state=[None])
    assert len(sent.log) == 3


def test_an_action_record_is_found_rather_than_written_twice(sent):
    ctxt = nl_context.get_admin_context()
    action = objects.InstanceAction.for_request(ctxt, UUID, 'reboot')
    sent.answers = [LOST]
    found = objects.InstanceAction(
        id=7, action='reboot', instance_uuid=UUID,
        request_id=action.request_id)
    with mock.patch.object(objects.InstanceAction, 'get_by_request_id',
                           return_value=found):
        updates, _ = _api().object_action(ctxt, action, 'create', (), {})
    assert updates['id'] == 7
    assert len(sent.log) == 1


# A compute's saves (ResendingConductorAPI): the same, read back through
# the conductor, each read bounded by the attempt timeout too.

def _compute_save(instance, **kwargs):
    api = conductor_api.ResendingConductorAPI.__new__(
        conductor_api.ResendingConductorAPI)
    return api.object_action(nl_context.get_admin_context(), instance,
                             'save', (), kwargs)


def test_a_computes_lost_save_is_read_back_and_sent_again(sent, conf):
    conf.config(build_save_attempt_timeout=4, build_outcome_retries=3)
    inst = fakes.instance(task_state='rebooting')
    inst.obj_reset_changes()
    inst.task_state = None
    sent.answers = [LOST, ({}, None)]
    reads = []

    def get_by_uuid(context, uuid):
        reads.append(rpcapi._call_timeout())
        return _row(inst, task_state='rebooting')
    with mock.patch.object(objects.Instance, 'get_by_uuid', get_by_uuid):
        assert _compute_save(inst, expected_task_state=['rebooting']) == (
            {}, None)
    assert sent.log == [('save', 4), ('save', 4)]
    assert reads == [4]


def test_a_computes_save_whose_read_is_lost_too_is_sent_again(sent, conf):
    conf.config(build_save_attempt_timeout=4, build_outcome_retries=2)
    inst = fakes.instance(task_state='rebooting')
    inst.obj_reset_changes()
    inst.task_state = None
    sent.answers = [LOST, LOST]
    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           side_effect=LOST):
        with pytest.raises(messaging.MessagingTimeout):
            _compute_save(inst, expected_task_state=['rebooting'])
    assert len(sent.log) == 2


def test_a_caller_with_its_own_timeout_manages_its_attempts(sent):
    """build_outcome.save sets its own call_timeout and reads back
    itself: one attempt here."""
    inst = fakes.instance(task_state='spawning')
    inst.obj_reset_changes()
    inst.task_state = None
    sent.answers = [LOST]
    with rpcapi.call_timeout(7):
        with pytest.raises(messaging.MessagingTimeout):
            _compute_save(inst, expected_task_state=['spawning'])
    assert sent.log == [('save', 7)]


def test_a_resent_save_refused_because_the_first_committed_succeeds(sent):
    """The first attempt's message was delivered again to the next
    conductor, which committed it; the resent one finds its condition
    gone. What was written holds: the save succeeded."""
    inst = fakes.instance(task_state=None)
    inst.obj_reset_changes()
    inst.task_state = 'resize_prep'
    refused = exception.UnexpectedTaskStateError(
        instance_uuid=inst.uuid, expected=[None], actual='resize_prep')
    sent.answers = [LOST, refused]
    rows = [_row(inst, task_state=None), _row(inst, task_state='resize_prep')]
    with mock.patch.object(objects.Instance, 'get_by_uuid',
                           side_effect=rows):
        updates, _ = _save(inst, expected_task_state=[None])
    assert updates['task_state'] == 'resize_prep'
    assert len(sent.log) == 2


def test_a_first_attempt_refused_is_refused(sent):
    inst = fakes.instance(task_state='rebooting')
    inst.obj_reset_changes()
    inst.task_state = 'resize_prep'
    sent.answers = [exception.UnexpectedTaskStateError(
        instance_uuid=inst.uuid, expected=[None], actual='rebooting')]
    with mock.patch.object(objects.Instance, 'get_by_uuid') as read:
        with pytest.raises(exception.UnexpectedTaskStateError):
            _save(inst, expected_task_state=[None])
    read.assert_not_called()


def test_a_write_not_safe_to_resend_is_sent_once_and_bounded(sent):
    """An instance destroy (say) is not sent again, but waits only as
    long as a resent write's attempts together: never
    rpc_response_timeout."""
    inst = fakes.instance()
    sent.answers = [LOST]
    with pytest.raises(messaging.MessagingTimeout):
        _api().object_action(nl_context.get_admin_context(), inst,
                             'destroy', (), {})
    assert sent.log == [('destroy', 6)]  # 2 s x 3 attempts
