"""The API resources added for Nova's clients, through the real daemons
on PostgreSQL: flavor extra specs and access, availability zones, hosts,
hypervisor search, simple tenant usage and Nova's service names, each
answer checked against tempest.lib's response schema."""

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import (
    availability_zone as az_schemas)
from tempest.lib.api_schema.response.compute.v2_1 import (
    flavors_access as access_schemas)
from tempest.lib.api_schema.response.compute.v2_1 import (
    flavors_extra_specs as spec_schemas)
from tempest.lib.api_schema.response.compute.v2_1 import hosts as host_schemas
from tempest.lib.api_schema.response.compute.v2_1 import (
    hypervisors as hyp_schemas)
from tempest.lib.api_schema.response.compute.v2_1 import (
    services as svc_schemas)
from tempest.lib.api_schema.response.compute.v2_1 import (
    tenant_usages as usage_schemas)
from tempest.lib.api_schema.response.compute.v2_26 import (
    servers as v226_schemas)
from tempest.lib.common import jsonschema_validator

from tests.functional import conftest
from tests.functional import deployment

PRIVATE = {'flavor': {'name': 'private', 'id': 'private', 'ram': 512,
                      'vcpus': 1, 'disk': 1,
                      'os-flavor-access:is_public': False}}


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(module_tmp, request,
                           computes={'compute1': {'node_count': 1}}) as d:
        d.image_id = d.register_image()
        for body in (PRIVATE, {'flavor': {'name': 'tiny', 'id': 'tiny',
                                          'ram': 512, 'vcpus': 1,
                                          'disk': 1}}):
            status, _, answer = d.admin_api.post('/flavors', body)
            assert status == 200, answer
        yield d


def _check(reply, schema):
    status, _, body = reply
    assert status in schema['status_code'], body
    if 'response_body' in schema:
        jsonschema_validator.JSONSCHEMA_VALIDATOR(
            schema['response_body'],
            format_checker=jsonschema_validator.FORMAT_CHECKER,
        ).validate(body)
    return body


def test_private_flavor_access(deploy):
    member = deploy.api.as_user('ann:guests')
    assert member.get('/flavors/private')[0] == 404
    boot = {'server': {'name': 'p', 'imageRef': deploy.image_id,
                       'flavorRef': 'private'}}
    status, _, answer = member.post('/servers', boot)
    assert status == 400, answer
    assert 'Flavor private could not be found' in (
        answer['badRequest']['message'])
    body = _check(deploy.admin_api.post('/flavors/private/action', {
        'addTenantAccess': {'tenant': 'guests'}}),
        access_schemas.add_remove_list_flavor_access)
    assert body['flavor_access'] == [{'flavor_id': 'private',
                                      'tenant_id': 'guests'}]
    assert member.get('/flavors/private')[0] == 200
    assert 'private' in [f['id'] for f in member.get('/flavors')[2][
        'flavors']]
    assert 'private' not in [f['id'] for f in deploy.api.get('/flavors')[
        2]['flavors']]
    _check(deploy.admin_api.post('/flavors/private/action', {
        'removeTenantAccess': {'tenant': 'guests'}}),
        access_schemas.add_remove_list_flavor_access)
    assert member.get('/flavors/private')[0] == 404


def test_flavor_extra_specs(deploy):
    _check(deploy.admin_api.post('/flavors/tiny/os-extra_specs', {
        'extra_specs': {'hw:cpu_policy': 'shared', 'x:y': 1}}),
        spec_schemas.set_get_flavor_extra_specs)
    _check(deploy.admin_api.request(
        'PUT', '/flavors/tiny/os-extra_specs/x:y', {'x:y': 'two'}),
        spec_schemas.set_get_flavor_extra_specs_key)
    status, _, body = deploy.admin_api.post(
        '/flavors/tiny/os-extra_specs',
        {'extra_specs': {'hw:cpu_policy': 'bogus'}})
    assert status == 400, body
    _check(deploy.admin_api.delete('/flavors/tiny/os-extra_specs/x:y'),
           spec_schemas.unset_flavor_extra_specs)
    assert deploy.api.get('/flavors/tiny/os-extra_specs')[2] == {
        'extra_specs': {'hw:cpu_policy': 'shared'}}


def test_services_zones_hosts_and_hypervisors(deploy):
    services = _check(deploy.admin_api.get(
        '/os-services?binary=nova-compute'), svc_schemas.list_services)
    assert [s['host'] for s in services['services']] == ['compute1']
    zones = _check(deploy.api.get('/os-availability-zone'),
                   az_schemas.list_availability_zone_list)
    assert [z['zoneName'] for z in zones['availabilityZoneInfo']] == [
        'nova']
    detail = _check(deploy.admin_api.get('/os-availability-zone/detail'),
                    az_schemas.list_availability_zone_list_detail)
    by_zone = {z['zoneName']: z['hosts']
               for z in detail['availabilityZoneInfo']}
    assert 'nova-compute' in by_zone['nova']['compute1']
    hosts = _check(deploy.admin_api.get('/os-hosts'),
                   host_schemas.list_hosts)
    assert {'host_name': 'compute1', 'service': 'compute',
            'zone': 'nova'} in hosts['hosts']
    _check(deploy.admin_api.get('/os-hosts/compute1'),
           host_schemas.get_host_detail)
    _check(deploy.admin_api.get('/os-hypervisors/compute1/search'),
           hyp_schemas.list_search_hypervisors)


def test_usage_of_a_server(deploy):
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'used', 'imageRef': deploy.image_id, 'flavorRef': 'tiny'}})
    assert status == 202, body
    uuid = body['server']['id']

    def active():
        server = deploy.api.get('/servers/%s' % uuid)[2]['server']
        assert server['status'] != 'ERROR', server
        return server['status'] == 'ACTIVE'
    deployment.wait_for(active, timeout=60, message='server ACTIVE')
    usage = _check(deploy.api.get(
        '/os-simple-tenant-usage/demo?start=2000-01-01T00:00:00'),
        usage_schemas.get_tenant_usage)['tenant_usage']
    [server] = usage['server_usages']
    assert (server['instance_id'], server['state']) == (uuid, 'active')
    assert server['hours'] > 0 and server['ended_at'] is None
    listed = _check(deploy.admin_api.get(
        '/os-simple-tenant-usage?detailed=1&start=2000-01-01T00:00:00'),
        usage_schemas.list_tenant_usage)
    assert [u['tenant_id'] for u in listed['tenant_usages']] == ['demo']
    servers = _check(deploy.admin_api.get(
        '/os-hypervisors/compute1/servers'),
        hyp_schemas.get_hypervisors_servers)
    assert [s['uuid'] for s in servers['hypervisors'][0]['servers']] == [
        uuid]


def test_server_tags(deploy):
    """2.26: tags on the real database, shown in the views and filtered
    on; a tag check is 404 at 2.25."""
    at = {'headers': {'OpenStack-API-Version': 'compute 2.26'}}
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'tagged', 'imageRef': deploy.image_id, 'flavorRef': 'tiny'}})
    assert status == 202, body
    uuid = body['server']['id']
    tags = '/servers/%s/tags' % uuid
    deployment.wait_for(
        lambda: deploy.api.get('/servers/' + uuid)[2]['server'][
            'status'] == 'ACTIVE', timeout=60, message='server ACTIVE')
    assert deploy.api.get(tags)[0] == 404
    assert _check(deploy.api.put(tags, {'tags': ['b', 'a']}, **at),
                  v226_schemas.update_all_tags)['tags'] == ['a', 'b']
    assert deploy.api.put(tags + '/c', **at)[0] == 201
    assert deploy.api.put(tags + '/c', **at)[0] == 204
    assert deploy.api.get(tags + '/c', **at)[0] == 204
    assert deploy.api.delete(tags + '/b', **at)[0] == 204
    assert deploy.api.get(tags + '/b', **at)[0] == 404
    status, _, body = deploy.api.put(
        tags, {'tags': ['t%d' % n for n in range(51)]}, **at)
    assert status == 400, body
    server = _check(deploy.api.get('/servers/' + uuid, **at),
                    v226_schemas.get_server)['server']
    assert server['tags'] == ['a', 'c']

    def listed(query):
        return [s['id'] for s in deploy.api.get(
            '/servers/detail?' + query, **at)[2]['servers']]
    assert uuid in listed('tags=a,c')
    assert uuid not in listed('tags=a,b')
    assert uuid in listed('tags-any=b,c')
    assert uuid not in listed('not-tags-any=c')
    assert uuid in listed('not-tags=a,b')
    assert deploy.api.delete(tags, **at)[0] == 204
    assert _check(deploy.api.get(tags, **at),
                  v226_schemas.list_tags)['tags'] == []


def test_server_tags_at_create(deploy):
    """2.52: tags given at create are on the server (through the
    conductor) as soon as the create answered."""
    at = {'headers': {'OpenStack-API-Version': 'compute 2.52'}}
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'born-tagged', 'imageRef': deploy.image_id,
        'flavorRef': 'tiny', 'networks': 'none', 'tags': ['x', 'y', 'x'],
        'min_count': 2}}, **at)
    assert status == 202, body
    listed = deploy.api.get('/servers/detail?tags=x,y', **at)[2]['servers']
    # Several at once are named <name>-1, <name>-2 (as Nova).
    assert sorted(s['name'] for s in listed) == ['born-tagged-1',
                                                 'born-tagged-2']
    assert all(s['tags'] == ['x', 'y'] for s in listed)


def test_what_a_server_was_asked_for(deploy):
    """2.90 hostname, 2.96 pinned zone, 2.98 image properties and 2.100
    scheduler hints, from a boot through the conductor to the views."""
    at = {'headers': {'OpenStack-API-Version': 'compute 2.100'}}
    zones = deploy.api.get('/os-availability-zone')[2]
    zone = zones['availabilityZoneInfo'][0]['zoneName']
    status, _, body = deploy.api.post('/servers', {
        'server': {'name': 'Asked For', 'imageRef': deploy.image_id,
                   'flavorRef': 'tiny', 'networks': 'none',
                   'hostname': 'db-1.example.com',
                   'availability_zone': zone},
        'os:scheduler_hints': {'rack': 'r1', 'spread': ['a', 'b']}}, **at)
    assert status == 202, body
    uuid = body['server']['id']
    server = deploy.api.get('/servers/' + uuid, **at)[2]['server']
    assert server['OS-EXT-SRV-ATTR:hostname'] == 'db-1.example.com'
    assert server['pinned_availability_zone'] == zone
    assert server['scheduler_hints'] == {'rack': 'r1', 'spread': ['a', 'b']}
    assert server['image']['properties']['disk_format']
    [listed] = [s for s in deploy.api.get('/servers/detail', **at)[2][
        'servers'] if s['id'] == uuid]
    assert listed['scheduler_hints'] == server['scheduler_hints']
    assert listed['pinned_availability_zone'] == zone
    older = deploy.api.get('/servers/' + uuid, headers={
        'OpenStack-API-Version': 'compute 2.95'})[2]['server']
    assert 'pinned_availability_zone' not in older
    assert 'scheduler_hints' not in older
    assert 'properties' not in older['image']
    # Without a zone asked for, the server is pinned to none.
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'anywhere', 'imageRef': deploy.image_id,
        'flavorRef': 'tiny', 'networks': 'none'}}, **at)
    assert status == 202, body
    free = deploy.api.get('/servers/' + body['server']['id'],
                          **at)[2]['server']
    assert free['pinned_availability_zone'] is None
    assert free['scheduler_hints'] == {}
    assert free['OS-EXT-SRV-ATTR:hostname'] == 'anywhere'


def _used_now(deploy):
    rows = _check(deploy.admin_api.get('/os-hosts/compute1'),
                  host_schemas.get_host_detail)['host']
    used = next(row['resource'] for row in rows
                if row['resource']['project'] == '(used_now)')
    return used['cpu'], used['memory_mb'], used['disk_gb']


def _hypervisor_used(deploy):
    [node] = _check(deploy.admin_api.get('/os-hypervisors/detail'),
                    hyp_schemas.list_hypervisors_detail)['hypervisors']
    return node['vcpus_used'], node['memory_mb_used'], node['local_gb_used']


def test_used_figures_count_a_server_once_it_is_claimed(deploy):
    """os-hosts' used_now and the hypervisors' used figures are
    placement's (reserved plus allocated), so a server counts as soon as
    the scheduler claims it, not at the compute's next periodic report
    (60 s apart by default); and no longer once it is deleted."""
    before, hyp_before = _used_now(deploy), _hypervisor_used(deploy)
    assert before == hyp_before
    status, _, body = deploy.api.post('/servers', {'server': {
        'name': 'counted', 'imageRef': deploy.image_id,
        'flavorRef': 'tiny'}})
    assert status == 202, body
    uuid = body['server']['id']
    deployment.wait_for(
        lambda: deploy.api.get('/servers/' + uuid)[2]['server'][
            'status'] == 'ACTIVE', timeout=60, message='server ACTIVE')
    grown = tuple(b + d for b, d in zip(before, (1, 512, 1), strict=True))
    assert _used_now(deploy) == grown
    assert _hypervisor_used(deploy) == grown
    assert deploy.api.delete('/servers/' + uuid)[0] == 204
    deployment.wait_for(
        lambda: deploy.api.get('/servers/' + uuid)[0] == 404, timeout=60,
        message='server deleted')
    assert _used_now(deploy) == before
