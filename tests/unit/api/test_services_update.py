"""PUT /os-services/enable, /disable, /disable-log-reason, and the zone
of each service."""

import datetime

import pytest

from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest

ADMIN = conftest.make_context('admin', 'ops')
COMPUTE_UUID = '0c9c1d6e-0000-4000-8000-000000000002'
SCHEDULER_UUID = '0c9c1d6e-0000-4000-8000-000000000003'


@pytest.fixture
def env(monkeypatch):
    rows = {('cpu1', 'nova-lite-compute'): objects.Service(
        id=2, uuid=COMPUTE_UUID, host='cpu1', binary='nova-lite-compute',
        disabled=False,
        disabled_reason=None, forced_down=False, last_seen_up=None,
        created_at=None, updated_at=None),
        ('ctl', 'nova-lite-scheduler'): objects.Service(
        id=3, uuid=SCHEDULER_UUID, host='ctl', binary='nova-lite-scheduler',
        disabled=False,
        disabled_reason=None, forced_down=False, last_seen_up=None,
        created_at=None, updated_at=None)}
    saved = []

    def get(cls, context, host, binary):
        if (host, binary) not in rows:
            raise exception.ServiceNotFound(service_id=host)
        return rows[(host, binary)]

    def get_by_uuid(cls, context, uuid):
        for row in rows.values():
            if row.uuid == uuid:
                row.obj_reset_changes()
                return row
        raise exception.ServiceNotFound(service_id=uuid)

    def save(service):
        saved.append((service.host, service.disabled,
                      service.disabled_reason))
        # As the row's write does.
        service.updated_at = datetime.datetime(2020, 1, 1)
        service.obj_reset_changes()

    monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                        classmethod(get))
    monkeypatch.setattr(objects.Service, 'get_by_uuid',
                        classmethod(get_by_uuid))
    monkeypatch.setattr(objects.Service, 'save', save)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, ctxt, binary=None, host=None: objects.ServiceList(
            objects=list(rows.values()))))
    monkeypatch.setattr(objects.AggregateList, 'get_all', classmethod(
        lambda cls, ctxt: objects.AggregateList(objects=[
            objects.Aggregate(name='a', hosts=['cpu1'],
                              metadata={'availability_zone': 'az1'})])))
    return saved


def _put(api, action, **body):
    body.setdefault('host', 'cpu1')
    body.setdefault('binary', 'nova-compute')
    return api(ADMIN)('PUT', '/os-services/%s' % action, body)


def test_disable_and_enable_a_compute(api, env):
    saved = env
    resp = _put(api, 'disable')
    assert resp.status_int == 200
    assert resp.json == {'service': {'host': 'cpu1',
                                     'binary': 'nova-compute',
                                     'status': 'disabled'}}
    resp = _put(api, 'disable-log-reason', disabled_reason='maintenance')
    assert resp.json['service']['disabled_reason'] == 'maintenance'
    assert _put(api, 'enable').json['service']['status'] == 'enabled'
    assert saved == [('cpu1', True, None), ('cpu1', True, 'maintenance'),
                     ('cpu1', False, None)]
    # The schedulers hear of it from the service write itself (see
    # tests/functional/db/test_change_notices.py).


def test_registered_binary_names_work_too(api, env):
    resp = _put(api, 'disable', binary='nova-lite-compute')
    assert resp.status_int == 200
    assert resp.json['service']['binary'] == 'nova-compute'
    assert env == [('cpu1', True, None)]


def test_other_services_change_too(api, env):
    assert _put(api, 'disable', host='ctl',
                binary='nova-scheduler').status_int == 200
    assert env == [('ctl', True, None)]


@pytest.mark.parametrize('action, body, status', [
    ('disable', {'host': 'nope'}, 404),
    ('reboot', {}, 404),
    ('disable-log-reason', {}, 400),
    ('disable-log-reason', {'disabled_reason': ''}, 400),
    ('enable', {'extra': 1}, 400),
])
def test_errors(api, env, action, body, status):
    assert _put(api, action, **body).status_int == status


def test_only_administrators(api, env):
    resp = api()('PUT', '/os-services/disable',
                 {'host': 'cpu1', 'binary': 'nova-lite-compute'})
    assert resp.status_int == 403
    assert env == []


def test_zones_in_the_list(api, env):
    services = {s['host']: s['zone'] for s in api(ADMIN)(
        'GET', '/os-services').json['services']}
    assert services == {'cpu1': 'az1', 'ctl': 'internal'}


def test_forced_down_shown_from_2_11(api, env, at_version):
    admin = api(ADMIN)
    old = at_version(admin, '2.10')('GET', '/os-services').json['services']
    assert not [s for s in old if 'forced_down' in s]
    new = at_version(admin, '2.11')('GET', '/os-services').json['services']
    assert [s['forced_down'] for s in new] == [False, False]


def test_force_down_from_2_11(api, env, at_version):
    body = {'host': 'cpu1', 'binary': 'nova-compute', 'forced_down': True}
    assert at_version(api(ADMIN), '2.10')(
        'PUT', '/os-services/force-down', body).status_int == 404
    resp = at_version(api(ADMIN), '2.11')(
        'PUT', '/os-services/force-down', body)
    assert resp.status_int == 200
    assert resp.json == {'service': {'host': 'cpu1',
                                     'binary': 'nova-compute',
                                     'forced_down': True}}
    listed = at_version(api(ADMIN), '2.11')('GET', '/os-services').json
    cpu1 = [s for s in listed['services'] if s['host'] == 'cpu1'][0]
    assert (cpu1['forced_down'], cpu1['state']) == (True, 'down')


@pytest.mark.parametrize('body,status', [
    ({'host': 'cpu1', 'binary': 'nova-compute'}, 400),
    ({'host': 'cpu1', 'binary': 'nova-compute', 'forced_down': 'x'}, 400),
    ({'host': 'nope', 'binary': 'nova-compute', 'forced_down': True}, 404),
])
def test_force_down_bad_requests(api, env, at_version, body, status):
    assert at_version(api(ADMIN), '2.11')(
        'PUT', '/os-services/force-down', body).status_int == status


def test_force_down_is_for_administrators(api, env, at_version):
    body = {'host': 'cpu1', 'binary': 'nova-compute', 'forced_down': True}
    assert at_version(api(), '2.11')(
        'PUT', '/os-services/force-down', body).status_int == 403
