"""Faults healed in seconds, with the real daemons (PostgreSQL, RabbitMQ).

Regression of the fault drill in which a compute killed and restarted 5 s
later left its servers in ``spawning`` until the conductor's build
timeout (600 s by default) ended them.
"""

import time

import pytest

from tests.functional import conftest
from tests.functional import deployment

SPAWN_DELAY = 30
COMPUTE = {'node_count': 2, 'spawn_delay': SPAWN_DELAY}
RECOVERY_BAR = 10


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    d = conftest.start_deployment(
        module_tmp, request, computes={'c1': COMPUTE},
        conf={'conductor': {'build_timeout': 600}})
    try:
        d.image_id = d.register_image()
        status, _, body = d.admin_api.post('/flavors', {'flavor': {
            'name': 'tiny', 'id': 'tiny', 'ram': 256, 'vcpus': 1,
            'disk': 1}})
        assert status == 200, body
    except Exception:
        d.stop()
        d.cleanup()
        raise
    yield d
    d.stop()
    d.cleanup()


def _states(deploy, uuids):
    rows = deploy.sql('SELECT uuid, vm_state, task_state FROM instances '
                      'WHERE uuid IN :uuids', uuids=tuple(uuids))
    return {row.uuid: (row.vm_state, row.task_state) for row in rows}


def test_a_compute_killed_mid_build_ends_its_builds_at_restart(deploy):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'lost', 'imageRef': deploy.image_id, 'flavorRef': 'tiny',
        'min_count': 2, 'max_count': 2, 'return_reservation_id': True}})
    assert status == 202, body
    rows = deploy.sql('SELECT uuid FROM instances WHERE reservation_id = '
                      ':rid', rid=body['reservation_id'])
    uuids = [row.uuid for row in rows]
    assert len(uuids) == 2
    deployment.wait_for(
        lambda: set(_states(deploy, uuids).values()) == {
            ('building', 'spawning')},
        timeout=60, message='both spawning')
    deploy.kill(deploy.daemon('c1'))
    restarted = time.monotonic()
    deploy.start_daemon('nova-lite-compute', 'c1', {
        'DEFAULT': {'host': 'c1'}, 'fake_driver': COMPUTE})
    deployment.wait_for(
        lambda: set(_states(deploy, uuids).values()) == {('error', None)},
        timeout=RECOVERY_BAR + 20, message='both in ERROR')
    assert time.monotonic() - restarted < RECOVERY_BAR + 20
    for uuid in uuids:
        status, _, server = deploy.api.get('/servers/%s' % uuid)
        assert server['server']['status'] == 'ERROR'
        assert 'restarted during the build' in \
            server['server']['fault']['message'], server
    assert not deploy.sql('SELECT id FROM allocations WHERE consumer_id '
                          'IN :uuids', uuids=tuple(uuids))
    assert not deploy.sql("SELECT id FROM reservations")
