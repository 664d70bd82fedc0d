"""Live migration on the real daemons: RabbitMQ with PostgreSQL, then
with MariaDB.

Four computes of one node each: ``c1`` and ``c2`` (8 GiB),
``checkfail`` (16 GiB, so the RAM weigher's first choice), whose every
``check_can_live_migrate_destination`` fails (fault injection), and
``slow`` (4 GiB, the last choice), whose copies take a minute. The copy
(``live_migration``, on the source) takes two seconds on ``c1``, so a
test can see the allocations while it runs. Servers boot on
``c1``; a live migration to any host therefore tries ``checkfail``
first and goes on to ``c2``.

At each step the allocations (by consumer and provider) are read from
the database, and ``nova-lite-manage quota verify`` must find no drift.
The stock ``openstack`` client runs ``server migration list`` (and
``server migrate --live-migration`` once the API speaks 2.25, see the
last test) at the end.
"""

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_moves_daemons as moves
from tests.functional import test_openstack_client_actions as cli_tests

identity = cli_tests.identity
NODE = {'node_count': 1, 'vcpus': 8, 'local_gb': 100}
COMPUTES = {
    'c1': dict(NODE, memory_mb=8192, operation_delays='live_migration:2'),
    'c2': dict(NODE, memory_mb=8192),
    'checkfail': dict(NODE, memory_mb=16384,
                      fail_operations='check_can_live_migrate_destination:*'),
    # The last choice as a destination; its copies take long enough to
    # kill it during one.
    'slow': dict(NODE, memory_mb=4096, operation_delays='live_migration:60'),
    # Only ever named: a destination that prepares slowly (below the
    # conductor's task_timeout), for an abort while preparing (2.65).
    'prep': dict(NODE, memory_mb=2048,
                 operation_delays='pre_live_migration:5'),
}
TASK_TIMEOUT = 8
# name: (vcpus, ram)
FLAVORS = {'m1': (1, 1024), 'filler': (1, 7680)}
V21 = {'host': None, 'block_migration': False, 'disk_over_commit': False}


@pytest.fixture(scope='module', params=['postgresql', 'mysql'])
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / request.param, request, backend=request.param,
        computes=COMPUTES, conf={'conductor': {
            'task_timeout': TASK_TIMEOUT,
            'build_timeout_check_interval': 1}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            name: {'ram': ram, 'vcpus': vcpus, 'disk': 10}
            for name, (vcpus, ram) in FLAVORS.items()})
        yield d


def _live(deploy, uuid, expected=202, **args):
    return moves._action(deploy, uuid, {'os-migrateLive': dict(V21, **args)},
                         expected=expected)


def _events(deploy, uuid, event):
    return [(e.host, e.result, e.details) for e in deploy.sql(
        "SELECT e.host, e.result, e.details FROM instance_actions_events e "
        "JOIN instance_actions a ON a.id = e.action_id WHERE "
        "a.instance_uuid = :u AND a.action = 'live-migration' AND "
        "e.event = :e ORDER BY e.id", u=uuid, e=event)]


def _finished_events(deploy, uuid, event):
    """The events, once each has finished (the conductor records its
    outcome after it put the records back)."""
    return deployment.wait_for(
        lambda: (all(result for _h, result, _d in _events(deploy, uuid,
                                                           event))
                 and _events(deploy, uuid, event)),
        timeout=30, message='%s of %s finished' % (event, uuid))


def _settled(deploy, uuid, status):
    migration = moves._wait_migration(deploy, uuid, status)
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-STS:task_state'] is None
    return server, migration


def test_live_migrate_to_any_host_past_a_refusing_destination(deploy):
    """checkfail, the first choice, refuses its pre-check: its claim goes
    and the scheduler is asked again without it; c2 takes the server.
    While the copy runs the source is held by the migration and the
    destination by the instance; once it completed, only the
    destination."""
    uuid = moves._boot(deploy)
    _live(deploy, uuid)
    running = moves._wait_migration(deploy, uuid, 'running')
    assert moves._server(deploy, uuid)['status'] == 'MIGRATING'
    assert (running.migration_type, running.source_compute,
            running.dest_compute) == ('live-migration', 'c1', 'c2')
    size = moves._size(1, 1024)
    assert moves._allocations(deploy, running.uuid) == {'c1-n0': size}
    assert moves._allocations(deploy, uuid) == {'c2-n0': size}

    server, migration = _settled(deploy, uuid, 'completed')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] == 'c2-n0'
    assert moves._allocations(deploy, migration.uuid) == {}
    assert moves._allocations(deploy, uuid) == {'c2-n0': size}
    checks = _events(deploy, uuid,
                     'compute_check_can_live_migrate_destination')
    assert [(host, result) for host, result, _d in checks] == [
        ('checkfail', 'Error'), ('c2', 'Success')]
    assert 'fail_operations' in checks[0][2]
    assert [r for _h, r, _d in _events(deploy, uuid,
                                       'compute_live_migration')] == [
        'Success']
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_live_migrate_to_a_named_host(deploy):
    uuid = moves._boot(deploy)
    _live(deploy, uuid, host='c2')
    server, migration = _settled(deploy, uuid, 'completed')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert migration.dest_compute == 'c2'
    assert moves._allocations(deploy, migration.uuid) == {}
    assert moves._allocations(deploy, uuid) == {'c2-n0': moves._size(1,
                                                                     1024)}
    # Only the named host was asked.
    assert [h for h, _r, _d in _events(
        deploy, uuid, 'compute_check_can_live_migrate_destination')] == [
        'c2']
    # And back, to any host but the source (c2): checkfail refuses, c1.
    _live(deploy, uuid)
    moves._wait(deploy, uuid, 'ACTIVE')
    deployment.wait_for(
        lambda: moves._server(deploy, uuid)['OS-EXT-SRV-ATTR:host'] == 'c1',
        timeout=60, message='%s back on c1' % uuid)
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_a_named_host_the_filters_reject_leaves_the_server_on_its_source(
        deploy):
    """c2 is full: the filters reject it though it was named (nothing is
    forced), the server stays ACTIVE on c1 holding c1 again, the
    migration is in error and the conductor's event says why. At 2.1
    the API waited for the scheduler, as Nova below 2.34: 400."""
    filler = moves._boot(deploy, flavor='filler', host='c2')
    uuid = moves._boot(deploy)
    resp = _live(deploy, uuid, expected=400, host='c2')
    assert 'No valid host was found' in resp['badRequest']['message'], resp
    server, migration = _settled(deploy, uuid, 'error')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1', server
    assert moves._allocations(deploy, uuid) == {'c1-n0': moves._size(1,
                                                                     1024)}
    assert moves._allocations(deploy, migration.uuid) == {}
    [(_host, result, details)] = _finished_events(
        deploy, uuid, 'conductor_live_migrate_instance')
    assert result == 'Error', details
    assert 'No valid host was found' in details, details
    assert 'MEMORY_MB' in details and '-> 0' in details, details
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)
    moves._delete(deploy, filler)


def test_a_named_host_that_refuses_is_not_retried(deploy):
    uuid = moves._boot(deploy)
    resp = _live(deploy, uuid, expected=400, host='checkfail')
    assert 'Migration pre-check error' in resp['badRequest']['message']
    server, _migration = _settled(deploy, uuid, 'error')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    assert moves._allocations(deploy, uuid) == {'c1-n0': moves._size(1,
                                                                     1024)}
    [(_host, result, details)] = _finished_events(
        deploy, uuid, 'conductor_live_migrate_instance')
    assert result == 'Error' and 'Migration pre-check error' in details
    assert details.count('Migration pre-check error') == 1, details
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_live_migrate_from_a_wrong_state_is_409(deploy):
    uuid = moves._boot(deploy)
    moves._action(deploy, uuid, {'os-stop': None})
    moves._wait(deploy, uuid, 'SHUTOFF')
    status, _, body = deploy.admin_api.post(
        '/servers/%s/action' % uuid, {'os-migrateLive': V21})
    assert status == 409, body
    assert "Cannot 'os-migrateLive' instance" in body['conflictingRequest'][
        'message']
    assert moves._migration(deploy, uuid) is None
    moves._delete(deploy, uuid)


def test_a_source_killed_mid_copy_does_not_leave_the_server_migrating(
        deploy):
    """The source dies while it copies: after [conductor] task_timeout
    seconds without a report the conductor puts the records back on the
    source (the destination freed, the migration in error) with a
    fault, as Nova's compute does for a migrating server at its
    restart."""
    uuid = moves._boot(deploy, host='slow')
    _live(deploy, uuid)
    running = moves._wait_migration(deploy, uuid, 'running')
    # c1 and c2 are as empty as each other here.
    assert running.dest_compute in ('c1', 'c2')
    assert moves._allocations(deploy, uuid) == {
        running.dest_compute + '-n0': moves._size(1, 1024)}
    deploy.kill(deploy.daemon('slow'))
    migration = deployment.wait_for(
        lambda: (moves._migration(deploy, uuid).status == 'error'
                 and moves._migration(deploy, uuid)),
        timeout=TASK_TIMEOUT + 30, message='migration of %s error' % uuid)
    server = moves._server(deploy, uuid)
    assert (server['status'], server['OS-EXT-STS:task_state'],
            server['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', None, 'slow')
    assert moves._allocations(deploy, uuid) == {
        'slow-n0': moves._size(1, 1024)}
    assert moves._allocations(deploy, migration.uuid) == {}
    [fault] = deploy.sql('SELECT message FROM instance_faults WHERE '
                         'instance_uuid = :u', u=uuid)
    assert 'migrating' in fault.message
    moves._verify_clean(deploy)


def test_abort_while_preparing_cancels_before_the_copy(deploy):
    """2.65: DELETE of a live migration still preparing (the destination
    takes 5 s to prepare) cancels it before the copy starts; 2.64 is
    refused with 400 for the same migration."""
    uuid = moves._boot(deploy)
    _live(deploy, uuid, host='prep')
    preparing = moves._wait_migration(deploy, uuid, 'preparing')
    [row] = deploy.sql('SELECT id FROM migrations WHERE uuid = :u',
                       u=preparing.uuid)
    path = '/servers/%s/migrations/%s' % (uuid, row.id)
    status, _, body = deploy.admin_api.delete(
        path, headers={'OpenStack-API-Version': 'compute 2.64'})
    assert status == 400, body
    status, _, body = deploy.admin_api.delete(
        path, headers={'OpenStack-API-Version': 'compute 2.65'})
    assert status == 202, body
    server, migration = _settled(deploy, uuid, 'cancelled')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    assert moves._allocations(deploy, uuid) == {
        'c1-n0': moves._size(1, 1024)}
    assert moves._allocations(deploy, migration.uuid) == {}
    assert [r for _h, r, _d in _finished_events(
        deploy, uuid, 'compute_live_migration')] == ['Error']
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def _max_version(deploy):
    status, _, body = deploy.admin_api.get('')
    assert status == 200, body
    return tuple(int(p) for p in body['version']['version'].split('.'))


@cli_tests.pytestmark
def test_the_stock_client_live_migrates(deploy, identity):
    """``server migrate --live-migration`` and ``server migration list``.

    python-openstackclient 10.5 cannot live-migrate below microversion
    2.25 (it passes ``disk_overcommit`` to openstacksdk, which takes
    ``disk_over_commit``: a TypeError before any request), so while this
    API's maximum is below 2.25 the request is made over HTTP with the
    body that client would send; the list is the client's either way.
    """
    def cli(*args):
        return cli_tests._openstack(deploy, identity, *args)

    uuid = moves._boot(deploy)
    if _max_version(deploy) >= (2, 25):
        cli('--os-compute-api-version', '2.25', 'server', 'migrate',
            '--live-migration', uuid)
    else:
        _live(deploy, uuid)
    _settled(deploy, uuid, 'completed')
    assert moves._server(deploy, uuid)['OS-EXT-SRV-ATTR:host'] == 'c2'
    listed = cli('server', 'migration', 'list', '--server', uuid,
                 '-f', 'json')
    assert [(m['Status'], m['Source Compute'], m['Dest Compute'])
            for m in listed] == [('completed', 'c1', 'c2')]
    moves._delete(deploy, uuid)
