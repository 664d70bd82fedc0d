"""The stock ``openstack`` client drives resize, its confirm and revert,
a cold migration and the migration list against the daemons (RabbitMQ,
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
        computes={'c1': NODE, 'c2': NODE}) as d:
        yield d


def _host(deploy, uuid):
    body = deploy.admin_api.get('/servers/%s' % uuid)[2]
    return body['server']['OS-EXT-SRV-ATTR:host']


def test_the_stock_client_drives_resize_and_migrate(deploy, identity):
    def cli(*args):
        return cli_tests._openstack(deploy, identity, *args)

    image = deploy.register_image()
    for name, ram in (('small', 512), ('big', 1024)):
        status, _, body = deploy.admin_api.post('/flavors', {'flavor': {
            'name': name, 'id': name, 'ram': ram, 'vcpus': 1, 'disk': 1}})
        assert status == 200, body
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'cli', 'imageRef': image, 'flavorRef': 'small'}})
    assert status == 202, body
    uuid = body['server']['id']
    cli_tests._wait(deploy, uuid, 'ACTIVE')
    first = _host(deploy, uuid)

    cli('server', 'resize', '--flavor', 'big', uuid)
    cli_tests._wait(deploy, uuid, 'VERIFY_RESIZE')
    assert _host(deploy, uuid) != first
    cli('server', 'resize', 'confirm', uuid)
    cli_tests._wait(deploy, uuid, 'ACTIVE')
    shown = cli('server', 'show', uuid, '-f', 'json')
    # "big (id)" below 2.47; from 2.47 the embedded flavor.
    flavor = shown['flavor']
    if isinstance(flavor, dict):
        flavor = flavor['original_name']
    assert flavor.startswith('big'), shown

    second = _host(deploy, uuid)
    cli('server', 'resize', '--flavor', 'small', uuid)
    cli_tests._wait(deploy, uuid, 'VERIFY_RESIZE')
    cli('server', 'resize', 'revert', uuid)
    cli_tests._wait(deploy, uuid, 'ACTIVE')
    assert _host(deploy, uuid) == second

    cli('server', 'migrate', uuid)
    cli_tests._wait(deploy, uuid, 'VERIFY_RESIZE')
    assert _host(deploy, uuid) == first
    cli('server', 'resize', 'confirm', uuid)
    cli_tests._wait(deploy, uuid, 'ACTIVE')

    listed = cli('server', 'migration', 'list', '-f', 'json')
    assert sorted(m['Status'] for m in listed) == [
        'confirmed', 'confirmed', 'reverted']
