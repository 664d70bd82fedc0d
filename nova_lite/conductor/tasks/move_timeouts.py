"""No server stays in a move's task state forever.

A compute that died mid-move (or a cast that was lost) leaves the server
in ``resize_prep``, ``resize_migrating``, ... After ``[conductor]
task_timeout`` seconds without an update the conductor decides, with a
fault saying so:

* ``resize_prep`` before any compute touched the VM (migration still
  ``pre-migrating``, or none yet): the move is undone as if nothing fit
  (``move_records.abandon_move``), the server stays where it was;
* any later step (the source may have powered the VM off, the
  destination may have started it, a revert was half done): the server
  goes to ERROR and the migration to ``error``, as Nova leaves a failed
  move; an administrator sorts out the hosts (``os-resetState``,
  delete). The server holds the host its record names: a cold move
  before VERIFY_RESIZE still names its source, so the source's
  allocations return to the instance and the destination's are freed
  (Nova's revert of the allocations after a failed step); after it, the
  destination's stay and the migration's (source) ones are freed. A
  revert is past VERIFY_RESIZE wherever its record names: one whose
  records went back to the source keeps the source, the instance's.

A live migration (``migrating``) keeps its VM running on the source
until the copy is done, so a stuck one whose migration is not yet
``post-migrating`` goes back to the source (``abandon_move``: ACTIVE
there, the destination's allocation freed, migration ``error``); one
that reached ``post-migrating`` (the VM left the source) goes to ERROR
as above. Its clock is the later of the instance's and the migration's
last update, since each step of the computes updates the migration.

A move needs both of its computes to finish, so one whose source or
destination compute is down (no heartbeat within ``service_down_time``)
is settled the same way at once, without waiting for the timeout, with a
fault naming that compute. A compute that comes back and still works on
such a move finds its conditional saves refused and stops. A compute
that restarts sooner than it is seen down says so as it starts
(``settle_restarted``, conductor RPC 1.8): the moves whose current step
was its own (``STEP_ON``) are settled the same way then, and so are the
moves still in ``resize_prep`` whose prep (destination) or resize
(source) it had started and not finished (``EVENT_ON``: a compute
records the step's event before its first save).
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import migration_usage
from nova_lite.conductor.tasks import action_events
from nova_lite.conductor.tasks import move_records as records
from nova_lite.conductor.tasks import timeouts
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
MOVE_TASK_STATES = (_T.RESIZE_PREP, _T.RESIZE_MIGRATING, _T.RESIZE_MIGRATED,
                    _T.RESIZE_FINISH, _T.RESIZE_REVERTING, _T.MIGRATING)
# A live migration's statuses while its VM still runs on the source.
LIVE_ON_SOURCE = (records.ACCEPTED, 'queued', 'preparing', 'running')
_LIVE_ACTIVE = LIVE_ON_SOURCE + (records.POST_MIGRATING,)
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)
# The steps a compute marks itself as it starts them: one killed while it
# worked on one lost it. (A step another party asked for, such as a prep
# or a finish still queued for it, is consumed after a restart, so a
# graceful restart in an upgrade must not settle it.)
STEP_ON = {
    _T.RESIZE_MIGRATING: ('source',),
    _T.RESIZE_FINISH: ('dest',),
}
# The steps of a move in resize_prep a compute marks by their event's
# start: event -> the side that runs it.
EVENT_ON = {
    'compute_prep_resize': 'dest',
    'compute_resize_instance': 'source',
}


def _active_migration(context, instance_uuid, live=False):
    statuses = _LIVE_ACTIVE if live else migration_usage.ACTIVE_STATUSES
    found = objects.MigrationList.get_by_filters(context, {
        'instance_uuid': instance_uuid,
        'status': list(statuses)}, limit=1)
    return found[0] if len(found) else None


def _still_going(migration, cutoff):
    """A live migration whose computes reported after ``cutoff``."""
    updated = migration.updated_at or migration.created_at
    return updated is not None and updated.replace(tzinfo=None) > cutoff


def fail_stuck_moves(context, timeout, down=None):
    """Settle every server in a move's task state not updated for
    ``timeout`` seconds, or whose move involves a compute that is down
    (see the module docstring); returns their uuids."""
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=timeout))
    settled = []
    stuck = objects.InstanceList.get_by_filters(
        context, {'task_state': list(MOVE_TASK_STATES),
                  'updated_before': cutoff}, sort_key='id', sort_dir='asc')
    for instance in stuck:
        live = instance.task_state == _T.MIGRATING
        migration = _active_migration(context, instance.uuid, live)
        if live and migration is not None and _still_going(migration,
                                                           cutoff):
            continue
        error = exception.InstanceTaskTimedOut(
            instance_uuid=instance.uuid, task_state=instance.task_state,
            timeout=timeout, host=instance.host or '(none)')
        if settle(context, instance, migration, error):
            settled.append(instance.uuid)
    down = timeouts.down_computes(context) if down is None else down
    if not down:
        return settled
    moving = objects.InstanceList.get_by_filters(
        context, {'task_state': list(MOVE_TASK_STATES)}, sort_key='id',
        sort_dir='asc')
    for instance in moving:
        if instance.uuid in settled:
            continue
        migration = _active_migration(context, instance.uuid,
                                      instance.task_state == _T.MIGRATING)
        host = _host_down(instance, migration, down)
        if host is None:
            continue
        error = exception.MoveHostDown(instance_uuid=instance.uuid,
                                       task_state=instance.task_state,
                                       host=host)
        if settle(context, instance, migration, error):
            settled.append(instance.uuid)
    return settled


def settle_restarted(context, host):
    """Settle every move whose current step was on compute ``host``,
    which restarted and lost it (see the module docstring); returns
    their uuids."""
    settled = []
    moving = objects.InstanceList.get_by_filters(
        context, {'task_state': list(MOVE_TASK_STATES)}, sort_key='id',
        sort_dir='asc')
    for instance in moving:
        migration = _active_migration(context, instance.uuid,
                                      instance.task_state == _T.MIGRATING)
        if migration is None or (
                host not in _step_hosts(instance, migration) and
                not _unfinished_on(context, instance, migration, host)):
            continue
        error = exception.MoveHostRestarted(instance_uuid=instance.uuid,
                                            task_state=instance.task_state,
                                            host=host)
        if settle(context, instance, migration, error):
            settled.append(instance.uuid)
    return settled


def _step_hosts(instance, migration):
    sides = {'source': migration.source_compute,
             'dest': migration.dest_compute}
    return {sides[side] for side in STEP_ON.get(instance.task_state, ())}


def _unfinished_on(context, instance, migration, host):
    """Whether ``host`` started a step of this move in resize_prep
    (``EVENT_ON``) and never finished it."""
    if instance.task_state != _T.RESIZE_PREP:
        return False
    action = action_events.newest_action(context, instance)
    if action is None:
        return False
    sides = {'source': migration.source_compute,
             'dest': migration.dest_compute}
    return any(
        event.finish_time is None and event.event in EVENT_ON and
        event.host == host == sides[EVENT_ON[event.event]]
        for event in action_events.events(context, action))


def _host_down(instance, migration, down):
    """The move's compute that is down, if any."""
    hosts = ({migration.source_compute, migration.dest_compute}
             if migration is not None else {instance.host})
    return next((host for host in sorted(hosts - {None}) if host in down),
                None)


def settle(context, instance, migration, error):
    """Undo the move or put the server in ERROR, with ``error`` as its
    fault; False if the server changed meanwhile."""
    task_state = instance.task_state
    live = task_state == _T.MIGRATING
    try:
        if live and (migration is None
                     or migration.status in LIVE_ON_SOURCE):
            _undo(context, instance, migration, task_state)
        elif task_state == _T.RESIZE_PREP and (
                migration is None
                or migration.status == records.PRE_MIGRATING):
            _undo(context, instance, migration)
        else:
            _error(context, instance, migration, task_state)
    except _GONE:
        return False
    objects.InstanceFault.from_exception(context, instance.uuid,
                                         error).create()
    LOG.warning('%s', error.format_message())
    return True


def _undo(context, instance, migration, task_state=_T.RESIZE_PREP):
    if migration is None:
        instance.task_state = None
        instance.save(expected_task_state=[task_state])
        return
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        spec = None
    records.abandon_move(context, instance, migration, spec,
                                    task_state=task_state)


def _error(context, instance, migration, task_state):
    """ERROR, on the host the server's record names. A cold move that
    had not reached VERIFY_RESIZE still names its source: as Nova after
    a failed step, the source's allocations return to the instance and
    the destination's go, so placement agrees with where it is."""
    instance.vm_state = fields.VMState.ERROR
    # A revert whose records already went back to the source (the
    # destination's VM is gone, the source never started it) holds the
    # source as the instance: there is nothing of the migration to give
    # back, and undoing would free the source under the VM's copy.
    if (migration is not None
            and task_state not in (_T.MIGRATING, _T.RESIZE_REVERTING)
            and instance.host == migration.source_compute):
        _undo(context, instance, migration, task_state)
        return
    instance.task_state = None
    instance.save(expected_task_state=[task_state])
    if migration is not None:
        migration.status = records.ERROR
        migration.save()
