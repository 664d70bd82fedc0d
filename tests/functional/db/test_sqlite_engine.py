"""The embedded SQLite engine makes concurrent writers wait, not fail."""

import concurrent.futures
import threading

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite.db import models


def _configured(conf, tmp_path, monkeypatch):
    url = 'sqlite:///%s' % (tmp_path / 'embedded.sqlite')
    conf.config(connection=url, group='database')
    manager = db_api.enginefacade.transaction_context()
    monkeypatch.setattr(db_api, 'context_manager', manager)
    manager.configure(**db_api._engine_options(conf.conf))
    manager.append_on_engine_create(db_api._tune_sqlite)
    engine = manager.writer.get_engine()
    migration.db_sync(engine=engine)
    return engine


def test_transactions_begin_immediate_in_wal_mode(conf, tmp_path,
                                                  monkeypatch):
    engine = _configured(conf, tmp_path, monkeypatch)
    statements = []
    sa.event.listen(engine, 'before_cursor_execute',
                    lambda conn, cursor, stmt, *a: statements.append(stmt))
    with engine.begin() as conn:
        assert conn.execute(sa.text('PRAGMA journal_mode')).scalar() == 'wal'
    assert statements[0] == 'BEGIN IMMEDIATE'


def test_read_then_write_transactions_wait_for_each_other(conf, tmp_path,
                                                          monkeypatch):
    """Each thread reads a counter, then writes it back incremented: with
    deferred transactions in WAL mode some fail at once with "database is
    locked"; with the write lock taken at BEGIN all of them succeed and no
    increment is lost."""
    engine = _configured(conf, tmp_path, monkeypatch)
    with engine.begin() as conn:
        conn.execute(sa.insert(models.Trait).values(id=1, name='CUSTOM_0'))
    start = threading.Barrier(8)

    def bump(_):
        start.wait()
        for _ in range(10):
            with engine.begin() as conn:
                name = conn.execute(sa.select(models.Trait.name)).scalar()
                count = int(name.split('_')[1]) + 1
                conn.execute(sa.update(models.Trait).values(
                    name='CUSTOM_%d' % count))
        return True

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(bump, range(8)))
    with engine.connect() as conn:
        assert conn.execute(sa.select(models.Trait.name)).scalar() == \
            'CUSTOM_80'
