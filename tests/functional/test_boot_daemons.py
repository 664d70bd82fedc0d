"""The spine, for real: four daemons as processes on RabbitMQ, against
PostgreSQL and then MariaDB, boot ten servers and delete them."""

import pytest

from tests.functional import conftest
from tests.functional import deployment

NODE = {'node_count': 3, 'vcpus': 4, 'memory_mb': 8192, 'local_gb': 100}
FLAVOR = {'flavor': {'name': 'small', 'id': 'small', 'ram': 1024,
                     'vcpus': 1, 'disk': 10}}


@pytest.fixture(scope='module', params=['postgresql', 'mysql'])
def deploy(request, module_tmp):
    workdir = module_tmp / request.param
    with conftest.deployed(
        workdir, request, backend=request.param,
        computes={'compute1': NODE, 'compute2': NODE}) as d:
        yield d


def _allocations(deploy):
    rows = deploy.sql(
        'SELECT a.consumer_id, r.uuid, a.resource_class, a.used '
        'FROM allocations a JOIN resource_providers r '
        'ON r.id = a.resource_provider_id')
    capacity = deploy.sql(
        'SELECT r.uuid, i.resource_class, i.total, i.reserved, '
        'i.allocation_ratio FROM inventories i JOIN resource_providers r '
        'ON r.id = i.resource_provider_id')
    return rows, capacity


def test_boot_ten_list_show_delete(deploy):
    image_id = deploy.register_image()
    status, _, body = deploy.admin_api.post('/flavors', FLAVOR)
    assert status == 200, body
    server = {'name': 'web', 'imageRef': image_id, 'flavorRef': 'small'}
    status, _, body = deploy.api.post(
        '/servers', {'server': dict(server, min_count=5, max_count=5)})
    assert status == 202, body
    for index in range(5):
        status, _, body = deploy.api.post(
            '/servers', {'server': dict(server, name='db-%d' % index)})
        assert status == 202, body

    def all_active():
        _, _, body = deploy.api.get('/servers/detail')
        servers = body['servers']
        errors = [s for s in servers if s['status'] == 'ERROR']
        assert not errors, (errors, deploy.logs())
        return len(servers) == 10 and all(
            s['status'] == 'ACTIVE' for s in servers) and servers

    servers = deployment.wait_for(all_active, timeout=90,
                                  message='10 ACTIVE servers')
    uuids = {s['id'] for s in servers}
    rows, capacity = _allocations(deploy)
    assert {row.consumer_id for row in rows} == uuids
    used = {}
    for row in rows:
        key = (row.uuid, row.resource_class)
        used[key] = used.get(key, 0) + row.used
    for cap in capacity:
        limit = (cap.total - cap.reserved) * cap.allocation_ratio
        assert used.get((cap.uuid, cap.resource_class), 0) <= limit

    status, _, listing = deploy.api.get('/servers')
    assert {s['id'] for s in listing['servers']} == uuids
    one = servers[0]
    status, _, shown = deploy.api.get('/servers/%s' % one['id'])
    assert status == 200 and shown['server']['status'] == 'ACTIVE'
    # Another project sees none of them.
    status, _, other = deploy.api.as_user('eve:other').get('/servers')
    assert other['servers'] == []

    for uuid in uuids:
        status, _, body = deploy.api.delete('/servers/%s' % uuid)
        assert status == 204, body
    deployment.wait_for(
        lambda: deploy.api.get('/servers')[2]['servers'] == [],
        timeout=60, message='servers deleted')
    deployment.wait_for(lambda: _allocations(deploy)[0] == [], timeout=30,
                        message='allocations removed')
