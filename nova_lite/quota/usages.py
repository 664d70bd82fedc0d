"""Usage records: creating, locking, recounting and auditing them.

``quota_usages`` keeps, per project, one row per user and resource and one
row for the whole project (``user_id`` = PROJECT). The locking protocol
that keeps reservations exact and deadlock-free on every backend:

1. a transaction that changes usage first locks the project rows of the
   resources it touches (``SELECT ... FOR UPDATE``, in resource order),
   then the user rows it needs; the project rows therefore serialise all
   usage changes of a project, and no two writers wait on each other in
   opposite orders;
2. a transaction that also writes instance rows (provisioning, destroy)
   writes them before it locks usage rows;
3. a recount reads the servers only after it holds the locks, with no
   plain read before them in the transaction (MariaDB's repeatable read
   takes its snapshot at the first plain read): it then sees every change
   committed by the previous holders and none of those still waiting, whose
   deltas apply on top of its counts once it commits.

SQLite ignores FOR UPDATE; there, every write transaction holds the
database lock from BEGIN (see ``nova_lite.db.api``), which is stronger.
"""

import collections
import dataclasses
import threading
import weakref

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.quota import resources as quota_resources

LOG = logging.getLogger(__name__)

# The user_id of a project's own usage rows.
PROJECT = ''

Usage = models.QuotaUsage

# Retries of quota transactions, by cause, in this process and in the
# calling thread (tools/bench_quota.py reports them).
RETRIES = collections.Counter()
_RETRIES_LOCK = threading.Lock()
_THREAD = threading.local()


def thread_retries():
    """{cause: retries} of the quota transactions of this thread so far."""
    if not hasattr(_THREAD, 'retries'):
        _THREAD.retries = collections.Counter()
    return _THREAD.retries


def _retry(*causes):
    """wrap_db_retry for whole transactions (outside ``@db_api.writer``:
    each attempt starts afresh) that fail with one of ``causes``, counted
    in RETRIES. Short, jittered waits: the conflicting transaction is a
    few milliseconds long."""
    def retryable(exc):
        for cause in causes:
            if isinstance(exc, cause):
                with _RETRIES_LOCK:
                    RETRIES[cause.__name__] += 1
                thread_retries()[cause.__name__] += 1
                return True
        return False
    return oslo_db_api.wrap_db_retry(max_retries=10, retry_interval=0.02,
                                     inc_retry_interval=True,
                                     max_retry_interval=0.5, jitter=True,
                                     exception_checker=retryable)


# A deadlock (MariaDB picks a victim), or a row another transaction
# inserted first: run the transaction again.
retry = _retry(db_exc.DBDeadlock, db_exc.DBDuplicateEntry)
_retry_deadlock = _retry(db_exc.DBDeadlock)


def utcnow():
    return timeutils.utcnow().replace(tzinfo=None)


def _until_refresh():
    return CONF.quota.until_refresh or None


def new_row(project_id, user_id, resource, in_use=-1):
    """An unsaved usage row; in_use -1 (unknown) is counted at the next
    reservation."""
    return Usage(project_id=project_id, user_id=user_id, resource=resource,
                 in_use=in_use, reserved=0, until_refresh=_until_refresh())


# (database url, project_id, user_id, resource) of usage rows known to
# exist. Usage rows are never deleted, so once seen a row needs no checking
# again; a row that is missing after all (a database restored from a
# backup) is created by the reservation's own transaction
# (``lock(create=True)``).
_KNOWN = set()
_KNOWN_MAX = 100000


_DATABASES = weakref.WeakKeyDictionary()


def _database(engine):
    """The engine's URL as a string (rendering it on every reservation
    cost more than the rest of this check)."""
    name = _DATABASES.get(engine)
    if name is None:
        name = _DATABASES[engine] = engine.url.render_as_string()
    return name


def ensure_rows(context, project_id, user_id, resources):
    """Create the project's and ``user_id``'s rows of ``resources`` that
    do not exist yet, each in a transaction of its own.

    Done before the reservation's transaction, so that one only locks
    rows that exist (a first boot in a project would otherwise have every
    concurrent request insert the same rows and deadlock on MariaDB's gap
    locks). A row another request created meanwhile is fine. Rows this
    process has seen before are not read again.
    """
    wanted = {(u, r) for u in (PROJECT, user_id) for r in resources}
    scope = (_database(db_api.get_engine()), project_id)
    if all(scope + key in _KNOWN for key in wanted):
        return
    missing = wanted - _existing(context, project_id, wanted)
    for user, resource in sorted(missing):
        try:
            _insert(context, new_row(project_id, user, resource))
        except db_exc.DBDuplicateEntry:
            pass
    if len(_KNOWN) > _KNOWN_MAX:
        _KNOWN.clear()
    _KNOWN.update(scope + key for key in wanted)


@db_api.reader
def _existing(context, project_id, keys):
    users = sorted({user for user, _resource in keys})
    return set(context.session.execute(
        sa.select(Usage.user_id, Usage.resource).where(
            Usage.project_id == project_id, Usage.user_id.in_(users))).all())


@_retry_deadlock
@db_api.writer
def _insert(context, row):
    context.session.add(row)
    context.session.flush()


def lock(session, project_id, user_ids, resources, create=False):
    """Lock and return {(user_id, resource): row} of the project rows and
    then the rows of ``user_ids``, in the protocol's order.

    One statement: PostgreSQL locks the rows in its ORDER BY, MariaDB in
    the order of the unique index it walks, and both put the project
    rows (user_id '') first. Missing rows are created (in_use unknown)
    when ``create`` is true and left out otherwise.
    """
    users = [PROJECT] + sorted(set(user_ids) - {PROJECT})
    rows = {(row.user_id, row.resource): row for row in session.scalars(
        sa.select(Usage).where(
            Usage.project_id == project_id, Usage.user_id.in_(users),
            Usage.resource.in_(sorted(resources)))
        .order_by(Usage.user_id, Usage.resource).with_for_update())}
    if create:
        for user in users:
            for resource in sorted(resources):
                if (user, resource) not in rows:
                    row = rows[(user, resource)] = new_row(
                        project_id, user, resource)
                    session.add(row)
        session.flush()
    return rows


@dataclasses.dataclass
class Values:
    """A locked usage row's values, read without the ORM (the reservation
    hot path changes them with one UPDATE instead of a flush)."""
    in_use: int
    reserved: int
    until_refresh: int
    refreshed_at: object


# The hot path's statements are built once, from the table's columns and
# bind parameters: building an expression from the ORM's attributes costs
# more CPU than the database spends running it.
_TABLE = Usage.__table__
_STATEMENTS = {}


def _statement(key, build):
    statement = _STATEMENTS.get(key)
    if statement is None:
        statement = _STATEMENTS[key] = build()
    return statement


def _where_rows():
    c = _TABLE.c
    return (c.project_id == sa.bindparam('b_project'),
            c.user_id.in_(sa.bindparam('b_users', expanding=True)),
            c.resource.in_(sa.bindparam('b_resources', expanding=True)))


def _lock_statement(with_values):
    c = _TABLE.c
    columns = [c.user_id, c.resource]
    if with_values:
        columns += [c.in_use, c.reserved, c.until_refresh, c.refreshed_at]
    return (sa.select(*columns).where(*_where_rows())
            .order_by(c.user_id, c.resource).with_for_update())


def _lock_rows(session, project_id, user_ids, resources, with_values):
    users = [PROJECT] + sorted(set(user_ids) - {PROJECT})
    statement = _statement(('lock', with_values),
                           lambda: _lock_statement(with_values))
    return session.execute(statement, {
        'b_project': project_id, 'b_users': users,
        'b_resources': sorted(resources)})


def lock_values(session, project_id, user_ids, resources):
    """``lock`` without the ORM and without creating rows: lock in the
    protocol's order and return {(user_id, resource): Values} of the rows
    that exist."""
    return {(row.user_id, row.resource): Values(
        row.in_use, row.reserved, row.until_refresh, row.refreshed_at)
        for row in _lock_rows(session, project_id, user_ids, resources,
                              True)}


def lock_keys(session, project_id, user_ids, resources):
    """``lock_values`` reading nothing but which rows exist: returns the
    set of (user_id, resource) locked."""
    return {(row.user_id, row.resource) for row in _lock_rows(
        session, project_id, user_ids, resources, False)}


def _amount(count):
    """CASE giving the amount ``:a<i>`` to resource ``:r<i>``, i < count."""
    c = _TABLE.c
    return sa.case(*[(c.resource == sa.bindparam('r%d' % i),
                      sa.bindparam('a%d' % i)) for i in range(count)],
                   else_=0)


def _update(kind, count):
    c = _TABLE.c
    amount = _amount(count)
    if kind == 'reserve':
        values = {c.reserved: c.reserved + amount,
                  c.until_refresh: c.until_refresh - 1}
    else:
        values = {c.reserved: sa.case((c.reserved > amount,
                                       c.reserved - amount), else_=0)}
        if kind == 'commit':
            values[c.in_use] = sa.case((c.in_use >= 0, c.in_use + amount),
                                       else_=c.in_use)
    values[c.updated_at] = sa.bindparam('b_now')
    return sa.update(_TABLE).where(*_where_rows()).values(values)


def _update_params(project_id, user_id, resources, amounts):
    """The bind parameters of ``_update(kind, len(amounts))``."""
    params = {'b_project': project_id,
              'b_users': sorted({PROJECT, user_id}),
              'b_resources': sorted(resources), 'b_now': utcnow()}
    for index, (resource, amount) in enumerate(sorted(amounts.items())):
        params['r%d' % index] = resource
        params['a%d' % index] = amount
    return params


def _update_rows(session, kind, project_id, user_id, resources, amounts):
    count = len(amounts)
    statement = _statement((kind, count), lambda: _update(kind, count))
    session.execute(statement, _update_params(project_id, user_id,
                                              resources, amounts))


def joins_statements(session):
    """Whether the hot path may send its statements joined (``joined``):
    on PostgreSQL, whose data-modifying WITH runs an UPDATE beside an
    INSERT or a DELETE, through a driver taking ``%(name)s`` parameters
    and lists as arrays (psycopg2, psycopg). Each round trip saved is one
    the project's row locks are not held for."""
    dialect = session.get_bind().dialect
    return (dialect.name == 'postgresql'
            and dialect.driver in ('psycopg2', 'psycopg'))


def add_reserved(session, project_id, user_id, resources, amounts):
    """Count one reservation against the until_refresh of the locked
    project and user rows of ``resources`` (as ``engine.tick`` does) and
    add ``amounts`` ({resource: n}) to their ``reserved``; one
    statement."""
    _update_rows(session, 'reserve', project_id, user_id, resources,
                 amounts)


def apply_reserved(session, project_id, user_id, amounts, commit):
    """Take ``amounts`` ({resource: n}) out of ``reserved`` of the locked
    project and user rows (never below zero) and, if ``commit``, add them
    to a known ``in_use``; one statement. Rows that do not exist are left
    alone."""
    if amounts:
        _update_rows(session, 'commit' if commit else 'rollback',
                     project_id, user_id, amounts, amounts)


def _reserved_sums(session, project_id, resources):
    model = models.Reservation
    return {(user, resource): int(total) for user, resource, total in
            session.execute(
                sa.select(model.user_id, model.resource,
                          sa.func.sum(model.delta))
                .where(model.project_id == project_id,
                       model.resource.in_(sorted(resources)))
                .group_by(model.user_id, model.resource))}


def _lock_project(session, project_id, resources):
    """Lock the project rows first, then every user row of ``resources``
    (user order); returns {(user_id, resource): row}."""
    rows = lock(session, project_id, [], resources)
    for row in session.scalars(
            sa.select(Usage).where(
                Usage.project_id == project_id, Usage.user_id != PROJECT,
                Usage.resource.in_(sorted(resources)))
            .order_by(Usage.user_id, Usage.resource).with_for_update()):
        rows[(row.user_id, row.resource)] = row
    return rows


@dataclasses.dataclass
class Count:
    """Counted usage of one (user, resource), beside what was recorded."""
    user_id: str
    resource: str
    in_use: int
    reserved: int


def count(session, project_id, resources):
    """{(user_id, resource): Count} of the project's real usage, the
    project's totals under PROJECT. Call with the project rows locked."""
    counted = quota_resources.count_usage(session, project_id, resources)
    reserved = _reserved_sums(session, project_id, resources)
    users = set(counted) | {user for user, _r in reserved}
    result = {}
    for resource in resources:
        total = Count(PROJECT, resource, 0, 0)
        for user in sorted(users - {PROJECT}):
            item = Count(user, resource,
                         counted.get(user, {}).get(resource, 0),
                         reserved.get((user, resource), 0))
            total.in_use += item.in_use
            total.reserved += item.reserved
            result[(user, resource)] = item
        result[(PROJECT, resource)] = total
    return result


def refresh(session, project_id, resources, now=None):
    """Recount ``resources`` (and those counted with them) of the whole
    project and write the counts over the records, creating the rows of
    users who have usage but no record.

    Runs inside the caller's transaction; returns the locked rows,
    {(user_id, resource): row}.
    """
    now = now or utcnow()
    resources = quota_resources.sync_group(resources)
    rows = _lock_project(session, project_id, resources)
    counts = count(session, project_id, resources)
    for key in sorted(set(rows) | set(counts)):
        counted = counts.get(key) or Count(key[0], key[1], 0, 0)
        row = rows.get(key)
        if row is None:
            row = rows[key] = new_row(project_id, key[0], key[1])
            session.add(row)
        elif row.in_use >= 0 and (row.in_use, row.reserved) != (
                counted.in_use, counted.reserved):
            LOG.warning('Quota usage of project %s user %r %s had drifted: '
                        'in use %s (counted %s), reserved %s (counted %s); '
                        'corrected', project_id, key[0], key[1], row.in_use,
                        counted.in_use, row.reserved, counted.reserved)
        row.in_use = counted.in_use
        row.reserved = counted.reserved
        row.until_refresh = _until_refresh()
        row.refreshed_at = now
    session.flush()
    return rows


@db_api.writer
def refresh_project(context, project_id, resources=None):
    """Recount a project's usage now (``nova-lite-manage quota refresh``).

    Returns {(user_id, resource): in_use} as written.
    """
    resources = tuple(resources or quota_resources.RESERVABLE)
    session = context.session
    lock(session, project_id, [], resources, create=True)
    rows = refresh(session, project_id, resources)
    return {key: row.in_use for key, row in rows.items()}


@dataclasses.dataclass
class Audit:
    """Recorded and counted usage of one (project, user, resource);
    recorded values are None when there is no record and -1 when it is
    unknown (both are recounted at the next reservation, so neither is
    drift)."""
    project_id: str
    user_id: str
    resource: str
    recorded_in_use: int
    counted_in_use: int
    recorded_reserved: int
    counted_reserved: int

    @property
    def drift(self):
        if self.recorded_in_use is None or self.recorded_in_use < 0:
            return False
        return (self.recorded_in_use != self.counted_in_use
                or self.recorded_reserved != self.counted_reserved)


@db_api.reader
def projects(context):
    """Every project with usage records or live servers, sorted."""
    session = context.session
    found = set(session.scalars(sa.select(Usage.project_id).distinct()))
    found |= set(session.scalars(
        sa.select(models.Instance.project_id).where(
            models.Instance.deleted == 0).distinct()))
    return sorted(found)


@db_api.writer
def audit_project(context, project_id):
    """[Audit] of every (user, resource) of a project, read under the
    project's locks so concurrent reservations cannot fake a drift."""
    resources = quota_resources.RESERVABLE
    session = context.session
    rows = _lock_project(session, project_id, resources)
    counts = count(session, project_id, resources)
    keys = sorted(set(rows) | set(counts))
    result = []
    for user, resource in keys:
        row = rows.get((user, resource))
        counted = counts.get((user, resource)) or Count(user, resource, 0, 0)
        result.append(Audit(
            project_id, user, resource,
            row.in_use if row is not None else None, counted.in_use,
            row.reserved if row is not None else None, counted.reserved))
    return result


def summary(session, project_id, user_id=None, resources=None):
    """{resource: {'in_use': n, 'reserved': n}} of a project (or one of
    its users): the records where known, else counted now. For display;
    takes no lock."""
    resources = tuple(resources or quota_resources.RESERVABLE)
    user = PROJECT if user_id is None else user_id
    rows = {row.resource: row for row in session.scalars(
        sa.select(Usage).where(Usage.project_id == project_id,
                               Usage.user_id == user,
                               Usage.resource.in_(resources)))}
    unknown = [r for r in resources
               if r not in rows or rows[r].in_use < 0]
    counted = collections.defaultdict(lambda: Count(user, '', 0, 0))
    if unknown:
        counted.update(count(session, project_id, unknown))
    result = {}
    for resource in resources:
        row = rows.get(resource)
        if row is not None and row.in_use >= 0:
            result[resource] = {'in_use': row.in_use,
                                'reserved': row.reserved}
        else:
            item = counted[(user, resource)]
            result[resource] = {'in_use': item.in_use,
                                'reserved': item.reserved}
    return result


@db_api.reader
def get_summary(context, project_id, user_id=None):
    """``summary`` in a transaction of its own (for the API)."""
    return summary(context.session, project_id, user_id)
