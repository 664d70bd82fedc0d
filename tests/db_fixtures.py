"""Real databases for tests: a fresh, migrated database per use.

Backends: ``sqlite`` (a temporary file), ``postgresql`` and ``mysql``
(MariaDB). Migrating a server database takes seconds (MariaDB creates
each table on disk once per migration step), so a ``MigratedDatabase``
on a server is a copy of a template that this process migrated once:
PostgreSQL copies it with ``CREATE DATABASE ... TEMPLATE``, MariaDB runs
the template's own ``SHOW CREATE TABLE`` statements and copies its rows
(``alembic_version``); tests/functional/db/test_template_copies.py
checks a copy against a database migrated from scratch. Copies are made
one ahead and dropped on a thread of their own.

The server URLs default to the local services the project is developed
against and can be changed with NOVA_LITE_TEST_PG_URL and
NOVA_LITE_TEST_MYSQL_URL (each naming an existing database the test user
may connect to, used only to create and drop scratch databases).
"""

import atexit
import concurrent.futures
import os
import sys
import tempfile
import threading
import uuid

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import migration

SERVER_URLS = {
    'postgresql': os.environ.get(
        'NOVA_LITE_TEST_PG_URL',
        'postgresql+psycopg2://postgres@127.0.0.1:5432/test'),
    'mysql': os.environ.get(
        'NOVA_LITE_TEST_MYSQL_URL',
        'mysql+pymysql://root@127.0.0.1:3306/test'),
}
BACKENDS = ('sqlite', 'postgresql', 'mysql')


def _admin_engine(backend):
    return sa.create_engine(sa.engine.make_url(SERVER_URLS[backend]),
                            isolation_level='AUTOCOMMIT')


class ScratchDatabase:
    """Create an empty database on ``backend``; ``url`` reaches it."""

    def __init__(self, backend):
        self.backend = backend
        self.name = 'nl_%s' % uuid.uuid4().hex[:12]
        self.url = None
        self._tmpdir = None

    def create(self, template=None):
        """Create the database (on PostgreSQL, a copy of ``template``'s
        database if given)."""
        if self.backend == 'sqlite':
            self._tmpdir = tempfile.TemporaryDirectory(prefix='nl-db-')
            self.url = 'sqlite:///%s' % os.path.join(self._tmpdir.name,
                                                     'nova_lite.sqlite')
            return self.url
        server = sa.engine.make_url(SERVER_URLS[self.backend])
        statement = 'CREATE DATABASE %s' % self.name
        if template is not None:
            statement += ' TEMPLATE %s' % template.name
        admin = _admin_engine(self.backend)
        with admin.connect() as conn:
            conn.execute(sa.text(statement))
        admin.dispose()
        self.url = server.set(database=self.name).render_as_string(
            hide_password=False)
        return self.url

    def drop(self):
        if self.backend == 'sqlite':
            self._tmpdir.cleanup()
            return
        admin = _admin_engine(self.backend)
        with admin.connect() as conn:
            if self.backend == 'postgresql':
                conn.execute(sa.text(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                    'WHERE datname = :name'), {'name': self.name})
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % self.name))
        admin.dispose()


class _Template(ScratchDatabase):
    """A database this process migrated once, to copy.

    Nothing connects to it after ``load``: PostgreSQL copies only a
    database nobody is connected to.
    """

    def load(self):
        self.create()
        engine = sa.create_engine(self.url)
        try:
            migration.db_sync(engine=engine)
            if self.backend == 'mysql':
                self._read_mysql(engine)
        finally:
            engine.dispose()
        return self

    def _read_mysql(self, engine):
        with engine.connect() as conn:
            others = conn.execute(sa.text(
                "SELECT COUNT(*) FROM information_schema.tables "
                "WHERE table_schema = :db AND table_type != 'BASE TABLE'"
            ), {'db': self.name}).scalar() + conn.execute(sa.text(
                'SELECT COUNT(*) FROM information_schema.triggers '
                'WHERE trigger_schema = :db'), {'db': self.name}).scalar()
            # Only tables are copied below: a view or a trigger would
            # need copying too.
            assert not others, 'the schema has views or triggers'
            tables = conn.execute(sa.text('SHOW TABLES')).scalars().all()
            self.ddl = [conn.execute(sa.text(
                'SHOW CREATE TABLE `%s`' % table)).one()[1]
                for table in tables]
            self.rows = [table for table in tables if conn.execute(
                sa.text('SELECT COUNT(*) FROM `%s`' % table)).scalar()]

    def copy_into(self, target):
        """Give the empty MariaDB database ``target`` this schema and
        rows."""
        engine = sa.create_engine(target.url)
        try:
            with engine.begin() as conn:
                # Foreign keys may name tables created further on.
                conn.execute(sa.text('SET foreign_key_checks = 0'))
                for statement in self.ddl:
                    conn.execute(sa.text(statement))
                for table in self.rows:
                    conn.execute(sa.text(
                        'INSERT INTO `%s` SELECT * FROM `%s`.`%s`'
                        % (table, self.name, table)))
        finally:
            engine.dispose()


class _Copies:
    """Copies of the templates, one made ahead per backend, and the
    drops of used ones: on a thread per backend, so a test runs while
    the servers copy or drop. Whatever is left is dropped at exit."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pools = {}     # backend: its executor (one thread)
        self._templates = {}
        self._next = {}      # backend: the Future of the next copy

    def _pool(self, backend):
        if not self._pools:
            atexit.register(self._close)
        if backend not in self._pools:
            self._pools[backend] = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix='nl-db-%s' % backend)
        return self._pools[backend]

    def take(self, backend):
        """A fresh copy of ``backend``'s template (a ScratchDatabase)."""
        with self._lock:
            pool = self._pool(backend)
            ready = self._next.pop(backend, None) or pool.submit(
                self._copy, backend)
            self._next[backend] = pool.submit(self._copy, backend)
        return ready.result()

    def drop(self, database):
        with self._lock:
            self._pool(database.backend).submit(self._drop, database)

    def _copy(self, backend):
        if backend not in self._templates:
            self._templates[backend] = _Template(backend).load()
        template = self._templates[backend]
        copy = ScratchDatabase(backend)
        if backend == 'postgresql':
            copy.create(template)
        else:
            copy.create()
            template.copy_into(copy)
        return copy

    @staticmethod
    def _drop(database):
        try:
            database.drop()
        except Exception as exc:
            print('could not drop %s: %s' % (database.name, exc),
                  file=sys.stderr)

    def _close(self):
        # At exit the threads have finished what was queued (and no more
        # can be queued): drop what is left here.
        for backend in self._pools:
            ahead = self._next.get(backend)
            if ahead is not None and ahead.exception() is None:
                self._drop(ahead.result())
            if backend in self._templates:
                self._drop(self._templates[backend])


_copies = _Copies()


def migrated_copy(backend):
    """A new database at the newest schema on ``backend``, a server (a
    ScratchDatabase, to give to ``drop_later``)."""
    return _copies.take(backend)


def drop_later(database):
    """Drop ``database`` (made by ``migrated_copy``) while the caller goes
    on; an error is printed (at exit at the latest)."""
    _copies.drop(database)


class MigratedDatabase(ScratchDatabase):
    """A scratch database at the newest schema, wired into nova_lite's
    enginefacade for the duration of a test."""

    def __init__(self, backend):
        super().__init__(backend)
        self.engine = None
        self._restore = None

    def setup(self):
        if self.backend == 'sqlite':
            self.create()
        else:
            copy = migrated_copy(self.backend)
            self.name, self.url = copy.name, copy.url
        # A transaction context of its own, built like the real one so
        # oslo.db's exception filters (duplicate entry, deadlock) apply.
        manager = enginefacade.transaction_context()
        manager.configure(connection=self.url)
        manager.append_on_engine_create(db_api.ping_only_idle)
        self.engine = manager.writer.get_engine()
        if self.backend == 'sqlite':
            migration.db_sync(engine=self.engine)
        self._restore = db_api.context_manager.patch_factory(manager)
        return self

    def cleanup(self):
        if self._restore is not None:
            self._restore()
        if self.engine is not None:
            self.engine.dispose()
        if self.backend == 'sqlite':
            self.drop()
        elif self.url is not None:
            drop_later(self)
