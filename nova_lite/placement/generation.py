"""The compare-and-swap on a resource provider's generation."""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.db import models
from nova_lite import exception
from nova_lite.placement import changes


def bump(session, provider_id, provider_uuid, expected, claimed=False):
    """Increment the generation of a provider if it is still ``expected``.

    Returns the new generation. Raises ClaimConflict when another writer
    moved it first; the caller's transaction must then be rolled back and
    its decision made again on fresh state. Every change to a provider
    moves its generation through here or ``touch``, which is where the
    schedulers' notice of it is noted (``changes``). ``claimed``: for a
    claim of allocations (its notice may wait, see ``changes``).
    """
    result = session.execute(
        sa.update(models.ResourceProvider)
        .where(models.ResourceProvider.id == provider_id,
               models.ResourceProvider.generation == expected)
        .values(generation=expected + 1))
    if result.rowcount != 1:
        raise exception.ClaimConflict(uuid=provider_uuid,
                                      generation=expected)
    changes.note(session, [provider_uuid],
                 generations={provider_uuid: expected + 1},
                 claimed=claimed)
    return expected + 1


# Every boot's claim runs it: built once (building costs more than
# running it).
_TABLE = models.ResourceProvider.__table__
_BUMP_BY_UUID = sa.update(_TABLE).where(
    _TABLE.c.uuid == sa.bindparam('b_uuid'),
    _TABLE.c.generation == sa.bindparam('b_expected')).values(
    generation=sa.bindparam('b_next')).returning(_TABLE.c.id)


def bump_by_uuid(session, provider_uuid, expected):
    """``bump`` of a claim for a provider known by its uuid alone, in one
    statement that returns the provider's id (the dialect must return
    rows from an UPDATE: ``dialect.update_returning``). Returns the id. Raises
    ClaimConflict, or ResourceProviderNotFound when there is no such
    provider."""
    provider_id = session.scalar(_BUMP_BY_UUID, {
        'b_uuid': provider_uuid, 'b_expected': expected,
        'b_next': expected + 1})
    if provider_id is None:
        explain_failed_bump(session, provider_uuid, expected)
    note_claimed(session, provider_uuid, expected + 1)
    return provider_id


def explain_failed_bump(session, provider_uuid, expected):
    """Raise why a claim's swap from ``expected`` matched no row:
    ResourceProviderNotFound, or ClaimConflict."""
    table = models.ResourceProvider.__table__
    if session.scalar(sa.select(table.c.id).where(
            table.c.uuid == provider_uuid)) is None:
        raise exception.ResourceProviderNotFound(uuid=provider_uuid)
    raise exception.ClaimConflict(uuid=provider_uuid, generation=expected)


def note_claimed(session, provider_uuid, new_generation):
    """``changes.note`` of a claim's swap to ``new_generation``."""
    changes.note(session, [provider_uuid],
                 generations={provider_uuid: new_generation}, claimed=True)


def _is_conflict(exc):
    # A lost generation race, or a shared row (a new trait or aggregate)
    # that a concurrent writer created first, as two computes reporting
    # the same new trait at start-up do: the next attempt reads it.
    return isinstance(exc, (exception.ClaimConflict,
                            db_exc.DBDuplicateEntry))


# For writers that recompute everything from fresh state on each attempt
# (inventory, trait and aggregate replacement): retry a lost race or a
# deadlock a few times. Claims are not retried blindly: their caller
# chooses again.
retry_on_conflict = oslo_db_api.wrap_db_retry(
    max_retries=10, retry_interval=0.01, inc_retry_interval=True,
    max_retry_interval=0.5, retry_on_deadlock=True,
    exception_checker=_is_conflict)


def touch(session, provider_ids):
    """Increment the generations of providers whose usage just dropped."""
    if provider_ids:
        session.execute(
            sa.update(models.ResourceProvider)
            .where(models.ResourceProvider.id.in_(sorted(provider_ids)))
            .values(generation=models.ResourceProvider.generation + 1))
        changes.note_provider_ids(session, provider_ids)
