"""A shelved server's life on its host, on the real daemons (RabbitMQ,
PostgreSQL): two computes whose [DEFAULT] shelved_offload_time differ
(set per daemon through oslo.config's OS_DEFAULT__* variables).

``keep`` never offloads on its own (-1): a shelved server keeps its host
and allocations, unshelves by powering on there, and is offloaded only
when an administrator asks. ``timer`` offloads after 2 seconds, found by
its periodic check every second.
"""

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_moves_daemons as moves
from tests.functional import test_shelve_daemons as shelving

NODE = {'node_count': 1, 'vcpus': 8, 'local_gb': 100, 'memory_mb': 8192}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'keep': NODE, 'timer': NODE},
        env={'keep': {'OS_DEFAULT__SHELVED_OFFLOAD_TIME': '-1'},
             'timer': {'OS_DEFAULT__SHELVED_OFFLOAD_TIME': '2',
                       'OS_DEFAULT__SHELVED_POLL_INTERVAL': '1'}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {'m1': {'ram': 1024, 'vcpus': 1, 'disk': 10}})
        yield d


def _shelved_image(deploy, uuid):
    [row] = deploy.sql('SELECT shelved_image_id FROM instances '
                       'WHERE uuid = :u', u=uuid)
    return row.shelved_image_id


def test_shelved_in_place_unshelves_on_its_host(deploy):
    uuid = shelving._boot(deploy, host='keep')
    moves._action(deploy, uuid, {'shelve': None})
    server = moves._wait(deploy, uuid, 'SHELVED')
    assert server['OS-EXT-SRV-ATTR:host'] == 'keep'
    assert server['OS-EXT-STS:power_state'] == 4   # SHUTDOWN
    assert moves._allocations(deploy, uuid) == {
        'keep-n0': moves._size(1, 1024)}
    image_id = _shelved_image(deploy, uuid)
    deployment.wait_for(
        lambda: shelving._image(deploy, image_id)['status'] == 'ACTIVE',
        timeout=30, message='shelved image ACTIVE')

    moves._action(deploy, uuid, {'unshelve': None})
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'keep'
    assert server['OS-EXT-STS:power_state'] == 1   # RUNNING
    deployment.wait_for(lambda: shelving._image(deploy, image_id) is None,
                        timeout=30, message='shelved image deleted')
    moves._verify_clean(deploy)

    # Shelved again, it stays until an administrator offloads it.
    moves._action(deploy, uuid, {'shelve': None})
    moves._wait(deploy, uuid, 'SHELVED')
    moves._action(deploy, uuid, {'shelveOffload': None})
    server = moves._wait(deploy, uuid, 'SHELVED_OFFLOADED')
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert moves._allocations(deploy, uuid) == {}
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_shelved_offload_time_offloads_on_its_own(deploy):
    uuid = shelving._boot(deploy, host='timer')
    moves._action(deploy, uuid, {'shelve': None})
    # SHELVED on its host for at least the 2 seconds first.
    server = moves._wait(deploy, uuid, 'SHELVED')
    assert server['OS-EXT-SRV-ATTR:host'] == 'timer'
    server = moves._wait(deploy, uuid, 'SHELVED_OFFLOADED', timeout=60)
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert moves._allocations(deploy, uuid) == {}
    [row] = deploy.sql('SELECT shelved_host FROM instances WHERE uuid = :u',
                       u=uuid)
    assert row.shelved_host == 'timer'
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)
