"""The database side of an evacuation, one transaction per step, for
``evacuate`` and the conductor's ``complete_evacuation``.

Who holds what: from the start of an evacuation until its source compute
comes back and removes its copy of the VM, the source host's allocations
belong to the migration (its uuid is the consumer), the target's to the
instance, as for a resize. The source's resources are not given back
while a VM may still run there (its compute is only unreachable), and the
target is held as soon as the scheduler chose it.

Migration statuses (Nova's): ``accepted`` (written by the API),
``pre-migrating`` (allocations handed to the migration, scheduling),
``done`` (rebuilt on the target), ``completed`` (the source cleaned up),
``error`` (nothing fit, or every target tried failed).
"""

from nova_lite.db import api as db_api
from nova_lite.objects import fields
from nova_lite.placement import allocations

_T = fields.TaskState
_V = fields.VMState

ACCEPTED, PRE_MIGRATING, DONE = 'accepted', 'pre-migrating', 'done'
COMPLETED, ERROR = 'completed', 'error'
# The evacuations whose source may still hold the VM (Nova's list).
SOURCE_HOLDS = (ACCEPTED, PRE_MIGRATING, DONE)


def start_evacuation(context, instance, migration):
    """Hand the source allocations to ``migration`` and mark it
    pre-migrating, in one transaction. Raises UnexpectedTaskStateError
    (InstanceNotFound) if the instance left ``rebuilding`` (was
    deleted); nothing is written then."""
    with db_api.writer.using(context) as session:
        allocations.move_in_session(session, instance.uuid, migration.uuid,
                                    instance.project_id, instance.user_id)
        migration.status = PRE_MIGRATING
        migration.save()
        # Written even unchanged: the conditional save is the check, and
        # the new updated_at restarts the task's deadline.
        instance.task_state = _T.REBUILDING
        instance.save(expected_task_state=[_T.REBUILDING])


def record_target(context, migration, selection):
    """Name the chosen target on the migration."""
    migration.dest_compute = selection.service_host
    migration.dest_host = selection.service_host
    migration.dest_node = selection.nodename
    migration.save()


def abandon_evacuation(context, instance, migration):
    """Undo an evacuation that landed nowhere: the target's allocations
    go, the source's return to the instance, the migration is in error
    and the server in ERROR (Nova's outcome of a failed evacuation; its
    host is still the down one). One transaction; returns the provider
    uuids whose usage went down."""
    with db_api.writer.using(context) as session:
        released = set()
        if migration.status != ACCEPTED:
            released = allocations.remove_in_session(session, instance.uuid)
            allocations.move_in_session(
                session, migration.uuid, instance.uuid, instance.project_id,
                instance.user_id)
        migration.status = ERROR
        migration.save()
        instance.vm_state = _V.ERROR
        instance.task_state = None
        instance.save(expected_task_state=[_T.REBUILDING])
    return released


def complete_evacuation(context, migration):
    """The source came back and removed its copy: free what the
    migration holds there and mark it completed. Returns the provider
    uuids freed, or None if the migration was not ``done``."""
    with db_api.writer.using(context) as session:
        if migration.status != DONE:
            return None
        released = allocations.remove_in_session(session, migration.uuid)
        migration.status = COMPLETED
        migration.save()
    return released
