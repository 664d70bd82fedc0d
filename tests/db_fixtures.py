"""Real databases for tests: a fresh, migrated database per use.

Backends: ``sqlite`` (a temporary file), ``postgresql`` and ``mysql``
(MariaDB). The server URLs default to the local services the project is
developed against and can be changed with NOVA_LITE_TEST_PG_URL and
NOVA_LITE_TEST_MYSQL_URL (each naming an existing database the test user
may connect to, used only to create and drop scratch databases).
"""

import os
import tempfile
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


class ScratchDatabase:
    """Create an empty database on ``backend``; ``url`` reaches it."""

    def __init__(self, backend):
        self.backend = backend
        self.name = 'nl_%s' % uuid.uuid4().hex[:12]
        self.url = None
        self._tmpdir = None

    def create(self):
        if self.backend == 'sqlite':
            self._tmpdir = tempfile.TemporaryDirectory(prefix='nl-db-')
            self.url = 'sqlite:///%s' % os.path.join(self._tmpdir.name,
                                                     'nova_lite.sqlite')
            return self.url
        server = sa.engine.make_url(SERVER_URLS[self.backend])
        admin = sa.create_engine(server, isolation_level='AUTOCOMMIT')
        with admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % self.name))
        admin.dispose()
        self.url = server.set(database=self.name).render_as_string(
            hide_password=False)
        return self.url

    def drop(self):
        if self.backend == 'sqlite':
            self._tmpdir.cleanup()
            return
        server = sa.engine.make_url(SERVER_URLS[self.backend])
        admin = sa.create_engine(server, isolation_level='AUTOCOMMIT')
        with admin.connect() as conn:
            if self.backend == 'postgresql':
                conn.execute(sa.text(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                    'WHERE datname = :name'), {'name': self.name})
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % self.name))
        admin.dispose()


class MigratedDatabase(ScratchDatabase):
    """A scratch database at the newest schema, wired into nova_lite's
    enginefacade for the duration of a test."""

    def __init__(self, backend):
        super().__init__(backend)
        self.engine = None
        self._restore = None

    def setup(self):
        self.create()
        # A transaction context of its own, built like the real one so
        # oslo.db's exception filters (duplicate entry, deadlock) apply.
        manager = enginefacade.transaction_context()
        manager.configure(connection=self.url)
        manager.append_on_engine_create(db_api.ping_only_idle)
        self.engine = manager.writer.get_engine()
        migration.db_sync(engine=self.engine)
        self._restore = db_api.context_manager.patch_factory(manager)
        return self

    def cleanup(self):
        if self._restore is not None:
            self._restore()
        if self.engine is not None:
            self.engine.dispose()
        self.drop()
