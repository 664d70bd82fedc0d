"""Server actions whose cast never reached a compute or a conductor.

The API writes an action's task state and records the action before it
casts the work. A cast the bus refused (the API answers 503: it writes
only through the conductors, so it cannot undo its own write then) or one
never sent (the API killed in between) would leave the server in that
task until ``[conductor] task_timeout`` (600 s). Every ``[conductor]
lost_build_check_interval`` seconds each conductor looks for servers in
such a task for more than ``[conductor] action_resend_after`` seconds
whose action nobody took up:

* a power action (reboot, stop, start, pause, unpause, suspend, resume)
  with no compute event (a compute records ``compute_<method>`` as it
  starts): cast again to the server's compute, if it is up, under the
  action's request id, so its events land on the action. An action the
  API never recorded (it set the task, then failed and answered 503) is
  run under a request of its own, its action recorded first, as the API
  would have. A compute that
  got the first cast after all runs the request once (it remembers the
  requests it ran, see ``compute/manager.py``). A compute that is down is
  the down-compute check's (``timeouts.py``);
* a resize or migration still in ``resize_prep`` with no migration
  record (the conductor's first step writes one) after ``MOVE_FACTOR``
  times as long (a conductor that far behind would still take it up):
  the task state is cleared with a fault; the move's quota reservation,
  never committed, expires by itself;
* one with its migration record, no compute event yet and a conductor
  owner that is gone (the conductor process named in the move's start,
  see ``ownership.py``, was killed before it cast the move to a
  compute): settled as a move whose compute is down (undone: the server
  stays where it was, ``move_timeouts.settle``);
* one whose conductor cast ``prep_resize`` to the destination (its
  ``conductor_migrate_server`` event ended in success) that no compute
  took up since (the destination killed as it took the cast, or the
  bus lost it): cast again to the destination, if it is up, without
  alternates (a prep that fails there undoes the move). A destination
  that got the first cast after all runs the prep once (it remembers
  the migrations it prepared, see ``compute/manager.py``);
* a move in ``resize_migrated`` (the source handed its VM over and
  marked the migration ``post-migrating``) whose destination never
  started the finish (no ``compute_finish_resize`` event): the source's
  ``finish_resize`` cast was lost (the source killed as it sent it, or
  the bus), so it is cast again to the destination, if it is up. The
  destination's first step is a conditional save from
  ``resize_migrated``, so a finish that arrives twice runs once;
* a move in ``resize_prep`` whose destination finished its prep
  (``compute_prep_resize`` ended in success) but whose source never
  started the resize (no ``compute_resize_instance`` event): the
  destination's ``resize_instance`` cast was lost (the destination
  killed as it sent it, or the source killed as it took it), so it is
  cast again to the source, if it is up. The source's first step is a
  conditional save from ``resize_prep``.

The server's ``updated_at`` is stamped as the action is sent again, so a
slow compute gets it once per ``action_resend_after``.

    lost_actions.resend(context, compute_api, after)
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor.tasks import action_events
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import move_timeouts
from nova_lite.conductor.tasks import ownership
from nova_lite.conductor.tasks import timeouts
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)

_T = fields.TaskState
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)

# task_state -> (the API's action name, the compute RPC method, its
# arguments besides the instance).
POWER = {
    _T.REBOOTING: ('reboot', 'reboot_instance', {'reboot_type': 'SOFT'}),
    _T.REBOOTING_HARD: ('reboot', 'reboot_instance',
                        {'reboot_type': 'HARD'}),
    _T.POWERING_OFF: ('stop', 'stop_instance', {}),
    _T.POWERING_ON: ('start', 'start_instance', {}),
    _T.PAUSING: ('pause', 'pause_instance', {}),
    _T.UNPAUSING: ('unpause', 'unpause_instance', {}),
    _T.SUSPENDING: ('suspend', 'suspend_instance', {}),
    _T.RESUMING: ('resume', 'resume_instance', {}),
}
MOVES = ('resize', 'migrate')
# A move's cast is taken for lost after this many times ``after``.
MOVE_FACTOR = 3


def resend(context, compute_api, after):
    """Send again (or end) every action nobody took up within ``after``
    seconds; return {uuid: 'cast' or 'cleared'}. Never raises for one
    instance."""
    now = timeutils.utcnow().replace(tzinfo=None)
    stuck = _stuck(context, list(POWER) + [_T.RESIZE_PREP,
                                           _T.RESIZE_MIGRATED], now, after)
    if not stuck:
        return {}
    moves_before = now - datetime.timedelta(seconds=after * MOVE_FACTOR)
    up = _UpComputes(context)
    done = {}
    for instance in stuck:
        try:
            if instance.task_state == _T.RESIZE_PREP:
                outcome = _end_lost_move(context, compute_api, instance,
                                         moves_before, up)
            else:
                resend_one = (_resend_finish if instance.task_state ==
                              _T.RESIZE_MIGRATED else _resend_power)
                outcome = resend_one(context, compute_api, instance, up)
        except Exception:
            LOG.exception('Handling the lost action of instance %s failed',
                          instance.uuid)
            continue
        if outcome:
            done[instance.uuid] = outcome
    return done


class _UpComputes:
    """The computes that are up, read once and only when asked."""

    def __init__(self, context):
        self._context = context
        self._hosts = None

    def __contains__(self, host):
        if self._hosts is None:
            self._hosts = timeouts.up_computes(self._context)
        return host in self._hosts


def _stuck(context, task_states, now, after):
    return list(objects.InstanceList.get_by_filters(
        context, {'task_state': task_states,
                  'updated_before': now - datetime.timedelta(seconds=after)},
        sort_key='id', sort_dir='asc'))


def _resend_power(context, compute_api, instance, up):
    name, method, kwargs = POWER[instance.task_state]
    if instance.host not in up:
        return None  # the down-compute check settles it
    action = action_events.newest_action(context, instance)
    recorded = action is not None and action.action == name
    if recorded and action_events.taken_up(context, action, 'compute_'):
        return None
    if not _stamp(instance):
        return None
    # Unrecorded: the API set the task and failed before it recorded the
    # action (it answered 503); the action is run under a request of its
    # own, recorded first as the API would have.
    request = (as_request(context, action) if recorded
               else new_request(context, instance, name))
    LOG.warning('Instance %s has been %s since %s without its compute %s '
                'starting it (%s); casting %s again (request %s)',
                instance.uuid, instance.task_state, since(instance),
                instance.host, 'its cast was lost' if recorded else
                'its action never recorded', method, request.request_id)
    getattr(compute_api, method)(request, instance, **kwargs)
    return 'cast'


def _resend_finish(context, compute_api, instance, up):
    try:
        migration = objects.Migration.get_by_instance_and_status(
            context, instance.uuid, 'post-migrating')
    except exception.MigrationNotFound:
        return None
    if migration.dest_compute not in up:
        return None  # the down-compute check settles it
    action = action_events.newest_action(context, instance)
    if action is None or action.action not in MOVES or (
            action_events.taken_up(context, action,
                                   'compute_finish_resize')):
        return None
    if not _stamp(instance):
        return None
    LOG.warning('Instance %s has been resize_migrated since %s without '
                'its destination %s starting the finish; casting '
                'finish_resize again (request %s)', instance.uuid,
                since(instance), migration.dest_compute, action.request_id)
    compute_api.finish_resize(as_request(context, action), instance,
                              migration,
                              instance.new_flavor or instance.flavor)
    return 'cast'


def _end_lost_move(context, compute_api, instance, moves_before, up):
    action = action_events.newest_action(context, instance)
    if action is not None and action.action not in MOVES:
        action = None  # the API failed before it recorded the move
    try:
        migration = objects.Migration.get_by_instance_and_status(
            context, instance.uuid, 'pre-migrating')
    except exception.MigrationNotFound:
        migration = None
    if migration is not None:
        if action is None:
            return None
        events = action_events.events(context, action)
        if _prepared(events, migration):
            return _resend_resize(context, compute_api, instance, migration,
                                  action, up)
        if _prep_unanswered(events):
            return _resend_prep(context, compute_api, instance, migration,
                                action, up)
        return _end_orphaned_move(context, instance, events, migration)
    if instance.updated_at.replace(tzinfo=None) >= moves_before:
        return None  # a conductor that far behind may still take it up
    what = action.action if action is not None else 'move'
    error = exception.NovaLiteException(
        'The %s never reached a conductor (its cast was lost); nothing '
        'was moved' % what)
    instance.task_state = None
    try:
        instance.save(expected_task_state=[_T.RESIZE_PREP])
    except _GONE:
        return None
    LOG.warning('Instance %s has been in resize_prep since %s with no '
                'migration: the %s never reached a conductor; cleared',
                instance.uuid, since(instance), what)
    try:
        objects.InstanceFault.from_exception(context, instance.uuid,
                                             error).create()
    except Exception:
        LOG.exception('Recording the fault of instance %s failed',
                      instance.uuid)
    return 'cleared'


def _prepared(events, migration):
    """Whether the move's destination finished its prep and the source
    never started the resize (``events``: the move's, oldest first)."""
    if any(event.event == 'compute_resize_instance' for event in events):
        return False
    preps = [event for event in events
             if event.event == 'compute_prep_resize']
    return bool(preps) and preps[-1].finish_time is not None and (
        preps[-1].result == instance_action.RESULT_SUCCESS and
        preps[-1].host == migration.dest_compute)


def _prep_unanswered(events):
    """Whether the conductor's newest step of the move ended with the
    prep cast to the destination (its event finished in success) and no
    compute started a step since."""
    for event in reversed(events):
        if event.event.startswith('compute_'):
            return False
        if event.event == migrate.EVENT:
            return event.finish_time is not None and (
                event.result == instance_action.RESULT_SUCCESS)
    return False


def _resend_prep(context, compute_api, instance, migration, action, up):
    """Cast the prep again to the move's destination, without alternates
    (they went with the lost cast): a prep that fails there undoes the
    move."""
    if migration.dest_compute not in up:
        return None  # the down-compute check settles it
    if not _stamp(instance):
        return None
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        spec = None
    LOG.warning('Instance %s has been resize_prep since %s without its '
                'destination %s starting the prep; casting prep_resize '
                'again (request %s)', instance.uuid, since(instance),
                migration.dest_compute, action.request_id)
    compute_api.prep_resize(as_request(context, action), instance,
                            migration, instance.new_flavor or instance.flavor,
                            spec, [])
    return 'cast'


def _resend_resize(context, compute_api, instance, migration, action, up):
    if migration.source_compute not in up:
        return None  # the down-compute check settles it
    if not _stamp(instance):
        return None
    LOG.warning('Instance %s has been resize_prep since %s with its '
                'destination %s prepared and its source %s not started; '
                'casting resize_instance again (request %s)', instance.uuid,
                since(instance), migration.dest_compute,
                migration.source_compute, action.request_id)
    compute_api.resize_instance(as_request(context, action), instance,
                                migration,
                                instance.new_flavor or instance.flavor)
    return 'cast'


def _end_orphaned_move(context, instance, events, migration):
    """Settle a started move whose conductor died before a compute took
    it up; None while its conductor lives or a compute has it."""
    if any(event.event.startswith('compute_') for event in events):
        return None
    owner = ownership.owner_of(context, instance.uuid)
    if not owner or owner.startswith(ownership.HANDED_OFF) or \
            not ownership.is_gone(context, owner):
        return None
    error = exception.MoveConductorGone(instance_uuid=instance.uuid,
                                        owner=owner)
    if not move_timeouts.settle(context, instance, migration, error):
        return None
    return 'undone'


def _stamp(instance):
    """Write the same task state again (conditionally), which moves
    ``updated_at``; False if the server left it meanwhile."""
    instance.task_state = instance.task_state
    try:
        instance.save(expected_task_state=[instance.task_state])
    except _GONE:
        return False
    return True


def as_request(context, action):
    """A context for the cast that carries the action's request id and
    owner, as the API's cast did."""
    return nl_context.RequestContext(
        user_id=action.user_id, project_id=action.project_id,
        is_admin=True, request_id=action.request_id)


def new_request(context, instance, name):
    """A request for an action the API never recorded, owned by the
    server's owner, with its action ``name`` recorded."""
    request = nl_context.RequestContext(
        user_id=instance.user_id, project_id=instance.project_id,
        is_admin=True)
    objects.InstanceAction.for_request(request, instance.uuid,
                                       name).create()
    return request


def since(record):
    """When ``record`` (an instance, a migration) was last written, for
    the logs."""
    return record.updated_at.isoformat() if record.updated_at else '?'
