"""No server stays in a rebuild's task state forever.

A compute that died mid-rebuild (or a cast that was lost) leaves the
server in ``rebuilding``, ``rebuild_block_device_mapping`` or
``rebuild_spawning``. After ``[conductor] task_timeout`` seconds without
an update the conductor ends it with a fault saying so, as Nova's
compute does at start for a rebuild it was running (ERROR: the guest's
state is unknown):

* an evacuation not yet done (its migration ``accepted`` or
  ``pre-migrating``) is abandoned (``evacuate_records.abandon_evacuation``:
  the target's allocations go, the source's return to the instance, the
  migration in ``error``, the server in ERROR on its old host);
* any other rebuild: the server goes to ERROR with no task.

A rebuild whose compute (an evacuation's target) is down is ended the
same way at once, without waiting for the timeout.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor.tasks import evacuate_records as records
from nova_lite.conductor.tasks import timeouts
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_T = fields.TaskState
REBUILD_TASK_STATES = (_T.REBUILDING, _T.REBUILD_BLOCK_DEVICE_MAPPING,
                       _T.REBUILD_SPAWNING)
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)


def _evacuation(context, instance_uuid):
    found = objects.MigrationList.get_by_filters(context, {
        'instance_uuid': instance_uuid, 'migration_type': 'evacuation',
        'status': [records.ACCEPTED, records.PRE_MIGRATING]}, limit=1)
    return found[0] if len(found) else None


def fail_stuck_rebuilds(context, timeout, down=None):
    """ERROR every server in a rebuild's task state not updated for
    ``timeout`` seconds, or whose rebuilding compute is down (see the
    module docstring); returns their uuids."""
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=timeout))
    stuck = objects.InstanceList.get_by_filters(
        context, {'task_state': list(REBUILD_TASK_STATES),
                  'updated_before': cutoff}, sort_key='id', sort_dir='asc')
    settled = [instance.uuid for instance in stuck
               if _end(context, instance,
                       exception.InstanceTaskTimedOut(
                           instance_uuid=instance.uuid,
                           task_state=instance.task_state, timeout=timeout,
                           host=instance.host or '(none)'))]
    down = timeouts.down_computes(context) if down is None else down
    if not down:
        return settled
    rebuilding = objects.InstanceList.get_by_filters(
        context, {'task_state': list(REBUILD_TASK_STATES)}, sort_key='id',
        sort_dir='asc')
    for instance in rebuilding:
        migration = _evacuation(context, instance.uuid)
        host = (migration.dest_compute if migration is not None
                else instance.host)
        if (instance.uuid not in settled and host in down
                and _end(context, instance,
                         exception.TaskHostDown(
                             instance_uuid=instance.uuid,
                             task_state=instance.task_state, host=host))):
            settled.append(instance.uuid)
    return settled


def _end(context, instance, error):
    """Settle with ``error`` as the fault; False if the server changed
    meanwhile."""
    try:
        _settle(context, instance, instance.task_state)
    except _GONE:
        return False
    objects.InstanceFault.from_exception(context, instance.uuid,
                                         error).create()
    LOG.warning('%s', error.format_message())
    return True


def _settle(context, instance, task_state):
    migration = _evacuation(context, instance.uuid)
    if migration is not None and task_state == _T.REBUILDING:
        records.abandon_evacuation(context, instance, migration)
        return
    instance.vm_state = fields.VMState.ERROR
    instance.task_state = None
    instance.save(expected_task_state=[task_state])
    if migration is not None:
        migration.status = records.ERROR
        migration.save()
