"""Faults healed in seconds, with the real daemons (PostgreSQL, RabbitMQ).

Regression of the fault drill in which a compute killed and restarted 5 s
later left its servers in ``spawning`` until the conductor's build
timeout (600 s by default) ended them.
"""

import os
import signal
import time

import pytest

from tests.functional import conftest
from tests.functional import deployment

SPAWN_DELAY = 30
COMPUTE = {'node_count': 2, 'spawn_delay': SPAWN_DELAY}
RECOVERY_BAR = 10


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp, request, computes={'c1': COMPUTE},
        conf={'conductor': {'build_timeout': 600,
                            'build_timeout_check_interval': 2}},
        check_exit=False) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {'tiny': {'ram': 256, 'vcpus': 1, 'disk': 1}})
        yield d


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


def test_no_conductor_is_a_quick_503_with_retry_after(deploy):
    """Every conductor gone: POST /servers answers 503 with Retry-After
    once its attempts ran out (3 of 2 s here; not 500), and works again
    once a conductor is back."""
    port = deployment.free_port()
    deploy.start_daemon('nova-lite-api', 'api-short', {
        'DEFAULT': {'rpc_response_timeout': 3,
                    'osapi_compute_listen_port': port},
        'api': {'provision_attempt_timeout': 2}})
    api = deployment.ApiClient('http://127.0.0.1:%d/v2.1' % port)
    server = {'server': {'name': 'unavailable', 'imageRef': deploy.image_id,
                         'flavorRef': 'tiny'}}
    deploy.kill(deploy.daemon('conductor'))
    try:
        started = time.monotonic()
        status, headers, body = api.post('/servers', server)
        assert status == 503, body
        assert time.monotonic() - started < 15
        assert int(headers['Retry-After']) > 0
        assert 'conductor' in body['serviceUnavailable']['message']
    finally:
        deploy.start_daemon('nova-lite-conductor', 'conductor')
    status, _, body = api.post('/servers', server)
    assert status == 202, body


def test_a_healthy_daemon_pings_the_systemd_watchdog(deploy):
    """With WATCHDOG_USEC set (WatchdogSec=), a daemon sends WATCHDOG=1
    after READY=1, about twice per WatchdogSec, while it is healthy."""
    extra = deploy._write('scheduler-dog.conf',
                          {'DEFAULT': {'host': 'scheduler-dog'}})
    daemon = deployment.Daemon(
        'scheduler-dog',
        [os.path.join(deployment.BIN, 'nova-lite-scheduler'),
         '--config-file', deploy.config_file, '--config-file', extra],
        deploy.workdir, env={'WATCHDOG_USEC': '2000000'})
    daemon.start()
    try:
        daemon.wait_ready()
        pings = []
        deadline = time.monotonic() + 10
        while len(pings) < 3 and time.monotonic() < deadline:
            try:
                pings.append(daemon._sock.recv(64))
            except OSError:
                continue
        assert pings == [b'WATCHDOG=1'] * 3, daemon.tail()
    finally:
        assert daemon.stop() == 0, daemon.tail()


def test_sigusr2_prints_a_guru_meditation_report(deploy):
    """SIGUSR2 (systemctl kill -s USR2 reaches every process of the unit)
    prints each process's threads and configuration, and stops nothing."""
    daemon = deploy.daemon('scheduler')
    os.killpg(daemon.proc.pid, signal.SIGUSR2)
    deployment.wait_for(
        lambda: open(daemon.log, errors='replace').read().count(
            'Guru Meditation') >= 2,
        timeout=20, message='a report from the master and the worker')
    log = open(daemon.log, errors='replace').read()
    assert 'Threads' in log and 'Configuration' in log
    time.sleep(1)
    assert daemon.proc.poll() is None


def test_healthcheck_reports_the_bus_and_the_database(deploy):
    status, headers, body = deployment.ApiClient(
        'http://127.0.0.1:%d' % deploy.port, token=None).get('/healthcheck')
    assert status == 200, body
    assert body == {'status': 'ok',
                    'checks': {'database': 'ok', 'bus': 'ok'}}


def _pid_of(log, marker):
    """The pid field of the first log line containing ``marker``."""
    line = next(line for line in log.splitlines() if marker in line)
    return int(line.split()[2])


def test_sighup_reloads_mutable_options_in_place(deploy):
    """SIGHUP to the master (systemctl reload) mutates the mutable options
    in the worker, which keeps running: no new worker, no new consumer."""
    name = 'conductor-hup'
    daemon = deploy.start_daemon('nova-lite-conductor', name, {
        'DEFAULT': {'host': name}, 'conductor': {'task_timeout': 600}})
    with open(daemon.log, errors='replace') as log:
        consuming = 'consuming topic conductor'
        worker = _pid_of(log.read(), consuming)
    deploy._write('%s.conf' % name, {'DEFAULT': {'host': name},
                                     'conductor': {'task_timeout': 300}})
    os.kill(daemon.proc.pid, signal.SIGHUP)
    deployment.wait_for(
        lambda: 'SIGHUP: reload done' in open(daemon.log,
                                               errors='replace').read(),
        timeout=20, message='the worker reloaded')
    log = open(daemon.log, errors='replace').read()
    changed = 'conductor.task_timeout changed from [600] to [300]'
    assert _pid_of(log, 'SIGHUP: reload done') == worker
    assert any(changed in line and ' %d ' % worker in line
               for line in log.splitlines()), log
    assert log.count(consuming) == 1
    os.kill(worker, 0)   # the same worker still runs
    time.sleep(1)
    assert daemon.proc.poll() is None
    daemon.terminate()
    assert daemon.stop() == 0, daemon.tail()
    deploy.daemons.remove(daemon)


def test_builds_on_a_compute_that_stays_down_end_soon(deploy):
    """Runs last: it kills c1 for good. Its build ends in ERROR once the
    compute is seen down (service_down_time, 20 s here), not after the
    build timeout (600 s)."""
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'orphaned', 'imageRef': deploy.image_id,
        'flavorRef': 'tiny'}})
    assert status == 202, body
    uuid = body['server']['id']
    deployment.wait_for(
        lambda: _states(deploy, [uuid]).get(uuid) == ('building',
                                                      'spawning'),
        timeout=60, message='spawning')
    deploy.kill(deploy.daemon('c1'))
    killed = time.monotonic()
    deployment.wait_for(
        lambda: _states(deploy, [uuid]).get(uuid) == ('error', None),
        timeout=60, message='ERROR once c1 is down')
    assert time.monotonic() - killed < 20 + RECOVERY_BAR + 5
    status, _, server = deploy.api.get('/servers/%s' % uuid)
    assert 'compute c1 is down' in server['server']['fault']['message']
    assert not deploy.sql('SELECT id FROM allocations WHERE consumer_id = '
                          ':uuid', uuid=uuid)
