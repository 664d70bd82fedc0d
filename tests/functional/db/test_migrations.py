"""The models and the migrations describe the same schema, everywhere."""

from alembic import autogenerate
from alembic import migration as alembic_migration
import pytest

from nova_lite.db import migration
from nova_lite.db import models
from tests import db_fixtures


@pytest.fixture(params=db_fixtures.BACKENDS)
def scratch(request):
    db = db_fixtures.ScratchDatabase(request.param)
    db.create()
    yield db
    db.drop()


def _engine(url):
    from oslo_db.sqlalchemy import engines
    return engines.create_engine(url)


def test_models_match_migrations(scratch):
    engine = _engine(scratch.url)
    try:
        migration.db_sync(engine=engine)
        with engine.connect() as conn:
            context = alembic_migration.MigrationContext.configure(
                conn, opts={'compare_type': True})
            diff = autogenerate.compare_metadata(context,
                                                 models.Base.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_db_sync_is_idempotent_and_versioned(scratch):
    engine = _engine(scratch.url)
    try:
        assert migration.db_version(engine) is None
        pending = migration.pending(engine)
        assert pending[0] == '0001_initial'
        assert pending[-1] == migration.head_version()
        migration.db_sync(engine=engine)
        migration.db_sync(engine=engine)
        assert migration.db_version(engine) == migration.head_version()
        assert migration.pending(engine) == []
    finally:
        engine.dispose()
