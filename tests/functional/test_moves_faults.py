"""A compute killed during a resize, with the real daemons (PostgreSQL,
RabbitMQ): the server ends in a definite state within seconds of the
compute being seen down (``service_down_time``, 20 s here), long before
``[conductor] task_timeout``, and nothing is left allocated once it is
settled.

* The destination killed before it prepares: no VM was touched, so the
  move is undone and the server is ACTIVE where it was, holding only its
  source allocation; the prep_resize that waited for the destination is
  dropped when it comes back.
* The source killed while it sends the disk: the VM may be powered off,
  so the server goes to ERROR with a fault and the migration to
  ``error``, holding its source again; an administrator's delete then
  frees everything.
"""

import time

import pytest

from tests.functional import conftest
from tests.functional import deployment

SERVICE_DOWN_TIME = 20  # the deployment's
# The source's step slow enough to be killed in the middle of it.
SLOW = {'migrate_disk_and_power_off': 60}
NODE = {'node_count': 1, 'vcpus': 4, 'memory_mb': 4096, 'local_gb': 100}
# The conductor's check runs every 2 s; the decision is its own write.
BAR = SERVICE_DOWN_TIME + 10


def _compute_conf(host):
    """A compute restarted without the slow steps."""
    return {'DEFAULT': {'host': host}, 'fake_driver': NODE}


def deployed(request, tmp_path, delays, **conductor):
    """Computes c1 and c2 with ``delays`` ({operation: seconds}), a long
    task_timeout (and ``conductor`` options), flavors small and big."""
    computes = {name: dict(NODE, operation_delays=','.join(
        '%s:%s' % item for item in delays.items())) for name in ('c1', 'c2')}
    with conftest.deployed(
        tmp_path, request, computes=computes,
        conf={'conductor': dict({'task_timeout': 600,
                                 'build_timeout_check_interval': 2},
                                **conductor)},
        check_exit=False) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            'small': {'ram': 256, 'vcpus': 1, 'disk': 1},
            'big': {'ram': 512, 'vcpus': 1, 'disk': 1}})
        yield d


@pytest.fixture
def deploy(request, tmp_path):
    yield from deployed(request, tmp_path, SLOW)


def _server(deploy, uuid):
    return deploy.admin_api.get('/servers/%s' % uuid)[2]['server']


def _boot(deploy):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'mover', 'imageRef': deploy.image_id,
        'flavorRef': 'small'}})
    assert status == 202, body
    uuid = body['server']['id']
    deployment.wait_for(lambda: _server(deploy, uuid)['status'] == 'ACTIVE',
                        timeout=60, message='ACTIVE')
    return uuid


def _allocations(deploy, uuid):
    """{(consumer is the instance, provider name): MEMORY_MB} of the
    instance and of its migrations."""
    rows = deploy.sql(
        "SELECT a.consumer_id, r.name, a.used FROM allocations a "
        "JOIN resource_providers r ON r.id = a.resource_provider_id "
        "WHERE a.resource_class = 'MEMORY_MB' AND (a.consumer_id = :uuid "
        "OR a.consumer_id IN (SELECT uuid FROM migrations "
        "WHERE instance_uuid = :uuid))", uuid=uuid)
    return {(row.consumer_id == uuid, row.name): row.used for row in rows}


def _migration_status(deploy, uuid):
    rows = deploy.sql('SELECT status FROM migrations WHERE instance_uuid = '
                      ':uuid', uuid=uuid)
    return [row.status for row in rows]


def _resize_until(deploy, uuid, task_state):
    status, _, body = deploy.api.post('/servers/%s/action' % uuid,
                                      {'resize': {'flavorRef': 'big'}})
    assert status == 202, body
    deployment.wait_for(
        lambda: _server(deploy, uuid)['OS-EXT-STS:task_state'] == task_state,
        timeout=30, message=task_state)


def _settled(deploy, uuid):
    return _server(deploy, uuid)['OS-EXT-STS:task_state'] is None


def test_destination_killed_before_its_prep_undoes_the_move(deploy):
    """The destination dies before the prep_resize cast reaches it (it is
    still reported up, so the scheduler picks it): the cast waits in its
    queue, and the move is undone after the task timeout."""
    uuid = _boot(deploy)
    source = _server(deploy, uuid)['OS-EXT-SRV-ATTR:host']
    dest = 'c2' if source == 'c1' else 'c1'
    deploy.kill(deploy.daemon(dest))
    _resize_until(deploy, uuid, 'resize_prep')
    killed = time.monotonic()

    deployment.wait_for(lambda: _settled(deploy, uuid), timeout=BAR + 10,
                        message='the move undone')
    assert time.monotonic() - killed < BAR
    server = _server(deploy, uuid)
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-SRV-ATTR:host'] == source
    assert deploy.sql('SELECT memory_mb FROM instances WHERE uuid = '
                      ':uuid', uuid=uuid)[0].memory_mb == 256
    assert _migration_status(deploy, uuid) == ['error']
    assert _allocations(deploy, uuid) == {(True, '%s-n0' % source): 256}

    # The destination back: the prep_resize that waited in its queue
    # finds the move given up on and claims nothing there.
    restarted = deploy.start_daemon('nova-lite-compute', dest,
                                    _compute_conf(dest))
    deployment.wait_for(
        lambda: 'Not preparing the move of %s' % uuid in restarted.tail(400),
        timeout=30, message='the stale prep_resize dropped')
    assert 'for the move of instance %s' % uuid not in restarted.tail(400)
    assert _server(deploy, uuid)['status'] == 'ACTIVE'
    assert _allocations(deploy, uuid) == {(True, '%s-n0' % source): 256}


def test_source_killed_while_sending_is_error_then_deletable(deploy):
    uuid = _boot(deploy)
    source = _server(deploy, uuid)['OS-EXT-SRV-ATTR:host']
    _resize_until(deploy, uuid, 'resize_migrating')
    deploy.kill(deploy.daemon(source))
    killed = time.monotonic()

    deployment.wait_for(lambda: _settled(deploy, uuid), timeout=BAR + 10,
                        message='the move decided')
    assert time.monotonic() - killed < BAR
    server = _server(deploy, uuid)
    assert server['status'] == 'ERROR'
    assert 'its compute %s is down' % source in server['fault']['message']
    assert _migration_status(deploy, uuid) == ['error']
    # As Nova after a failed step: the server still names its source and
    # holds it again (old flavor); the destination is freed.
    assert server['OS-EXT-SRV-ATTR:host'] == source
    assert _allocations(deploy, uuid) == {(True, '%s-n0' % source): 256}
    assert deploy.sql('SELECT memory_mb FROM instances WHERE uuid = '
                      ':uuid', uuid=uuid)[0].memory_mb == 256

    deploy.start_daemon('nova-lite-compute', source, _compute_conf(source))
    status, _, body = deploy.admin_api.delete('/servers/%s' % uuid)
    assert status == 204, body
    deployment.wait_for(
        lambda: not deploy.sql('SELECT id FROM instances WHERE uuid = '
                               ':uuid AND deleted = 0', uuid=uuid),
        timeout=30, message='deleted')
    deployment.wait_for(lambda: _allocations(deploy, uuid) == {},
                        timeout=30, message='everything freed')
    _, _, usage = deploy.api.get('/limits')
    assert usage['limits']['absolute']['totalRAMUsed'] == 0
