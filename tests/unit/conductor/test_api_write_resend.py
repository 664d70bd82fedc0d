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


def test_other_writes_wait_as_before(sent):
    inst = fakes.instance()
    sent.answers = [({}, None)]
    _api().object_action(nl_context.get_admin_context(), inst, 'destroy',
                         (), {})
    assert sent.log == [('destroy', None)]
