"""Builds that fail, for real: reschedules, no valid host, exhausted hosts,
and a compute stopped in the middle of a build.

One deployment (PostgreSQL, RabbitMQ, four kinds of daemons) with three
computes:

* ``bad``: two big nodes whose every spawn fails (fault injection). The
  most free RAM makes them the RAM weigher's first choice, so every
  request that fits them is tried there first;
* ``good``: three smaller nodes that work;
* ``slow``: one small node whose spawns take SPAWN_DELAY seconds, the
  least attractive host, used only when forced (the graceful shutdown
  test, which stops it and so runs last).

Placement view: bad nodes take up to 15872 MiB (16384 - 512 reserved),
good ones 7680, slow 3584. The flavors pick who fits: ``small`` fits
everyone, ``big`` only the bad nodes, ``huge`` no one.
"""

import signal
import time

import pytest

from tests.functional import conftest
from tests.functional import deployment

SPAWN_DELAY = 3
GRACEFUL_SHUTDOWN_TIMEOUT = 30
NODE = {'vcpus': 8, 'local_gb': 100}
COMPUTES = {
    'bad': dict(NODE, node_count=2, memory_mb=16384, fail_spawn_nodes='0,1'),
    'good': dict(NODE, node_count=3, memory_mb=8192),
    'slow': dict(NODE, node_count=1, memory_mb=4096,
                 spawn_delay=SPAWN_DELAY),
}
FLAVORS = {'small': 1024, 'big': 12288, 'huge': 65536}
INJECTED = 'fault injection: [fake_driver] fail_spawn_nodes'


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp, request, computes=COMPUTES,
        conf={'DEFAULT': {'graceful_shutdown_timeout':
                          GRACEFUL_SHUTDOWN_TIMEOUT},
              'scheduler': {'max_attempts': 3}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            name: {'ram': ram, 'vcpus': 1, 'disk': 10}
            for name, ram in FLAVORS.items()})
        yield d


def _boot(deploy, flavor, api=None, **extra):
    server = {'name': 'fp-%s' % flavor, 'imageRef': deploy.image_id,
              'flavorRef': flavor}
    server.update(extra)
    status, _, body = (api or deploy.api).post('/servers',
                                               {'server': server})
    assert status == 202, body
    return body['server']['id']


def _wait_status(deploy, uuid, status, timeout=60):
    def reached():
        server = deploy.admin_api.get('/servers/%s' % uuid)[2]['server']
        if server['status'] not in ('BUILD', status):
            raise AssertionError('%s went %s, not %s: %s\n%s' % (
                uuid, server['status'], status, server, deploy.logs()))
        return server['status'] == status and server

    return deployment.wait_for(reached, timeout=timeout,
                               message='%s %s' % (uuid, status))


def _faults(deploy, uuid):
    return deploy.sql('SELECT host, code, message, details FROM '
                      'instance_faults WHERE instance_uuid = :uuid '
                      'ORDER BY id', uuid=uuid)


def _allocated_nodes(deploy, uuid):
    """{node name: {resource class: used}} of ``uuid``'s allocations."""
    nodes = {}
    for row in deploy.sql(
            'SELECT r.name, a.resource_class, a.used FROM allocations a '
            'JOIN resource_providers r ON r.id = a.resource_provider_id '
            'WHERE a.consumer_id = :uuid', uuid=uuid):
        nodes.setdefault(row.name, {})[row.resource_class] = row.used
    return nodes


def _bad_nodes_empty(deploy):
    return not deploy.sql(
        "SELECT a.id FROM allocations a JOIN resource_providers r "
        "ON r.id = a.resource_provider_id WHERE r.name LIKE 'bad-%'")


def test_spawn_failures_reschedule_to_a_good_node(deploy):
    """Both bad nodes are tried first (the weigher prefers them), fail,
    and the third host of the list, a good node, runs the server. Each
    failure left a fault naming the bad host, node and injected error;
    the allocation moved with the build and sits on the final node only.
    """
    uuid = _boot(deploy, 'small')
    server = _wait_status(deploy, uuid, 'ACTIVE')
    node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
    assert server['OS-EXT-SRV-ATTR:host'] == 'good'
    assert node.startswith('good-n')
    faults = _faults(deploy, uuid)
    assert [f.host for f in faults] == ['bad', 'bad']
    failed_nodes = set()
    for fault in faults:
        assert 'failed on host bad node bad-n' in fault.message
        assert INJECTED in fault.message
        assert 'InstanceDeployFailure' in fault.details
        failed_nodes.add(fault.message.split(' node ')[1].split(':')[0])
    assert failed_nodes == {'bad-n0', 'bad-n1'}
    assert _allocated_nodes(deploy, uuid) == {
        node: {'VCPU': 1, 'MEMORY_MB': 1024, 'DISK_GB': 10}}
    assert _bad_nodes_empty(deploy)
    # ACTIVE servers do not show a fault, even with earlier failures.
    assert 'fault' not in server


def test_request_that_fits_nowhere_is_no_valid_host(deploy):
    """The fault says which step removed the hosts, with counts."""
    uuid = _boot(deploy, 'huge')
    server = _wait_status(deploy, uuid, 'ERROR')
    shown = deploy.api.get('/servers/%s' % uuid)[2]['server']
    message = shown['fault']['message']
    assert message.startswith('No valid host was found.'), message
    assert 'placement (' in message and 'MEMORY_MB=65536' in message
    assert '6 -> 0' in message, message
    assert shown['OS-EXT-STS:task_state'] is None
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert _allocated_nodes(deploy, uuid) == {}
    # The scheduler never picked a host, so no compute recorded a fault.
    assert [f.host for f in _faults(deploy, uuid)] == [None]


def test_every_host_failing_spawn_ends_in_error(deploy):
    """Only the bad nodes fit ``big``: both are tried, both fail, and the
    final fault names every host and node that failed and why."""
    uuid = _boot(deploy, 'big')
    server = _wait_status(deploy, uuid, 'ERROR')
    faults = _faults(deploy, uuid)
    assert [f.host for f in faults] == ['bad', 'bad', None]
    final = deploy.api.get('/servers/%s' % uuid)[2]['server']['fault']
    message = final['message']
    # The hosts tried come first, so the 255 characters of a fault
    # message always name them; then the errors, as many as fit.
    assert message.startswith(
        'Exceeded maximum number of retries. Build failed on '), message
    tried = message.split('Build failed on ')[1].split('. ')[0]
    assert sorted(tried.split(', ')) == ['bad (bad-n0)', 'bad (bad-n1)']
    assert INJECTED in message, message
    assert uuid not in message, message
    # Administrators also see the details: the whole story, untruncated.
    assert server['fault']['details'].count(INJECTED) == 2
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert _allocated_nodes(deploy, uuid) == {}
    assert _bad_nodes_empty(deploy)


def _task_state(deploy, uuid):
    rows = deploy.sql('SELECT vm_state, task_state FROM instances '
                      'WHERE uuid = :uuid', uuid=uuid)
    return rows[0] if rows else None


def test_sigterm_lets_the_build_in_flight_finish(deploy):
    """Runs last: it stops the ``slow`` compute.

    SIGTERM arrives while the spawn sleeps; the compute stops consuming
    but finishes the build (the instance is ACTIVE before the process
    is gone) and exits 0 within graceful_shutdown_timeout.
    """
    uuid = _boot(deploy, 'small', api=deploy.admin_api,
                 availability_zone='nova:slow')
    deployment.wait_for(
        lambda: _task_state(deploy, uuid) == ('building', 'spawning'),
        timeout=30, message='spawning on slow')
    compute = deploy.daemon('slow')
    started = time.monotonic()
    compute.proc.send_signal(signal.SIGTERM)
    # Still spawning once the signal is sent: it arrived mid-build.
    assert _task_state(deploy, uuid) == ('building', 'spawning')
    code = compute.proc.wait(GRACEFUL_SHUTDOWN_TIMEOUT + 5)
    elapsed = time.monotonic() - started
    assert code == 0, compute.tail()
    assert elapsed < GRACEFUL_SHUTDOWN_TIMEOUT, elapsed
    # Decided before the process went away: nothing else builds on slow.
    assert _task_state(deploy, uuid) == ('active', None), compute.tail()
    assert _allocated_nodes(deploy, uuid).keys() == {'slow-n0'}
