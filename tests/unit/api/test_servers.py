"""/servers handlers with a fake compute API, flavors and images."""

import types

import jsonschema
import pytest

from nova_lite.api import api_version
from nova_lite.api.handlers import servers
from nova_lite.api import openapi
from nova_lite.api import router
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_fault
from tests.unit.api import conftest
from tests.unit.api import fakes

IMAGE = fakes.image()
OTHER = '9d7b7f3a-3b6c-4a44-9d1f-2b1c3d4e5f60'


@pytest.fixture
def compute(monkeypatch):
    fake = fakes.FakeComputeAPI([
        fakes.instance(),
        fakes.instance(uuid=OTHER, project_id='proj2', user_id='eve',
                       display_name='theirs', host='host1', node='node1',
                       vm_state='active', task_state=None)])
    monkeypatch.setattr(servers, 'compute', fake)
    return fake


@pytest.fixture(autouse=True)
def catalogue(monkeypatch):
    def get_flavor(cls, context, flavorid):
        if flavorid != '1':
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return fakes.flavor()

    def get_image(context, image_id):
        if image_id != IMAGE['id']:
            raise exception.ImageNotFound(image_id=image_id)
        return IMAGE
    def get_keypair(cls, context, user_id, name):
        if name != 'key':
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        return objects.KeyPair(name=name, user_id=user_id)
    monkeypatch.setattr(objects.Flavor, 'get_by_flavor_id',
                        classmethod(get_flavor))
    monkeypatch.setattr(objects.KeyPair, 'get_by_name',
                        classmethod(get_keypair))
    monkeypatch.setattr(servers.image_api, 'get', get_image)


def _body(**server):
    values = {'name': 'vm', 'imageRef': IMAGE['id'], 'flavorRef': '1'}
    values.update(server)
    return {'server': values}


class TestCreate:
    def test_202_and_shape(self, api, compute):
        resp = api()('POST', '/servers', _body(
            metadata={'k': 'v'}, min_count=2, max_count='3',
            availability_zone='az1', key_name='key'))
        assert resp.status_int == 202
        server = resp.json['server']
        assert set(server) == {'id', 'links', 'OS-DCF:diskConfig',
                               'security_groups', 'adminPass'}
        assert server['links'][0]['href'].endswith(
            '/v2.1/servers/' + server['id'])
        assert resp.headers['Location'] == server['links'][0]['href']
        assert len(server['adminPass']) == 12
        [call] = compute.created
        assert (call['min_count'], call['max_count']) == (2, 3)
        assert call['metadata'] == {'k': 'v'}
        assert call['availability_zone'] == 'az1'
        assert call['key_name'] == 'key'
        assert call['image'] is IMAGE
        assert call['flavor'].flavorid == '1'

    def test_flavor_as_link_and_hints(self, api, compute):
        body = _body(flavorRef='http://api/v2.1/flavors/1')
        body['os:scheduler_hints'] = {'same_host': ['a', 'b'],
                                      'group': 'g1'}
        assert api()('POST', '/servers', body).status_int == 202
        assert compute.created[0]['scheduler_hints'] == {
            'same_host': ['a', 'b'], 'group': 'g1'}

    def test_return_reservation_id(self, api, compute):
        resp = api()('POST', '/servers', _body(return_reservation_id=True))
        assert resp.status_int == 202
        assert resp.json == {'reservation_id': 'r-12345678'}

    def test_unknown_image_and_flavor_are_400(self, api, compute):
        resp = api()('POST', '/servers', _body(imageRef='nope'))
        assert resp.status_int == 400
        assert resp.json['badRequest']['message'] == (
            'Image nope could not be found.')
        resp = api()('POST', '/servers', _body(flavorRef='42'))
        assert resp.status_int == 400
        assert resp.json['badRequest']['message'] == (
            'Flavor 42 could not be found.')
        assert compute.created == []

    def test_a_bad_flavor_is_reported_before_a_bad_image(self, api,
                                                          compute):
        resp = api()('POST', '/servers', _body(flavorRef='42',
                                               imageRef='nope'))
        assert resp.status_int == 400
        assert resp.json['badRequest']['message'] == (
            'Flavor 42 could not be found.')

    def test_a_private_flavor_only_for_the_projects_given_it(
            self, api, compute, monkeypatch):
        """A non-admin could boot a private flavor their project was not
        given: it is now as unknown to them as to GET /flavors."""
        private = fakes.flavor('p', 'private', is_public=False)
        monkeypatch.setattr(objects.Flavor, 'get_by_flavor_id',
                            classmethod(lambda cls, ctxt, fid: private))
        monkeypatch.setattr(servers.flavors.flavor_obj,
                            'get_access_projects',
                            lambda ctxt, fid: ['proj2'])
        resp = api()('POST', '/servers', _body(flavorRef='p'))
        assert resp.status_int == 400
        assert resp.json['badRequest']['message'] == (
            'Flavor p could not be found.')
        assert compute.created == []
        given = conftest.make_context(user_id='eve', project_id='proj2')
        assert api(given)('POST', '/servers',
                          _body(flavorRef='p')).status_int == 202
        admin = conftest.make_context(roles=['admin'])
        assert api(admin)('POST', '/servers',
                          _body(flavorRef='p')).status_int == 202

    def test_image_root_disk_in_block_device_mapping(self, api, compute):
        """The openstack CLI sends the image both as imageRef and as a
        local root disk, plus an empty network list; Nova accepts that."""
        root = {'uuid': IMAGE['id'], 'boot_index': 0, 'source_type': 'image',
                'destination_type': 'local', 'delete_on_termination': True}
        resp = api()('POST', '/servers', _body(
            block_device_mapping_v2=[root], networks=[]))
        assert resp.status_int == 202
        body = _body(block_device_mapping_v2=[root])
        del body['server']['imageRef']
        assert api()('POST', '/servers', body).status_int == 202
        assert [c['image'] for c in compute.created] == [IMAGE, IMAGE]

    def test_volumes_and_missing_image_are_400(self, api, compute):
        volume = {'uuid': OTHER, 'source_type': 'volume',
                  'destination_type': 'volume', 'boot_index': 0}
        resp = api()('POST', '/servers',
                     _body(block_device_mapping_v2=[volume]))
        assert resp.status_int == 400
        assert 'no volumes' in resp.json['badRequest']['message']
        body = _body()
        del body['server']['imageRef']
        resp = api()('POST', '/servers', body)
        assert resp.status_int == 400
        assert 'imageRef is required' in resp.json['badRequest']['message']
        other = {'uuid': OTHER, 'source_type': 'image',
                 'destination_type': 'local'}
        resp = api()('POST', '/servers',
                     _body(block_device_mapping_v2=[other]))
        assert resp.status_int == 400
        assert compute.created == []

    def test_forced_host_needs_admin(self, api, compute):
        resp = api()('POST', '/servers',
                     _body(availability_zone='nova:host1'))
        assert resp.status_int == 403
        admin = conftest.make_context('admin', 'proj1')
        resp = api(admin)('POST', '/servers',
                          _body(availability_zone='nova:host1:node1'))
        assert resp.status_int == 202
        call = compute.created[0]
        assert (call['availability_zone'], call['forced_host'],
                call['forced_node']) == ('nova', 'host1', 'node1')

    def test_reader_cannot_create(self, api, compute):
        reader = conftest.make_context('r', 'proj1', roles=['reader'])
        resp = api(reader)('POST', '/servers', _body())
        assert resp.status_int == 403
        assert 'os_compute_api:servers:create' in (
            resp.json['forbidden']['message'])

    def test_quota_error_from_conductor_is_403(self, api, compute,
                                               monkeypatch):
        def over_quota(*args, **kwargs):
            raise exception.TooManyInstances(overs='instances', req=1,
                                             used=10, allowed=10)
        monkeypatch.setattr(compute, 'create', over_quota)
        resp = api()('POST', '/servers', _body())
        assert resp.status_int == 403
        assert 'Quota exceeded for instances' in (
            resp.json['forbidden']['message'])


class TestList:
    def test_index_shows_own_project(self, api, compute):
        resp = api()('GET', '/servers')
        assert resp.status_int == 200
        [server] = resp.json['servers']
        assert set(server) == {'id', 'name', 'links'}
        assert server['name'] == 'vm1'
        assert 'servers_links' not in resp.json

    def test_detail_fields(self, api, compute):
        resp = api()('GET', '/proj1/servers/detail')
        [server] = resp.json['servers']
        assert server['status'] == 'BUILD'
        assert server['tenant_id'] == 'proj1'
        assert server['user_id'] == 'demo'
        assert server['hostId'] == ''
        assert server['image']['id'] == IMAGE['id']
        assert server['image']['links'][0]['rel'] == 'bookmark'
        assert server['flavor']['id'] == '1'
        assert server['flavor']['links'][0]['href'].endswith(
            '/proj1/flavors/1')
        assert server['created'] == '2024-01-31T12:00:00Z'
        assert server['updated'] == '2024-01-31T12:05:00Z'
        assert server['addresses'] == {}
        assert (server['accessIPv4'], server['accessIPv6']) == ('', '')
        assert server['OS-EXT-STS:vm_state'] == 'building'
        assert server['OS-EXT-STS:task_state'] == 'scheduling'
        assert server['OS-EXT-STS:power_state'] == 0
        assert server['OS-EXT-AZ:availability_zone'] == ''
        assert server['config_drive'] == ''
        assert server['progress'] == 0
        assert server['links'][0]['href'].endswith(
            '/v2.1/proj1/servers/' + server['id'])
        assert not any(k.startswith('OS-EXT-SRV-ATTR') for k in server)

    def test_admin_all_tenants_and_admin_fields(self, api, compute):
        admin = conftest.make_context('admin', 'ops')
        resp = api(admin)('GET', '/servers/detail?all_tenants=1')
        servers_ = {s['id']: s for s in resp.json['servers']}
        assert len(servers_) == 2
        theirs = servers_[OTHER]
        assert theirs['OS-EXT-SRV-ATTR:host'] == 'host1'
        assert theirs['OS-EXT-SRV-ATTR:hypervisor_hostname'] == 'node1'
        assert theirs['OS-EXT-SRV-ATTR:instance_name'] == 'instance-00000001'
        assert theirs['status'] == 'ACTIVE'
        assert len(theirs['hostId']) == 56

    def test_all_tenants_needs_admin(self, api, compute):
        resp = api()('GET', '/servers?all_tenants=true')
        assert resp.status_int == 403

    def test_filters_reach_the_compute_api(self, api, compute):
        admin = conftest.make_context('admin', 'ops')
        api(admin)('GET', '/servers?name=vm&status=active&host=h1'
                          '&sort_key=display_name&sort_dir=asc&limit=5'
                          '&marker=' + OTHER)
        [call] = compute.get_all_calls
        assert call['filters'] == {'name': 'vm', 'host': 'h1',
                                   'vm_state': ['active']}
        assert (call['sort_key'], call['sort_dir']) == ('display_name',
                                                        'asc')
        assert (call['limit'], call['marker']) == (5, OTHER)

    def test_host_filter_ignored_for_users(self, api, compute):
        api()('GET', '/servers?host=h1')
        assert 'host' not in compute.get_all_calls[0]['filters']

    def test_unknown_status_is_an_empty_list(self, api, compute):
        resp = api()('GET', '/servers?status=NOPE')
        assert resp.json == {'servers': []}
        assert compute.get_all_calls == []

    def test_deleted_status_needs_admin(self, api, compute):
        assert api()('GET', '/servers?status=DELETED').status_int == 403

    def test_limit_capped_and_next_link(self, api, compute, conf):
        conf.config(group='api', max_limit=1)
        resp = api()('GET', '/servers?limit=50')
        assert compute.get_all_calls[0]['limit'] == 1
        [link] = resp.json['servers_links']
        assert link['rel'] == 'next'
        assert link['href'].endswith(
            '/v2.1/servers?limit=50&marker=' + fakes.instance().uuid)

    @pytest.mark.parametrize('query', ['limit=-1', 'limit=x',
                                       'sort_dir=up', 'sort_key=secret'])
    def test_bad_query_is_400(self, api, compute, query):
        resp = api()('GET', '/servers?' + query)
        assert resp.status_int == 400
        assert compute.get_all_calls == []


class TestShowDelete:
    def test_show(self, api, compute):
        uuid = fakes.instance().uuid
        resp = api()('GET', '/servers/' + uuid)
        assert resp.status_int == 200
        assert resp.json['server']['id'] == uuid

    def test_other_project_is_404(self, api, compute):
        resp = api()('GET', '/servers/' + OTHER)
        assert resp.status_int == 404
        assert 'itemNotFound' in resp.json

    def test_error_fault_details_for_admin_only(self, api, compute):
        inst = compute.instances[OTHER]
        inst.vm_state = 'error'
        inst.fault = instance_fault.InstanceFault(
            code=500, message='No valid host was found.',
            details='RamFilter: 3 -> 0', created_at=fakes.CREATED)
        admin = conftest.make_context('admin', 'ops')
        server = api(admin)('GET', '/servers/' + OTHER).json['server']
        assert server['status'] == 'ERROR'
        assert server['fault'] == {
            'code': 500, 'message': 'No valid host was found.',
            'created': '2024-01-31T12:00:00Z',
            'details': 'RamFilter: 3 -> 0'}
        owner = conftest.make_context('eve', 'proj2')
        server = api(owner)('GET', '/servers/' + OTHER).json['server']
        assert 'details' not in server['fault']
        assert 'progress' not in server

    def test_deleting_shows_vm_state_status(self, api, compute):
        compute.instances[OTHER].task_state = 'deleting'
        owner = conftest.make_context('eve', 'proj2')
        server = api(owner)('GET', '/servers/' + OTHER).json['server']
        assert server['status'] == 'ACTIVE'
        assert server['OS-EXT-STS:task_state'] == 'deleting'

    def test_delete_204(self, api, compute):
        uuid = fakes.instance().uuid
        resp = api()('DELETE', '/proj1/servers/' + uuid)
        assert resp.status_int == 204
        assert resp.body == b''
        assert compute.deleted == [uuid]

    def test_reader_cannot_delete(self, api, compute):
        reader = conftest.make_context('r', 'proj1', roles=['reader'])
        resp = api(reader)('DELETE', '/servers/' + fakes.instance().uuid)
        assert resp.status_int == 403
        assert compute.deleted == []

    def test_delete_conflict_is_409(self, api, compute, monkeypatch):
        def refuse(context, instance):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=instance.uuid, expected='[None]',
                actual='spawning')
        monkeypatch.setattr(compute, 'delete', refuse)
        resp = api()('DELETE', '/servers/' + fakes.instance().uuid)
        assert resp.status_int == 409
        assert 'conflictingRequest' in resp.json


@pytest.mark.parametrize('version', ['2.1', '2.47', '2.100'])
def test_answers_match_the_documented_schemas(api, at_version, compute,
                                              tag_store, monkeypatch,
                                              version):
    """The bodies the OpenAPI document declares for the list, detail and
    show (schemas/servers.py) are those server_view answers, to a user
    and an administrator."""
    # An administrator's views show host_status (2.16).
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: [types.SimpleNamespace(
            host='host1', forced_down=False, disabled=False, is_up=True)]))
    document = openapi.build(router.ROUTES, 'http://localhost/v2.1',
                             api_version.APIVersionRequest(version))
    admin = conftest.make_context('admin', 'ops')
    for context, uuid, query in (
            (None, fakes.instance().uuid, '?limit=1'),
            (admin, OTHER, '?limit=1&all_tenants=1')):
        caller = at_version(api(context) if context else api(), version)
        for path, route in (
                ('/servers' + query, '/servers'),
                ('/servers/detail' + query, '/servers/detail'),
                ('/servers/' + uuid, '/servers/{server_id}')):
            resp = caller('GET', path)
            assert resp.status_int == 200, resp.text
            declared = document['paths'][route]['get']['responses'][
                '200']['content']['application/json']['schema']
            assert declared != {'type': 'object'}
            jsonschema.Draft202012Validator(declared).validate(resp.json)


class TestRecordsForBuild:
    """The key pair, flavor and image reads of a boot share one reader
    transaction when the images are in this database."""

    @pytest.fixture
    def transactions(self, monkeypatch):
        """Each read's record: the transaction it ran in (None outside
        one); ``opened`` counts the transactions."""
        state = types.SimpleNamespace(current=None, opened=0, reads=[])

        class Using:
            def __enter__(self):
                assert state.current is None, 'nested transaction'
                state.opened += 1
                state.current = state.opened

            def __exit__(self, *exc):
                state.current = None
        monkeypatch.setattr(servers.db_api.reader, 'using',
                            lambda context: Using())
        for owner, name in ((objects.Flavor, 'get_by_flavor_id'),
                            (objects.KeyPair, 'get_by_name')):
            fake = getattr(owner, name).__func__

            def read(cls, *args, _fake=fake, _name=name):
                state.reads.append((_name, state.current))
                return _fake(cls, *args)
            monkeypatch.setattr(owner, name, classmethod(read))
        fake_image = servers.image_api.get

        def read_image(context, image_id):
            state.reads.append(('image', state.current))
            return fake_image(context, image_id)
        monkeypatch.setattr(servers.image_api, 'get', read_image)
        return state

    def test_one_transaction_with_the_registry(self, transactions,
                                               monkeypatch):
        monkeypatch.setattr(servers.image_api, 'reads_database',
                            lambda: True)
        flavor, image = servers._records_for_build(
            conftest.make_context(), _body(key_name='key')['server'])
        assert (flavor.flavorid, image) == ('1', IMAGE)
        assert transactions.opened == 1
        assert transactions.reads == [('get_by_name', 1),
                                      ('get_by_flavor_id', 1),
                                      ('image', 1)]

    def test_none_held_across_another_image_service(self, transactions):
        servers._records_for_build(conftest.make_context(),
                                   _body(key_name='key')['server'])
        assert transactions.opened == 0
        assert [where for _read, where in transactions.reads] == [
            None, None, None]

    def test_a_failed_read_ends_the_transaction(self, transactions,
                                                monkeypatch):
        monkeypatch.setattr(servers.image_api, 'reads_database',
                            lambda: True)
        with pytest.raises(exception.FlavorNotFoundForBuild):
            servers._records_for_build(conftest.make_context(),
                                       _body(flavorRef='42')['server'])
        assert transactions.current is None
        assert [read for read, _where in transactions.reads] == [
            'get_by_flavor_id']
