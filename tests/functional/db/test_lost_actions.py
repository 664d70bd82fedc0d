"""Actions whose cast never reached a compute or a conductor are sent
again or ended (conductor/tasks/lost_actions.py), on every backend."""

import datetime
from unittest import mock

from oslo_utils import uuidutils

from nova_lite.conductor.tasks import action_events
from nova_lite.conductor.tasks import lost_actions
from nova_lite.conductor.tasks import move_records
from nova_lite.conductor.tasks import ownership
from nova_lite import context as nl_context
from nova_lite.db import models
from nova_lite import objects
from tests.functional.db import test_build_owners as owners
from tests.functional.db import test_lost_casts as casts

ctxt = owners.ctxt


def _in_task(ctxt, host, task_state, age, action, events=()):
    """An ACTIVE instance on ``host`` in ``task_state`` since ``age``
    seconds ago, whose newest action is ``action`` (with ``events``
    started), recorded under its own request id."""
    inst = owners._building(ctxt, '-')
    values = {'host': host, 'vm_state': 'active', 'task_state': task_state,
              'updated_at': datetime.datetime.now(datetime.timezone.utc)
              .replace(tzinfo=None) - datetime.timedelta(seconds=age)}
    owners._update(ctxt, models.Instance,
                   models.Instance.uuid == inst.uuid, values)
    request = nl_context.RequestContext(
        user_id='u1', project_id='p1',
        request_id='req-' + uuidutils.generate_uuid())
    objects.InstanceAction.for_request(request, inst.uuid, action).create()
    for event in events:
        objects.InstanceActionEvent.event_start(request, inst.uuid, event,
                                                host=host)
    return objects.Instance.get_by_uuid(ctxt, inst.uuid), request.request_id


def _task(ctxt, inst):
    return objects.Instance.get_by_uuid(ctxt, inst.uuid).task_state


def test_a_power_action_no_compute_started_is_cast_again(ctxt):
    casts._compute(ctxt, 'c1')
    lost, request_id = _in_task(ctxt, 'c1', 'powering-off', 30, 'stop')
    started, _ = _in_task(ctxt, 'c1', 'powering-off', 30, 'stop',
                          events=['compute_stop_instance'])
    recent, _ = _in_task(ctxt, 'c1', 'rebooting_hard', 0, 'reboot')
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {lost.uuid: 'cast'}
    (call,) = compute_api.stop_instance.call_args_list
    sent_context, sent_instance = call[0]
    assert sent_instance.uuid == lost.uuid
    # Under the action's request, so the compute's events land on it.
    assert sent_context.request_id == request_id
    assert (sent_context.user_id, sent_context.project_id) == ('u1', 'p1')
    # Stamped: the compute gets another while before the next cast.
    assert lost_actions.resend(ctxt, compute_api, 10) == {}
    compute_api.reboot_instance.assert_not_called()
    assert _task(ctxt, started) == 'powering-off'
    assert _task(ctxt, recent) == 'rebooting_hard'


def test_a_power_action_the_api_never_recorded_is_run(ctxt):
    """The API set powering-on, then failed to record the start (the bus
    went away: it answered 503): the server would wait for
    task_timeout."""
    casts._compute(ctxt, 'c1')
    lost, stop_request = _in_task(ctxt, 'c1', 'powering-on', 30, 'stop',
                                  events=['compute_stop_instance'])
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {lost.uuid: 'cast'}
    (call,) = compute_api.start_instance.call_args_list
    sent_context, sent_instance = call[0]
    assert sent_instance.uuid == lost.uuid
    # Under a request of its own, whose start action is recorded.
    assert sent_context.request_id != stop_request
    action = action_events.newest_action(ctxt, lost)
    assert (action.action, action.request_id) == (
        'start', sent_context.request_id)
    assert (sent_context.user_id, sent_context.project_id) == (
        lost.user_id, lost.project_id)
    assert lost_actions.resend(ctxt, compute_api, 10) == {}


def test_a_lost_hard_reboot_is_sent_as_hard(ctxt):
    casts._compute(ctxt, 'c1')
    lost, _ = _in_task(ctxt, 'c1', 'rebooting_hard', 30, 'reboot')
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {lost.uuid: 'cast'}
    assert compute_api.reboot_instance.call_args[1] == {
        'reboot_type': 'HARD'}


def test_an_action_on_a_compute_that_is_down_is_left_to_its_check(ctxt):
    casts._compute(ctxt, 'c1', up=False)
    lost, _ = _in_task(ctxt, 'c1', 'powering-on', 30, 'start')
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {}
    compute_api.start_instance.assert_not_called()
    assert _task(ctxt, lost) == 'powering-on'


def test_a_move_no_conductor_took_up_is_ended_with_a_fault(ctxt):
    casts._compute(ctxt, 'c1')
    lost, _ = _in_task(ctxt, 'c1', 'resize_prep', 40, 'resize')
    taken, _ = _in_task(ctxt, 'c1', 'resize_prep', 40, 'migrate')
    # Not after the power actions' wait: a conductor may be behind.
    recent, _ = _in_task(ctxt, 'c1', 'resize_prep', 20, 'resize')
    objects.Migration(ctxt, uuid=uuidutils.generate_uuid(),
                      instance_uuid=taken.uuid, source_compute='c1',
                      migration_type='migration',
                      status='pre-migrating').create()
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {
        lost.uuid: 'cleared'}
    assert _task(ctxt, lost) is None
    fault = objects.InstanceFault.get_latest_for_instances(
        ctxt, [lost.uuid])[lost.uuid]
    assert 'never reached a conductor' in fault.message
    assert _task(ctxt, taken) == _task(ctxt, recent) == 'resize_prep'
    assert not compute_api.method_calls


def test_a_move_the_api_never_recorded_is_ended_too(ctxt):
    """The API set resize_prep, then failed before it recorded the
    action (its newest action is an earlier one)."""
    casts._compute(ctxt, 'c1')
    lost, _ = _in_task(ctxt, 'c1', 'resize_prep', 40, 'start')
    assert lost_actions.resend(ctxt, mock.Mock(), 10) == {lost.uuid: 'cleared'}
    assert _task(ctxt, lost) is None


def _started_move(ctxt, owner, events=()):
    """A resize started by conductor ``owner`` (its migration written),
    not yet taken up by a compute unless ``events``."""
    inst, _ = _in_task(ctxt, 'c1', 'resize_prep', 30, 'resize',
                       events=events)
    migration = objects.Migration(
        ctxt, uuid=uuidutils.generate_uuid(), instance_uuid=inst.uuid,
        source_compute='c1', source_node='c1-n0',
        old_instance_type_id=inst.flavor.id,
        new_instance_type_id=inst.flavor.id, migration_type='resize',
        status='pre-migrating')
    migration.create()
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'build_owner': owner, 'updated_at': inst.updated_at})
    return inst, migration


def test_a_move_whose_conductor_died_before_a_compute_took_it_is_undone(
        ctxt):
    casts._compute(ctxt, 'c1')
    orphan, migration = _started_move(ctxt, owners._dead_local_owner())
    alive, _ = _started_move(ctxt, ownership.token())
    prepping, _ = _started_move(ctxt, owners._dead_local_owner(),
                                events=['compute_prep_resize'])
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {
        orphan.uuid: 'undone'}
    after = objects.Instance.get_by_uuid(ctxt, orphan.uuid)
    assert (after.vm_state, after.task_state) == ('active', None)
    assert objects.Migration.get_by_uuid(ctxt,
                                         migration.uuid).status == 'error'
    fault = objects.InstanceFault.get_latest_for_instances(
        ctxt, [orphan.uuid])[orphan.uuid]
    assert 'its conductor' in fault.message and 'is gone' in fault.message
    assert _task(ctxt, alive) == _task(ctxt, prepping) == 'resize_prep'


def _handed_over(ctxt, dest, events=()):
    """A resize whose source handed its VM over to ``dest``
    (resize_migrated, migration post-migrating) 30 s ago."""
    inst, request_id = _in_task(ctxt, 'c1', 'resize_migrated', 30,
                                'resize', events=events)
    return inst, _to(ctxt, inst, dest, 'post-migrating'), request_id


def _to(ctxt, inst, dest, status):
    """The created migration of ``inst`` from c1 to ``dest``."""
    migration = objects.Migration(
        ctxt, uuid=uuidutils.generate_uuid(), instance_uuid=inst.uuid,
        source_compute='c1', source_node='c1-n0', dest_compute=dest,
        dest_node=dest + '-n0', migration_type='resize', status=status)
    migration.create()
    return migration


def _assert_move_cast(method, inst, migration, request_id):
    """``method`` (a compute RPC mock) was cast once, for ``inst`` and
    ``migration`` under ``request_id``, with the instance's flavor."""
    (call,) = method.call_args_list
    sent_context, sent_instance, sent_migration, flavor = call[0]
    assert (sent_instance.uuid, sent_migration.uuid) == (inst.uuid,
                                                         migration.uuid)
    assert sent_context.request_id == request_id
    assert flavor.flavorid == inst.flavor.flavorid


def test_a_finish_the_destination_never_got_is_cast_again(ctxt):
    """The source was killed as it cast finish_resize (or the bus lost
    it): the server would stay resize_migrated, its VM on no host."""
    casts._compute(ctxt, 'c1')
    casts._compute(ctxt, 'c2')
    casts._compute(ctxt, 'c3', up=False)
    lost, migration, request_id = _handed_over(
        ctxt, 'c2', events=['compute_resize_instance'])
    started, _, _ = _handed_over(ctxt, 'c2', events=[
        'compute_resize_instance', 'compute_finish_resize'])
    dest_down, _, _ = _handed_over(ctxt, 'c3')
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {lost.uuid: 'cast'}
    _assert_move_cast(compute_api.finish_resize, lost, migration,
                      request_id)
    # Stamped: not again before another action_resend_after.
    assert lost_actions.resend(ctxt, compute_api, 10) == {}
    assert _task(ctxt, started) == _task(ctxt, dest_down) == 'resize_migrated'


def _prepared(ctxt, dest, result=None, resized=False):
    """A resize in resize_prep (migration pre-migrating) 30 s ago whose
    destination ``dest`` finished its prep (with ``result``); the source
    c1 started the resize if ``resized``."""
    inst, request_id = _in_task(ctxt, 'c1', 'resize_prep', 30, 'resize')
    migration = _to(ctxt, inst, dest, 'pre-migrating')
    request = nl_context.RequestContext(user_id='u1', project_id='p1',
                                        request_id=request_id)
    objects.InstanceActionEvent.event_start(
        request, inst.uuid, 'compute_prep_resize', host=dest)
    objects.InstanceActionEvent.event_finish(
        request, inst.uuid, 'compute_prep_resize', result=result)
    if resized:
        objects.InstanceActionEvent.event_start(
            request, inst.uuid, 'compute_resize_instance', host='c1')
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'updated_at': inst.updated_at})
    return inst, migration, request_id


def test_a_resize_the_source_never_got_is_cast_again(ctxt):
    """The destination prepared and was killed as it cast resize_instance
    (or the source as it took it): the server would stay resize_prep
    until task_timeout."""
    casts._compute(ctxt, 'c1')
    casts._compute(ctxt, 'c2')
    lost, migration, request_id = _prepared(ctxt, 'c2')
    resized, _, _ = _prepared(ctxt, 'c2', resized=True)
    failed, _, _ = _prepared(ctxt, 'c2', result='Error')
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {lost.uuid: 'cast'}
    _assert_move_cast(compute_api.resize_instance, lost, migration,
                      request_id)
    # Stamped: not again before another action_resend_after.
    assert lost_actions.resend(ctxt, compute_api, 10) == {}
    assert {_task(ctxt, inst) for inst in (lost, resized, failed)} == {
        'resize_prep'}


def test_a_resize_whose_source_is_down_is_left_to_its_check(ctxt):
    casts._compute(ctxt, 'c1', up=False)
    casts._compute(ctxt, 'c2')
    _prepared(ctxt, 'c2')
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {}
    assert not compute_api.resize_instance.called


def _prep_cast(ctxt, dest, steps, owner=None):
    """A resize in resize_prep (migration pre-migrating, to ``dest``) 30 s
    ago with ``steps``, oldest first: (event, host, finished) each."""
    inst, request_id = _in_task(ctxt, 'c1', 'resize_prep', 30, 'resize')
    migration = _to(ctxt, inst, dest, 'pre-migrating')
    request = nl_context.RequestContext(user_id='u1', project_id='p1',
                                        request_id=request_id)
    for event, host, finished in steps:
        objects.InstanceActionEvent.event_start(request, inst.uuid, event,
                                                host=host)
        if finished:
            objects.InstanceActionEvent.event_finish(request, inst.uuid,
                                                     event)
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'build_owner': owner or ownership.token(),
                    'updated_at': inst.updated_at})
    return inst, migration, request_id


def test_a_prep_the_destination_never_got_is_cast_again(ctxt):
    """The conductor cast prep_resize and lives on; the destination was
    killed as it took the cast (or the bus lost it): the server would
    stay resize_prep until task_timeout."""
    casts._compute(ctxt, 'c1')
    casts._compute(ctxt, 'c2')
    casts._compute(ctxt, 'c3', up=False)
    sent = ('conductor_migrate_server', None, True)
    lost, migration, request_id = _prep_cast(ctxt, 'c2', [sent])
    # Handed back by c3 whose prep failed; the cast to c2 lost too.
    again, _, _ = _prep_cast(ctxt, 'c2', [
        sent, ('compute_prep_resize', 'c3', True), sent])
    taken, _, _ = _prep_cast(ctxt, 'c2', [
        sent, ('compute_prep_resize', 'c2', False)])
    sending, _, _ = _prep_cast(ctxt, 'c2', [sent[:2] + (False,)])
    dest_down, _, _ = _prep_cast(ctxt, 'c3', [sent])
    compute_api = mock.Mock()
    assert lost_actions.resend(ctxt, compute_api, 10) == {
        lost.uuid: 'cast', again.uuid: 'cast'}
    first, second = compute_api.prep_resize.call_args_list
    sent_context, inst, sent_migration, flavor, spec, host_list = first[0]
    assert (inst.uuid, sent_migration.uuid) == (lost.uuid, migration.uuid)
    assert sent_context.request_id == request_id
    assert flavor.flavorid == lost.flavor.flavorid
    # Without alternates: they went with the lost cast.
    assert (spec, host_list) == (None, [])
    assert second[0][1].uuid == again.uuid
    # Stamped: not again before another action_resend_after.
    assert lost_actions.resend(ctxt, compute_api, 10) == {}
    assert {_task(ctxt, inst) for inst in (lost, again, taken, sending,
                                            dest_down)} == {'resize_prep'}


def test_a_move_names_its_conductor_as_it_starts(ctxt, monkeypatch):
    monkeypatch.setattr(ownership, 'enabled', lambda context: True)
    inst, _ = _in_task(ctxt, 'c1', 'resize_prep', 0, 'resize')
    move_records.start_move(ctxt, inst, inst.flavor, 'resize', None)
    assert ownership.owner_of(ctxt, inst.uuid) == ownership.token()
