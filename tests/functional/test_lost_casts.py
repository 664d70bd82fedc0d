"""A build cast lost on its way to a compute ends in a definite state
within seconds, on the real daemons (PostgreSQL, RabbitMQ)
(conductor/tasks/lost_casts.py, compute/build_receipts.py).

The cast is really lost: the compute is SIGKILLed and its queue deleted
from the run's vhost, so RabbitMQ drops the conductor's
build_and_run_instance (no queue is bound to its routing key).

* The compute comes back within service_down_time: the conductor casts
  the unacknowledged builds again to the same node, and they go ACTIVE
  with one claim each.
* The compute stays away: once it is seen down the builds end in ERROR
  with a fault naming it, and their allocations and quota are released.
"""

import subprocess
import time

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_lost_work as lost_work

RECOVERY_BAR = 10
GRACE = 2
DOWN_TIME = 20     # the deployment's service_down_time
COMPUTE = {'node_count': 2, 'spawn_delay': 0.5}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    d = conftest.start_deployment(
        module_tmp, request, computes={'c1': COMPUTE},
        conf={'conductor': {'build_timeout': 600,
                            'lost_build_check_interval': 1,
                            'build_timeout_check_interval': 2,
                            'lost_cast_grace': GRACE,
                            # Casts keep going to c1 while it restarts,
                            # which takes seconds on a loaded machine;
                            # the default 3 would end the builds in
                            # ERROR after about 12 s here.
                            'lost_cast_retries': 10}})
    try:
        d.image_id = d.register_image()
        status, _, body = d.admin_api.post('/flavors', {'flavor': {
            'name': 'tiny', 'id': 'tiny', 'ram': 256, 'vcpus': 1,
            'disk': 1}})
        assert status == 200, body
        # The scheduler must know c1's nodes before the boots.
        deployment.wait_for(lambda: d.sql(
            'SELECT id FROM resource_providers'), timeout=30,
            message='c1 reported')
    except Exception:
        d.stop()
        d.cleanup()
        raise
    yield d
    d.stop()
    d.cleanup()


def _lose_the_compute(deploy):
    """SIGKILL c1 and delete its queue: casts to it are dropped."""
    deploy.kill(deploy.daemon('c1'))
    subprocess.run(['rabbitmqctl', 'delete_queue', '-p', deploy.vhost.name,
                    'compute.c1'], check=True, timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _owners(deploy, uuids):
    return {row.build_owner for row in deploy.sql(
        'SELECT build_owner FROM instances WHERE uuid IN :uuids',
        uuids=tuple(uuids))}


def _start_compute(deploy):
    return deploy.start_daemon('nova-lite-compute', 'c1', {
        'DEFAULT': {'host': 'c1'}, 'fake_driver': COMPUTE})


def test_a_lost_cast_is_cast_again_once_the_compute_is_back(deploy):
    _lose_the_compute(deploy)
    uuids = lost_work._boot(deploy, 'lost-cast', count=2)
    deployment.wait_for(lambda: _owners(deploy, uuids) == {'-c1'},
                        timeout=10, message='the builds cast to c1')
    assert set(lost_work._states(deploy, uuids).values()) == {
        ('building', 'scheduling')}
    _start_compute(deploy)
    back = time.monotonic()
    deployment.wait_for(
        lambda: set(lost_work._states(deploy, uuids).values()) == {
            ('active', None)},
        timeout=RECOVERY_BAR, message='the lost builds ACTIVE')
    print('recovered %.1f s after the compute was back' % (
        time.monotonic() - back))
    assert 'not acknowledged; casting it again' in lost_work._log(
        deploy.daemon('conductor'))
    for uuid in uuids:
        status, _, body = deploy.admin_api.get('/servers/%s' % uuid)
        assert body['server']['status'] == 'ACTIVE', body
        assert body['server']['OS-EXT-SRV-ATTR:host'] == 'c1', body
        assert len(lost_work._allocations(deploy, uuid)) == 3
    assert _owners(deploy, uuids) == {'-'}
    lost_work._assert_clean(deploy)
    lost_work._delete_all(deploy, uuids)
    lost_work._assert_clean(deploy)


def test_a_lost_cast_to_a_compute_that_stays_down_ends_in_error(deploy):
    _lose_the_compute(deploy)
    killed = time.monotonic()
    uuids = lost_work._boot(deploy, 'lost-for-good', count=2)
    deployment.wait_for(
        lambda: set(lost_work._states(deploy, uuids).values()) == {
            ('error', None)},
        timeout=DOWN_TIME + RECOVERY_BAR, message='the lost builds ERROR')
    assert time.monotonic() - killed < DOWN_TIME + RECOVERY_BAR
    for uuid in uuids:
        status, _, body = deploy.api.get('/servers/%s' % uuid)
        assert body['server']['status'] == 'ERROR', body
        assert 'compute c1' in body['server']['fault']['message'], body
        assert not lost_work._allocations(deploy, uuid)
    lost_work._assert_clean(deploy)
    # The compute returns: nothing it finds changes those servers.
    _start_compute(deploy)
    time.sleep(GRACE + 2)
    assert set(lost_work._states(deploy, uuids).values()) == {
        ('error', None)}
    lost_work._delete_all(deploy, uuids)
    lost_work._assert_clean(deploy)
