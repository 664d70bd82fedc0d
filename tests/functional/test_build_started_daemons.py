"""A compute acknowledges a build with its first save, one cast
(conductor RPC 1.10), on the real daemons (PostgreSQL, RabbitMQ), while
a compute pinned below 1.10 beside it sends the receipt and the save
call as before (compute/build_receipts.py,
conductor/tasks/build_started.py)."""

import time

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_lost_work as lost_work
from tests.upgrade import report

NODE = {'node_count': 1, 'vcpus': 16, 'memory_mb': 16384, 'local_gb': 500}
STATS = {'DEFAULT': {'rpc_stats_log_interval': 1}}
STARTED = 'conductor.build_started@1.10'
RECEIVED = 'conductor.build_received@1.6'


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
            module_tmp, request, computes={'new1': NODE, 'old1': NODE},
            daemon_conf={'new1': STATS,
                         'old1': dict(STATS, upgrade_levels={
                             'conductor': '1.9'})}) as d:
        d.image_id = d.register_image()
        status, _, body = d.admin_api.post('/flavors', {'flavor': {
            'name': 'tiny', 'id': 'tiny', 'ram': 256, 'vcpus': 1,
            'disk': 1}})
        assert status == 200, body
        deployment.wait_for(lambda: len(d.sql(
            'SELECT id FROM resource_providers')) == 2, timeout=30,
            message='both computes reported')
        yield d


def _hosts(deploy, uuids):
    rows = deploy.sql('SELECT host FROM instances WHERE uuid IN :uuids',
                      uuids=tuple(uuids))
    return {row.host for row in rows}


def _sent(deploy, host):
    points = report.read_stats(deploy.daemon(host).log)
    return points[-1][1].get('sent', {}) if points else {}


def _all_active(deploy, uuids):
    deployment.wait_for(
        lambda: set(lost_work._states(deploy, uuids).values()) == {
            ('active', None)}, timeout=30, message='ACTIVE')


def test_each_compute_acknowledges_as_its_pin_allows(deploy):
    uuids = []
    for _ in range(10):
        uuids += lost_work._boot(deploy, 'started', count=2)
        _all_active(deploy, uuids)
        if _hosts(deploy, uuids) == {'new1', 'old1'}:
            break
    assert _hosts(deploy, uuids) == {'new1', 'old1'}
    owners = deploy.sql('SELECT DISTINCT build_owner FROM instances '
                        'WHERE uuid IN :uuids', uuids=tuple(uuids))
    assert [row.build_owner for row in owners] == ['-']
    time.sleep(2.5)   # the next statistics line of each compute
    new, old = _sent(deploy, 'new1'), _sent(deploy, 'old1')
    assert new.get(STARTED) and not new.get(RECEIVED), new
    assert old.get(RECEIVED) and not old.get(STARTED), old
    lost_work._delete_all(deploy, uuids)
