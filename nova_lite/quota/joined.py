"""The quota hot path in fewer statements, on PostgreSQL.

A reservation holds its project's usage rows locked from its first
statement to its COMMIT, so every round trip under the locks is time the
project's other reservations queue. PostgreSQL runs as one statement what
the other backends run as several:

* ``lock_and_limits``: the lock of the usage rows
  (``usages.lock_values``) and every layer of the limits
  (``limits.read_limits``), one SELECT;
* ``reserve_and_insert``: ``usages.add_reserved`` and the INSERT of the
  reservation's rows, one data-modifying WITH;
* ``take_and_apply``: the lock (``usages.lock_keys``), the DELETE of a
  reservation's rows and, if it took them all, ``usages.apply_reserved``,
  one data-modifying WITH.

A reservation is then three round trips (two statements and the COMMIT)
and its commit two. Each lock comes first and in the protocol's order (see
``usages``): the DELETE waits for it (its condition reads the locked rows,
a one-time filter evaluated before the scan), and the UPDATE after it
applies to the newest version of each locked row (READ COMMITTED
re-reads a row that changed since the statement began). The limits are
read with the statement's snapshot, which may predate the wait for the
locks; they are not what the locks protect (``limits.set_limits`` takes no
usage lock either).

``usages.joins_statements`` says where they run. They are plain SQL sent
to the driver (``exec_driver_sql``): written once, they skip SQLAlchemy's
compilation and result processing, which cost the client more CPU than
PostgreSQL spends running them.
"""

from nova_lite.db import models
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import usages

_USAGES = models.QuotaUsage.__tablename__
_RESERVATIONS = models.Reservation.__tablename__

# A project's usage rows of ``users`` and ``resources``.
_ROWS = ('project_id = %%(project)s AND user_id = ANY(%%(users)s) '
         'AND resource = ANY(%%(resources)s)')

# The lock, in the protocol's order; ``%s`` is what it returns.
_LOCK = ('SELECT %s FROM ' + _USAGES + ' WHERE ' + _ROWS
         + ' ORDER BY user_id, resource FOR UPDATE')

_LIMIT_LAYERS = ' '.join(
    'UNION ALL SELECT %d, NULL, resource, hard_limit, NULL, NULL, NULL '
    'FROM %s WHERE %s' % (layer, table, where)
    for layer, table, where in (
        (quota_limits.DEFAULT_CLASS_LAYER,
         models.QuotaClass.__tablename__, 'class_name = %(default)s'),
        (quota_limits.CLASS_LAYER,
         models.QuotaClass.__tablename__, 'class_name = %(class)s'),
        (quota_limits.PROJECT_LAYER,
         models.Quota.__tablename__, 'project_id = %(project)s'),
        (quota_limits.USER_LAYER, models.ProjectUserQuota.__tablename__,
         'project_id = %(project)s AND user_id = %(user)s')))

LOCK_AND_LIMITS = (
    'WITH locked AS (' + _LOCK % (
        'user_id, resource, in_use, reserved, until_refresh, refreshed_at')
    + ') SELECT -1, user_id, resource, in_use, reserved, until_refresh, '
    'refreshed_at FROM locked ' + _LIMIT_LAYERS)

# The same, and the transaction's COMMIT returns before its WAL flush
# (``[quota] flush_reservations``): a row of layer -2, ignored.
LOCK_AND_LIMITS_NO_FLUSH = LOCK_AND_LIMITS + (
    " UNION ALL SELECT -2, NULL, set_config('synchronous_commit', 'off', "
    "true), NULL, NULL, NULL, NULL")

# The amounts, one row per resource.
_AMOUNTS = ('unnest(%(amount_resources)s::varchar[], '
            '%(amounts)s::integer[]) AS a(resource, amount)')

RESERVE_AND_INSERT = (
    'WITH reserved AS (UPDATE ' + _USAGES + ' u SET reserved = u.reserved '
    '+ coalesce((SELECT a.amount FROM ' + _AMOUNTS + ' WHERE a.resource = '
    'u.resource), 0), until_refresh = u.until_refresh - 1, '
    'updated_at = %(now)s WHERE ' + _ROWS % () + ') '
    'INSERT INTO ' + _RESERVATIONS + ' (uuid, project_id, user_id, '
    'resource, delta, expire, created_at) SELECT %(uuid)s, %(project)s, '
    '%(user)s, a.resource, a.amount, %(expire)s, %(now)s FROM ' + _AMOUNTS)

_APPLY = {
    # Out of reserved (never below zero) ...
    False: 'reserved = CASE WHEN u.reserved > a.amount '
           'THEN u.reserved - a.amount ELSE 0 END',
    # ... and into a known in_use.
    True: 'reserved = CASE WHEN u.reserved > a.amount '
          'THEN u.reserved - a.amount ELSE 0 END, '
          'in_use = CASE WHEN u.in_use >= 0 THEN u.in_use + a.amount '
          'ELSE u.in_use END'}

TAKE_AND_APPLY = {commit: (
    'WITH locked AS (' + _LOCK % '1' + '), '
    'taken AS (DELETE FROM ' + _RESERVATIONS + ' WHERE uuid = %(uuid)s '
    'AND (SELECT count(*) FROM locked) >= 0 RETURNING 1), '
    'applied AS (UPDATE ' + _USAGES + ' u SET ' + apply
    + ', updated_at = %(now)s FROM ' + _AMOUNTS + ' WHERE '
    'u.project_id = %(project)s AND u.user_id = ANY(%(users)s) '
    'AND u.resource = a.resource '
    'AND (SELECT count(*) FROM taken) = %(rows)s) '
    'SELECT count(*) FROM taken') for commit, apply in _APPLY.items()}


def _execute(session, statement, params):
    return session.connection().exec_driver_sql(statement, params)


def _users(user_id):
    return [usages.PROJECT] + sorted({user_id} - {usages.PROJECT})


def _amounts(amounts):
    resources = sorted(amounts)
    return {'amount_resources': resources,
            'amounts': [amounts[r] for r in resources]}


def lock_and_limits(session, project_id, user_id, resources, quota_class,
                    flush=True):
    """``usages.lock_values`` of the project's and ``user_id``'s rows of
    ``resources`` and ``limits.read_limits``, in one statement: returns
    ({(user_id, resource): Values}, (project limits, user limits)).

    Unless ``flush``, the same statement turns synchronous_commit off for
    the rest of the transaction (its COMMIT does not wait for the WAL
    flush, see ``[quota] flush_reservations``)."""
    values, layers = {}, []
    statement = LOCK_AND_LIMITS if flush else LOCK_AND_LIMITS_NO_FLUSH
    for layer, user, resource, in_use, reserved, until, refreshed in (
            _execute(session, statement, {
                'project': project_id, 'users': _users(user_id),
                'resources': sorted(resources), 'user': user_id,
                'default': quota_limits.DEFAULT_CLASS,
                'class': (None if quota_class == quota_limits.DEFAULT_CLASS
                          else quota_class)})):
        if layer == -1:
            values[(user, resource)] = usages.Values(in_use, reserved,
                                                     until, refreshed)
        elif layer >= 0:
            layers.append((layer, resource, in_use))
    return values, quota_limits.from_layers(layers, with_user=True)


def reserve_and_insert(session, project_id, user_id, resources, amounts,
                       uuid, expire, now):
    """``usages.add_reserved`` of ``amounts`` ({resource: n}, none zero)
    to the locked rows of ``resources`` and the INSERT of reservation
    ``uuid``'s rows (one per resource of ``amounts``), in one
    statement."""
    params = _amounts(amounts)
    params.update(project=project_id, users=_users(user_id),
                  resources=sorted(resources), user=user_id, uuid=uuid,
                  expire=expire, now=now)
    _execute(session, RESERVE_AND_INSERT, params)


def take_and_apply(session, project_id, user_id, resources, amounts,
                   commit, uuid, rows):
    """Lock the project's and ``user_id``'s rows of ``resources``, DELETE
    reservation ``uuid`` and, if that took its ``rows`` rows, take
    ``amounts`` out of ``reserved`` (into ``in_use`` if ``commit``), in one
    statement. Returns how many rows the DELETE took."""
    params = _amounts(amounts)
    params.update(project=project_id, users=_users(user_id),
                  resources=sorted(resources), uuid=uuid, rows=rows,
                  now=usages.utcnow())
    return _execute(session, TAKE_AND_APPLY[bool(commit)],
                    params).scalar_one()
