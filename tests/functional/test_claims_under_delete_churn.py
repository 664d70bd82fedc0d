"""Boots onto one roomy node while servers are being deleted all along.

Deleting a server removes its allocations, which bumps its provider's
generation; a scheduler whose in-memory view predates that loses the
compare-and-swap of its next claim on that node. The node still has
room, so the scheduler refreshes it and claims again: every boot ends
ACTIVE, none in ERROR with "claims: 1 -> 0" (issue 11: 5 of 187 did),
and the node never holds more than its capacity.

PostgreSQL, RabbitMQ and the daemons; bounded in count and time.
"""

import collections
import concurrent.futures
import re
import threading
import time

import pytest

from tests.functional import conftest
from tests.functional import deployment

BOOTS = 120
CLIENTS = 8
# One node: (16384 - 512 reserved) x 1.0 = 15872 MB, sixty-two 256 MB
# servers. At most LIVE boots are in flight and the deleter keeps LIVE/2
# servers ACTIVE, so even with deletes finishing late the node stays more
# than half empty throughout.
NODE = {'node_count': 1, 'vcpus': 128, 'memory_mb': 16384, 'local_gb': 400}
CAPACITY = 62
LIVE = 10
FLAVOR = {'flavor': {'name': 'tiny', 'id': 'tiny', 'ram': 256, 'vcpus': 1,
                     'disk': 1}}
LOST = re.compile(r'Claim for \S+ on \S+ lost to a concurrent change')
TRY = re.compile(r'lost to a concurrent change \(try (\d+)\)')
USED = ('SELECT COALESCE(SUM(a.used), 0) AS used FROM allocations a '
        "WHERE a.resource_class = 'MEMORY_MB'")


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp, request, computes={'compute1': NODE},
        conf={'scheduler': {'max_attempts': 1}}) as d:
        yield d


def _servers(deploy):
    status, _, body = deploy.api.get('/servers/detail?limit=1000')
    assert status == 200, body
    return body['servers']


class _Deleter(threading.Thread):
    """Deletes ACTIVE servers beyond the LIVE newest, until stopped."""

    def __init__(self, deploy):
        super().__init__(daemon=True)
        self.deploy = deploy
        self.stop = threading.Event()
        self.deleted = set()
        self.max_used = 0

    def run(self):
        deadline = time.monotonic() + 120
        while not self.stop.wait(0.05) and time.monotonic() < deadline:
            used = self.deploy.sql(USED)[0].used
            self.max_used = max(self.max_used, used)
            active = [s for s in _servers(self.deploy)
                      if s['status'] == 'ACTIVE'
                      and s['id'] not in self.deleted]
            active.sort(key=lambda s: s['created'])
            for server in active[:max(0, len(active) - LIVE // 2)]:
                status, _, body = self.deploy.api.delete(
                    '/servers/%s' % server['id'])
                assert status == 204, body
                self.deleted.add(server['id'])


def _boot(deploy, image_id, index):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'churn-%d' % index, 'imageRef': image_id,
        'flavorRef': 'tiny'}})
    assert status == 202, body
    return body['server']['id']


def _throttled_boots(deploy, image_id):
    """BOOTS boots from CLIENTS threads, each waiting while LIVE servers
    are building or active, so the node is never full."""
    gate = threading.Semaphore(LIVE)

    def one(index):
        with gate:
            uuid = _boot(deploy, image_id, index)
            deployment.wait_for(
                lambda: _status(deploy, uuid) in ('ACTIVE', 'ERROR',
                                                  'DELETED'),
                timeout=60, message='server %s settled' % uuid)
        return uuid

    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(one, range(BOOTS)))


def _status(deploy, uuid):
    status, _, body = deploy.api.get('/servers/%s' % uuid)
    if status == 404:
        return 'DELETED'
    return body['server']['status']


def _warm_up(deploy, image_id):
    """Boot (and delete) one server once the scheduler knows the node:
    the churn is about claims, not about a scheduler still starting."""
    def booted():
        uuid = _boot(deploy, image_id, -1)
        settled = deployment.wait_for(
            lambda: _status(deploy, uuid) in ('ACTIVE', 'ERROR') and
            _status(deploy, uuid), timeout=30,
            message='warm-up server settled')
        deploy.api.delete('/servers/%s' % uuid)
        deployment.wait_for(lambda: _status(deploy, uuid) == 'DELETED',
                            timeout=30, message='warm-up server deleted')
        return settled == 'ACTIVE'
    deployment.wait_for(booted, timeout=90, interval=1,
                        message='a first server ACTIVE')


def test_boots_under_delete_churn_all_succeed(deploy):
    image_id = deploy.register_image()
    status, _, body = deploy.admin_api.post('/flavors', FLAVOR)
    assert status == 200, body
    _warm_up(deploy, image_id)
    deleter = _Deleter(deploy)
    deleter.start()
    try:
        uuids = _throttled_boots(deploy, image_id)
    finally:
        deleter.stop.set()
        deleter.join()
    errors = [s for s in _servers(deploy) if s['status'] == 'ERROR']
    log = deploy.daemon('scheduler').tail(200000)
    tries = collections.Counter(TRY.findall(log))
    assert errors == [], 'ERROR: %d; lost claims by try: %s; faults: %s' % (
        len(errors), sorted(tries.items()),
        [s.get('fault', {}).get('message', '')[-120:] for s in errors])
    assert len(set(uuids)) == BOOTS
    assert deleter.deleted, 'nothing was deleted while booting'
    assert deleter.max_used <= CAPACITY * 256
    lost = len(LOST.findall(log))
    print('claims lost to concurrent changes and retried: %d' % lost)
    assert 'Scheduled 1 instances' in log
    # The churn did make claims lose (some forty boots in a hundred and
    # twenty, without the retry, ended in ERROR here).
    assert lost > 0
