"""A MigratedDatabase on a server is a copy of a template (see
tests/db_fixtures.py): it must be what db sync makes of an empty one."""

import pytest
import sqlalchemy as sa

from nova_lite.db import migration
from tests import db_fixtures


def _schema(engine):
    inspector = sa.inspect(engine)
    schema = {}
    for table in sorted(inspector.get_table_names()):
        schema[table] = (
            [(c['name'], str(c['type']), c['nullable'], c['default'])
             for c in inspector.get_columns(table)],
            inspector.get_pk_constraint(table),
            sorted(inspector.get_foreign_keys(table), key=repr),
            sorted(inspector.get_indexes(table), key=repr),
            sorted(inspector.get_unique_constraints(table), key=repr))
    with engine.connect() as conn:
        rows = {table: conn.execute(sa.text(
            'SELECT * FROM %s' % table)).all() for table in schema}
        ddl = {}
        if engine.dialect.name == 'mysql':
            ddl = {table: conn.execute(sa.text(
                'SHOW CREATE TABLE `%s`' % table)).one()[1]
                for table in schema}
    return schema, rows, ddl


@pytest.mark.parametrize('backend', ['postgresql', 'mysql'])
def test_a_copy_is_a_migrated_database(backend):
    copy = db_fixtures.MigratedDatabase(backend).setup()
    synced = db_fixtures.ScratchDatabase(backend)
    synced.create()
    engine = sa.create_engine(synced.url)
    try:
        migration.db_sync(engine=engine)
        assert migration.db_version(copy.engine) == migration.head_version()
        assert _schema(copy.engine) == _schema(engine)
    finally:
        engine.dispose()
        synced.drop()
        copy.cleanup()
