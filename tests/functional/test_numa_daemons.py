"""NUMA placement for real: thread policies, huge pages and pinning usage.

One deployment (PostgreSQL, RabbitMQ, the daemons) with two one-node
computes, both one NUMA cell, only ComputeFilter and NUMATopologyFilter,
and the RAM weigher, so an unconstrained server goes to ``plain``:

* ``ht``: 4 CPUs in two cores of two threads, 512 MiB of 2 MiB pages;
* ``plain``: 8 CPUs of one thread each, no huge pages, more RAM.
"""

import pytest

from tests.functional import conftest
from tests.functional import deployment

COMPUTES = {
    'ht': {'node_count': 1, 'vcpus': 4, 'memory_mb': 8192, 'local_gb': 100,
           'numa_nodes': 1, 'threads_per_core': 2,
           'huge_pages': '2048:256'},
    'plain': {'node_count': 1, 'vcpus': 8, 'memory_mb': 16384,
              'local_gb': 100, 'numa_nodes': 1},
}
SCHEDULER = {'enabled_filters': 'ComputeFilter,NUMATopologyFilter',
             'weight_classes': 'RAMWeigher'}
FLAVORS = {
    'pin-require': {'hw:cpu_policy': 'dedicated',
                    'hw:cpu_thread_policy': 'require'},
    'huge': {'hw:mem_page_size': 'large'},
}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(module_tmp, request, computes=COMPUTES,
                           conf={'filter_scheduler': SCHEDULER}) as d:
        d.image_id = d.register_image()
        for name, specs in FLAVORS.items():
            status, _, body = d.admin_api.post('/flavors', {'flavor': {
                'name': name, 'id': name, 'ram': 256, 'vcpus': 2,
                'disk': 1}})
            assert status == 200, body
            status, _, body = d.admin_api.post(
                '/flavors/%s/os-extra_specs' % name, {'extra_specs': specs})
            assert status == 200, body
        yield d


def _boot(deploy, flavor):
    status, _, answer = deploy.api.post('/servers', {'server': {
        'name': 'numa', 'imageRef': deploy.image_id, 'flavorRef': flavor}})
    assert status == 202, answer
    return answer['server']['id']


def _settled(deploy, uuid):
    def reached():
        server = deploy.admin_api.get('/servers/%s' % uuid)[2]['server']
        return server['status'] in ('ACTIVE', 'ERROR') and server

    return deployment.wait_for(reached, timeout=60,
                               message='%s ACTIVE or ERROR' % uuid)


def test_huge_pages_send_the_server_to_the_host_that_has_them(deploy):
    server = _settled(deploy, _boot(deploy, 'huge'))
    assert server['status'] == 'ACTIVE', server
    assert server['OS-EXT-SRV-ATTR:host'] == 'ht'


def test_require_pins_sibling_pairs_until_none_is_left(deploy):
    # Two cores of two threads: two 2-CPU guests, then no fit anywhere
    # (plain has no thread siblings to give).
    first, second, third = (_settled(deploy, _boot(deploy, 'pin-require'))
                            for _ in range(3))
    assert [s['OS-EXT-SRV-ATTR:host'] for s in (first, second)] == [
        'ht', 'ht'], (first, second)
    assert third['status'] == 'ERROR', third
    assert 'NUMATopologyFilter' in third['fault']['message'], third['fault']
