"""Reserve, commit, roll back, expire and release quota.

A boot reserves what its servers will use, writes their records and
commits, in this order::

    reservation = reservations.reserve(ctxt, project, user,
                                       {'instances': 1, 'cores': 2,
                                        'ram': 2048},
                                       min_count=1, max_count=5)
    with db_api.writer.using(ctxt) as session:
        ...create reservation.count servers...
        reservations.commit_in_session(session, reservation)

``reserve`` moves the amounts into ``reserved``; committing moves them to
``in_use`` in the same transaction as the records, so the records and the
usage they account for appear together or not at all. A reservation that
is never committed (its request failed, or its conductor died) is rolled
back: by the caller, or by the expiry task once ``[quota]
reservation_expire`` has passed. Commit and rollback apply a reservation's
rows only if they can delete them first, so each applies at most once
whoever retries them. A reservation is also rolled back once it has
waited ``[quota] reservation_commit_timeout`` for its commit (seconds, not
the day ``reservation_expire`` allows): its conductor is dead or its
caller gone. Deleting a server releases its usage inside the
transaction that marks it deleted (``release_in_session``), once.

See ``usages`` for the locking protocol that makes this exact.
"""

import dataclasses
import datetime

from oslo_log import log as logging
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.quota import engine
from nova_lite.quota import joined
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import resources as quota_resources
from nova_lite.quota import usages

LOG = logging.getLogger(__name__)

PROJECT = usages.PROJECT


@dataclasses.dataclass(frozen=True)
class Reservation:
    """What ``reserve`` granted: ``count`` units, holding ``deltas``
    ({resource: amount}) for ``user_id`` of ``project_id``."""
    uuid: str
    project_id: str
    user_id: str
    count: int
    deltas: dict


def _check_reservable(per_unit):
    unknown = sorted(set(per_unit) - set(quota_resources.RESERVABLE))
    if unknown:
        raise exception.QuotaResourceUnknown(unknown=', '.join(unknown))
    if any(amount < 0 for amount in per_unit.values()):
        raise exception.InvalidInput(
            reason='quota reservations take non-negative amounts')


def reserve(context, project_id, user_id, per_unit, min_count=1,
            max_count=1, quota_class=None):
    """Reserve between min_count and max_count units of ``per_unit``
    ({resource: amount per unit}), as many as fit.

    Returns a Reservation; raises OverQuota (403) naming each resource
    that cannot take ``min_count``, with what was requested, used and
    allowed. Usage is recounted first when stale and always before a
    refusal, so nothing is refused while the real usage leaves room.
    Runs transactions of its own: call it outside any of the caller's.
    """
    _check_reservable(per_unit)
    if not 0 <= min_count <= max_count:
        raise exception.InvalidInput(
            reason='min_count must be at most max_count')
    per_unit = {r: amount for r, amount in per_unit.items() if amount}
    if not per_unit:
        return Reservation(uuidutils.generate_uuid(), project_id, user_id,
                           max_count, {})
    resources = quota_resources.sync_group(per_unit)
    usages.ensure_rows(context, project_id, user_id, resources)
    return _reserve(context, project_id, user_id, per_unit, min_count,
                    max_count, quota_class, resources)


@usages.retry
@db_api.writer
def _reserve(context, project_id, user_id, per_unit, min_count, max_count,
             quota_class, resources):
    # A transaction of its own, which writes nothing but the reservation:
    # its COMMIT may skip the flush ([quota] flush_reservations).
    return reserve_in_session(context.session, project_id, user_id,
                              per_unit, min_count, max_count, resources,
                              quota_class,
                              flush=CONF.quota.flush_reservations)


def reserve_in_session(session, project_id, user_id, per_unit, min_count,
                       max_count, resources, quota_class=None, flush=True):
    """The reservation's transaction: lock, read the limits, fit, record.

    ``resources`` are the whole sync groups of ``per_unit``'s resources,
    locked together. Unless ``flush``, the transaction's COMMIT does not
    wait for its WAL flush (PostgreSQL; for a transaction that writes
    nothing else, see ``[quota] flush_reservations``). The lock must be
    the first thing the transaction does (see the protocol in
    ``usages``: a recount relies on it), which is also why the limits are
    read after the locks.

    The common case takes four statements: the lock, the limits, one
    UPDATE of the usage rows and one INSERT of the reservation's rows
    (the locks are held from the first to the commit, so every statement
    saved shortens the queue of the project's other reservations); two
    on PostgreSQL (``joined``). Rows that are missing, stale or that
    would refuse go the long way (``_reserve_counted``).
    """
    now = usages.utcnow()
    if usages.joins_statements(session):
        values, limits = joined.lock_and_limits(
            session, project_id, user_id, resources, quota_class, flush)
    else:
        values = usages.lock_values(session, project_id, [user_id],
                                    resources)
        limits = quota_limits.read_limits(session, project_id, user_id,
                                          quota_class)
    keys = {(user, resource) for user in (PROJECT, user_id)
            for resource in resources}
    if set(values) != keys or any(
            engine.refresh_due(_ticked(row), now, CONF.quota.max_age)
            for row in values.values()):
        return _reserve_counted(session, project_id, user_id, per_unit,
                                min_count, max_count, limits, resources,
                                now)
    try:
        count = engine.how_many_fit(
            per_unit, min_count, max_count,
            _checks(values, limits, user_id, per_unit))
    except exception.OverQuota:
        return _reserve_counted(session, project_id, user_id, per_unit,
                                min_count, max_count, limits, resources,
                                now)
    deltas = _deltas(per_unit, count)
    return _insert(session, project_id, user_id, count, deltas, now,
                   reserve=resources)


def _ticked(row):
    engine.tick(row)
    return row


def _reserve_counted(session, project_id, user_id, per_unit, min_count,
                     max_count, limits, resources, now):
    """The long way, through the ORM: create missing rows, recount stale
    ones (and recount before refusing), fit, record. The rows are locked
    already; they are read again here."""
    rows = usages.lock(session, project_id, [user_id], resources,
                       create=True)
    stale = False
    for row in rows.values():
        engine.tick(row)
        stale = engine.refresh_due(row, now, CONF.quota.max_age) or stale
    if stale:
        rows.update(usages.refresh(session, project_id, resources, now))
    try:
        count = engine.how_many_fit(
            per_unit, min_count, max_count,
            _checks(rows, limits, user_id, per_unit))
    except exception.OverQuota:
        if stale:
            raise
        # Refuse only on counted usage: a drifted record must not turn
        # away a request that fits.
        rows.update(usages.refresh(session, project_id, resources, now))
        count = engine.how_many_fit(
            per_unit, min_count, max_count,
            _checks(rows, limits, user_id, per_unit))
    return _record(session, rows, project_id, user_id, per_unit, count, now)


def _checks(rows, limits, user_id, per_unit):
    project_limits, user_limits = limits
    checks = []
    for resource in sorted(per_unit):
        for level, user, limit in (
                ('project', PROJECT, project_limits[resource]),
                ('user', user_id, user_limits[resource])):
            row = rows[(user, resource)]
            checks.append(engine.Check(resource, level, limit,
                                       row.in_use + row.reserved))
    return checks


def _deltas(per_unit, count):
    return {r: a * count for r, a in sorted(per_unit.items()) if a * count}


def _record(session, rows, project_id, user_id, per_unit, count, now):
    deltas = _deltas(per_unit, count)
    for resource, delta in deltas.items():
        for user in (PROJECT, user_id):
            rows[(user, resource)].reserved += delta
    session.flush()
    return _insert(session, project_id, user_id, count, deltas, now)


def _insert(session, project_id, user_id, count, deltas, now,
            reserve=None):
    """Write the reservation's rows (one statement) and return it.

    With ``reserve`` (the locked resources), first add ``deltas`` to
    their usage rows (``usages.add_reserved``), in the same statement
    where the database allows it."""
    uuid = uuidutils.generate_uuid()
    expire = now + datetime.timedelta(seconds=CONF.quota.reservation_expire)
    if reserve is not None and deltas and usages.joins_statements(session):
        joined.reserve_and_insert(session, project_id, user_id, reserve,
                                  deltas, uuid, expire, now)
    else:
        if reserve is not None:
            usages.add_reserved(session, project_id, user_id, reserve,
                                deltas)
        if deltas:
            # created_at is given, as the joined statement gives it (an
            # INSERT ... SELECT applies no Python-side default), and
            # expire_reservations reads it.
            _write_rows(session, [
                {'uuid': uuid, 'project_id': project_id,
                 'user_id': user_id, 'resource': resource, 'delta': delta,
                 'expire': expire, 'created_at': now}
                for resource, delta in deltas.items()])
    LOG.debug('Reserved %s for %d unit(s) of project %s user %s: %s',
              uuid, count, project_id, user_id, deltas)
    return Reservation(uuid, project_id, user_id, count, deltas)


# Built once (see ``usages._STATEMENTS``).
_INSERT = sa.insert(models.Reservation.__table__)
_DELETE = sa.delete(models.Reservation.__table__).where(
    models.Reservation.__table__.c.uuid == sa.bindparam('b_uuid'))


def _write_rows(session, rows):
    """INSERT a reservation's rows (dicts of columns): one statement on
    PostgreSQL and MariaDB, whose drivers batch an executemany of an
    INSERT."""
    session.execute(_INSERT, rows)


def _find(session, uuid):
    """(project_id, [(user_id, resource, delta)]) of a reservation's rows
    as recorded, or (None, [])."""
    model = models.Reservation
    found = session.execute(
        sa.select(model.project_id, model.user_id, model.resource,
                  model.delta).where(model.uuid == uuid)).all()
    if not found:
        return None, []
    return found[0].project_id, [(r.user_id, r.resource, r.delta)
                                 for r in found]


def _take(session, uuid, known=None, apply=None):
    """Lock the usage rows a reservation touches, then delete its rows;
    return (project_id, [(user_id, resource, delta)] this transaction
    deleted). Nothing is returned if another transaction committed,
    rolled back or expired the reservation first: every one of them
    deletes under the same project locks, so the delete either takes
    every row read here or none.

    ``known`` is (project_id, rows) when the caller holds the Reservation
    that ``reserve`` returned: its rows are not read again. With
    ``apply`` (True: commit, False: roll back) the delete also applies
    the amounts, and the lock, the delete and the update are one
    statement (``joined.take_and_apply``).
    """
    project_id, found = known or _find(session, uuid)
    if not found:
        return project_id, []
    resources = quota_resources.sync_group({r for _u, r, _d in found})
    if apply is None:
        usages.lock_keys(session, project_id, {u for u, _r, _d in found},
                         resources)
        deleted = session.execute(_DELETE, {'b_uuid': uuid}).rowcount
    else:
        # A reservation's rows all belong to one user.
        deleted = joined.take_and_apply(
            session, project_id, found[0][0], resources, _amounts(found),
            apply, uuid, len(found))
    if deleted != len(found):
        return project_id, []
    return project_id, found


def _amounts(found):
    amounts = {}
    for _user_id, resource, delta in found:
        amounts[resource] = amounts.get(resource, 0) + delta
    return amounts


def _apply(session, uuid, commit, known=None):
    """Take a reservation (``_take``) and move its amounts out of
    ``reserved`` (into ``in_use`` if ``commit``); return what was taken.

    Where the database allows it (``usages.joins_statements``) the lock,
    the delete and the usage UPDATE are one statement, which updates only if
    the delete took every row read; elsewhere three."""
    one = usages.joins_statements(session)
    project_id, taken = _take(session, uuid, known,
                              apply=commit if one else None)
    if taken and not one:
        # A reservation's rows all belong to one user.
        usages.apply_reserved(session, project_id, taken[0][0],
                              _amounts(taken), commit)
    return taken


def _known(reservation):
    return (reservation.project_id,
            [(reservation.user_id, resource, delta)
             for resource, delta in sorted(reservation.deltas.items())])


def commit_in_session(session, reservation):
    """Commit ``reservation`` inside the caller's transaction (the one
    writing the records it pays for).

    Raises ReservationExpired if it is gone (expired and rolled back, or
    already committed), so the caller's transaction does not create what
    no quota accounts for.
    """
    taken = _apply(session, reservation.uuid, commit=True,
                   known=_known(reservation))
    if len(taken) != len(reservation.deltas):
        raise exception.ReservationExpired(uuid=reservation.uuid)


@usages.retry
@db_api.writer
def commit(context, uuid):
    """Commit a reservation, given by uuid or as the Reservation that
    ``reserve`` returned (whose rows are then not read again); True if
    this call applied it, False if it was already committed, rolled back
    or expired."""
    if isinstance(uuid, Reservation):
        return bool(_apply(context.session, uuid.uuid, commit=True,
                           known=_known(uuid)))
    return bool(_apply(context.session, uuid, commit=True))


@usages.retry
@db_api.writer
def rollback(context, uuid):
    """Roll a reservation back by uuid; True if this call released it,
    False if it was already committed, rolled back or expired."""
    released = _apply(context.session, uuid, commit=False)
    if released:
        LOG.info('Rolled back quota reservation %s', uuid)
    return bool(released)


@db_api.reader
def _expired_uuids(context, now, limit):
    model = models.Reservation
    # Every row of this table is a reservation not committed yet (a
    # commit deletes its rows), so its age tells whether its conductor
    # can still commit it.
    abandoned = now - datetime.timedelta(
        seconds=CONF.quota.reservation_commit_timeout)
    return list(context.session.scalars(
        sa.select(model.uuid).where(sa.or_(model.expire < now,
                                           model.created_at < abandoned))
        .group_by(model.uuid).order_by(sa.func.min(model.expire))
        .limit(limit)))


def expire_reservations(context, now=None, batch=1000):
    """Roll back every reservation past its expiry, or left uncommitted
    for longer than [quota] reservation_commit_timeout; returns how many.

    Each goes in a transaction of its own, so one busy project does not
    hold up the others.
    """
    now = now or usages.utcnow()
    expired = 0
    for uuid in _expired_uuids(context, now, batch):
        if rollback(context, uuid):
            expired += 1
            LOG.warning('Quota reservation %s expired: rolled back', uuid)
    return expired


def release_in_session(session, project_id, user_id, deltas):
    """Take ``deltas`` ({resource: amount}) off the recorded usage of a
    user and their project, inside the caller's transaction (the one that
    deletes what used them).

    Records that do not exist are left alone (they are counted when
    created); a record that would go negative becomes unknown instead
    (recounted at the next reservation).
    """
    resources = quota_resources.sync_group(
        [r for r, amount in deltas.items() if amount])
    if not resources:
        return
    rows = usages.lock(session, project_id, [user_id], resources)
    for (user, resource), row in sorted(rows.items()):
        amount = deltas.get(resource, 0)
        if not amount:
            continue
        before = row.in_use
        row.in_use = engine.released(row.in_use, amount)
        if before >= 0 > row.in_use:
            LOG.warning('Quota usage of project %s user %r %s was %d, below '
                        'the %d released: it will be recounted', project_id,
                        user, resource, before, amount)
    session.flush()
