"""A resize step lost between the computes, with the real daemons
(PostgreSQL, RabbitMQ): the compute that lost it comes back before it is
seen down (``service_down_time``, 20 s here), so the down-compute check
never settles the move, and the server must not wait for ``[conductor]
task_timeout`` (600 s here).

* The ``resize_instance`` the destination cast after its prep is lost
  (the source was killed and its queue lost the cast): a conductor casts
  it again to the restarted source, and the resize completes.
* The ``prep_resize`` the conductor cast is lost (the destination was
  killed and its queue lost the cast): the conductor casts it again to
  the restarted destination, and the resize completes.
* The destination is killed in the middle of its prep and restarted: it
  says so as it starts, and the move is undone at once, with a fault.
"""

import subprocess
import time

import pytest

from tests.functional import deployment
from tests.functional import test_moves_faults as faults

PREP = 3  # seconds each destination takes to prepare
_server = faults._server
_compute_conf = faults._compute_conf
# Well under task_timeout, and under service_down_time.
BAR = 15


@pytest.fixture
def deploy(request, tmp_path):
    yield from faults.deployed(request, tmp_path, {'prep_resize': PREP},
                               lost_build_check_interval=1,
                               action_resend_after=2)


def _boot(deploy):
    """A server's uuid, its host and the other compute."""
    uuid = faults._boot(deploy)
    source = _server(deploy, uuid)['OS-EXT-SRV-ATTR:host']
    return uuid, source, 'c2' if source == 'c1' else 'c1'


def _resize(deploy, uuid):
    status, _, body = deploy.api.post('/servers/%s/action' % uuid,
                                      {'resize': {'flavorRef': 'big'}})
    assert status == 202, body


def _prep(deploy, uuid, finished):
    """Whether the destination started (or finished) its prep."""
    rows = deploy.sql(
        "SELECT e.finish_time FROM instance_actions_events e JOIN "
        "instance_actions a ON a.id = e.action_id WHERE a.instance_uuid = "
        ":uuid AND e.event = 'compute_prep_resize'", uuid=uuid)
    return any(row.finish_time is not None or not finished for row in rows)


def _memory_mb(deploy, uuid):
    return deploy.sql('SELECT memory_mb FROM instances WHERE uuid = :uuid',
                      uuid=uuid)[0].memory_mb


def _queued(deploy, queue):
    out = subprocess.run(
        ['rabbitmqctl', '-q', 'list_queues', '-p', deploy.vhost.name,
         'name', 'messages'], check=True, capture_output=True,
        text=True).stdout
    counts = dict(line.split() for line in out.splitlines()
                  if len(line.split()) == 2)
    return int(counts.get(queue, 0))


def _resize_losing_a_cast_to(deploy, uuid, host, what):
    """Resize ``uuid`` with compute ``host`` killed, lose the cast
    (``what``) its queue kept for it, and restart it; returns when the
    cast was lost."""
    deploy.kill(deploy.daemon(host))
    _resize(deploy, uuid)
    deployment.wait_for(lambda: _queued(deploy, 'compute.%s' % host),
                        timeout=30, message='%s queued' % what)
    subprocess.run(['rabbitmqctl', '-q', 'purge_queue', '-p',
                    deploy.vhost.name, 'compute.%s' % host], check=True)
    lost = time.monotonic()
    deploy.start_daemon('nova-lite-compute', host, _compute_conf(host))
    return lost


def _resized_within_the_bar(deploy, uuid, dest, lost, what):
    """The resize reached VERIFY_RESIZE on ``dest`` within BAR of
    ``lost``, after the conductor cast ``what`` again."""
    deployment.wait_for(
        lambda: _server(deploy, uuid)['status'] == 'VERIFY_RESIZE',
        timeout=BAR + 10, message='VERIFY_RESIZE')
    assert time.monotonic() - lost < BAR
    assert _server(deploy, uuid)['OS-EXT-SRV-ATTR:host'] == dest
    assert _memory_mb(deploy, uuid) == 512
    assert 'casting %s again' % what in deploy.daemon('conductor').tail(400)


def test_a_resize_instance_the_source_lost_is_cast_again(deploy):
    uuid, source, dest = _boot(deploy)
    # The destination prepares and casts resize_instance to the dead
    # source, whose queue keeps it; the cast is then lost.
    lost = _resize_losing_a_cast_to(deploy, uuid, source, 'resize_instance')
    assert _prep(deploy, uuid, finished=True)
    _resized_within_the_bar(deploy, uuid, dest, lost, 'resize_instance')

    status, _, body = deploy.api.post('/servers/%s/action' % uuid,
                                      {'confirmResize': None})
    assert status == 204, body
    deployment.wait_for(lambda: _server(deploy, uuid)['status'] == 'ACTIVE',
                        timeout=30, message='confirmed')


def test_a_prep_the_destination_lost_is_cast_again(deploy):
    uuid, _source, dest = _boot(deploy)
    # The conductor casts prep_resize to the dead destination, whose
    # queue keeps it; the cast is then lost (as when the destination is
    # killed as it takes it). The conductor lives on.
    lost = _resize_losing_a_cast_to(deploy, uuid, dest, 'prep_resize')
    _resized_within_the_bar(deploy, uuid, dest, lost, 'prep_resize')


def test_a_destination_killed_in_its_prep_undoes_the_move(deploy):
    uuid, source, dest = _boot(deploy)
    _resize(deploy, uuid)
    deployment.wait_for(lambda: _prep(deploy, uuid, finished=False),
                        timeout=30, message='the prep started')
    deploy.kill(deploy.daemon(dest))
    killed = time.monotonic()
    deploy.start_daemon('nova-lite-compute', dest, _compute_conf(dest))

    deployment.wait_for(
        lambda: _server(deploy, uuid)['OS-EXT-STS:task_state'] is None,
        timeout=BAR + 10, message='the move undone')
    assert time.monotonic() - killed < BAR
    server = _server(deploy, uuid)
    assert (server['status'], server['OS-EXT-SRV-ATTR:host']) == (
        'ACTIVE', source)
    assert _memory_mb(deploy, uuid) == 256
    recorded = deploy.sql('SELECT message FROM instance_faults WHERE '
                          'instance_uuid = :uuid', uuid=uuid)
    assert ['its compute %s restarted' % dest in fault.message
            for fault in recorded] == [True]
    assert faults._migration_status(deploy, uuid) == ['error']
