"""The database side of a move (resize, cold and live migration), one
transaction per step, for the tasks in ``migrate``, ``resize_outcome``
and ``live_migrate``.

Who holds what (as Nova since Queens): from the start of a move until it
is confirmed or reverted (a live migration: completed or failed), the
source host's allocations belong to the
migration (its uuid is the consumer) and the destination's to the
instance. Neither host is ever free while the move may still land there.

Quota: while a move is unsettled the instance row counts the larger of
the two flavors (cores, ram): a larger flavor's difference is committed
when the move starts, in the transaction that marks the row so; confirm
brings the row to the new flavor and revert (or a failure) back to the
old one, releasing the difference in the same transaction. The usage
and the rows that account for it therefore never disagree, and
``nova-lite-manage quota verify`` stays clean at every step. (The video
RAM of a flavor's extra specs is not part of that difference.)
"""

from oslo_utils import uuidutils

from nova_lite.conductor.tasks import ownership
from nova_lite.db import api as db_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.placement import allocations
from nova_lite.quota import reservations as quota_reservations
from nova_lite.quota import usages as quota_usages

_T = fields.TaskState
_V = fields.VMState

PRE_MIGRATING, MIGRATING, POST_MIGRATING = (
    'pre-migrating', 'migrating', 'post-migrating')
FINISHED, CONFIRMING, CONFIRMED = 'finished', 'confirming', 'confirmed'
REVERTING, REVERTED, ERROR = 'reverting', 'reverted', 'error'
# A live migration's own: created, then settled (queued, preparing,
# running and post-migrating are the source compute's).
LIVE_MIGRATION, ACCEPTED, COMPLETED = 'live-migration', 'accepted', 'completed'
CANCELLED = 'cancelled'


def _held(instance):
    return {'cores': instance.vcpus, 'ram': instance.memory_mb}


def _release(session, instance, target_flavor, held):
    """Bring the row's counted size (``held``, what it counted when the
    step began: a retried transaction must not read it back from the
    object it already changed) to ``target_flavor`` and release what it
    counted beyond that."""
    deltas = {'cores': max(held['cores'] - target_flavor.vcpus, 0),
              'ram': max(held['ram'] - target_flavor.memory_mb, 0)}
    instance.vcpus = target_flavor.vcpus
    instance.memory_mb = target_flavor.memory_mb
    if any(deltas.values()):
        quota_reservations.release_in_session(
            session, instance.project_id, instance.user_id, deltas)


@quota_usages.retry
def start_move(context, instance, flavor, migration_type, reservation):
    """Create the Migration (pre-migrating), hand the source allocations
    to it, count the larger flavor and commit ``reservation`` (a dict of
    a quota Reservation's fields, or None), all in one transaction.

    Raises UnexpectedTaskStateError if the instance left RESIZE_PREP
    (deleted meanwhile: InstanceNotFound), ReservationExpired if the quota
    reservation is gone; nothing is written then. Returns the Migration.
    """
    with db_api.writer.using(context) as session:
        migration = _hand_source_to_migration(
            context, session, instance, flavor, migration_type,
            PRE_MIGRATING)
        instance.old_flavor = instance.flavor
        instance.new_flavor = flavor
        instance.vcpus = max(instance.flavor.vcpus, flavor.vcpus)
        instance.memory_mb = max(instance.flavor.memory_mb,
                                 flavor.memory_mb)
        instance.save(expected_task_state=[_T.RESIZE_PREP])
        ownership.own_move_in_session(context, session, instance.uuid)
        if reservation:
            quota_reservations.commit_in_session(
                session, quota_reservations.Reservation(**reservation))
    return migration


def _hand_source_to_migration(context, session, instance, flavor,
                              migration_type, status, dest_compute=None):
    """Create the Migration and make it the consumer of the instance's
    (source) allocations; in the caller's transaction."""
    migration = objects.Migration(
        context, uuid=uuidutils.generate_uuid(),
        source_compute=instance.host, source_node=instance.node,
        dest_compute=dest_compute,
        old_instance_type_id=instance.flavor.id,
        new_instance_type_id=flavor.id, status=status,
        migration_type=migration_type, instance_uuid=instance.uuid,
        project_id=instance.project_id, user_id=instance.user_id,
        hidden=False, cross_cell_move=False)
    migration.create()
    allocations.move_in_session(session, instance.uuid, migration.uuid,
                                instance.project_id, instance.user_id)
    return migration


def start_live_move(context, instance, dest_compute=None):
    """Create the live migration (``accepted``, naming the requested
    host if any) and hand it the source allocations, in one transaction;
    the instance's flavor does not change. Returns the Migration."""
    with db_api.writer.using(context) as session:
        return _hand_source_to_migration(
            context, session, instance, instance.flavor, LIVE_MIGRATION,
            ACCEPTED, dest_compute=dest_compute)


def complete_live_move(context, instance, migration):
    """The VM runs on the destination: the instance lives there, the
    migration's (source) allocations go, the task state is cleared and
    the migration completed, in one transaction. Raises
    UnexpectedTaskStateError (InstanceNotFound) if the instance is no
    longer migrating, writing nothing. Returns the provider uuids
    freed."""
    node = objects.ComputeNode.get_by_host_and_nodename(
        context, migration.dest_compute, migration.dest_node)
    with db_api.writer.using(context) as session:
        released = allocations.remove_in_session(session, migration.uuid)
        instance.host = migration.dest_compute
        instance.node = migration.dest_node
        instance.compute_node_uuid = node.uuid
        instance.task_state = None
        instance.save(expected_task_state=[_T.MIGRATING])
        migration.status = COMPLETED
        migration.save()
    return released


def record_destination(context, migration, selection, request_spec, flavor):
    """Name the destination on the migration and keep the new flavor in
    the saved RequestSpec (one transaction)."""
    with db_api.writer.using(context):
        migration.dest_compute = selection.service_host
        migration.dest_host = selection.service_host
        migration.dest_node = selection.nodename
        migration.save()
        if request_spec is not None:
            request_spec.flavor = flavor
            request_spec.save()


def abandon_move(context, instance, migration, request_spec,
                 task_state=_T.RESIZE_PREP, status=ERROR):
    """Undo a move that never reached its destination: the destination's
    allocations go, the source's return to the instance, the row counts
    the old flavor again (its quota difference released), the task state
    (``task_state``: RESIZE_PREP, or MIGRATING for a live migration) is
    cleared and the migration is in ``status`` (error, or cancelled).
    One transaction; returns the provider uuids whose usage went down."""
    return _abandon(context, instance, migration, request_spec,
                    instance.old_flavor or instance.flavor, _held(instance),
                    task_state, status)


@quota_usages.retry
def _abandon(context, instance, migration, request_spec, old, held,
             task_state, status):
    with db_api.writer.using(context) as session:
        released = allocations.remove_in_session(session, instance.uuid)
        allocations.move_in_session(session, migration.uuid, instance.uuid,
                                    instance.project_id, instance.user_id)
        migration.status = status
        migration.save()
        _release(session, instance, old, held)
        instance.old_flavor = None
        instance.new_flavor = None
        instance.task_state = None
        instance.save(expected_task_state=[task_state])
        if request_spec is not None:
            request_spec.flavor = old
            request_spec.save()
    return released


def confirm_move(context, instance, migration):
    """Settle a move where it went: the migration's (source) allocations
    go, the row counts the new flavor (a smaller flavor's difference
    released), the server is ACTIVE again (STOPPED if it was off) and the
    migration confirmed. Raises InstanceInvalidState or
    UnexpectedTaskStateError, writing nothing, unless the server is in
    VERIFY_RESIZE with no task (or being deleted). Returns the provider
    uuids freed."""
    return _confirm(context, instance, migration,
                    instance.new_flavor or instance.flavor, _held(instance))


@quota_usages.retry
def _confirm(context, instance, migration, new, held):
    with db_api.writer.using(context) as session:
        released = allocations.remove_in_session(session, migration.uuid)
        _release(session, instance, new, held)
        instance.old_flavor = None
        instance.new_flavor = None
        instance.vm_state = _settled_vm_state(instance)
        # A delete confirms first (Nova's order), so DELETING is fine.
        instance.save(expected_vm_state=[_V.RESIZED],
                      expected_task_state=[None, _T.DELETING])
        migration.status = CONFIRMED
        migration.save()
    return released


def revert_move(context, instance, migration, request_spec):
    """Put the records back on the source: the destination's allocations
    go, the source's return to the instance, the old flavor is the
    instance's (and the RequestSpec's) again, with its quota difference
    released. The task state (RESIZE_REVERTING) stays until the source
    has the VM running. Returns the provider uuids freed."""
    node = objects.ComputeNode.get_by_host_and_nodename(
        context, migration.source_compute, migration.source_node)
    return _revert(context, instance, migration, request_spec,
                   instance.old_flavor or instance.flavor, node.uuid,
                   _held(instance))


@quota_usages.retry
def _revert(context, instance, migration, request_spec, old, node_uuid,
            held):
    with db_api.writer.using(context) as session:
        released = allocations.remove_in_session(session, instance.uuid)
        allocations.move_in_session(session, migration.uuid, instance.uuid,
                                    instance.project_id, instance.user_id)
        _release(session, instance, old, held)
        instance.flavor = old
        instance.root_gb = old.root_gb
        instance.ephemeral_gb = old.ephemeral_gb
        instance.old_flavor = None
        instance.new_flavor = None
        instance.host = migration.source_compute
        instance.node = migration.source_node
        instance.compute_node_uuid = node_uuid
        instance.save(expected_task_state=[_T.RESIZE_REVERTING])
        if request_spec is not None:
            request_spec.flavor = old
            request_spec.save()
    return released


def _settled_vm_state(instance):
    """ACTIVE, or STOPPED for a server that was moved while off."""
    if instance.power_state == fields.PowerState.SHUTDOWN:
        return _V.STOPPED
    return _V.ACTIVE
