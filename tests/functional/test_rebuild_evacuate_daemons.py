"""Rebuild and evacuate on the real daemons (RabbitMQ with PostgreSQL,
then with MariaDB), and
the stock ``openstack`` client running ``server rebuild`` and
``server evacuate``.

Computes of one node each: ``c1`` (its rebuilds take a second, so the
REBUILD status can be seen), ``c2``, ``c3`` (the one that goes down) and
``evacfail``, where every rebuild fails (fault injection). A compute is
taken down as an operator would: stopped (SIGKILL here), then forced
down (the services row, as ``PUT /os-services`` at 2.11 would), or only
stopped and seen down once its heartbeats stop.
Allocations are read from the database at each step.
"""

import contextlib
import time

import pytest
import sqlalchemy as sa

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_moves_daemons as moves
from tests.functional import test_openstack_client_actions as cli_tests

identity = cli_tests.identity
NODE = {'node_count': 1, 'vcpus': 8, 'local_gb': 100, 'memory_mb': 8192}
COMPUTES = {
    'c1': dict(NODE, operation_delays='rebuild:1'),
    'c2': NODE,
    'c3': NODE,
    'evacfail': dict(NODE, fail_operations='rebuild:*'),
}
SIZE = moves._size(1, 1024)


@pytest.fixture(scope='module', params=['postgresql', 'mysql'])
def deploy(request, module_tmp):
    # The orphan sweep runs every 2 s: a source held by an evacuation
    # must survive it until its compute comes back.
    with conftest.deployed(
        module_tmp / request.param, request, backend=request.param,
        computes=COMPUTES,
        conf={'scheduler': {'max_attempts': 3},
              'conductor': {'build_timeout_check_interval': 2}}) as d:
        d.image_id = d.register_image()
        d.other_image = d.register_image('other')
        d.arm_image = _arm_image(d)
        conftest.add_flavors(d, {'m1': {'ram': 1024, 'vcpus': 1, 'disk': 10}})
        yield d


def _arm_image(deploy):
    # No fake node is aarch64: ImagePropertiesFilter refuses it anywhere.
    result = deploy.manage('image', 'create', 'arm', '--property',
                           'hw_architecture=aarch64')
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _events(deploy, uuid, action):
    return {row.event: (row.result, row.details) for row in deploy.sql(
        "SELECT e.event, e.result, e.details FROM instance_actions_events "
        "e JOIN instance_actions a ON a.id = e.action_id WHERE "
        "a.instance_uuid = :u AND a.action = :a", u=uuid, a=action)}


def _wait_status(deploy, uuid, status, timeout=60):
    def reached():
        server = moves._server(deploy, uuid)
        return (server['status'] == status
                and server['OS-EXT-STS:task_state'] is None and server)
    return deployment.wait_for(reached, timeout=timeout,
                               message='%s %s' % (uuid, status))


def _set_forced_down(deploy, host, value):
    engine = sa.create_engine(deploy.database.url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE services SET forced_down = :v WHERE host = :h"),
                {'v': value, 'h': host})
    finally:
        engine.dispose()


def _take_down(deploy, host):
    deploy.kill(deploy.daemon(host))
    _set_forced_down(deploy, host, True)


def _bring_back(deploy, host):
    _set_forced_down(deploy, host, False)
    deploy.start_daemon('nova-lite-compute', host, {
        'DEFAULT': {'host': host}, 'fake_driver': COMPUTES[host]})


@contextlib.contextmanager
def _disabled(deploy, host):
    """An evacuation is not rescheduled: while the scheduler chooses the
    target, keep it away from the compute where every rebuild fails."""
    def put(action):
        status, _, body = deploy.admin_api.put(
            '/os-services/' + action,
            {'host': host, 'binary': 'nova-compute'})
        assert status == 200, body
    put('disable')
    try:
        yield
    finally:
        put('enable')


def _state(deploy, host):
    services = deploy.admin_api.get('/os-services')[2]['services']
    return next(s['state'] for s in services if s['host'] == host)


def _boot(deploy, host):
    return moves._boot(deploy, host=host)


def test_rebuild_with_a_new_image(deploy):
    """202 with the server in REBUILD; then ACTIVE on the same host from
    the new image, with the same allocation."""
    uuid = _boot(deploy, 'c1')
    body = moves._action(deploy, uuid, {'rebuild': {
        'imageRef': deploy.other_image, 'name': 'renamed',
        'metadata': {'k': 'v'}, 'adminPass': 'secret'}})
    assert body['server']['status'] == 'REBUILD'
    assert body['server']['adminPass'] == 'secret'
    # Nova's rebuild answer is the core view: no OS-EXT-* keys.
    assert 'OS-EXT-STS:task_state' not in body['server']
    server = _wait_status(deploy, uuid, 'ACTIVE')
    assert server['image']['id'] == deploy.other_image
    assert (server['name'], server['metadata']) == ('renamed', {'k': 'v'})
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    assert moves._allocations(deploy, uuid) == {'c1-n0': SIZE}
    events = _events(deploy, uuid, 'rebuild')
    assert events['conductor_rebuild_server'][0] == 'Success'
    assert events['compute_rebuild_instance'][0] == 'Success'
    moves._delete(deploy, uuid)


def _user_data(deploy, uuid):
    status, _, body = deploy.admin_api.get(
        '/servers/' + uuid, headers={'OpenStack-API-Version': 'compute 2.3'})
    assert status == 200, body
    [row] = deploy.sql('SELECT user_data FROM instances WHERE uuid = :u',
                       u=uuid)
    assert row.user_data == body['server']['OS-EXT-SRV-ATTR:user_data']
    return row.user_data


def test_user_data_is_kept_through_create_and_rebuild(deploy):
    """The API hands the user data to the conductor, whose INSERT keeps
    it; a rebuild (2.57) replaces it, then removes it with null."""
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'ud', 'imageRef': deploy.image_id, 'flavorRef': 'm1',
        'availability_zone': 'nova:c2', 'user_data': 'aGVsbG8='}})
    assert status == 202, body
    uuid = body['server']['id']
    moves._wait(deploy, uuid, 'ACTIVE')
    assert _user_data(deploy, uuid) == 'aGVsbG8='
    body = moves._action(deploy, uuid, {'rebuild': {
        'imageRef': deploy.image_id, 'user_data': 'bmV3'}}, version='2.57')
    assert body['server']['user_data'] == 'bmV3'
    _wait_status(deploy, uuid, 'ACTIVE')
    assert _user_data(deploy, uuid) == 'bmV3'
    body = moves._action(deploy, uuid, {'rebuild': {
        'imageRef': deploy.image_id, 'user_data': None}}, version='2.57')
    assert body['server']['user_data'] is None
    _wait_status(deploy, uuid, 'ACTIVE')
    assert _user_data(deploy, uuid) is None
    moves._delete(deploy, uuid)


def test_rebuild_of_a_stopped_server_stays_stopped(deploy):
    uuid = _boot(deploy, 'c2')
    moves._action(deploy, uuid, {'os-stop': None})
    _wait_status(deploy, uuid, 'SHUTOFF')
    moves._action(deploy, uuid, {'rebuild': {
        'imageRef': deploy.other_image}})
    server = _wait_status(deploy, uuid, 'SHUTOFF')
    assert server['image']['id'] == deploy.other_image
    moves._delete(deploy, uuid)


def test_rebuild_with_an_image_the_host_refuses(deploy):
    """The conductor asks the scheduler with the rebuild filters only;
    ImagePropertiesFilter refuses: as Nova, the server goes to ERROR with
    its previous image and a fault naming the filter, and keeps its
    allocation."""
    uuid = _boot(deploy, 'c2')
    moves._action(deploy, uuid, {'rebuild': {'imageRef': deploy.arm_image}})
    server = _wait_status(deploy, uuid, 'ERROR')
    assert server['image']['id'] == deploy.image_id
    assert 'ImagePropertiesFilter' in server['fault']['message']
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert moves._allocations(deploy, uuid) == {'c2-n0': SIZE}
    result, details = _events(deploy, uuid, 'rebuild')[
        'conductor_rebuild_server']
    assert result == 'Error' and 'ImagePropertiesFilter' in details
    # A rebuild with an image that fits brings it back (from ERROR).
    moves._action(deploy, uuid, {'rebuild': {'imageRef': deploy.image_id}})
    _wait_status(deploy, uuid, 'ACTIVE')
    moves._delete(deploy, uuid)


def test_evacuate_to_a_named_host_then_the_source_comes_back(deploy):
    uuid = _boot(deploy, 'c3')
    status, _, body = deploy.admin_api.post(
        '/servers/%s/action' % uuid,
        {'evacuate': {'host': 'c2', 'onSharedStorage': False}})
    assert status == 400, body
    assert 'Compute service of c3 is still in use.' in str(body)
    _take_down(deploy, 'c3')
    try:
        body = moves._action(deploy, uuid, {'evacuate': {
            'host': 'c2', 'onSharedStorage': False}}, expected=200)
        assert body['adminPass']
        migration = moves._wait_migration(deploy, uuid, 'done')
        server = _wait_status(deploy, uuid, 'ACTIVE')
        assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
        assert (migration.migration_type, migration.source_compute,
                migration.dest_compute) == ('evacuation', 'c3', 'c2')
        # The source is held (by the migration) until c3 comes back,
        # whatever the orphan sweep runs meanwhile.
        time.sleep(5)
        assert moves._allocations(deploy, migration.uuid) == {
            'c3-n0': SIZE}
        assert moves._allocations(deploy, uuid) == {'c2-n0': SIZE}
        moves._verify_clean(deploy)
        # The guest left on the stopped source is still there, as a real
        # hypervisor's would be; the rebuilt one runs on c2.
        assert uuid in deploy.vm_uuids('c3')
        assert uuid in deploy.vm_uuids('c2')
    finally:
        _bring_back(deploy, 'c3')
    moves._wait_migration(deploy, uuid, 'completed')
    assert moves._allocations(deploy, migration.uuid) == {}
    assert moves._allocations(deploy, uuid) == {'c2-n0': SIZE}
    # Back, c3 has destroyed its copy of the evacuated guest.
    assert uuid not in deploy.vm_uuids('c3')
    assert uuid in deploy.vm_uuids('c2')
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_evacuate_anywhere_and_to_a_failing_host(deploy):
    """Without a host the scheduler chooses (never the source); a target
    whose rebuild fails leaves the server in ERROR on its old host with a
    fault, the migration in error and the allocation back there."""
    anywhere = _boot(deploy, 'c3')
    failing = _boot(deploy, 'c3')
    _take_down(deploy, 'c3')
    try:
        with _disabled(deploy, 'evacfail'):
            moves._action(deploy, anywhere, {'evacuate': {
                'onSharedStorage': False}}, expected=200)
            moves._wait_migration(deploy, anywhere, 'done')
        server = _wait_status(deploy, anywhere, 'ACTIVE')
        assert server['OS-EXT-SRV-ATTR:host'] in ('c1', 'c2')

        moves._action(deploy, failing, {'evacuate': {
            'host': 'evacfail', 'onSharedStorage': False}}, expected=200)
        migration = moves._wait_migration(deploy, failing, 'error')
        server = _wait_status(deploy, failing, 'ERROR')
        assert server['OS-EXT-SRV-ATTR:host'] == 'c3'
        assert 'fault' in server
        assert moves._allocations(deploy, failing) == {'c3-n0': SIZE}
        assert moves._allocations(deploy, migration.uuid) == {}
        moves._verify_clean(deploy)
    finally:
        _bring_back(deploy, 'c3')
    moves._wait_migration(deploy, anywhere, 'completed')
    moves._delete(deploy, anywhere)
    moves._delete(deploy, failing)


def test_evacuate_at_2_95_lands_stopped(deploy):
    # Microversion 2.95: the server lands SHUTOFF on its new host (the
    # compute is told target_state STOPPED), not ACTIVE.
    uuid = _boot(deploy, 'c3')
    _take_down(deploy, 'c3')
    try:
        body = moves._action(deploy, uuid, {'evacuate': {'host': 'c2'}},
                             expected=200, version='2.95')
        assert body is None or body == {}
        moves._wait_migration(deploy, uuid, 'done')
        server = _wait_status(deploy, uuid, 'SHUTOFF')
        assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
        assert server['OS-EXT-STS:power_state'] == 4
        moves._verify_clean(deploy)
    finally:
        _bring_back(deploy, 'c3')
    moves._wait_migration(deploy, uuid, 'completed')
    moves._action(deploy, uuid, {'os-start': None})
    _wait_status(deploy, uuid, 'ACTIVE')
    moves._delete(deploy, uuid)


@cli_tests.pytestmark
def test_the_stock_client_runs_rebuild_and_evacuate(deploy, identity):
    def cli(*args):
        return cli_tests._openstack(deploy, identity, *args)

    uuid = _boot(deploy, 'c3')
    cli('server', 'rebuild', '--image', deploy.other_image, uuid)
    server = _wait_status(deploy, uuid, 'ACTIVE')
    assert server['image']['id'] == deploy.other_image
    # Only stopped this time (not forced down): evacuate once the
    # services list shows it down (service_down_time, 20 s here).
    deploy.kill(deploy.daemon('c3'))
    try:
        deployment.wait_for(lambda: _state(deploy, 'c3') == 'down',
                            timeout=60, message='c3 down')
        with _disabled(deploy, 'evacfail'):
            cli('server', 'evacuate', uuid)
            moves._wait_migration(deploy, uuid, 'done')
        # The client negotiates the highest microversion, at least
        # 2.95: the server lands stopped.
        server = _wait_status(deploy, uuid, 'SHUTOFF')
        assert server['OS-EXT-SRV-ATTR:host'] != 'c3'
    finally:
        _bring_back(deploy, 'c3')
    moves._wait_migration(deploy, uuid, 'completed')
    moves._delete(deploy, uuid)
