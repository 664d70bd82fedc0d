"""Confirms and reverts whose cast never reached a conductor are run by
the conductor that finds them (conductor/tasks/lost_outcomes.py), on
every backend."""

import datetime
from unittest import mock

from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import lost_outcomes
from nova_lite.db import models
from nova_lite import objects
from tests.functional.db import test_build_owners as owners
from tests.functional.db import test_lost_actions as lost

ctxt = owners.ctxt


@pytest.fixture
def tasks(monkeypatch):
    """The confirm and revert tasks, as mocks (what they do is
    resize_outcome's tests'): {migration status: task class}."""
    outcomes = {status: (mock.Mock(), task_state) for status, (_, task_state)
                in lost_outcomes._OUTCOMES.items()}
    monkeypatch.setattr(lost_outcomes, '_OUTCOMES', outcomes)
    return {status: task for status, (task, _) in outcomes.items()}


def _waiting(ctxt, status, age, action, task_state=None, events=()):
    """A server in VERIFY_RESIZE whose migration went ``status`` ``age``
    seconds ago, as the API leaves it before its cast."""
    inst, request_id = lost._in_task(ctxt, 'c2', task_state, 0, action,
                                     events=events)
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'vm_state': 'resized'})
    migration = objects.Migration(
        ctxt, uuid=uuidutils.generate_uuid(), instance_uuid=inst.uuid,
        source_compute='c1', dest_compute='c2', migration_type='resize',
        status=status)
    migration.create()
    then = (datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            - datetime.timedelta(seconds=age))
    owners._update(ctxt, models.Migration, models.Migration.id ==
                   migration.id, {'updated_at': then})
    return inst, request_id


def test_a_lost_confirm_and_revert_are_run(ctxt, tasks):
    confirm, confirm_request = _waiting(ctxt, 'confirming', 30,
                                        'confirmResize')
    revert, revert_request = _waiting(ctxt, 'reverting', 30, 'revertResize',
                                      task_state='resize_reverting')
    # Left: too recent, taken up by a conductor, a delete's.
    _waiting(ctxt, 'confirming', 0, 'confirmResize')
    _waiting(ctxt, 'reverting', 30, 'revertResize',
             task_state='resize_reverting', events=['conductor_revert_resize'])
    _waiting(ctxt, 'confirming', 30, 'delete', task_state='deleting')
    scheduler_api, compute_api = mock.Mock(), mock.Mock()
    assert lost_outcomes.resend(ctxt, scheduler_api, compute_api, 10) == {
        confirm.uuid: 'confirming', revert.uuid: 'reverting'}
    for status, inst, request_id in (
            ('confirming', confirm, confirm_request),
            ('reverting', revert, revert_request)):
        (call,) = tasks[status].call_args_list
        context, instance, migration, *apis = call[0]
        # Under the action's request, so the events land on it.
        assert context.request_id == request_id
        assert (instance.uuid, migration.status) == (inst.uuid, status)
        assert apis == [scheduler_api, compute_api]
        tasks[status].return_value.execute.assert_called_once_with()
    # Claimed: the next pass (or another conductor) leaves them.
    assert lost_outcomes.resend(ctxt, scheduler_api, compute_api, 10) == {}
    assert tasks['confirming'].call_count == 1


def test_of_two_conductors_one_runs_it(ctxt, tasks):
    inst, _ = _waiting(ctxt, 'confirming', 30, 'confirmResize')
    (first,) = objects.MigrationList.get_by_filters(
        ctxt, {'instance_uuid': inst.uuid})
    (second,) = objects.MigrationList.get_by_filters(
        ctxt, {'instance_uuid': inst.uuid})
    assert first.claim_unchanged()
    assert not second.claim_unchanged()
    # The winner's record moved on: nothing is stale any more.
    assert lost_outcomes.resend(ctxt, mock.Mock(), mock.Mock(), 10) == {}
    tasks['confirming'].assert_not_called()


def test_a_server_no_longer_resized_is_left(ctxt, tasks):
    inst, _ = _waiting(ctxt, 'confirming', 30, 'confirmResize')
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'vm_state': 'error'})
    assert lost_outcomes.resend(ctxt, mock.Mock(), mock.Mock(), 10) == {}
    tasks['confirming'].assert_not_called()


def test_a_confirm_whose_action_was_never_recorded_is_run(ctxt, tasks):
    """The API's migration write landed, its action record did not (the
    bus went away in between; it answered 503 and never cast): the
    newest action is still the move's, taken up long ago."""
    inst, resize_request = _waiting(
        ctxt, 'confirming', 30, 'resize',
        events=['conductor_migrate_server', 'compute_finish_resize'])
    assert lost_outcomes.resend(ctxt, mock.Mock(), mock.Mock(), 10) == {
        inst.uuid: 'confirming'}
    (call,) = tasks['confirming'].call_args_list
    context = call[0][0]
    # Under a request of its own, with its action recorded as the API
    # would have, so the events do not land on the resize.
    assert context.request_id != resize_request
    newest = objects.InstanceActionList.get_by_instance_uuid(
        ctxt, inst.uuid, limit=1)[0]
    assert (newest.action, newest.request_id) == ('confirmResize',
                                                  context.request_id)
    assert (context.user_id, context.project_id) == (inst.user_id,
                                                     inst.project_id)


def _age(ctxt, inst, seconds):
    then = (datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            - datetime.timedelta(seconds=seconds))
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'updated_at': then})


def test_a_revert_whose_migration_was_never_marked_is_given_back(ctxt,
                                                                 tasks):
    """The API set resize_reverting and failed before the migration went
    reverting: no revert will ever take the server up."""
    unsent, _ = _waiting(ctxt, 'finished', 30, 'resize',
                         task_state='resize_reverting')
    _age(ctxt, unsent, 30)
    recent, _ = _waiting(ctxt, 'finished', 30, 'resize',
                         task_state='resize_reverting')
    marked, _ = _waiting(ctxt, 'reverting', 0, 'revertResize',
                         task_state='resize_reverting')
    _age(ctxt, marked, 30)
    assert lost_outcomes.resend(ctxt, mock.Mock(), mock.Mock(), 10) == {
        unsent.uuid: 'cleared'}
    after = objects.Instance.get_by_uuid(ctxt, unsent.uuid)
    assert (after.vm_state, after.task_state) == ('resized', None)
    fault = objects.InstanceFault.get_latest_for_instances(
        ctxt, [unsent.uuid])[unsent.uuid]
    assert 'never started' in fault.message
    for inst in (recent, marked):
        assert objects.Instance.get_by_uuid(
            ctxt, inst.uuid).task_state == 'resize_reverting'
    assert not any(task.called for task in tasks.values())
    # The server can be reverted again: its migration is still finished.
    assert objects.Migration.get_by_instance_and_status(
        ctxt, unsent.uuid, 'finished')


def _age_events(ctxt, inst, seconds):
    then = (datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            - datetime.timedelta(seconds=seconds))
    action_ids = [action.id for action in
                  objects.InstanceActionList.get_by_instance_uuid(
                      ctxt, inst.uuid)]
    owners._update(ctxt, models.InstanceActionEvent,
                   models.InstanceActionEvent.action_id.in_(action_ids),
                   {'start_time': then})


def test_an_outcome_whose_conductor_died_running_it_is_run(ctxt, tasks):
    """The conductor took the confirm or revert up (its event started)
    and was killed before it finished: nothing else will run it."""
    lost.casts._compute(ctxt, 'c2')
    lost.casts._compute(ctxt, 'c3', up=False)
    confirm, request_id = _waiting(ctxt, 'confirming', 30, 'confirmResize',
                                   events=['conductor_confirm_resize'])
    revert, _ = _waiting(ctxt, 'reverting', 30, 'revertResize',
                         task_state='resize_reverting',
                         events=['conductor_revert_resize'])
    # Left: a revert whose destination is down (the down-compute check
    # settles it; its cast may wait in that compute's queue), a confirm
    # a compute took up, one whose conductor is still at it.
    dest_down, _ = _waiting(ctxt, 'reverting', 30, 'revertResize',
                            task_state='resize_reverting',
                            events=['conductor_revert_resize'])
    owners._update(ctxt, models.Migration,
                   models.Migration.instance_uuid == dest_down.uuid,
                   {'dest_compute': 'c3'})
    with_compute, _ = _waiting(ctxt, 'confirming', 30, 'confirmResize',
                               events=['conductor_confirm_resize',
                                       'compute_confirm_resize'])
    for inst in (confirm, revert, dest_down, with_compute):
        _age_events(ctxt, inst, 30)
    _waiting(ctxt, 'confirming', 30, 'confirmResize',
             events=['conductor_confirm_resize'])
    scheduler_api, compute_api = mock.Mock(), mock.Mock()
    assert lost_outcomes.resend(ctxt, scheduler_api, compute_api, 10) == {
        confirm.uuid: 'confirming', revert.uuid: 'reverting'}
    (call,) = tasks['confirming'].call_args_list
    assert call[0][0].request_id == request_id
    assert tasks['reverting'].call_count == 1
    # Claimed: not again before another action_resend_after.
    assert lost_outcomes.resend(ctxt, scheduler_api, compute_api, 10) == {}
