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

import functools

from oslo_db import api as oslo_db_api
from oslo_db.sqlalchemy import enginefacade

from nova_lite import exception

context_manager = enginefacade.transaction_context()

_DISABLED_FOR = None


def configure(conf):
    """Configure the engine from ``conf.database``. Call once per process."""
    context_manager.configure(**_engine_options(conf))


def _engine_options(conf):
    db = conf.database
    options = {
        'connection': db.connection,
        'max_retries': db.max_retries,
        'retry_interval': db.retry_interval,
        'connection_recycle_time': db.connection_recycle_time,
        'sqlite_synchronous': db.sqlite_synchronous,
        'mysql_sql_mode': db.mysql_sql_mode,
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
    """

    def __init__(self, facade):
        self._facade = facade

    def __call__(self, fn):
        wrapped = self._facade(fn)

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            check_db_access()
            return wrapped(*args, **kwargs)
        return inner

    def using(self, context):
        check_db_access()
        return self._facade.using(context)

    @property
    def independent(self):
        return _Guarded(self._facade.independent)


reader = _Guarded(context_manager.reader)
writer = _Guarded(context_manager.writer)

# Retry a whole write on deadlock or a lost compare-and-swap race; the
# decorated function must be safe to run again from the start.
retry_on_deadlock = oslo_db_api.wrap_db_retry(max_retries=5,
                                              retry_on_deadlock=True,
                                              inc_retry_interval=True,
                                              max_retry_interval=1)


def get_engine():
    check_db_access()
    return context_manager.writer.get_engine()


def dispose():
    """Drop pooled connections (after fork, or before exit)."""
    context_manager.dispose_pool()
