"""Two schedulers, active/active on one broker, never overcommit.

Two ``nova-lite-scheduler`` daemons consume the one scheduler topic
(RabbitMQ hands each request to one of them) against PostgreSQL. Each
decides on its own in-memory view, which lags the other's claims, so
they pick the same hosts; the database arbitrates (a claim is a
compare-and-swap on the provider's generation) and the loser refreshes
that host and moves on.

Hundreds of boots arrive at once, through the API, from many client
threads, onto a few small nodes that hold a sixth of them. While they
run and once they are done, SQL shows that no provider ever holds more
than (total - reserved) x allocation_ratio of any resource class; every
server ends ACTIVE, or ERROR with a NoValidHost fault; and the
schedulers' logs show that claims were lost to each other.
"""

import concurrent.futures
import re
import threading

import pytest

from tests.functional import conftest
from tests.functional import deployment

BOOTS = 300
CLIENTS = 20
# Three computes of two nodes each. Per node, placement's MEMORY_MB
# capacity is (2560 - 512 reserved) x 1.0 = 2048: eight 256 MB servers,
# 48 in all.
NODE = {'node_count': 2, 'vcpus': 4, 'memory_mb': 2560, 'local_gb': 40}
COMPUTES = {'compute%d' % i: NODE for i in range(1, 4)}
CAPACITY = 48
FLAVOR = {'flavor': {'name': 'tiny', 'id': 'tiny', 'ram': 256, 'vcpus': 1,
                     'disk': 1}}
USAGE = ('SELECT r.name, i.resource_class, i.total, i.reserved, '
         'i.allocation_ratio, COALESCE(SUM(a.used), 0) AS used '
         'FROM resource_providers r '
         'JOIN inventories i ON i.resource_provider_id = r.id '
         'LEFT JOIN allocations a ON a.resource_provider_id = r.id '
         'AND a.resource_class = i.resource_class '
         'GROUP BY r.name, i.resource_class, i.total, i.reserved, '
         'i.allocation_ratio')
LOST = re.compile(r'Claim for \S+ on \S+ lost to a concurrent change')


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp, request, computes=COMPUTES, schedulers=2,
        conf={'scheduler': {'max_attempts': 2},
              'filter_scheduler': {'host_subset_size': 1}}) as d:
        yield d


def _overcommitted(deploy):
    """(provider, class, used, capacity) over capacity, in one snapshot."""
    return [(row.name, row.resource_class, row.used,
             int((row.total - row.reserved) * row.allocation_ratio))
            for row in deploy.sql(USAGE)
            if row.used > int((row.total - row.reserved)
                              * row.allocation_ratio)]


class _Watcher(threading.Thread):
    """Checks the capacity invariant over and over while boots run."""

    def __init__(self, deploy):
        super().__init__(daemon=True)
        self.deploy = deploy
        self.stop = threading.Event()
        self.snapshots = 0
        self.violations = []

    def run(self):
        while not self.stop.wait(0.1):
            self.violations.extend(_overcommitted(self.deploy))
            self.snapshots += 1


def _boot(deploy, image_id, index):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'aa-%d' % index, 'imageRef': image_id,
        'flavorRef': 'tiny'}})
    assert status == 202, body
    return body['server']['id']


def _settled(deploy, count):
    _, _, body = deploy.api.get('/servers/detail?limit=1000')
    servers = body['servers']
    return (len(servers) == count and all(
        s['status'] in ('ACTIVE', 'ERROR') for s in servers) and servers)


def test_concurrent_boots_never_overcommit(deploy):
    image_id = deploy.register_image()
    status, _, body = deploy.admin_api.post('/flavors', FLAVOR)
    assert status == 200, body
    watcher = _Watcher(deploy)
    watcher.start()
    try:
        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
            uuids = list(pool.map(lambda i: _boot(deploy, image_id, i),
                                  range(BOOTS)))
        servers = deployment.wait_for(
            lambda: _settled(deploy, BOOTS), timeout=45,
            message='%d servers ACTIVE or ERROR' % BOOTS)
    finally:
        watcher.stop.set()
        watcher.join()
    assert watcher.snapshots > 5
    assert watcher.violations == []
    assert _overcommitted(deploy) == []
    assert {s['id'] for s in servers} == set(uuids)

    active = [s for s in servers if s['status'] == 'ACTIVE']
    errors = [s for s in servers if s['status'] == 'ERROR']
    # Tight, but not so tight that the schedulers gave up early.
    assert CAPACITY * 3 // 4 <= len(active) <= CAPACITY
    for server in errors:
        assert server['fault']['message'].startswith(
            'No valid host was found.'), server['fault']
    held = {row.consumer_id for row in deploy.sql(
        'SELECT DISTINCT consumer_id FROM allocations')}
    assert held == {s['id'] for s in active}

    logs = {name: deploy.daemon(name).tail(100000)
            for name in ('scheduler', 'scheduler2')}
    # Both schedulers decided, and each lost claims to the other.
    for name, text in logs.items():
        assert 'Scheduled 1 instances' in text, name
    lost = sum(len(LOST.findall(text)) for text in logs.values())
    assert lost > 0, 'no claim conflicts in the schedulers\' logs'
