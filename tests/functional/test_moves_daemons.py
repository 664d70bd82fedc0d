"""Resize and cold migration on the real daemons: RabbitMQ with
PostgreSQL, then with MariaDB.

Four computes of one node each: ``c1`` and ``c2`` (8 GiB),
``prepfail`` (4 GiB), whose every ``prep_resize`` fails (fault
injection), and ``slow`` (2 GiB), whose VMs take 4 s to destroy. Servers
boot on ``c1`` (forced), so a move goes to ``c2``, the RAM weigher's
first choice, unless a test fills ``c2`` first or names ``slow``.

At each step the allocations (by consumer and provider) and the quota
usage are read from the database, and ``nova-lite-manage quota verify``
must find no drift.
"""

import pytest
import sqlalchemy as sa

from tests.functional import conftest
from tests.functional import deployment

NODE = {'node_count': 1, 'vcpus': 8, 'local_gb': 100}
COMPUTES = {
    'c1': dict(NODE, memory_mb=8192),
    'c2': dict(NODE, memory_mb=8192),
    'prepfail': dict(NODE, memory_mb=4096,
                     fail_operations='prep_resize:*'),
    'slow': dict(NODE, memory_mb=2048, destroy_delay=4),
}
# name: (vcpus, ram)
FLAVORS = {'m1': (1, 1024), 'm2': (2, 2048), 'huge': (1, 9000),
           'filler': (1, 5120)}


@pytest.fixture(scope='module', params=['postgresql', 'mysql'])
def deploy(request, module_tmp):
    with conftest.deployed(module_tmp / request.param, request,
                           backend=request.param, computes=COMPUTES,
                           conf={'scheduler': {'max_attempts': 3}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            name: {'ram': ram, 'vcpus': vcpus, 'disk': 10}
            for name, (vcpus, ram) in FLAVORS.items()})
        yield d


def _server(deploy, uuid):
    return deploy.admin_api.get('/servers/%s' % uuid)[2]['server']


def _wait(deploy, uuid, status, timeout=60):
    def reached():
        server = _server(deploy, uuid)
        if server['status'] == 'ERROR':
            raise AssertionError('%s went ERROR: %s\n%s' % (
                uuid, server, deploy.logs()))
        return server['status'] == status and server
    return deployment.wait_for(reached, timeout=timeout,
                               message='%s %s' % (uuid, status))


def _boot(deploy, flavor='m1', host='c1'):
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'mv', 'imageRef': deploy.image_id, 'flavorRef': flavor,
        'availability_zone': 'nova:%s' % host}})
    assert status == 202, body
    uuid = body['server']['id']
    server = _wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == host
    return uuid


def _delete(deploy, uuid):
    assert deploy.admin_api.delete('/servers/%s' % uuid)[0] == 204
    deployment.wait_for(
        lambda: deploy.admin_api.get('/servers/%s' % uuid)[0] == 404,
        timeout=60, message='%s deleted' % uuid)


def _action(deploy, uuid, body, expected=202, version=None):
    headers = ({'OpenStack-API-Version': 'compute ' + version}
               if version else None)
    status, _, resp = deploy.admin_api.post('/servers/%s/action' % uuid,
                                            body, headers=headers)
    assert status == expected, resp
    return resp


def _allocations(deploy, consumer):
    """{provider name: {resource class: used}} of one consumer."""
    return _allocations_of(deploy, consumer)[0]


def _allocations_of(deploy, *consumers):
    """``_allocations`` of each consumer, read in one statement (so at one
    moment: separate reads could straddle a commit that moves them)."""
    result = {consumer: {} for consumer in consumers}
    for row in deploy.sql(
            'SELECT a.consumer_id, r.name, a.resource_class, a.used '
            'FROM allocations a JOIN resource_providers r '
            'ON r.id = a.resource_provider_id '
            'WHERE a.consumer_id IN :c', c=tuple(consumers)):
        result[row.consumer_id].setdefault(
            row.name, {})[row.resource_class] = row.used
    return [result[consumer] for consumer in consumers]


def _size(vcpus, ram):
    return {'VCPU': vcpus, 'MEMORY_MB': ram, 'DISK_GB': 10}


def _migration(deploy, uuid):
    rows = deploy.sql(
        'SELECT uuid, status, migration_type, source_compute, '
        'dest_compute FROM migrations WHERE instance_uuid = :u '
        'ORDER BY id DESC', u=uuid)
    return rows[0] if rows else None


def _wait_migration(deploy, uuid, status):
    return deployment.wait_for(
        lambda: (_migration(deploy, uuid) is not None
                 and _migration(deploy, uuid).status == status
                 and _migration(deploy, uuid)),
        timeout=60, message='migration of %s %s' % (uuid, status))


def _usage(deploy):
    """{resource: (in_use, reserved)} of the admin project's cores and
    ram, checked equal on the project's and the user's rows."""
    rows = deploy.sql(
        "SELECT user_id, resource, in_use, reserved FROM quota_usages "
        "WHERE project_id = 'admin' AND resource IN ('cores', 'ram')")
    by_user = {}
    for row in rows:
        by_user.setdefault(row.user_id, {})[row.resource] = (row.in_use,
                                                             row.reserved)
    assert by_user[''] == by_user['admin'], by_user
    return by_user['']


def _verify_clean(deploy):
    result = deploy.manage('quota', 'verify')
    assert result.returncode == 0, result.stdout + result.stderr


def _resized(deploy, uuid, flavor='m2'):
    _action(deploy, uuid, {'resize': {'flavorRef': flavor}})
    server = _wait(deploy, uuid, 'VERIFY_RESIZE')
    migration = _migration(deploy, uuid)
    assert migration.status == 'finished'
    return server, migration


def test_resize_then_confirm(deploy):
    """Between the resize and its confirmation both hosts are held, the
    source by the migration and the destination by the instance, and the
    quota counts the larger flavor; confirming frees the source."""
    uuid = _boot(deploy)
    before = _usage(deploy)
    server, migration = _resized(deploy, uuid)
    assert (migration.migration_type, migration.source_compute,
            migration.dest_compute) == ('resize', 'c1', 'c2')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert server['flavor']['id'] == 'm2'
    assert _allocations(deploy, migration.uuid) == {'c1-n0': _size(1, 1024)}
    assert _allocations(deploy, uuid) == {'c2-n0': _size(2, 2048)}
    during = _usage(deploy)
    assert during['cores'] == (before['cores'][0] + 1, 0)
    assert during['ram'] == (before['ram'][0] + 1024, 0)
    _verify_clean(deploy)

    _action(deploy, uuid, {'confirmResize': None}, expected=204)
    _wait_migration(deploy, uuid, 'confirmed')
    server = _wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert _allocations(deploy, migration.uuid) == {}
    assert _allocations(deploy, uuid) == {'c2-n0': _size(2, 2048)}
    assert _usage(deploy) == during
    _verify_clean(deploy)
    status, _, body = deploy.admin_api.get(
        '/os-migrations?migration_type=resize&instance_uuid=' + uuid)
    assert status == 200, body
    assert [(m['status'], m['source_compute'], m['dest_compute'])
            for m in body['migrations']] == [('confirmed', 'c1', 'c2')]
    # Nothing left to confirm: 409 (the server is not in VERIFY_RESIZE).
    _action(deploy, uuid, {'confirmResize': None}, expected=409)
    _delete(deploy, uuid)


def test_resize_then_revert(deploy):
    """Reverting frees the destination, gives the source back to the
    instance with its old flavor and releases the quota difference."""
    uuid = _boot(deploy)
    before = _usage(deploy)
    _server_, migration = _resized(deploy, uuid)
    _action(deploy, uuid, {'revertResize': None})
    _wait_migration(deploy, uuid, 'reverted')
    server = _wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    assert server['flavor']['id'] == 'm1'
    assert _allocations(deploy, migration.uuid) == {}
    assert _allocations(deploy, uuid) == {'c1-n0': _size(1, 1024)}
    assert _usage(deploy) == before
    _verify_clean(deploy)
    _delete(deploy, uuid)


def _migrated_to_slow(deploy):
    """A server booted on c1 and cold-migrated to ``slow`` (named, 2.56),
    waiting in VERIFY_RESIZE; returns (uuid, migration)."""
    uuid = _boot(deploy)
    _action(deploy, uuid, {'migrate': {'host': 'slow'}}, version='2.56')
    _wait(deploy, uuid, 'VERIFY_RESIZE')
    migration = _migration(deploy, uuid)
    assert (migration.dest_compute, migration.status) == ('slow',
                                                          'finished')
    return uuid, migration


def test_a_revert_holds_the_destination_until_its_vm_is_gone(deploy):
    """Nova's order: the destination destroys its VM (4 s on ``slow``)
    while the instance still holds it, and only then do the records go
    back to the source; at no step is either host free while a VM of the
    server may be there."""
    uuid, migration = _migrated_to_slow(deploy)
    before = _usage(deploy)
    _action(deploy, uuid, {'revertResize': None})
    held = {'slow-n0': _size(1, 1024)}
    source = {'c1-n0': _size(1, 1024)}
    seen = []

    def step():
        state = (_migration(deploy, uuid).status,
                 *_allocations_of(deploy, uuid, migration.uuid))
        if not seen or seen[-1] != state:
            seen.append(state)
        return state[0] == 'reverted'
    deployment.wait_for(step, timeout=60, interval=0.2,
                        message='revert of %s' % uuid)
    # While the destination's VM is there, the instance holds that
    # host and the migration the source; then the source is the
    # instance's again and the destination free.
    assert seen[0] == ('reverting', held, source), seen
    assert seen[-1] == ('reverted', source, {}), seen
    for _status, instance_holds, migration_holds in seen:
        assert (instance_holds, migration_holds) in (
            (held, source), (source, {})), seen
    server = _wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    [event] = deploy.sql(
        "SELECT e.result FROM instance_actions_events e JOIN "
        "instance_actions a ON a.id = e.action_id WHERE "
        "a.instance_uuid = :u AND "
        "e.event = 'conductor_finish_revert_resize'", u=uuid)
    assert event.result == 'Success'
    assert _usage(deploy) == before
    _verify_clean(deploy)
    _delete(deploy, uuid)


def _set_forced_down(deploy, host, value):
    engine = sa.create_engine(deploy.database.url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                'UPDATE services SET forced_down = :v WHERE host = :h'),
                {'v': value, 'h': host})
    finally:
        engine.dispose()


def test_delete_in_verify_resize_with_the_destination_down(deploy):
    """The destination is down: the API deletes the records itself, and
    the conductor's destroy frees the source the migration holds and
    confirms it in the same transaction (nothing left for the orphan
    sweep); the source, up, is told to remove its copy."""
    uuid, migration = _migrated_to_slow(deploy)
    before = _usage(deploy)
    _set_forced_down(deploy, 'slow', True)
    try:
        _delete(deploy, uuid)
        assert _migration(deploy, uuid).status == 'confirmed'
        assert _allocations(deploy, migration.uuid) == {}
        assert _allocations(deploy, uuid) == {}
        deployment.wait_for(
            lambda: deploy.sql(
                "SELECT e.result FROM instance_actions_events e JOIN "
                "instance_actions a ON a.id = e.action_id WHERE "
                "a.instance_uuid = :u AND a.action = 'confirmResize' "
                "AND e.event = 'compute_confirm_resize' AND "
                "e.result = 'Success'", u=uuid),
            timeout=30, message='the source removed its copy')
    finally:
        _set_forced_down(deploy, 'slow', False)
    after = _usage(deploy)
    assert after['cores'] == (before['cores'][0] - 1, 0)
    assert after['ram'] == (before['ram'][0] - 1024, 0)
    _verify_clean(deploy)


def test_delete_in_verify_resize_confirms_first(deploy):
    """As Nova, deleting a server waiting in VERIFY_RESIZE confirms the
    move first: the migration is confirmed and its source allocations go
    with the instance's, and the quota is back where it was."""
    uuid = _boot(deploy)
    before = _usage(deploy)
    _server_, migration = _resized(deploy, uuid)
    _delete(deploy, uuid)
    _wait_migration(deploy, uuid, 'confirmed')
    deployment.wait_for(
        lambda: (_allocations(deploy, migration.uuid) == {}
                 and _allocations(deploy, uuid) == {}),
        timeout=60, message='allocations of %s freed' % uuid)
    after = _usage(deploy)
    assert after['cores'] == (before['cores'][0] - 1, 0)
    assert after['ram'] == (before['ram'][0] - 1024, 0)
    _verify_clean(deploy)


def test_cold_migrate_to_a_named_host(deploy):
    uuid = _boot(deploy)
    before = _usage(deploy)
    # A named host is 2.56's.
    _action(deploy, uuid, {'migrate': {'host': 'c2'}}, expected=400)
    _action(deploy, uuid, {'migrate': {'host': 'c2'}}, version='2.56')
    server = _wait(deploy, uuid, 'VERIFY_RESIZE')
    migration = _migration(deploy, uuid)
    assert (migration.migration_type, migration.dest_compute) == (
        'migration', 'c2')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert _allocations(deploy, migration.uuid) == {'c1-n0': _size(1, 1024)}
    assert _allocations(deploy, uuid) == {'c2-n0': _size(1, 1024)}
    assert _usage(deploy) == before
    _action(deploy, uuid, {'confirmResize': None}, expected=204)
    _wait_migration(deploy, uuid, 'confirmed')
    _wait(deploy, uuid, 'ACTIVE')
    assert _allocations(deploy, uuid) == {'c2-n0': _size(1, 1024)}
    _verify_clean(deploy)
    _delete(deploy, uuid)


def test_a_move_that_fits_nowhere_leaves_the_server_where_it_was(deploy):
    uuid = _boot(deploy)
    before = _usage(deploy)
    _action(deploy, uuid, {'resize': {'flavorRef': 'huge'}})
    _wait_migration(deploy, uuid, 'error')
    server = _wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    assert server['flavor']['id'] == 'm1'
    assert _allocations(deploy, uuid) == {'c1-n0': _size(1, 1024)}
    assert _allocations(deploy, _migration(deploy, uuid).uuid) == {}
    assert _usage(deploy) == before
    [event] = deploy.sql(
        "SELECT e.result, e.details FROM instance_actions_events e JOIN "
        "instance_actions a ON a.id = e.action_id WHERE "
        "a.instance_uuid = :u AND a.action = 'resize' AND "
        "e.event = 'conductor_migrate_server'", u=uuid)
    assert event.result == 'Error'
    assert 'No valid host was found' in event.details
    assert 'MEMORY_MB=9000' in event.details and '-> 0' in event.details
    _verify_clean(deploy)
    _delete(deploy, uuid)


def test_a_failed_prep_reschedules_to_an_alternate(deploy):
    """With c2 filled, prepfail is the first choice; its prep fails and
    the move goes on to c2, the alternate."""
    filler = _boot(deploy, flavor='filler', host='c2')
    uuid = _boot(deploy)
    _action(deploy, uuid, {'migrate': None})
    server = _wait(deploy, uuid, 'VERIFY_RESIZE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    events = deploy.sql(
        "SELECT e.event, e.host, e.result FROM instance_actions_events e "
        "JOIN instance_actions a ON a.id = e.action_id WHERE "
        "a.instance_uuid = :u AND e.event = 'compute_prep_resize' "
        "ORDER BY e.id", u=uuid)
    assert [(e.host, e.result) for e in events] == [
        ('prepfail', 'Error'), ('c2', 'Success')]
    assert _allocations(deploy, uuid) == {'c2-n0': _size(1, 1024)}
    _action(deploy, uuid, {'revertResize': None})
    _wait_migration(deploy, uuid, 'reverted')
    _wait(deploy, uuid, 'ACTIVE')
    assert _allocations(deploy, uuid) == {'c1-n0': _size(1, 1024)}
    _verify_clean(deploy)
    _delete(deploy, uuid)
    _delete(deploy, filler)
