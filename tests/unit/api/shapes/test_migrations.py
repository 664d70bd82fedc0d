"""os-migrations and a server's live migrations against tempest.lib's
schemas of each version (uuid from 2.59, user_id and project_id from
2.80)."""

from nova_lite.api import api_version
from nova_lite import objects
from tests.unit.api.shapes import conftest as conftest_shapes
from tests.unit.api.test_migrations import _migration
from tests.unit.api.test_migrations import ADMIN
from tests.unit.api.test_migrations import listed  # noqa: F401
from tests.unit.api.test_migrations import UUID


def _owned_live(monkeypatch):
    found = objects.MigrationList(objects=[_migration(
        migration_type='live-migration', status='running', user_id='u1',
        project_id='p1', updated_at=_migration().created_at)])
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters', classmethod(
        lambda cls, context, filters, limit=None: found))
    monkeypatch.setattr(objects.MigrationList, 'get_page', classmethod(
        lambda cls, context, filters, limit, marker=None,
        changes_since=None, changes_before=None: found))


def test_migrations(api, listed, monkeypatch, assert_shape,  # noqa: F811
                    schemas, microversion):
    _owned_live(monkeypatch)
    admin = api(ADMIN)
    assert_shape(admin('GET', '/os-migrations'),
                 schemas('migrations').list_migrations)
    # Pages from 2.59, with migrations_links when not the last.
    assert_shape(admin('GET', '/os-migrations?limit=1'),
                 conftest_shapes.with_links(
                     schemas('migrations').list_migrations,
                     'migrations_links'))
    if api_version.APIVersionRequest(microversion).matches('2.23'):
        assert_shape(admin('GET', '/servers/%s/migrations' % UUID),
                     schemas('servers').list_live_migrations)
