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
  delete), the allocations are kept until then.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import migration_usage
from nova_lite.conductor.tasks import move_records as records
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
MOVE_TASK_STATES = (_T.RESIZE_PREP, _T.RESIZE_MIGRATING, _T.RESIZE_MIGRATED,
                    _T.RESIZE_FINISH, _T.RESIZE_REVERTING)
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


def _active_migration(context, instance_uuid):
    found = objects.MigrationList.get_by_filters(context, {
        'instance_uuid': instance_uuid,
        'status': list(migration_usage.ACTIVE_STATUSES)}, limit=1)
    return found[0] if len(found) else None


def fail_stuck_moves(context, timeout, scheduler_api):
    """Settle every server in a move's task state not updated for
    ``timeout`` seconds (see the module docstring); returns their
    uuids."""
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=timeout))
    stuck = objects.InstanceList.get_by_filters(
        context, {'task_state': list(MOVE_TASK_STATES),
                  'updated_before': cutoff}, sort_key='id', sort_dir='asc')
    settled = []
    for instance in stuck:
        task_state = instance.task_state
        migration = _active_migration(context, instance.uuid)
        try:
            if task_state == _T.RESIZE_PREP and (
                    migration is None
                    or migration.status == records.PRE_MIGRATING):
                _undo(context, instance, migration, scheduler_api)
            else:
                _error(instance, migration, task_state)
        except _GONE:
            continue
        error = exception.InstanceTaskTimedOut(
            instance_uuid=instance.uuid, task_state=task_state,
            timeout=timeout, host=instance.host or '(none)')
        objects.InstanceFault.from_exception(context, instance.uuid,
                                             error).create()
        LOG.warning('%s', error.format_message())
        settled.append(instance.uuid)
    return settled


def _undo(context, instance, migration, scheduler_api):
    if migration is None:
        instance.task_state = None
        instance.save(expected_task_state=[_T.RESIZE_PREP])
        return
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        spec = None
    released = records.abandon_move(context, instance, migration, spec)
    scheduler_api.update_provider_states(context, released)


def _error(instance, migration, task_state):
    instance.vm_state = fields.VMState.ERROR
    instance.task_state = None
    instance.save(expected_task_state=[task_state])
    if migration is not None:
        migration.status = records.ERROR
        migration.save()
