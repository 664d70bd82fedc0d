"""Zones, server groups, disabled computes and required traits, for real.

One deployment (PostgreSQL, RabbitMQ, the four kinds of daemons) with
three one-node computes. Only the RAM weigher runs, so without a
constraint every server goes to ``big`` (the most free RAM): each test
shows its constraint by sending servers somewhere else.

* ``c1``: small, with the trait CUSTOM_X; in zone az1 once the first test
  made the aggregate;
* ``c2``: small; in zone az1 as well;
* ``big``: four times the RAM, default zone.
"""

import pytest
import sqlalchemy as sa

from tests.functional import conftest
from tests.functional import deployment

SMALL = {'node_count': 1, 'vcpus': 8, 'memory_mb': 8192, 'local_gb': 100}
COMPUTES = {
    'c1': dict(SMALL, node='0:traits=COMPUTE_IMAGE_TYPE_QCOW2+CUSTOM_X'),
    'c2': SMALL,
    'big': dict(SMALL, vcpus=32, memory_mb=32768),
}
SCHEDULER = {'enabled_filters': 'ComputeFilter,ServerGroupAffinityFilter,'
                                'ServerGroupAntiAffinityFilter',
             'weight_classes': 'RAMWeigher'}
DISABLED = 'COMPUTE_STATUS_DISABLED'


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(module_tmp, request, computes=COMPUTES,
                           conf={'filter_scheduler': SCHEDULER}) as d:
        d.image_id = d.register_image()
        for name in ('tiny', 'needs-x'):
            status, _, body = d.admin_api.post('/flavors', {'flavor': {
                'name': name, 'id': name, 'ram': 512, 'vcpus': 1,
                'disk': 1}})
            assert status == 200, body
        # No API sets extra specs yet: write the one this test needs.
        _write(d, "INSERT INTO flavor_extra_specs (flavor_id, key, value) "
                  "SELECT id, 'trait:CUSTOM_X', 'required' FROM flavors "
                  "WHERE flavorid = 'needs-x'")
        yield d


def _write(deploy, statement):
    engine = sa.create_engine(deploy.database.url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(statement))
    finally:
        engine.dispose()


def _boot(deploy, flavor='tiny', hints=None, **server):
    body = {'server': dict({'name': 'sd', 'imageRef': deploy.image_id,
                            'flavorRef': flavor}, **server)}
    if hints:
        body['os:scheduler_hints'] = hints
    status, _, answer = deploy.api.post('/servers', body)
    assert status == 202, answer
    return answer['server']['id']


def _active(deploy, uuid):
    def reached():
        server = deploy.admin_api.get('/servers/%s' % uuid)[2]['server']
        if server['status'] not in ('BUILD', 'ACTIVE'):
            raise AssertionError('%s is %s: %s\n%s' % (
                uuid, server['status'], server, deploy.logs()))
        return server['status'] == 'ACTIVE' and server

    return deployment.wait_for(reached, timeout=60,
                               message='%s ACTIVE' % uuid)


def _host(deploy, uuid):
    return _active(deploy, uuid)['OS-EXT-SRV-ATTR:host']


def _put(api, path, body):
    return api.request('PUT', path, body)


def _provider_traits(deploy, host):
    return {row.name for row in deploy.sql(
        'SELECT t.name FROM traits t JOIN resource_provider_traits rt '
        'ON rt.trait_id = t.id JOIN resource_providers r '
        'ON r.id = rt.resource_provider_id JOIN compute_nodes c '
        'ON c.uuid = r.uuid WHERE c.host = :host', host=host)}


def test_unconstrained_servers_go_to_the_biggest_host(deploy):
    assert _host(deploy, _boot(deploy)) == 'big'


def test_zone_request_lands_only_in_the_zone(deploy):
    admin = deploy.admin_api
    status, _, body = admin.post('/os-aggregates', {'aggregate': {
        'name': 'rack-a', 'availability_zone': 'az1'}})
    assert status == 200, body
    agg_id = body['aggregate']['id']
    for host in ('c1', 'c2'):
        status, _, body = admin.post('/os-aggregates/%s/action' % agg_id,
                                     {'add_host': {'host': host}})
        assert status == 200, body
    assert sorted(body['aggregate']['hosts']) == ['c1', 'c2']
    zones = {s['host']: s['zone'] for s in admin.get('/os-services')[2][
        'services'] if s['binary'] == 'nova-compute'}
    assert zones == {'c1': 'az1', 'c2': 'az1', 'big': 'nova'}
    servers = [_boot(deploy, availability_zone='az1') for _ in range(3)]
    for uuid in servers:
        server = _active(deploy, uuid)
        assert server['OS-EXT-SRV-ATTR:host'] in ('c1', 'c2')
        assert server['OS-EXT-AZ:availability_zone'] == 'az1'
    # A zone nobody defines leaves the request free.
    assert _host(deploy, _boot(deploy, availability_zone='nova')) == 'big'


def _group(deploy, policy):
    status, _, body = deploy.api.post('/os-server-groups', {
        'server_group': {'name': policy, 'policies': [policy]}})
    assert status == 200, body
    return body['server_group']['id']


def test_anti_affinity_spreads_a_group(deploy):
    group = _group(deploy, 'anti-affinity')
    first = _boot(deploy, hints={'group': group})
    second = _boot(deploy, hints={'group': group})
    hosts = [_host(deploy, first), _host(deploy, second)]
    assert hosts[0] == 'big'
    assert hosts[1] != 'big'
    members = deploy.api.get('/os-server-groups/%s' % group)[2][
        'server_group']['members']
    assert sorted(members) == sorted([first, second])


def test_anti_affinity_in_one_request(deploy):
    group = _group(deploy, 'anti-affinity')
    _boot(deploy, hints={'group': group}, min_count=2, max_count=2)
    members = deploy.api.get('/os-server-groups/%s' % group)[2][
        'server_group']['members']
    assert len(members) == 2
    assert len({_host(deploy, uuid) for uuid in members}) == 2


def test_affinity_keeps_a_group_together(deploy):
    group = _group(deploy, 'affinity')
    # The first member goes to the zone; the second, free of any zone,
    # would go to big but for the group.
    first = _boot(deploy, hints={'group': group}, availability_zone='az1')
    second = _boot(deploy, hints={'group': 'affinity'})
    assert _host(deploy, first) in ('c1', 'c2')
    assert _host(deploy, second) == _host(deploy, first)


def test_unknown_group_hint_is_a_400(deploy):
    status, _, body = deploy.api.post('/servers', {
        'server': {'name': 'x', 'imageRef': deploy.image_id,
                   'flavorRef': 'tiny'},
        'os:scheduler_hints': {'group': 'no-such-group'}})
    assert status == 400, body


def test_required_trait_lands_on_the_nodes_that_have_it(deploy):
    assert _host(deploy, _boot(deploy, flavor='needs-x')) == 'c1'


def _error(deploy, uuid):
    def reached():
        server = deploy.api.get('/servers/%s' % uuid)[2]['server']
        assert server['status'] in ('BUILD', 'ERROR'), server
        return server['status'] == 'ERROR' and server

    return deployment.wait_for(reached, timeout=60,
                               message='%s ERROR' % uuid)


def _set_disabled(deploy, host, disabled):
    action = 'disable-log-reason' if disabled else 'enable'
    body = {'host': host, 'binary': 'nova-compute'}
    if disabled:
        body['disabled_reason'] = 'maintenance'
    status, _, answer = _put(deploy.admin_api, '/os-services/%s' % action,
                             body)
    assert status == 200, answer
    assert answer['service']['status'] == ('disabled' if disabled
                                           else 'enabled')


def test_disabled_compute_gets_nothing(deploy):
    _set_disabled(deploy, 'big', True)
    # Set by the request itself, not at the compute's next report.
    assert DISABLED in _provider_traits(deploy, 'big')
    assert _host(deploy, _boot(deploy)) != 'big'
    # The prefilter, not only ComputeFilter, removes disabled computes,
    # and a NoValidHost says so.
    _set_disabled(deploy, 'c1', True)
    server = _error(deploy, _boot(deploy, flavor='needs-x'))
    message = server['fault']['message']
    assert 'compute_status_filter: 3 -> 1 (2 disabled)' in message, message
    assert 'required_traits: 1 -> 0 (1 lack CUSTOM_X)' in message, message
    for host in ('big', 'c1'):
        _set_disabled(deploy, host, False)
        assert DISABLED not in _provider_traits(deploy, host)
    assert _host(deploy, _boot(deploy)) == 'big'
