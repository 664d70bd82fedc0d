"""GET /os-migrations and GET /servers/{id}/migrations: filters, policy
and Nova's 2.1 shapes (checked against tempest.lib's schema)."""

import datetime

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import migrations

from nova_lite.api.handlers import migrations as handler
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api import fakes
from tests.unit.api.shapes import conftest as shapes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'adminproj')
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5)


def _migration(**kwargs):
    values = dict(id=7, uuid='5b0e3c7a-8f7d-4b0e-9d3f-2a1c6e4b7d90',
                  instance_uuid=UUID, source_compute='c1',
                  source_node='c1-n0', dest_compute='c2', dest_host='c2',
                  dest_node='c2-n0', status='finished',
                  old_instance_type_id=1, new_instance_type_id=2,
                  migration_type='resize', hidden=False, created_at=WHEN,
                  updated_at=None)
    values.update(kwargs)
    return objects.Migration(**values)


@pytest.fixture
def listed(monkeypatch):
    asked = []

    def get_by_filters(cls, context, filters, limit=None):
        asked.append(filters)
        return objects.MigrationList(objects=[_migration()])
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters',
                        classmethod(get_by_filters))
    monkeypatch.setattr(handler, 'compute', fakes.FakeComputeAPI(
        [fakes.instance(host='c2')]))
    return asked


def test_index_passes_the_filters_and_hides_hidden_ones(api, listed):
    resp = api(ADMIN)('GET', '/os-migrations?host=c1&status=finished'
                             '&migration_type=resize&instance_uuid=' + UUID
                             + '&bogus=1')
    assert resp.status_int == 200, resp.text
    assert listed == [{'host': 'c1', 'status': 'finished',
                       'migration_type': 'resize', 'instance_uuid': UUID,
                       'hidden': False}]
    [view] = resp.json['migrations']
    assert view['source_compute'] == 'c1' and view['dest_node'] == 'c2-n0'
    assert view['created_at'] == '2026-01-02T03:04:05.000000'
    shapes.check_shape(resp, migrations.list_migrations)


def test_index_shows_hidden_ones_when_asked(api, listed):
    api(ADMIN)('GET', '/os-migrations?hidden=true')
    assert listed == [{}]


def test_index_is_for_administrators(api, listed):
    resp = api(conftest.make_context())('GET', '/os-migrations')
    assert resp.status_int == 403
    assert listed == []


def test_server_migrations_are_its_live_ones_in_progress(api, listed):
    resp = api(ADMIN)('GET', '/servers/%s/migrations' % UUID)
    assert resp.status_int == 200, resp.text
    [filters] = listed
    assert filters['instance_uuid'] == UUID
    assert filters['migration_type'] == 'live-migration'
    assert 'running' in filters['status']


def test_server_migrations_of_an_unknown_server_is_404(api, listed):
    resp = api(ADMIN)('GET', '/servers/%s/migrations'
                      % '11111111-2222-3333-4444-555555555555')
    assert resp.status_int == 404


@pytest.mark.parametrize('version', ['2.22', '2.23'])
def test_migration_type_and_links_from_2_23(api, monkeypatch, at_version,
                                            version):
    live = _migration(id=8, migration_type='live-migration',
                      status='running')
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters', classmethod(
        lambda cls, context, filters, limit=None: objects.MigrationList(
            objects=[_migration(), live])))
    resp = at_version(api(ADMIN), version)('GET', '/os-migrations')
    shapes.check_shape(resp, shapes.TempestSchemas(
        'migrations', version).list_migrations)
    resized, running = resp.json['migrations']
    if version == '2.22':
        assert 'migration_type' not in resized
        assert 'links' not in running
        return
    assert (resized['migration_type'], running['migration_type']) == (
        'resize', 'live-migration')
    assert 'links' not in resized
    assert running['links'][0]['href'].endswith(
        '/servers/%s/migrations/8' % UUID)


# -- 2.59: uuids and pages ---------------------------------------------------

OLDER = 'e1a7c2d4-3b5f-4c6d-8e9f-0a1b2c3d4e5f'


@pytest.fixture
def paged(monkeypatch, listed):
    pages = []

    def get_page(cls, context, filters, limit, marker=None,
                 changes_since=None, changes_before=None):
        pages.append((filters, limit, marker, changes_since))
        if changes_before is not None:
            pages.append(('changes_before', changes_before))
        rows = [_migration(), _migration(id=6, uuid=OLDER)]
        if marker is not None:
            uuids = [m.uuid for m in rows]
            if marker not in uuids:
                raise exception.MarkerNotFound(marker=marker)
            rows = rows[uuids.index(marker) + 1:]
        return objects.MigrationList(objects=rows[:limit])
    monkeypatch.setattr(objects.MigrationList, 'get_page',
                        classmethod(get_page))
    return pages


def test_uuid_shown_from_2_59(api, at_version, paged):
    old = at_version(api(ADMIN), '2.58')('GET', '/os-migrations')
    assert not [m for m in old.json['migrations'] if 'uuid' in m]
    new = at_version(api(ADMIN), '2.59')('GET', '/os-migrations')
    shapes.check_shape(new, shapes.TempestSchemas(
        'migrations', '2.59').list_migrations)
    assert [m['uuid'] for m in new.json['migrations']] == [
        '5b0e3c7a-8f7d-4b0e-9d3f-2a1c6e4b7d90', OLDER]
    assert 'migrations_links' not in new.json


def test_pages_from_2_59(api, at_version, paged):
    call = at_version(api(ADMIN), '2.59')
    resp = call('GET', '/os-migrations?limit=1&host=c1')
    assert resp.status_int == 200, resp.text
    # Nova's api-ref has migrations_links from 2.59; tempest.lib's schema
    # lacks it (its tests never fill a page), so no shape check here.
    [link] = resp.json['migrations_links']
    assert link['href'].endswith(
        '/os-migrations?host=c1&limit=1&marker=5b0e3c7a-8f7d-4b0e-9d3f-'
        '2a1c6e4b7d90')
    rest = call('GET', '/os-migrations?limit=1&marker=5b0e3c7a-8f7d-4b0e-'
                '9d3f-2a1c6e4b7d90').json
    assert [m['uuid'] for m in rest['migrations']] == [OLDER]
    call('GET', '/os-migrations?changes-since=2026-01-02T03:00:00%2B01:00')
    assert paged[-1][3] == datetime.datetime(2026, 1, 2, 2, 0, 0)
    assert paged[0][0] == {'host': 'c1', 'hidden': False}


@pytest.mark.parametrize('query', [
    'marker=nope', 'limit=-1', 'limit=1&limit=2', 'changes-since=soon',
    'bogus=1'])
def test_bad_paging_is_400_from_2_59(api, at_version, paged, query):
    resp = at_version(api(ADMIN), '2.59')('GET', '/os-migrations?' + query)
    assert resp.status_int == 400, resp.text


def test_paging_ignored_before_2_59(api, at_version, paged):
    resp = at_version(api(ADMIN), '2.58')(
        'GET', '/os-migrations?limit=1&marker=nope&bogus=1')
    assert resp.status_int == 200
    assert paged == []


# -- 2.80: the migration's user and project ----------------------------------

def _owned(**kwargs):
    return _migration(user_id='u1', project_id='p1', **kwargs)


@pytest.fixture
def owned(monkeypatch, paged):
    monkeypatch.setattr(objects.MigrationList, 'get_page', classmethod(
        lambda cls, context, filters, limit, marker=None, changes_since=None,
        changes_before=None:
        paged.append(filters) or objects.MigrationList(objects=[_owned()])))
    return paged


def test_user_and_project_shown_from_2_80(api, at_version, owned):
    old = at_version(api(ADMIN), '2.79')('GET', '/os-migrations').json
    assert 'user_id' not in old['migrations'][0]
    new = at_version(api(ADMIN), '2.80')('GET', '/os-migrations')
    shapes.check_shape(new, shapes.TempestSchemas(
        'migrations', '2.80').list_migrations)
    [view] = new.json['migrations']
    assert (view['user_id'], view['project_id']) == ('u1', 'p1')


def test_user_and_project_filters_from_2_80(api, at_version, owned):
    resp = at_version(api(ADMIN), '2.80')(
        'GET', '/os-migrations?user_id=u1&project_id=p1&host=c1')
    assert resp.status_int == 200, resp.text
    assert owned[-1] == {'host': 'c1', 'hidden': False, 'user_id': 'u1',
                         'project_id': 'p1'}
    for query in ('user_id=u1&user_id=u2', 'project_id=a&project_id=b'):
        resp = at_version(api(ADMIN), '2.80')('GET', '/os-migrations?'
                                              + query)
        assert resp.status_int == 400, resp.text


def test_user_and_project_filters_are_400_before_2_80(api, at_version,
                                                      owned):
    # Unknown query parameters are refused from 2.59, as in Nova.
    for query in ('user_id=u1', 'project_id=p1'):
        resp = at_version(api(ADMIN), '2.79')('GET', '/os-migrations?'
                                              + query)
        assert resp.status_int == 400, resp.text


def test_server_migrations_show_user_and_project_from_2_80(api, at_version,
                                                          monkeypatch):
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters', classmethod(
        lambda cls, context, filters, limit=None: objects.MigrationList(
            objects=[_owned(migration_type='live-migration',
                            status='running')])))
    monkeypatch.setattr(handler, 'compute', fakes.FakeComputeAPI(
        [fakes.instance(host='c2')]))
    path = '/servers/%s/migrations' % UUID
    old = at_version(api(ADMIN), '2.79')('GET', path).json
    assert 'user_id' not in old['migrations'][0]
    new = at_version(api(ADMIN), '2.80')('GET', path)
    shapes.check_shape(new, shapes.TempestSchemas(
        'servers', '2.80').list_live_migrations)
    [view] = new.json['migrations']
    assert (view['user_id'], view['project_id']) == ('u1', 'p1')
