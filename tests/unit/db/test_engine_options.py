"""The engine options nova_lite gives oslo.db."""

import types

from oslo_db.sqlalchemy import enginefacade

from nova_lite.db import api as db_api


def _conf(connection):
    return types.SimpleNamespace(database=types.SimpleNamespace(
        connection=connection, max_retries=1, retry_interval=1,
        connection_recycle_time=3600, sqlite_synchronous=True,
        mysql_sql_mode='TRADITIONAL', max_pool_size=5, max_overflow=10,
        pool_timeout=30))


def _checkin_listeners(engine):
    return [getattr(fn, '__name__', repr(fn))
            for fn in engine.pool.dispatch.checkin]


def test_no_yield_at_connection_checkin():
    # oslo.db's default sleeps at every check-in for eventlet; with
    # native threads that only hands the interpreter lock away.
    facade = enginefacade.transaction_context()
    facade.configure(**db_api._engine_options(_conf('sqlite://')))
    engine = facade.writer.get_engine()
    try:
        assert '_thread_yield' not in _checkin_listeners(engine)
    finally:
        engine.dispose()


def test_oslo_db_default_still_yields():
    # The test above can fail: without the option oslo.db installs it.
    facade = enginefacade.transaction_context()
    facade.configure(connection='sqlite://')
    engine = facade.writer.get_engine()
    try:
        assert '_thread_yield' in _checkin_listeners(engine)
    finally:
        engine.dispose()
