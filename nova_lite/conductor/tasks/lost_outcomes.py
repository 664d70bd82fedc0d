"""Confirms and reverts whose cast never reached a conductor.

``confirmResize`` and ``revertResize`` set the migration ``confirming``
or ``reverting`` (a revert also the server's ``resize_reverting``) and
record the action before they cast the work to a conductor. A cast the
bus refused (the API answers 503 after its writes) or one never sent
(the API killed in between) left the server in VERIFY_RESIZE with a
migration nothing would ever finish: a second confirm finds no finished
migration, and the resize confirm window skips it.

Every ``[conductor] lost_build_check_interval`` seconds each conductor
looks for migrations in ``confirming`` or ``reverting`` for more than
``[conductor] action_resend_after`` seconds whose server is still
RESIZED and whose action no conductor or compute took up (no event
recorded on it), claims each one (a conditional write that moves the
migration's ``updated_at``: of two conductors only one wins), and runs
the confirm or revert itself, under the action's request id. The
records' own conditional transaction makes a confirm that did arrive
after all (late, not lost) change nothing twice.

A conductor killed while it ran the outcome (its event started, never
finished, no compute event after it) lost it too: with nothing but such
events on the action for ``action_resend_after`` seconds, the outcome is
run again (a confirm's records change once whatever runs it; a revert
only while its destination is up, which would have recorded its event
had the cast reached it).

The API writes the migration's status before it records the action.
If that write landed but the action was never recorded (the bus or the
database went away in between, or its reply was lost, and the API
answered 503), the server's newest action is an older one (the move's):
the cast was never sent, so the conductor runs the confirm or revert
under a request of its own, recording its action first as the API would
have. Without this the server would wait in VERIFY_RESIZE for good: a
second confirm finds no ``finished`` migration.

The API sets the server's ``resize_reverting`` before it marks the
migration ``reverting``. If that second write failed (the API answered
503; a revert whose conductor rolled back can fail the same way between
its two undos), the server waits in ``resize_reverting`` with its
migration still ``finished``, which no revert will ever take up. Such a
server is given back its VERIFY_RESIZE (the task cleared, with a fault
saying the revert never started), so the user can revert or confirm
again.

A confirm that comes from a delete (the server ``deleting``) is left to
the delete's own resend (``stuck_deletes.py``), which settles the
migration as it destroys the server.

    lost_outcomes.resend(context, scheduler_api, compute_api, after)
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor.tasks import action_events
from nova_lite.conductor.tasks import lost_actions
from nova_lite.conductor.tasks import move_records as records
from nova_lite.conductor.tasks import resize_outcome
from nova_lite.conductor.tasks import timeouts
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
# migration status -> (the task that runs it, the task_state the server
# is in meanwhile).
_OUTCOMES = {
    records.CONFIRMING: (resize_outcome.ConfirmTask, None),
    records.REVERTING: (resize_outcome.RevertTask, _T.RESIZE_REVERTING),
}
# migration status -> the API's action name for it.
_ACTIONS = {records.CONFIRMING: 'confirmResize',
            records.REVERTING: 'revertResize'}


def resend(context, scheduler_api, compute_api, after):
    """Run every confirm or revert nobody took up within ``after``
    seconds; return {instance uuid: migration status run}. Never raises
    for one migration."""
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=after))
    done = _end_unsent_reverts(context, cutoff)
    for migration in objects.MigrationList.get_by_filters(
            context, {'status': list(_OUTCOMES)}):
        stamp = migration.updated_at or migration.created_at
        if stamp is None or stamp.replace(tzinfo=None) > cutoff:
            continue
        status = migration.status  # the task moves it on
        try:
            if _run_again(context, scheduler_api, compute_api, migration,
                          cutoff):
                done[migration.instance_uuid] = status
        except Exception:
            LOG.exception('Running the lost %s of instance %s again failed',
                          status, migration.instance_uuid)
    return done


def _run_again(context, scheduler_api, compute_api, migration, cutoff):
    task_class, task_state = _OUTCOMES[migration.status]
    try:
        instance = objects.Instance.get_by_uuid(context,
                                                migration.instance_uuid)
    except exception.InstanceNotFound:
        return False
    if (instance.vm_state != fields.VMState.RESIZED
            or instance.task_state != task_state):
        return False
    action = action_events.newest_action(context, instance)
    own = action is not None and action.action == _ACTIONS[migration.status]
    taken = own and action_events.taken_up(context, action)
    if taken and not _died(context, action, migration, cutoff):
        return False
    since = lost_actions.since(migration)
    if not migration.claim_unchanged():
        return False  # another conductor, or the late cast, has it
    request = (lost_actions.as_request(context, action) if own
               else lost_actions.new_request(context, instance,
                                             _ACTIONS[migration.status]))
    why = ('its conductor died running it' if taken else
           'its cast was lost' if own else
           'its cast was never sent, its action not recorded')
    LOG.warning('The %s of instance %s (migration %s) has waited since %s '
                'with no conductor finishing it (%s); running it here '
                '(request %s)', migration.status, instance.uuid,
                migration.uuid, since, why, request.request_id)
    task_class(request, instance, migration, scheduler_api,
               compute_api).execute()
    return True


def _died(context, action, migration, cutoff):
    """Whether the conductor that took the outcome up died with it: only
    conductor events on the action, none finished, started before
    ``cutoff``, and (for a revert, whose cast must not reach the
    destination twice) the destination up, so its event would be there
    had the cast been sent."""
    events = action_events.events(context, action)
    if not events or any(
            not event.event.startswith('conductor_') or
            event.finish_time is not None or event.start_time is None or
            event.start_time.replace(tzinfo=None) > cutoff
            for event in events):
        return False
    return (migration.status != records.REVERTING or
            migration.dest_compute in timeouts.up_computes(context))


def _end_unsent_reverts(context, cutoff):
    """Give VERIFY_RESIZE back to the servers left in resize_reverting
    with a ``finished`` migration (see the module docstring); returns
    {instance uuid: 'cleared'}."""
    done = {}
    for instance in objects.InstanceList.get_by_filters(
            context, {'task_state': [_T.RESIZE_REVERTING],
                      'vm_state': [fields.VMState.RESIZED],
                      'updated_before': cutoff},
            sort_key='id', sort_dir='asc'):
        try:
            if _end_unsent_revert(context, instance):
                done[instance.uuid] = 'cleared'
        except Exception:
            LOG.exception('Ending the unsent revert of instance %s failed',
                          instance.uuid)
    return done


def _end_unsent_revert(context, instance):
    try:
        objects.Migration.get_by_instance_and_status(
            context, instance.uuid, records.FINISHED)
    except exception.MigrationNotFound:
        return False  # reverting: the revert (or its resend) runs it
    instance.task_state = None
    try:
        instance.save(expected_task_state=[_T.RESIZE_REVERTING],
                      expected_vm_state=[fields.VMState.RESIZED])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError,
            exception.InstanceInvalidState):
        return False
    LOG.warning('Instance %s has been resize_reverting since %s with its '
                'migration still finished: the revert never started; '
                'back to VERIFY_RESIZE', instance.uuid,
                lost_actions.since(instance))
    error = exception.NovaLiteException(
        'The revert never started (the request failed before its '
        'migration was marked reverting); nothing was reverted')
    objects.InstanceFault.from_exception(context, instance.uuid,
                                         error).create()
    return True

