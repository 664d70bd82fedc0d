"""The stock ``openstack`` client drives ``server image create``,
``server shelve`` and ``server unshelve`` against the daemons (RabbitMQ,
PostgreSQL, two computes), as a user would type them."""

import pytest

from tests.functional import conftest
from tests.functional import test_openstack_client_actions as cli_tests

identity = cli_tests.identity
pytestmark = cli_tests.pytestmark
NODE = {'node_count': 1, 'memory_mb': 8192}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'c1': NODE, 'c2': NODE},
        conf={'DEFAULT': {'shelved_offload_time': 0}}) as d:
        yield d


def test_the_stock_client_drives_snapshots_and_shelving(deploy, identity):
    def cli(*args):
        return cli_tests._openstack(deploy, identity, *args)

    image = deploy.register_image()
    assert deploy.admin_api.post('/flavors', cli_tests.FLAVOR)[0] == 200
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'cli', 'imageRef': image, 'flavorRef': 'small'}})
    assert status == 202, body
    uuid = body['server']['id']
    cli_tests._wait(deploy, uuid, 'ACTIVE')

    cli('server', 'image', 'create', '--name', 'cli-snap', uuid)
    cli_tests._wait(deploy, uuid, 'ACTIVE')
    _, _, listed = deploy.admin_api.get('/images/detail?name=cli-snap')
    [snapshot] = listed['images']
    assert snapshot['status'] == 'ACTIVE'
    assert snapshot['metadata']['instance_uuid'] == uuid

    cli('server', 'shelve', uuid)
    cli_tests._wait(deploy, uuid, 'SHELVED_OFFLOADED')
    cli('server', 'unshelve', uuid)
    cli_tests._wait(deploy, uuid, 'ACTIVE')

    events = cli('server', 'event', 'list', uuid, '-f', 'json')
    assert [e['Action'] for e in events][:3] == [
        'unshelve', 'shelve', 'createImage']
