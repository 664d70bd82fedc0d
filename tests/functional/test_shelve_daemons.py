"""createImage, shelve, offload and unshelve on the real daemons: RabbitMQ
with PostgreSQL, then with MariaDB.

Three computes of one node each: ``c1`` (4 GiB), ``c2`` (8 GiB, the only
host of zone ``az2``) and ``unshelvefail`` (16 GiB, the RAM weigher's
first choice), where every unshelve fails (fault injection). A snapshot
takes a second on ``c1`` so that its image is seen SAVING first.
[DEFAULT] shelved_offload_time is 0: a shelve offloads at once.

At each step the allocations and the quota usage are read from the
database, and ``nova-lite-manage quota verify`` must find no drift.
"""

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional import test_moves_daemons as moves

NODE = {'node_count': 1, 'vcpus': 8, 'local_gb': 100}
COMPUTES = {
    'c1': dict(NODE, memory_mb=4096, operation_delays='snapshot:1'),
    'c2': dict(NODE, memory_mb=8192),
    'unshelvefail': dict(NODE, memory_mb=16384,
                         fail_operations='unshelve:*'),
}
# name: (vcpus, ram, disk)
FLAVORS = {'m1': (1, 1024, 10), 'fat': (1, 512, 100)}


@pytest.fixture(scope='module', params=['postgresql', 'mysql'])
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / request.param, request, backend=request.param,
        computes=COMPUTES,
        conf={'scheduler': {'max_attempts': 3},
              'DEFAULT': {'shelved_offload_time': 0}}) as d:
        d.image_id = d.register_image()
        conftest.add_flavors(d, {
            name: {'ram': ram, 'vcpus': vcpus, 'disk': disk}
            for name, (vcpus, ram, disk) in FLAVORS.items()})
        _zone(d, 'az2', 'c2')
        yield d


def _zone(deploy, zone, host):
    status, _, body = deploy.admin_api.post('/os-aggregates', {
        'aggregate': {'name': zone, 'availability_zone': zone}})
    assert status == 200, body
    status, _, body = deploy.admin_api.post(
        '/os-aggregates/%s/action' % body['aggregate']['id'],
        {'add_host': {'host': host}})
    assert status == 200, body


def _boot(deploy, flavor='m1', host='c1'):
    # ":host" forces the host without pinning the request to a zone.
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'sv', 'imageRef': deploy.image_id, 'flavorRef': flavor,
        'availability_zone': ':%s' % host}})
    assert status == 202, body
    uuid = body['server']['id']
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == host
    return uuid


def _image(deploy, image_id):
    status, _, body = deploy.admin_api.get('/images/%s' % image_id)
    return body['image'] if status == 200 else None


def _wait_task_done(deploy, uuid):
    return deployment.wait_for(
        lambda: (moves._server(deploy, uuid)['OS-EXT-STS:task_state']
                 is None and moves._server(deploy, uuid)),
        timeout=60, message='%s task done' % uuid)


def _instances_in_use(deploy):
    [row] = deploy.sql(
        "SELECT in_use FROM quota_usages WHERE project_id = 'admin' AND "
        "user_id = '' AND resource = 'instances'")
    return row.in_use


def _event(deploy, uuid, action, event):
    return deploy.sql(
        "SELECT e.result, e.details, e.host FROM instance_actions_events e "
        "JOIN instance_actions a ON a.id = e.action_id WHERE "
        "a.instance_uuid = :u AND a.action = :a AND e.event = :e "
        "ORDER BY e.id", u=uuid, a=action, e=event)


def test_create_image_is_visible_saving_then_active(deploy):
    uuid = _boot(deploy)
    status, headers, body = deploy.admin_api.post(
        '/servers/%s/action' % uuid,
        {'createImage': {'name': 'snap', 'metadata': {'purpose': 'test'}}})
    assert status == 202, body
    image_id = headers['Location'].rsplit('/', 1)[1]
    first = _image(deploy, image_id)
    assert first['status'] == 'SAVING'
    assert moves._server(deploy, uuid)['OS-EXT-STS:task_state'] in (
        'image_snapshot', 'image_pending_upload', 'image_uploading')
    image = deployment.wait_for(
        lambda: _image(deploy, image_id)['status'] == 'ACTIVE'
        and _image(deploy, image_id), timeout=60, message='image ACTIVE')
    assert image['name'] == 'snap'
    assert image['metadata']['instance_uuid'] == uuid
    assert image['metadata']['image_type'] == 'snapshot'
    assert image['metadata']['purpose'] == 'test'
    assert image['minDisk'] == 10
    assert image['OS-EXT-IMG-SIZE:size'] > 0
    status, _, listed = deploy.admin_api.get('/images')
    assert image_id in [i['id'] for i in listed['images']]
    server = _wait_task_done(deploy, uuid)
    assert server['status'] == 'ACTIVE'
    deployment.wait_for(
        lambda: [e.result for e in _event(
            deploy, uuid, 'createImage', 'compute_snapshot_instance')]
        == ['Success'], timeout=30, message='snapshot event')
    moves._delete(deploy, uuid)
    # A snapshot outlives its server.
    assert _image(deploy, image_id)['status'] == 'ACTIVE'


def test_shelve_offload_then_unshelve_into_another_zone(deploy):
    """Offloading frees c1 but keeps the server and its quota; the
    unshelve goes through the scheduler: unshelvefail first (its start
    fails), then the alternate c2, in az2; the snapshot is then deleted."""
    uuid = _boot(deploy)
    before = moves._usage(deploy)
    instances = _instances_in_use(deploy)
    moves._action(deploy, uuid, {'shelve': None})
    server = moves._wait(deploy, uuid, 'SHELVED_OFFLOADED')
    assert server['OS-EXT-SRV-ATTR:host'] is None
    assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] is None
    [row] = deploy.sql(
        'SELECT shelved_image_id, shelved_host, shelved_at FROM instances '
        'WHERE uuid = :u', u=uuid)
    assert row.shelved_host == 'c1' and row.shelved_at is not None
    image = _image(deploy, row.shelved_image_id)
    assert (image['name'], image['status']) == ('sv-shelved', 'ACTIVE')
    assert moves._allocations(deploy, uuid) == {}
    assert moves._usage(deploy) == before
    assert _instances_in_use(deploy) == instances
    moves._verify_clean(deploy)
    # Only an offloaded server... is already offloaded: 409.
    moves._action(deploy, uuid, {'shelveOffload': None}, expected=409)

    moves._action(deploy, uuid, {'unshelve': None})
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert server['OS-EXT-AZ:availability_zone'] == 'az2'
    assert moves._allocations(deploy, uuid) == {
        'c2-n0': moves._size(1, 1024)}
    # (The event's end is written just after the server is ACTIVE.)
    deployment.wait_for(
        lambda: [(e.host, e.result) for e in _event(
            deploy, uuid, 'unshelve', 'compute_unshelve_instance')] == [
            ('unshelvefail', 'Error'), ('c2', 'Success')],
        timeout=30, message='unshelve events of %s' % uuid)
    deployment.wait_for(lambda: _image(deploy, row.shelved_image_id)
                        is None, timeout=30, message='snapshot deleted')
    [row] = deploy.sql('SELECT shelved_image_id FROM instances '
                       'WHERE uuid = :u', u=uuid)
    assert row.shelved_image_id is None
    assert moves._usage(deploy) == before
    moves._verify_clean(deploy)
    moves._action(deploy, uuid, {'unshelve': None}, expected=409)
    moves._delete(deploy, uuid)


def test_an_unshelve_that_fits_nowhere_stays_offloaded(deploy):
    """With every host's disk taken the unshelve finds nothing: the
    server is SHELVED_OFFLOADED again, holding nothing, with an event
    saying why; deleting it then frees its quota and its snapshot."""
    uuid = _boot(deploy)
    before = moves._usage(deploy)
    moves._action(deploy, uuid, {'shelve': None})
    moves._wait(deploy, uuid, 'SHELVED_OFFLOADED')
    [row] = deploy.sql('SELECT shelved_image_id FROM instances '
                       'WHERE uuid = :u', u=uuid)
    fillers = [_boot(deploy, 'fat', host)
               for host in ('c1', 'c2', 'unshelvefail')]
    moves._action(deploy, uuid, {'unshelve': None})
    deployment.wait_for(
        lambda: [e.result for e in _event(
            deploy, uuid, 'unshelve', 'conductor_unshelve_instance')]
        == ['Error'], timeout=60, message='unshelve of %s decided' % uuid)
    server = _wait_task_done(deploy, uuid)
    assert server['status'] == 'SHELVED_OFFLOADED'
    assert server['OS-EXT-SRV-ATTR:host'] is None
    [event] = _event(deploy, uuid, 'unshelve', 'conductor_unshelve_instance')
    assert event.result == 'Error'
    assert 'No valid host was found' in event.details
    assert '-> 0' in event.details
    assert moves._allocations(deploy, uuid) == {}
    assert _image(deploy, row.shelved_image_id)['status'] == 'ACTIVE'
    moves._verify_clean(deploy)

    moves._delete(deploy, uuid)
    assert _image(deploy, row.shelved_image_id) is None
    for filler in fillers:
        moves._delete(deploy, filler)
    after = moves._usage(deploy)
    assert after['cores'] == (before['cores'][0] - 1, 0)
    assert after['ram'] == (before['ram'][0] - 1024, 0)
    moves._verify_clean(deploy)


def _offload(deploy, uuid):
    moves._action(deploy, uuid, {'shelve': None})
    moves._wait(deploy, uuid, 'SHELVED_OFFLOADED')


def _pinned_zone(deploy, uuid):
    """The zone the server's request spec pins it to (2.96 shows it)."""
    status, _, body = deploy.admin_api.get(
        '/servers/%s' % uuid,
        headers={'OpenStack-API-Version': 'compute 2.96'})
    assert status == 200, body
    return body['server']['pinned_availability_zone']


def _compute_events(deploy, uuid):
    """[(host, result)] of the unshelve's compute events, once the last
    one has ended (its end is written just after the server is
    ACTIVE)."""
    def ended():
        events = _event(deploy, uuid, 'unshelve',
                        'compute_unshelve_instance')
        return (events and all(e.result for e in events)
                and [(e.host, e.result) for e in events])
    return deployment.wait_for(ended, timeout=30,
                               message='unshelve events of %s' % uuid)


def test_unshelve_into_a_named_zone_at_2_77(deploy):
    """2.77: the zone named limits the scheduler to az2, so the RAM
    weigher's first choice (unshelvefail, in zone nova) is never tried:
    the server lands on c2 with one attempt, holds only there, and its
    request spec and its zone say az2 from then on. A zone is refused
    below 2.77 (400), for an unknown zone (400) and while the server is
    not offloaded (Nova's 409)."""
    uuid = _boot(deploy)
    to_az2 = {'unshelve': {'availability_zone': 'az2'}}
    moves._action(deploy, uuid, to_az2, expected=409, version='2.77')
    _offload(deploy, uuid)
    assert _pinned_zone(deploy, uuid) is None
    moves._action(deploy, uuid, to_az2, expected=400, version='2.76')
    moves._action(deploy, uuid, {'unshelve': {'availability_zone': 'az9'}},
                  expected=400, version='2.77')

    moves._action(deploy, uuid, to_az2, version='2.77')
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c2'
    assert server['OS-EXT-AZ:availability_zone'] == 'az2'
    assert _pinned_zone(deploy, uuid) == 'az2'
    assert moves._allocations(deploy, uuid) == {
        'c2-n0': moves._size(1, 1024)}
    assert _compute_events(deploy, uuid) == [('c2', 'Success')]
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_unshelve_to_a_named_host_at_2_91(deploy):
    """2.91, as an administrator: a host outside the zone the server is
    pinned to (az2, where it was created) is Nova's 409; with a null zone
    the server is unpinned and lands on that host, c1, which the weighers
    alone would never choose, its zone c1's from then on."""
    status, _, body = deploy.admin_api.post('/servers', {'server': {
        'name': 'sv', 'imageRef': deploy.image_id, 'flavorRef': 'm1',
        'availability_zone': 'az2'}})
    assert status == 202, body
    uuid = body['server']['id']
    assert moves._wait(deploy, uuid, 'ACTIVE')['OS-EXT-SRV-ATTR:host'] == 'c2'
    _offload(deploy, uuid)
    assert _pinned_zone(deploy, uuid) == 'az2'
    moves._action(deploy, uuid, {'unshelve': {'host': 'c1'}},
                  expected=409, version='2.91')

    moves._action(deploy, uuid, {'unshelve': {
        'host': 'c1', 'availability_zone': None}}, version='2.91')
    server = moves._wait(deploy, uuid, 'ACTIVE')
    assert server['OS-EXT-SRV-ATTR:host'] == 'c1'
    assert server['OS-EXT-AZ:availability_zone'] == 'nova'
    assert _pinned_zone(deploy, uuid) is None
    assert moves._allocations(deploy, uuid) == {
        'c1-n0': moves._size(1, 1024)}
    assert _compute_events(deploy, uuid) == [('c1', 'Success')]
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)


def test_unshelve_to_a_named_host_the_filters_reject(deploy):
    """A named host is a requested destination, not a forced one: the
    filters still run there. ServerGroupAntiAffinityFilter refuses the
    host of the group's other member, so the server stays
    SHELVED_OFFLOADED, holding nothing, with an Error event naming the
    filter, and no compute was asked."""
    status, _, body = deploy.admin_api.post('/os-server-groups', {
        'server_group': {'name': 'apart', 'policies': ['anti-affinity']}})
    assert status == 200, body
    group = body['server_group']['id']
    members = []
    for _ in range(2):
        status, _, body = deploy.admin_api.post('/servers', {
            'server': {'name': 'sv', 'imageRef': deploy.image_id,
                       'flavorRef': 'm1'},
            'os:scheduler_hints': {'group': group}})
        assert status == 202, body
        members.append(body['server']['id'])
    uuid, other = members
    hosts = [moves._wait(deploy, member, 'ACTIVE')['OS-EXT-SRV-ATTR:host']
             for member in members]
    assert hosts[0] != hosts[1]
    _offload(deploy, uuid)

    moves._action(deploy, uuid, {'unshelve': {'host': hosts[1]}},
                  version='2.91')
    deployment.wait_for(
        lambda: [e.result for e in _event(
            deploy, uuid, 'unshelve', 'conductor_unshelve_instance')]
        == ['Error'], timeout=60, message='unshelve of %s decided' % uuid)
    server = _wait_task_done(deploy, uuid)
    assert server['status'] == 'SHELVED_OFFLOADED'
    assert server['OS-EXT-SRV-ATTR:host'] is None
    [event] = _event(deploy, uuid, 'unshelve', 'conductor_unshelve_instance')
    assert 'No valid host was found' in event.details
    assert 'ServerGroupAntiAffinityFilter' in event.details
    assert _event(deploy, uuid, 'unshelve', 'compute_unshelve_instance') == []
    assert moves._allocations(deploy, uuid) == {}
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)
    moves._delete(deploy, other)


def test_unshelve_to_a_disabled_host_is_refused_by_the_scheduler(deploy):
    """As in Nova, the API accepts a named host that exists though its
    service is disabled; the scheduler then refuses it (the
    COMPUTE_STATUS_DISABLED prefilter), so the server stays
    SHELVED_OFFLOADED, holding nothing, with an Error event."""
    uuid = _boot(deploy)
    _offload(deploy, uuid)

    def service(action):
        status, _, body = deploy.admin_api.put(
            '/os-services/' + action, {'host': 'c1', 'binary': 'nova-compute'})
        assert status == 200, body
    service('disable')
    try:
        moves._action(deploy, uuid, {'unshelve': {'host': 'c1'}},
                      version='2.91')
        deployment.wait_for(
            lambda: [e.result for e in _event(
                deploy, uuid, 'unshelve', 'conductor_unshelve_instance')]
            == ['Error'], timeout=60, message='unshelve of %s decided' % uuid)
    finally:
        service('enable')
    server = _wait_task_done(deploy, uuid)
    assert server['status'] == 'SHELVED_OFFLOADED'
    [event] = _event(deploy, uuid, 'unshelve', 'conductor_unshelve_instance')
    assert 'compute_status_filter: 1 -> 0 (1 disabled)' in event.details
    assert moves._allocations(deploy, uuid) == {}
    moves._verify_clean(deploy)
    moves._delete(deploy, uuid)
