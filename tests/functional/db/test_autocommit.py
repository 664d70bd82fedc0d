"""db_api.one_statement_writer and db_api.reader, on every backend: on
PostgreSQL a write of one statement commits by itself and a read holds no
transaction open, unless a transaction of the caller's is in progress;
everywhere else they are an ordinary writer and reader."""

import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects


@pytest.fixture
def ctxt(database):
    ctxt = nl_context.get_admin_context()
    objects.Service(ctxt, host='h1', binary='nova-lite-conductor',
                    topic='conductor').create()
    return ctxt


def _reason_seen_elsewhere(database):
    """The disabled reason as a connection of its own sees it (committed
    values only)."""
    engine = sa.create_engine(database.url)
    try:
        with engine.connect() as conn:
            return conn.scalar(sa.select(models.Service.disabled_reason)
                               .where(models.Service.host == 'h1'))
    finally:
        engine.dispose()


@db_api.one_statement_writer
def _set_reason(context, reason, then=None):
    result = context.session.execute(
        sa.update(models.Service.__table__)
        .where(models.Service.__table__.c.host == 'h1')
        .values(disabled_reason=reason))
    if then is not None:
        then()
    return result.rowcount


@db_api.reader
def _reason(context):
    return context.session.scalar(sa.select(models.Service.disabled_reason)
                                  .where(models.Service.host == 'h1'))


def test_the_write_lands_and_says_how_many_rows(ctxt):
    assert _set_reason(ctxt, 'first') == 1
    assert _reason(ctxt) == 'first'


def test_on_postgresql_it_is_committed_by_the_statement(ctxt, database):
    if database.backend == 'sqlite':
        pytest.skip('a second connection waits for the writer\'s lock')
    seen = []
    _set_reason(ctxt, 'now', then=lambda: seen.append(
        _reason_seen_elsewhere(database)))
    # Elsewhere the write shows only once the transaction commits.
    assert seen == (['now'] if database.backend == 'postgresql' else [None])


def test_inside_a_callers_transaction_it_is_part_of_it(ctxt, database):
    with pytest.raises(RuntimeError):
        with db_api.writer.using(ctxt):
            _set_reason(ctxt, 'undone')
            raise RuntimeError('the caller fails after the write')
    assert _reason(ctxt) is None


def test_the_connection_is_transactional_again_afterwards(ctxt, database):
    _set_reason(ctxt, 'kept')
    with pytest.raises(RuntimeError):
        with db_api.writer.using(ctxt) as session:
            session.execute(sa.update(models.Service.__table__).values(
                disabled_reason='rolled back'))
            raise RuntimeError('rolls back')
    assert _reason(ctxt) == 'kept'


def test_the_sessions_commit_hooks_still_run(ctxt):
    committed = []

    def on_commit(session):
        committed.append(session.info.get('marker'))

    def mark():
        ctxt.session.info['marker'] = 'seen'

    sa.event.listen(orm.Session, 'after_commit', on_commit)
    try:
        _set_reason(ctxt, 'hooked', then=mark)
    finally:
        sa.event.remove(orm.Session, 'after_commit', on_commit)
    assert 'seen' in committed


def _backend_state(database, pid):
    engine = sa.create_engine(database.url)
    try:
        with engine.connect() as conn:
            return conn.scalar(sa.text(
                'SELECT state FROM pg_stat_activity WHERE pid = :pid'),
                {'pid': pid})
    finally:
        engine.dispose()


@db_api.reader
def _read_then(context, then):
    pid = context.session.scalar(sa.text('SELECT pg_backend_pid()'))
    return then(pid)


def test_on_postgresql_a_read_holds_no_transaction(ctxt, database):
    if database.backend != 'postgresql':
        pytest.skip('PostgreSQL only')
    state = _read_then(ctxt, lambda pid: _backend_state(database, pid))
    assert state == 'idle'
    with db_api.reader.using(ctxt) as session:
        pid = session.scalar(sa.text('SELECT pg_backend_pid()'))
        assert _backend_state(database, pid) == 'idle'
    # A writer's transaction is still one.
    with db_api.writer.using(ctxt) as session:
        pid = session.scalar(sa.text('SELECT pg_backend_pid()'))
        assert _backend_state(database, pid) == 'idle in transaction'


def test_a_read_inside_a_writer_sees_its_writes(ctxt):
    with pytest.raises(RuntimeError):
        with db_api.writer.using(ctxt) as session:
            session.execute(sa.update(models.Service.__table__).values(
                disabled_reason='uncommitted'))
            assert _reason(ctxt) == 'uncommitted'
            raise RuntimeError('rolls back')
    assert _reason(ctxt) is None
