"""The database engine and its guard.

All access goes through oslo.db's enginefacade: ``@reader`` / ``@writer``
decorate functions taking a ``context`` as first argument, or use
``context_manager.reader.using(context)`` blocks. The functions themselves
live next to the objects that use them (``nova_lite/objects``) and in
``nova_lite/placement``.

A compute has no business here: ``disable_db_access`` makes every entry
into the engine raise ``DBNotAllowed``, so a layering mistake fails loudly
instead of opening a connection the compute host should not have.
"""

import contextlib
import functools
import re
import time

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy

from nova_lite import exception

context_manager = enginefacade.transaction_context()

_DISABLED_FOR = None


def configure(conf):
    """Configure the engine from ``conf.database``. Call once per process."""
    context_manager.configure(**_engine_options(conf))
    context_manager.append_on_engine_create(ping_only_idle)
    if str(conf.database.connection).startswith('sqlite'):
        context_manager.append_on_engine_create(_tune_sqlite)
    elif str(conf.database.connection).startswith('postgresql'):
        context_manager.append_on_engine_create(recognise_pg_disconnects)


# libpq 14 and later word a failed connection 'connection to server at
# "host", port N failed: ...', which oslo.db's filter (it looks for the
# older "could not connect to server") misses; a database refusing
# connections or shutting down is just as transient.
_PG_UNREACHABLE = re.compile(
    r'connection to server .* failed|could not connect to server|'
    r'is not currently accepting connections|'
    r'the database system is (?:starting up|shutting down)')


def recognise_pg_disconnects(engine):
    """Make a PostgreSQL server that cannot be reached a disconnect, so
    oslo.db raises ``DBConnectionError`` (503 in the API, retried where
    ``wrap_db_retry`` asks for it) instead of a bare ``OperationalError``
    (500). The dialect's ``is_disconnect`` is what SQLAlchemy asks before
    any ``handle_error`` listener (oslo.db's among them) runs."""
    dialect = engine.dialect
    original = dialect.is_disconnect

    def is_disconnect(error, connection, cursor):
        return original(error, connection, cursor) or bool(
            isinstance(error, dialect.loaded_dbapi.OperationalError) and
            _PG_UNREACHABLE.search(str(error)))

    dialect.is_disconnect = is_disconnect


# A pooled connection used less than this many seconds ago is taken as
# alive without a ping.
PING_IDLE_SECONDS = 1.0


def ping_only_idle(engine):
    """Ping a pooled connection on checkout only if it sat idle.

    oslo.db turns on SQLAlchemy's pre-ping, a round trip before every
    transaction: two of the eleven round trips of a quota reservation,
    and the conductor's busiest transactions run back to back on
    connections checked in milliseconds before. A connection idle longer
    than PING_IDLE_SECONDS is still pinged (the database may have
    restarted meanwhile) and replaced if the ping fails; one that fails
    right after a short rest fails its transaction, as it could have done
    right after a ping too.
    """
    engine.pool._pre_ping = False

    @sqlalchemy.event.listens_for(engine, 'checkin')
    def _checked_in(dbapi_connection, record):
        record.info['nova_lite_checked_in'] = time.monotonic()

    @sqlalchemy.event.listens_for(engine, 'checkout')
    def _checked_out(dbapi_connection, record, proxy):
        since = record.info.get('nova_lite_checked_in')
        if since is None or time.monotonic() - since < PING_IDLE_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception:
            alive = False
        if not alive:
            # The pool discards this connection and checks out another.
            raise sqlalchemy.exc.DisconnectionError()


def _tune_sqlite(engine):
    # The embedded database is shared by every thread of the all-in-one:
    # WAL lets readers run beside the writer, and a generous busy timeout
    # makes a writer wait for another instead of failing at once.
    @sqlalchemy.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_connection, connection_record):
        cursor = dbapi_connection.cursor()
        cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA busy_timeout=30000')
        cursor.close()

    # A deferred transaction that reads and then writes fails at once with
    # "database is locked" when another writer committed in between (the
    # busy timeout does not apply to that case). Taking the write lock at
    # BEGIN makes every transaction wait its turn instead. oslo.db emits a
    # plain BEGIN from its own listener; ours replaces it (keeping the
    # marker its commit and rollback listeners clear).
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            sqlalchemy.event.remove(engine, 'begin', listener)

    @sqlalchemy.event.listens_for(engine, 'begin')
    def _begin_immediate(conn):
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql('BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True


def _engine_options(conf):
    db = conf.database
    options = {
        'connection': db.connection,
        'max_retries': db.max_retries,
        'retry_interval': db.retry_interval,
        'connection_recycle_time': db.connection_recycle_time,
        'sqlite_synchronous': db.sqlite_synchronous,
        'mysql_sql_mode': db.mysql_sql_mode,
        # oslo.db's default sleeps 0 s at each connection check-in so
        # that eventlet's green threads get a turn. nova_lite runs native
        # threads: the sleep only hands the interpreter lock to another
        # busy thread, and the transaction then waits up to the switch
        # interval (5 ms) to get it back.
        'thread_checkin': False,
    }
    if not str(db.connection).startswith('sqlite'):
        options.update(max_pool_size=db.max_pool_size,
                       max_overflow=db.max_overflow,
                       pool_timeout=db.pool_timeout)
    return options


def disable_db_access(binary):
    """Forbid this process any DB access from now on (computes)."""
    global _DISABLED_FOR
    _DISABLED_FOR = binary


def check_db_access():
    if _DISABLED_FOR is not None:
        raise exception.DBNotAllowed(binary=_DISABLED_FOR)


class _Guarded:
    """An enginefacade reader or writer that checks the guard first.

    Use it as a decorator (``@db_api.reader``) or as a block
    (``with db_api.writer.using(context) as session:``). Other modules must
    not touch ``context_manager`` directly, so every path is guarded.

    With ``autocommit``, a transaction that is not inside one of the
    caller's runs its statements in autocommit on PostgreSQL (psycopg2):
    no BEGIN and no COMMIT or ROLLBACK round trip (see ``_autocommitted``).
    """

    def __init__(self, facade, autocommit=False):
        self._facade = facade
        self._autocommit = autocommit

    def __call__(self, fn):
        if not self._autocommit:
            wrapped = self._facade(fn)

            @functools.wraps(fn)
            def inner(*args, **kwargs):
                check_db_access()
                return wrapped(*args, **kwargs)
            return inner

        @functools.wraps(fn)
        def autocommitted(context, *args, **kwargs):
            with self.using(context):
                return fn(context, *args, **kwargs)
        return autocommitted

    def using(self, context):
        check_db_access()
        if not self._autocommit or _in_transaction(context):
            return self._facade.using(context)
        return _autocommitted(self._facade.using(context))

    @property
    def independent(self):
        return _Guarded(self._facade.independent)


@contextlib.contextmanager
def _autocommitted(block):
    """``block``'s session, in autocommit on a psycopg2 connection: set
    before anything ran in the transaction and unset after, neither of
    which sends anything to the server; as it is elsewhere."""
    with block as session:
        dbapi = None
        if session.get_bind().dialect.driver == 'psycopg2':
            dbapi = session.connection().connection.dbapi_connection
            dbapi.autocommit = True
        try:
            yield session
        finally:
            # A connection lost meanwhile is closed: the pool replaces
            # it, and the error raised (which the retries recognise)
            # stands.
            if dbapi is not None and not dbapi.closed:
                dbapi.autocommit = False


# Reads: PostgreSQL runs each statement of a READ COMMITTED transaction
# (oslo.db's and psycopg2's default) on a snapshot of its own, so reads
# in autocommit see exactly what they saw inside BEGIN ... ROLLBACK,
# without those two round trips (an API read per boot, every listing).
reader = _Guarded(context_manager.reader, autocommit=True)
writer = _Guarded(context_manager.writer)
# A write of one statement (a conditional UPDATE, and what it reads to
# explain a miss): atomic by itself, it commits by itself on PostgreSQL,
# one round trip instead of three (psycopg2's BEGIN, the statement, the
# COMMIT), about a tenth of a millisecond of CPU on each side, three
# times per boot. The session's commit still runs its hooks (the change
# notices). Nothing that can fail may follow the write in the function:
# it would not undo it.
one_statement_writer = _Guarded(context_manager.writer, autocommit=True)


def _in_transaction(context):
    try:
        return context.transaction_ctx is not None
    except db_exc.NoEngineContextEstablished:
        return False


# Retry a whole write on deadlock or a lost compare-and-swap race; the
# decorated function must be safe to run again from the start.
retry_on_deadlock = oslo_db_api.wrap_db_retry(max_retries=5,
                                              retry_on_deadlock=True,
                                              inc_retry_interval=True,
                                              max_retry_interval=1)

# Retry a write across a database blip (a restart, a failover, connections
# terminated) for about ten seconds. A connection refused or dropped before
# the commit wrote nothing; the decorated function must be safe to run
# again (a compare-and-swap on the state it expects, or idempotent).
retry_on_disconnect = oslo_db_api.wrap_db_retry(
    max_retries=6, retry_interval=0.5, inc_retry_interval=True,
    max_retry_interval=2, retry_on_disconnect=True)


def get_engine():
    check_db_access()
    return context_manager.writer.get_engine()


def dispose():
    """Drop pooled connections (after fork, or before exit)."""
    context_manager.dispose_pool()
