"""/os-aggregates handlers (Nova 2.1 shapes) and the AggregateAPI rules,
with the objects' database calls replaced by an in-memory store."""

import datetime

import pytest

from nova_lite.api.handlers import aggregates as handler
from nova_lite.compute import aggregate_api
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest

ADMIN = conftest.make_context('admin', 'ops')
CREATED = datetime.datetime(2024, 1, 31, 12, 0, 0)
UPDATED = datetime.datetime(2024, 1, 31, 12, 5, 0)
SERVICES = {'c1', 'c2', 'c3'}


class Store:
    """Aggregates in memory, behind the objects' remotable methods."""

    def __init__(self):
        self.rows = {}
        self.placement = {}     # host -> aggregate uuids
        self.instances = {}     # host -> count

    def install(self, monkeypatch):
        store = self

        def get_by_id(cls, context, aggregate_id):
            if aggregate_id not in store.rows:
                raise exception.AggregateNotFound(aggregate_id=aggregate_id)
            return store._copy(aggregate_id)

        def get_all(cls, context):
            return objects.AggregateList(objects=[
                store._copy(i) for i in sorted(store.rows)])

        def get_by_host(cls, context, host, key=None):
            return objects.AggregateList(objects=[
                store._copy(i) for i in sorted(store.rows)
                if host in store.rows[i]['hosts']
                and (key is None or key in store.rows[i]['metadata'])])

        def create(agg):
            if any(r['name'] == agg.name for r in store.rows.values()):
                raise exception.AggregateNameExists(aggregate_name=agg.name)
            new_id = len(store.rows) + 1
            store.rows[new_id] = {
                'id': new_id, 'name': agg.name, 'hosts': [],
                'uuid': 'aaaaaaaa-0000-4000-8000-%012d' % new_id,
                'metadata': dict(agg.metadata if agg.obj_attr_is_set(
                    'metadata') else {})}
            store._fill(agg, new_id)

        def save(agg):
            # As the database's onupdate does.
            store.rows[agg.id].update(name=agg.name, updated_at=UPDATED)
            agg.updated_at = UPDATED

        def update_metadata(agg, updates):
            meta = store.rows[agg.id]['metadata']
            for key, value in updates.items():
                if value is None:
                    meta.pop(key, None)
                else:
                    meta[key] = value
            store._fill(agg, agg.id)

        def add_host(agg, host):
            row = store.rows[agg.id]
            if host in row['hosts']:
                raise exception.AggregateHostExists(aggregate_id=agg.id,
                                                    host=host)
            row['hosts'].append(host)
            store._fill(agg, agg.id)
            return ['rp-of-%s' % host]

        def delete_host(agg, host):
            row = store.rows[agg.id]
            if host not in row['hosts']:
                raise exception.AggregateHostNotFound(aggregate_id=agg.id,
                                                      host=host)
            row['hosts'].remove(host)
            store._fill(agg, agg.id)
            return ['rp-of-%s' % host]

        def destroy(agg):
            if store.rows[agg.id]['hosts']:
                raise exception.InvalidAggregateActionDelete(
                    aggregate_id=agg.id, reason='Host aggregate is not '
                                                'empty')
            del store.rows[agg.id]

        def service(cls, context, host, binary):
            if host not in SERVICES:
                raise exception.ServiceNotFound(service_id=host)
            return objects.Service(host=host, binary=binary)

        def instances(cls, context, filters, limit=None, **kwargs):
            hosts = filters['host']
            return [object()] * sum(store.instances.get(h, 0)
                                    for h in hosts)

        agg_cls = objects.Aggregate
        for name, fn in (('get_by_id', classmethod(get_by_id)),
                         ('create', create), ('save', save),
                         ('update_metadata', update_metadata),
                         ('add_host', add_host), ('delete_host', delete_host),
                         ('destroy', destroy)):
            monkeypatch.setattr(agg_cls, name, fn)
        monkeypatch.setattr(objects.AggregateList, 'get_all',
                            classmethod(get_all))
        monkeypatch.setattr(objects.AggregateList, 'get_by_host',
                            classmethod(get_by_host))
        monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                            classmethod(service))
        monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                            classmethod(instances))

    def _fill(self, agg, row_id):
        row = self.rows[row_id]
        agg.id = row['id']
        agg.uuid = row['uuid']
        agg.name = row['name']
        agg.hosts = list(row['hosts'])
        agg.metadata = dict(row['metadata'])
        agg.created_at = CREATED
        agg.updated_at = row.get('updated_at')
        agg.obj_reset_changes()

    def _copy(self, row_id):
        agg = objects.Aggregate()
        self._fill(agg, row_id)
        return agg


@pytest.fixture
def store(monkeypatch):
    store = Store()
    store.install(monkeypatch)
    monkeypatch.setattr(handler, 'api', aggregate_api.AggregateAPI())
    return store


def _create(api, name='rack1', zone=None):
    body = {'aggregate': {'name': name}}
    if zone is not None:
        body['aggregate']['availability_zone'] = zone
    return api('POST', '/os-aggregates', body)


def test_create_show_list_delete(api, store):
    admin = api(ADMIN)
    resp = _create(admin, zone='az1')
    assert resp.status_int == 200
    assert resp.json == {'aggregate': {
        'availability_zone': 'az1', 'created_at': '2024-01-31T12:00:00.000000',
        'deleted': False, 'deleted_at': None, 'id': 1, 'name': 'rack1',
        'updated_at': None}}
    shown = admin('GET', '/os-aggregates/1').json['aggregate']
    assert (shown['hosts'], shown['metadata']) == (
        [], {'availability_zone': 'az1'})
    assert [a['name'] for a in admin('GET', '/os-aggregates').json[
        'aggregates']] == ['rack1']
    assert admin('DELETE', '/os-aggregates/1').status_int == 200
    assert admin('GET', '/os-aggregates/1').status_int == 404


def test_errors(api, store):
    admin = api(ADMIN)
    _create(admin)
    assert _create(admin).status_int == 409
    assert _create(admin, 'x', zone='internal').status_int == 400
    assert _create(admin, '  padded').status_int == 400
    assert admin('GET', '/os-aggregates/abc').status_int == 400
    assert admin('GET', '/os-aggregates/9').status_int == 404
    assert admin('PUT', '/os-aggregates/1',
                 {'aggregate': {}}).status_int == 400
    assert api()('GET', '/os-aggregates').status_int == 403


def test_hosts_join_and_leave(api, store):
    admin = api(ADMIN)
    _create(admin, zone='az1')
    action = '/os-aggregates/1/action'
    resp = admin('POST', action, {'add_host': {'host': 'c1'}})
    assert resp.status_int == 200
    assert resp.json['aggregate']['hosts'] == ['c1']
    assert admin('POST', action,
                 {'add_host': {'host': 'c1'}}).status_int == 409
    assert admin('POST', action,
                 {'add_host': {'host': 'nope'}}).status_int == 404
    assert admin('POST', action,
                 {'remove_host': {'host': 'c2'}}).status_int == 404
    assert admin('DELETE', '/os-aggregates/1').status_int == 400
    assert admin('POST', action,
                 {'remove_host': {'host': 'c1'}}).json['aggregate'][
        'hosts'] == []


@pytest.mark.parametrize('body', [
    {}, {'add_host': {'host': 'c1'}, 'remove_host': {'host': 'c1'}},
    {'reboot': {}}, {'add_host': {}}, {'add_host': {'host': 'a b'}},
    {'set_metadata': {'metadata': {'k': 1}}}])
def test_bad_actions(api, store, body):
    admin = api(ADMIN)
    _create(admin)
    assert admin('POST', '/os-aggregates/1/action', body).status_int == 400


def test_a_host_is_in_one_zone_only(api, store):
    admin = api(ADMIN)
    _create(admin, 'a', zone='az1')
    _create(admin, 'b', zone='az2')
    _create(admin, 'c')
    admin('POST', '/os-aggregates/1/action', {'add_host': {'host': 'c1'}})
    resp = admin('POST', '/os-aggregates/2/action',
                 {'add_host': {'host': 'c1'}})
    assert resp.status_int == 400
    assert "already in availability zone(s) ['az1']" in resp.text
    # A zoneless aggregate takes it; zoning that one the other way fails.
    admin('POST', '/os-aggregates/3/action', {'add_host': {'host': 'c1'}})
    resp = admin('POST', '/os-aggregates/3/action', {'set_metadata': {
        'metadata': {'availability_zone': 'az2'}}})
    assert resp.status_int == 400
    resp = admin('POST', '/os-aggregates/3/action', {'set_metadata': {
        'metadata': {'availability_zone': 'az1', 'ssd': 'true'}}})
    assert resp.json['aggregate']['metadata'] == {
        'availability_zone': 'az1', 'ssd': 'true'}


def test_zone_does_not_change_under_instances(api, store):
    admin = api(ADMIN)
    _create(admin, zone='az1')
    admin('POST', '/os-aggregates/1/action', {'add_host': {'host': 'c1'}})
    store.instances['c1'] = 1
    resp = admin('PUT', '/os-aggregates/1',
                 {'aggregate': {'availability_zone': 'az9'}})
    assert resp.status_int == 400
    assert 'contain instances' in resp.text
    # Renaming is fine, and so is setting the zone it already has.
    resp = admin('PUT', '/os-aggregates/1', {'aggregate': {
        'name': 'rack9', 'availability_zone': 'az1'}})
    assert resp.json['aggregate']['name'] == 'rack9'
    store.instances['c1'] = 0
    resp = admin('PUT', '/os-aggregates/1',
                 {'aggregate': {'availability_zone': None}})
    assert resp.json['aggregate']['availability_zone'] is None


def test_metadata_null_removes_and_empty_zone_is_refused(api, store):
    admin = api(ADMIN)
    _create(admin, zone='az1')
    action = '/os-aggregates/1/action'
    admin('POST', action, {'set_metadata': {'metadata': {'k': 'v'}}})
    resp = admin('POST', action, {'set_metadata': {'metadata': {
        'k': None}}})
    assert resp.json['aggregate']['metadata'] == {'availability_zone': 'az1'}
    resp = admin('POST', action, {'set_metadata': {'metadata': {
        'availability_zone': ''}}})
    assert resp.status_int == 400


@pytest.mark.parametrize('body', [b'431114828', b'0', b'"add_host"',
                                  b'["add_host"]', b'true', b'null'])
def test_an_action_body_that_is_not_an_object(api, store, body):
    """Found by the fuzzing run (tox -e fuzz): a JSON number as the body
    of an aggregate action was a 500 (len() of an int)."""
    admin = api(ADMIN)
    _create(admin)
    resp = admin('POST', '/os-aggregates/1/action', body)
    assert resp.status_int == 400
    assert 'exactly one of add_host, remove_host, set_metadata' in (
        resp.json['badRequest']['message'])


@pytest.mark.parametrize('version, shown', [('2.40', False),
                                            ('2.41', True)])
def test_uuid_shown_from_2_41(api, at_version, store, version, shown):
    admin = at_version(api(ADMIN), version)
    created = admin('POST', '/os-aggregates', {'aggregate': {
        'name': 'rack1'}}).json['aggregate']
    uuid = 'aaaaaaaa-0000-4000-8000-000000000001'
    assert created.get('uuid') == (uuid if shown else None)
    views = [admin('GET', '/os-aggregates/1').json['aggregate'],
             admin('GET', '/os-aggregates').json['aggregates'][0],
             admin('PUT', '/os-aggregates/1', {'aggregate': {
                 'name': 'rack2'}}).json['aggregate'],
             admin('POST', '/os-aggregates/1/action', {'add_host': {
                 'host': 'c1'}}).json['aggregate']]
    assert [view.get('uuid') for view in views] == [
        uuid if shown else None] * 4
