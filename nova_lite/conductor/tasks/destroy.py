"""Destroying an instance's records, and releasing what it holds.

Runs in the conductor. Callers reach it through ``Instance.destroy`` and
``Instance.release_quota``, the remotable entries computes and the API
already call (object_action brings them here; an older peer calls them
the same way), or directly when already in the conductor.

One step, one transaction: the instance row is read FOR UPDATE and
soft-deleted, its tags and allocations removed and its quota usage
released, all committed together, so nothing is undone on failure
(nothing was written). A move the instance had not settled is settled
in the same transaction (``_settle_moves``): the source host its
migration holds is freed, and the migration is marked as Nova leaves it
when a server goes mid-move: a move waiting in VERIFY_RESIZE is
confirmed (Nova's delete confirms it first), one still in flight goes to
``error``. Nothing is left for the orphaned-allocation sweep, and a
migration of a deleted server never counts as in progress.

The ``quota_released`` flag on the row makes the release happen exactly
once, whichever comes first of a destroy and the release of a build
that failed for good; of two destroys racing, the second finds no live
row (InstanceNotFound).
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conductor.tasks import move_records
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.objects import fields
from nova_lite.placement import allocations
from nova_lite.quota import reservations as quota_reservations
from nova_lite.quota import resources as quota_resources
from nova_lite.quota import usages as quota_usages


def _utcnow():
    return timeutils.utcnow().replace(tzinfo=None)


# What a delete makes of a move it interrupts, by status: one waiting for
# its decision is confirmed; an evacuation that is done stays so until
# its source comes back and completes it (compute/rebuild.py), which
# removes that host's copy; any other is in error (which a compute that
# comes back reads as a copy to remove, as Nova's incomplete-migration
# clean-up does).
_SETTLED_BY_DELETE = {
    move_records.FINISHED: move_records.CONFIRMED,
    move_records.CONFIRMING: move_records.CONFIRMED,
}
_KEPT_BY_DELETE = {('evacuation', 'done')}


def _settle_moves(session, uuid):
    """Free what the instance's unsettled migrations hold and mark them
    (see ``_SETTLED_BY_DELETE``); in the caller's transaction. Returns
    the provider uuids freed."""
    model = models.Migration
    rows = session.scalars(sa.select(model).where(
        model.instance_uuid == uuid, model.deleted == 0,
        model.status.not_in(allocations.MIGRATION_DONE_STATUSES))).all()
    released = set()
    for row in rows:
        released |= allocations.remove_in_session(session, row.uuid)
        if (row.migration_type, row.status) in _KEPT_BY_DELETE:
            continue
        row.status = _SETTLED_BY_DELETE.get(row.status, move_records.ERROR)
    return released


def _live_row_for_update(session, uuid):
    # Locked, so of two writers racing only one finds it live.
    return session.scalars(sa.select(models.Instance).filter_by(
        uuid=uuid, deleted=0).with_for_update()).first()


def _release_in_session(session, row):
    """Give back the row's quota unless it already was; True if given."""
    if row.quota_released:
        return False
    row.quota_released = True
    quota_reservations.release_in_session(
        session, row.project_id, row.user_id,
        quota_resources.instance_row_deltas(row))
    return True


@quota_usages.retry
@db_api.writer
def _destroy_in_db(context, uuid):
    session = context.session
    row = _live_row_for_update(session, uuid)
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    now = _utcnow()
    row.deleted = row.id
    row.deleted_at = now
    row.terminated_at = row.terminated_at or now
    row.vm_state = fields.VMState.DELETED
    row.task_state = None
    session.flush()
    # A deleted server has no tags (as in Nova); the row locked above
    # keeps a concurrent tag write from adding one back.
    session.execute(sa.delete(models.Tag).where(
        models.Tag.resource_id == uuid))
    released = allocations.remove_in_session(session, uuid)
    released |= _settle_moves(session, uuid)
    _release_in_session(session, row)
    session.flush()
    return row, released


def destroy(context, instance):
    """Soft-delete ``instance``, free its allocations and release its
    quota usage, atomically (so exactly once); refresh ``instance`` from
    the deleted row.

    Returns the sorted uuids of the providers whose usage went down (the
    write told the schedulers once committed: ``placement.changes``).
    Raises InstanceNotFound if it is gone.
    """
    row, released = _destroy_in_db(context, instance.uuid)
    instance._from_db_object(context, instance, row)
    return sorted(released)


@quota_usages.retry
@db_api.writer
def _release_quota_in_db(context, uuid):
    return release_quota_in_session(context.session, uuid)


def release_quota_in_session(session, instance_uuid):
    """``release_quota`` inside the caller's transaction."""
    row = _live_row_for_update(session, instance_uuid)
    return row is not None and _release_in_session(session, row)


def release_quota(context, instance_uuid):
    """Give back the quota a live instance holds, once (a build that
    failed for good): a later destroy does not release it again. Returns
    whether anything was released."""
    return _release_quota_in_db(context, instance_uuid)
