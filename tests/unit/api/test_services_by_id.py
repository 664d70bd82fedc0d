"""/os-services/{id} (2.53): services named by uuid, PUT to update a
compute service, DELETE at every version (by id below 2.53)."""

import pytest

from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api.test_services_update import COMPUTE_UUID
from tests.unit.api.test_services_update import env  # noqa: F401
from tests.unit.api.test_services_update import SCHEDULER_UUID

ADMIN = conftest.make_context('admin', 'ops')
MISSING = '0c9c1d6e-0000-4000-8000-0000000000ff'


def _admin(api, at_version, version='2.53'):
    return at_version(api(ADMIN), version)


def test_ids_are_uuids_from_2_53(api, at_version, env):  # noqa: F811
    old = _admin(api, at_version, '2.52')('GET', '/os-services').json
    assert sorted(s['id'] for s in old['services']) == [2, 3]
    new = _admin(api, at_version)('GET', '/os-services').json
    assert sorted(s['id'] for s in new['services']) == [
        COMPUTE_UUID, SCHEDULER_UUID]


def test_update_by_uuid(api, at_version, env):  # noqa: F811
    put = _admin(api, at_version)
    resp = put('PUT', '/os-services/' + COMPUTE_UUID,
               {'status': 'disabled', 'disabled_reason': 'maintenance'})
    assert resp.status_int == 200
    shown = resp.json['service']
    assert (shown['id'], shown['binary'], shown['status'],
            shown['disabled_reason'], shown['zone']) == (
        COMPUTE_UUID, 'nova-compute', 'disabled', 'maintenance', 'az1')
    resp = put('PUT', '/os-services/' + COMPUTE_UUID, {'status': 'enabled'})
    assert resp.json['service']['disabled_reason'] is None
    resp = put('PUT', '/os-services/' + COMPUTE_UUID,
               {'forced_down': 'true'})
    assert (resp.json['service']['forced_down'],
            resp.json['service']['state']) == (True, 'down')
    assert env == [('cpu1', True, 'maintenance'), ('cpu1', False, None),
                   ('cpu1', False, None)]


@pytest.mark.parametrize('service_id, body, status, message', [
    (COMPUTE_UUID, {}, 400, 'No updates were requested'),
    # A reason alone changes nothing.
    (COMPUTE_UUID, {'disabled_reason': 'x'}, 400, 'No updates'),
    (COMPUTE_UUID, {'status': 'enabled', 'disabled_reason': 'x'}, 400,
     "'disabled_reason' with status 'enabled'"),
    (COMPUTE_UUID, {'status': 'off'}, 400, 'status'),
    (COMPUTE_UUID, {'host': 'cpu1'}, 400, 'Additional properties'),
    (SCHEDULER_UUID, {'status': 'disabled'}, 400,
     'Updating a nova-scheduler service is not supported'),
    ('2', {'status': 'disabled'}, 400, 'Invalid uuid 2'),
    ('disable', {'status': 'disabled'}, 400, 'Invalid uuid'),
    (MISSING, {'status': 'disabled'}, 404, MISSING),
])
def test_update_errors(api, at_version, env,  # noqa: F811
                       service_id, body, status, message):
    resp = _admin(api, at_version)('PUT', '/os-services/' + service_id,
                                   body)
    assert resp.status_int == status
    assert message in resp.text
    assert env == []


def test_legacy_actions_take_no_uuid_below_2_53(api, at_version,
                                                env):  # noqa: F811
    resp = _admin(api, at_version, '2.52')(
        'PUT', '/os-services/' + COMPUTE_UUID, {'status': 'disabled'})
    assert resp.status_int == 404


def test_update_needs_admin(api, at_version, env):  # noqa: F811
    resp = at_version(api(), '2.53')(
        'PUT', '/os-services/' + COMPUTE_UUID, {'status': 'disabled'})
    assert resp.status_int == 403


@pytest.fixture
def deletes(monkeypatch, env):  # noqa: F811
    rows = {2: COMPUTE_UUID, 3: SCHEDULER_UUID}
    destroyed = []

    def get(by, key):
        for service_id, uuid in rows.items():
            if key == {'id': service_id, 'uuid': uuid}[by]:
                return objects.Service(id=service_id, uuid=uuid, host='h',
                                       binary='nova-lite-compute')
        raise exception.ServiceNotFound(service_id=key)

    monkeypatch.setattr(objects.Service, 'get_by_id', classmethod(
        lambda cls, context, service_id: get('id', service_id)))
    monkeypatch.setattr(objects.Service, 'get_by_uuid', classmethod(
        lambda cls, context, uuid: get('uuid', uuid)))
    monkeypatch.setattr(objects.Service, 'destroy',
                        lambda self: destroyed.append(self.id))
    return destroyed


@pytest.mark.parametrize('version, service_id', [
    ('2.1', '2'), ('2.52', '2'), ('2.53', COMPUTE_UUID)])
def test_delete(api, at_version, deletes, version, service_id):
    resp = _admin(api, at_version, version)(
        'DELETE', '/os-services/' + service_id)
    assert resp.status_int == 204
    assert resp.body == b''
    assert deletes == [2]


@pytest.mark.parametrize('version, service_id, status, message', [
    ('2.52', COMPUTE_UUID, 400, 'id must be an integer'),
    ('2.52', '99999999999', 400, 'id must be an integer'),
    ('2.52', '9', 404, 'Service 9 could not be found'),
    ('2.53', '2', 400, 'Invalid uuid 2'),
    ('2.53', MISSING, 404, MISSING),
])
def test_delete_errors(api, at_version, deletes, version, service_id,
                       status, message):
    resp = _admin(api, at_version, version)(
        'DELETE', '/os-services/' + service_id)
    assert resp.status_int == status
    assert message in resp.text
    assert deletes == []


@pytest.mark.parametrize('error', [exception.ServiceHasServers,
                                   exception.ServiceHasMoves])
def test_delete_of_a_busy_compute_is_409(api, at_version, deletes,
                                         monkeypatch, error):
    def refuse(self):
        raise error()
    monkeypatch.setattr(objects.Service, 'destroy', refuse)
    resp = _admin(api, at_version)('DELETE', '/os-services/' + COMPUTE_UUID)
    assert resp.status_int == 409
    assert 'Unable to delete compute service' in resp.text


def test_delete_needs_admin(api, at_version, deletes):
    assert api()('DELETE', '/os-services/2').status_int == 403
    assert deletes == []
