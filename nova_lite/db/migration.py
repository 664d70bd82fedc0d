"""Schema migrations (alembic): ``nova-lite-manage db sync`` and ``version``.

Migrations are expand-only within a release series, so a new release's
``db sync`` can run while the old release's services keep working.
"""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script

from nova_lite.db import api as db_api

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), 'migrations')


def _config(connection=None):
    config = alembic_config.Config(os.path.join(MIGRATIONS_DIR,
                                                'alembic.ini'))
    config.set_main_option('script_location', MIGRATIONS_DIR)
    if connection is not None:
        config.attributes['connection'] = connection
    return config


def db_sync(version=None, engine=None):
    """Upgrade the schema to ``version`` (default: the newest). Idempotent."""
    engine = engine or db_api.get_engine()
    with engine.begin() as connection:
        alembic_command.upgrade(_config(connection), version or 'head')


def db_version(engine=None):
    """The schema revision the database is at, or None if it is empty."""
    engine = engine or db_api.get_engine()
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()


def head_version():
    """The newest revision this code knows."""
    script = alembic_script.ScriptDirectory.from_config(_config())
    return script.get_current_head()


def pending(engine=None):
    """Revisions not yet applied, oldest first."""
    script = alembic_script.ScriptDirectory.from_config(_config())
    current = db_version(engine)
    revisions = list(script.iterate_revisions('head', current))
    return [rev.revision for rev in reversed(revisions)]
