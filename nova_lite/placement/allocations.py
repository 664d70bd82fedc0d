"""Allocations: what each consumer (an instance) uses on which provider.

``claim`` is the one way resources are taken. It writes a consumer's
allocations only if every provider's generation is still what the caller
decided on; otherwise it raises ClaimConflict and writes nothing. Two modes:

* with ``expected_generations`` (the scheduler, which checked capacity in
  memory against state read at those generations): only the swap;
* without (the conductor claiming an alternate): capacity is checked here,
  against the inventories and usages read in the same transaction, and the
  generations read first are swapped.

Removing allocations also increments the providers' generations, so a
scheduler holding the old view fails its swap and refreshes.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import exception
from nova_lite.placement import generation
from nova_lite.placement import providers


def capacity(inv):
    """What a provider can hand out of a class: (total - reserved) x ratio."""
    return int((inv.total - inv.reserved) * inv.allocation_ratio)


def check_amount(uuid, resource_class, inv, used, amount):
    """Raise InsufficientCapacity unless ``amount`` fits after ``used``."""
    if inv is None:
        raise exception.InsufficientCapacity(
            uuid=uuid, amount=amount, resource_class=resource_class,
            free=0, capacity=0)
    cap = capacity(inv)
    if (amount < inv.min_unit or amount > inv.max_unit
            or amount % inv.step_size or used + amount > cap):
        raise exception.InsufficientCapacity(
            uuid=uuid, amount=amount, resource_class=resource_class,
            free=max(cap - used, 0), capacity=cap)


def _provider_rows(session, uuids):
    table = models.ResourceProvider.__table__
    rows = session.execute(
        sa.select(table.c.uuid, table.c.id, table.c.generation).where(
            table.c.uuid.in_(sorted(uuids)))).all()
    found = {row.uuid: row for row in rows}
    missing = set(uuids) - set(found)
    if missing:
        raise exception.ResourceProviderNotFound(uuid=sorted(missing)[0])
    return found


def _usages(session, provider_id):
    return dict(session.execute(
        sa.select(models.Allocation.resource_class,
                  sa.func.sum(models.Allocation.used))
        .where(models.Allocation.resource_provider_id == provider_id)
        .group_by(models.Allocation.resource_class)).all())


def _ensure_consumer(session, consumer_uuid, project_id, user_id):
    queries.insert_unless_present(session, models.Consumer.__table__, {
        'uuid': consumer_uuid, 'project_id': project_id,
        'user_id': user_id, 'generation': 0}, unique=['uuid'])


def _remove(session, consumer_uuid):
    """Delete a consumer's allocations; return {provider_id} touched."""
    touched = set(session.scalars(
        sa.select(models.Allocation.resource_provider_id).where(
            models.Allocation.consumer_id == consumer_uuid).distinct()).all())
    if touched:
        session.execute(sa.delete(models.Allocation).where(
            models.Allocation.consumer_id == consumer_uuid))
        generation.touch(session, touched)
    session.execute(sa.delete(models.Consumer).where(
        models.Consumer.uuid == consumer_uuid))
    return touched


def _checked_swaps(session, requests):
    """({uuid: provider id}, {uuid: new generation}): each provider's
    capacity checked against its inventories and usages, then its
    generation read here swapped."""
    rows = _provider_rows(session, requests)
    ids, new_generations = {}, {}
    for uuid in sorted(requests):
        row = rows[uuid]
        inventories = providers._inventories(session, row.id)
        used = _usages(session, row.id)
        for rc, amount in requests[uuid].items():
            check_amount(uuid, rc, inventories.get(rc), used.get(rc, 0),
                         amount)
        ids[uuid] = row.id
        new_generations[uuid] = generation.bump(
            session, row.id, uuid, row.generation, claimed=True)
    return ids, new_generations


def _expected_swaps(session, requests, expected_generations):
    """As ``_checked_swaps``, with no capacity check and the caller's
    generations (the scheduler checked capacity at those): where the
    dialect returns rows from an UPDATE, one statement per provider."""
    if not session.get_bind().dialect.update_returning:
        rows = _provider_rows(session, requests)
        return ({uuid: row.id for uuid, row in rows.items()},
                {uuid: generation.bump(session, rows[uuid].id, uuid,
                                       expected_generations[uuid],
                                       claimed=True)
                 for uuid in sorted(requests)})
    ids = {uuid: generation.bump_by_uuid(session, uuid,
                                         expected_generations[uuid])
           for uuid in sorted(requests)}
    return ids, {uuid: expected_generations[uuid] + 1 for uuid in ids}


def _claim(session, consumer_uuid, project_id, user_id, requests,
           expected_generations):
    if expected_generations is None:
        ids, new_generations = _checked_swaps(session, requests)
    else:
        ids, new_generations = _expected_swaps(session, requests,
                                               expected_generations)
    allocations = [
        {'resource_provider_id': ids[uuid], 'consumer_id': consumer_uuid,
         'resource_class': rc, 'used': amount}
        for uuid in sorted(requests)
        for rc, amount in sorted(requests[uuid].items())]
    # Plain inserts: a claim is on the hot path of every boot, and the
    # ORM's unit of work costs more than the statements themselves.
    if allocations:
        session.execute(sa.insert(models.Allocation.__table__), allocations)
    _ensure_consumer(session, consumer_uuid, project_id, user_id)
    return new_generations


def claim(context, consumer_uuid, project_id, user_id, requests,
          expected_generations=None):
    """Allocate ``requests`` ({provider_uuid: {resource_class: amount}}).

    Returns {provider_uuid: new generation}. Raises ClaimConflict or
    InsufficientCapacity with nothing written.
    """
    if expected_generations is not None and len(requests) == 1:
        return _claim_one(context, consumer_uuid, project_id, user_id,
                          requests, expected_generations)
    return _claim_in_transaction(context, consumer_uuid, project_id,
                                 user_id, requests, expected_generations)


@db_api.writer
def _claim_in_transaction(context, consumer_uuid, project_id, user_id,
                          requests, expected_generations):
    return _claim(context.session, consumer_uuid, project_id, user_id,
                  requests, expected_generations)


@db_api.one_statement_writer
def _claim_one(context, consumer_uuid, project_id, user_id, requests,
               expected_generations):
    """A scheduler's claim on one provider: on PostgreSQL one statement
    (``_CLAIM_ONE``) that commits by itself, where the swap and the two
    inserts took three in a transaction; elsewhere ``_claim`` in an
    ordinary one (``one_statement_writer``)."""
    session = context.session
    if session.get_bind().dialect.name != 'postgresql':
        return _claim(session, consumer_uuid, project_id, user_id,
                      requests, expected_generations)
    (uuid, amounts), = requests.items()
    expected = expected_generations[uuid]
    classes = sorted(amounts)
    provider_id = session.connection().exec_driver_sql(_CLAIM_ONE, {
        'provider': uuid, 'expected': expected, 'next': expected + 1,
        'now': timeutils.utcnow().replace(tzinfo=None),
        'consumer': consumer_uuid,
        'project': project_id, 'user': user_id,
        'classes': classes, 'amounts': [amounts[rc] for rc in classes],
    }).scalar()
    if provider_id is None:
        # Nothing written: say why (a read, which writes nothing).
        generation.explain_failed_bump(session, uuid, expected)
    generation.note_claimed(session, uuid, expected + 1)
    return {uuid: expected + 1}


# Every statement of a WITH runs to completion whether or not the query
# reads it, on the one snapshot: the allocations and the consumer are
# inserted only if the generation swapped (they select from ``swapped``),
# and nothing at all is written otherwise.
_CLAIM_ONE = (
    'WITH swapped AS ('
    ' UPDATE resource_providers SET generation = %(next)s,'
    ' updated_at = %(now)s'
    ' WHERE uuid = %(provider)s AND generation = %(expected)s'
    ' RETURNING id), '
    'allocated AS ('
    ' INSERT INTO allocations (created_at, resource_provider_id,'
    ' consumer_id, resource_class, used)'
    ' SELECT %(now)s, swapped.id, %(consumer)s, a.rc, a.used'
    ' FROM swapped, unnest(%(classes)s::varchar[], %(amounts)s::integer[])'
    ' AS a(rc, used)'
    ' RETURNING 1), '
    'consumer AS ('
    ' INSERT INTO consumers (created_at, uuid, project_id, user_id,'
    ' generation)'
    ' SELECT %(now)s, %(consumer)s, %(project)s, %(user)s, 0 FROM swapped'
    ' ON CONFLICT (uuid) DO NOTHING'
    ' RETURNING 1) '
    'SELECT id FROM swapped')


def claim_in_session(session, consumer_uuid, project_id, user_id,
                     requests):
    """``claim`` (capacity checked) inside a caller's transaction."""
    return _claim(session, consumer_uuid, project_id, user_id, requests,
                  None)


@db_api.writer
def replace(context, consumer_uuid, project_id, user_id, requests):
    """Atomically move a consumer's allocations to ``requests``.

    Used to reschedule onto an alternate: the failed host's allocation goes
    and the alternate's is claimed (capacity checked) in one transaction, so
    the instance never holds both or neither. Returns (released provider
    uuids, {claimed provider uuid: new generation}).
    """
    session = context.session
    released_ids = _remove(session, consumer_uuid)
    claimed = _claim(session, consumer_uuid, project_id, user_id, requests,
                     None)
    return _uuids(session, released_ids), claimed


@db_api.writer
def remove(context, consumer_uuid):
    """Delete a consumer's allocations; return the provider uuids touched."""
    session = context.session
    return _uuids(session, _remove(session, consumer_uuid))


def remove_in_session(session, consumer_uuid):
    """``remove`` inside a caller's transaction (instance destroy)."""
    return _uuids(session, _remove(session, consumer_uuid))


def move_in_session(session, from_consumer, to_consumer, project_id,
                    user_id):
    """Hand every allocation of ``from_consumer`` to ``to_consumer``,
    inside the caller's transaction; return the provider uuids concerned.

    A move's source allocations pass between the instance and its
    migration this way: the usage of each provider is the same before and
    after, so no capacity is checked. The providers' generations move
    all the same, as for any write of their allocations (Nova's does
    too): which instances a host holds changed (the server group filters
    read it), and a scheduler that missed the notice finds the host
    stale only by its generation (``host_digest``). ``to_consumer`` must
    hold nothing yet (a consumer's allocations on a provider are one row
    per class).
    """
    model = models.Allocation
    touched = set(session.scalars(
        sa.select(model.resource_provider_id).where(
            model.consumer_id == from_consumer).distinct()).all())
    if touched:
        session.execute(sa.update(model).where(
            model.consumer_id == from_consumer).values(
            consumer_id=to_consumer))
        _ensure_consumer(session, to_consumer, project_id, user_id)
    session.execute(sa.delete(models.Consumer).where(
        models.Consumer.uuid == from_consumer))
    generation.touch(session, touched)
    return _uuids(session, touched)


def _uuids(session, provider_ids):
    if not provider_ids:
        return set()
    return set(session.scalars(sa.select(models.ResourceProvider.uuid).where(
        models.ResourceProvider.id.in_(sorted(provider_ids)))).all())


@db_api.reader
def get_for_consumer(context, consumer_uuid):
    """{provider_uuid: {resource_class: amount}} of one consumer."""
    rows = context.session.execute(
        sa.select(models.ResourceProvider.uuid,
                  models.Allocation.resource_class, models.Allocation.used)
        .join(models.ResourceProvider,
              models.ResourceProvider.id ==
              models.Allocation.resource_provider_id)
        .where(models.Allocation.consumer_id == consumer_uuid)).all()
    result = {}
    for uuid, rc, used in rows:
        result.setdefault(uuid, {})[rc] = used
    return result


@db_api.reader
def orphaned_consumers(context, created_before):
    """Consumers holding allocations older than ``created_before`` that are
    neither live instances nor moves in progress (a migration holds its
    source host until the move is confirmed, reverted or fails)."""
    live = live_instances()
    moving = moves_in_progress()
    return context.session.scalars(
        sa.select(models.Allocation.consumer_id).where(
            models.Allocation.created_at < created_before,
            models.Allocation.consumer_id.not_in(live),
            models.Allocation.consumer_id.not_in(moving)).distinct()).all()


def live_instances():
    """A select of the uuids of instances not deleted."""
    return sa.select(models.Instance.uuid).where(models.Instance.deleted == 0)


def moves_in_progress():
    """A select of the uuids of migrations that may still hold their
    source host: not done, and of an instance that still exists."""
    migration = models.Migration
    return sa.select(migration.uuid).where(
        migration.deleted == 0,
        migration.status.not_in(MIGRATION_DONE_STATUSES),
        migration.instance_uuid.in_(live_instances()))


# Migration statuses after which a migration holds nothing. Not 'done':
# an evacuation that is done still holds its source host (for its VM may
# still run there) until that compute comes back and completes it.
MIGRATION_DONE_STATUSES = ('confirmed', 'reverted', 'error', 'failed',
                           'completed', 'cancelled')
