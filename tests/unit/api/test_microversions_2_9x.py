# ruff: noqa: F811  (pytest fixtures imported from other test modules)
"""Microversions 2.89 to 2.100, each on both sides of its boundary:
hostname (2.90, FQDN 2.94), imported-only key pairs (2.92), the pinned
zone (2.96), shares (2.97), image properties (2.98) and scheduler hints
(2.100) in the server views."""

import pytest

from nova_lite.api import api_version
from nova_lite.api.handlers import server_shares
from nova_lite import crypto
from nova_lite import exception
from tests.unit.api import conftest
from tests.unit.api.test_keypairs_instance_actions import keys  # noqa: F401
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401
from tests.unit.api.test_servers import IMAGE
from tests.unit.api.test_servers import OTHER

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
ADMIN = conftest.make_context('admin', 'ops')
HOSTNAME = 'OS-EXT-SRV-ATTR:hostname'


def _create(api, at_version, version, **server):
    body = {'name': 'vm', 'imageRef': IMAGE['id'], 'flavorRef': '1',
            'networks': 'none'}
    body.update(server)
    return at_version(api(), version)('POST', '/servers', {'server': body})


def _show(api, at_version, version, context=None, uuid=UUID):
    resp = at_version(api(context), version)('GET', '/servers/' + uuid)
    assert resp.status_int == 200, resp.body
    return resp.json['server']


def _updating(compute):
    """The fake compute renames as compute.api.API.update does."""
    def update(context, instance, values):
        names = {'name': 'display_name', 'description': 'description',
                 'hostname': 'hostname'}
        for key, field in names.items():
            if key in values:
                setattr(instance, field, values[key])
        return instance
    compute.update = update


def _detail(api, at_version, version):
    resp = at_version(api(), version)('GET', '/servers/detail')
    assert resp.status_int == 200, resp.body
    return resp.json['servers'][0]


def test_2_100_is_the_maximum():
    assert str(api_version.max_version()) == '2.100'
    assert api_version.VERSIONS[-12:] == ['2.%d' % m
                                          for m in range(89, 101)]


class TestHostname:
    def test_refused_before_2_90(self, api, at_version, compute):
        resp = _create(api, at_version, '2.89', hostname='web-1')
        assert resp.status_int == 400
        assert 'hostname' in resp.json['badRequest']['message']
        assert compute.created == []

    def test_given_at_2_90(self, api, at_version, compute):
        resp = _create(api, at_version, '2.90', hostname='web-1')
        assert resp.status_int == 202, resp.body
        assert compute.created[0]['hostname'] == 'web-1'

    @pytest.mark.parametrize('hostname', ['w', 'web.example.com',
                                          'x' * 64, 'web 1'])
    def test_a_bare_hostname_until_2_94(self, api, at_version, compute,
                                        hostname):
        resp = _create(api, at_version, '2.93', hostname=hostname)
        assert resp.status_int == 400, resp.body
        assert compute.created == []

    def test_fqdn_from_2_94(self, api, at_version, compute):
        fqdn = 'web-1.' + 'a' * 60 + '.example.com'
        resp = _create(api, at_version, '2.94', hostname=fqdn)
        assert resp.status_int == 202, resp.body
        assert compute.created[0]['hostname'] == fqdn
        too_long = _create(api, at_version, '2.94',
                           hostname='a.' * 127 + 'ab')
        assert too_long.status_int == 400

    def test_not_with_several_servers(self, api, at_version, compute):
        resp = _create(api, at_version, '2.90', hostname='web',
                       max_count=2)
        assert resp.status_int == 400
        assert 'multiple instances' in resp.json['badRequest']['message']
        assert compute.created == []
        assert _create(api, at_version, '2.90', hostname='web',
                       min_count=1, max_count=1).status_int == 202

    def test_shown_to_members_from_2_90(self, api, at_version, compute):
        assert HOSTNAME not in _show(api, at_version, '2.89')
        assert _show(api, at_version, '2.90')[HOSTNAME] == 'vm1'
        assert _detail(api, at_version, '2.90')[HOSTNAME] == 'vm1'

    def test_update(self, api, at_version, compute):
        _updating(compute)
        path = '/servers/' + UUID
        body = {'server': {'hostname': 'renamed'}}
        assert at_version(api(), '2.89')('PUT', path, body).status_int == 400
        assert compute.instances[UUID].hostname == 'vm1'
        resp = at_version(api(), '2.90')('PUT', path, body)
        assert resp.status_int == 200, resp.body
        assert resp.json['server'][HOSTNAME] == 'renamed'
        dotted = {'server': {'hostname': 'a.example.com'}}
        assert at_version(api(), '2.93')('PUT', path,
                                         dotted).status_int == 400
        assert at_version(api(), '2.94')('PUT', path,
                                         dotted).status_int == 200


class TestKeypairsImportOnly:
    def _create(self, api, at_version, version, **keypair):
        return at_version(api(), version)('POST', '/os-keypairs',
                                          {'keypair': keypair})

    def test_generated_until_2_91(self, api, at_version, keys):
        resp = self._create(api, at_version, '2.91', name='k1')
        assert resp.status_int == 201, resp.body
        assert 'private_key' in resp.json['keypair']

    def test_public_key_required_from_2_92(self, api, at_version, keys):
        resp = self._create(api, at_version, '2.92', name='k1')
        assert resp.status_int == 400
        assert 'public_key' in resp.json['badRequest']['message']
        assert keys == {}
        _private, public, _fp = crypto.generate_key_pair()
        resp = self._create(api, at_version, '2.92', name='k1',
                            public_key=public)
        assert resp.status_int == 201, resp.body
        assert 'private_key' not in resp.json['keypair']

    def test_names_with_at_and_dot_from_2_92(self, api, at_version, keys):
        _private, public, _fp = crypto.generate_key_pair()
        name = 'me@host.example'
        assert self._create(api, at_version, '2.91', name=name,
                            public_key=public).status_int == 400
        resp = self._create(api, at_version, '2.92', name=name,
                            public_key=public)
        assert resp.status_int == 201, resp.body
        assert resp.json['keypair']['name'] == name
        assert self._create(api, at_version, '2.92', name='bad/name',
                            public_key=public).status_int == 400
        # Such a name routes whole (the dot is no format suffix).
        caller = at_version(api(), '2.92')
        shown = caller('GET', '/os-keypairs/' + name)
        assert shown.status_int == 200, shown.body
        assert shown.json['keypair']['name'] == name
        assert caller('DELETE', '/os-keypairs/' + name).status_int == 204

    def test_type_still_checked(self, api, at_version, keys):
        _private, public, _fp = crypto.generate_key_pair()
        resp = self._create(api, at_version, '2.92', name='k', type='x509',
                            public_key=public)
        assert resp.status_int == 400


class TestPinnedAvailabilityZone:
    def test_shown_from_2_96(self, api, at_version, compute,
                             request_specs):
        request_specs[UUID] = {'availability_zone': 'az1',
                               'scheduler_hints': {}}
        assert 'pinned_availability_zone' not in _show(api, at_version,
                                                       '2.95')
        assert _show(api, at_version, '2.96')[
            'pinned_availability_zone'] == 'az1'
        assert _detail(api, at_version, '2.96')[
            'pinned_availability_zone'] == 'az1'

    def test_null_when_not_pinned(self, api, at_version, compute):
        assert _show(api, at_version, '2.96')[
            'pinned_availability_zone'] is None

    def test_in_the_update_answer(self, api, at_version, compute,
                                  request_specs):
        request_specs[UUID] = {'availability_zone': 'az1',
                               'scheduler_hints': {}}
        _updating(compute)
        resp = at_version(api(), '2.96')('PUT', '/servers/' + UUID,
                                         {'server': {'name': 'n'}})
        assert resp.json['server']['pinned_availability_zone'] == 'az1'


class TestImageProperties:
    def test_shown_from_2_98(self, api, at_version, compute):
        assert 'properties' not in _show(api, at_version, '2.97')['image']
        image = _show(api, at_version, '2.98')['image']
        assert image['id'] == IMAGE['id']
        assert image['properties'] == {
            'os_distro': 'cirros', 'min_ram': '0', 'min_disk': '0',
            'disk_format': 'qcow2', 'container_format': 'bare'}
        assert _detail(api, at_version, '2.98')['image'][
            'properties']['os_distro'] == 'cirros'

    def test_an_image_gone_shows_none(self, api, at_version, compute):
        compute.instances[UUID].image_ref = (
            '11111111-2222-3333-4444-555555555555')
        image = _show(api, at_version, '2.98')['image']
        assert image['properties'] == {}

    def test_an_unreachable_image_service_shows_none(
            self, api, at_version, compute, view_images):
        view_images[IMAGE['id']] = exception.ImageServiceUnavailable(
            reason='down')
        assert _show(api, at_version, '2.98')['image']['properties'] == {}

    def test_values_are_strings_of_at_most_255(self, api, at_version,
                                               compute, view_images):
        view_images[IMAGE['id']] = dict(
            IMAGE, properties={'hw_numa_nodes': 2, 'long': 'x' * 300,
                               'unset': None})
        properties = _show(api, at_version, '2.98')['image']['properties']
        assert properties['hw_numa_nodes'] == '2'
        assert properties['long'] == 'x' * 255
        assert properties['unset'] is None


class TestSchedulerHints:
    def test_shown_from_2_100(self, api, at_version, compute,
                              request_specs):
        request_specs[UUID] = {
            'availability_zone': None,
            'scheduler_hints': {
                'group': ['5b1e1c4f-3a7d-4d7e-8d0f-2f0a4c6b9e11'],
                'same_host': [OTHER, UUID],
                '_nova_check_type': ['rebuild']}}
        assert 'scheduler_hints' not in _show(api, at_version, '2.99')
        expected = {'group': '5b1e1c4f-3a7d-4d7e-8d0f-2f0a4c6b9e11',
                    'same_host': [OTHER, UUID]}
        assert _show(api, at_version, '2.100')['scheduler_hints'] == expected
        assert _detail(api, at_version, '2.100')[
            'scheduler_hints'] == expected

    def test_empty_without_hints(self, api, at_version, compute):
        assert _show(api, at_version, '2.100')['scheduler_hints'] == {}


class TestShares:
    @pytest.fixture(autouse=True)
    def same_compute(self, compute, monkeypatch):
        monkeypatch.setattr(server_shares, 'compute', compute)

    def _call(self, api, at_version, version, method, path='', body=None,
              context=None):
        return at_version(api(context), version)(
            method, '/servers/%s/shares%s' % (UUID, path), body)

    def test_404_before_2_97(self, api, at_version, compute):
        for method, path in (('GET', ''), ('POST', ''),
                             ('GET', '/' + IMAGE['id']),
                             ('DELETE', '/' + IMAGE['id'])):
            resp = self._call(api, at_version, '2.96', method, path,
                              {'share': {'share_id': IMAGE['id']}})
            assert resp.status_int == 404, (method, path)

    def test_none_attached(self, api, at_version, compute):
        resp = self._call(api, at_version, '2.97', 'GET')
        assert resp.status_int == 200
        assert resp.json == {'shares': []}
        for method in ('GET', 'DELETE'):
            resp = self._call(api, at_version, '2.97', method,
                              '/' + IMAGE['id'])
            assert resp.status_int == 404
            assert 'not attached' in resp.json['itemNotFound']['message']

    def test_attach_finds_no_share(self, api, at_version, compute):
        body = {'share': {'share_id': IMAGE['id'], 'tag': 'data'}}
        resp = self._call(api, at_version, '2.97', 'POST', body=body)
        assert resp.status_int == 409  # the server is not stopped
        compute.instances[UUID].vm_state = 'stopped'
        resp = self._call(api, at_version, '2.97', 'POST', body=body)
        assert resp.status_int == 404
        assert 'no share service' in resp.json['itemNotFound']['message']

    @pytest.mark.parametrize('body', [
        {}, {'share': {}}, {'share': {'share_id': 'not-a-uuid'}},
        {'share': {'share_id': IMAGE['id'], 'other': 1}},
        {'share': {'share_id': IMAGE['id'], 'tag': ''}}])
    def test_bad_bodies(self, api, at_version, compute, body):
        compute.instances[UUID].vm_state = 'stopped'
        resp = self._call(api, at_version, '2.97', 'POST', body=body)
        assert resp.status_int == 400

    def test_another_projects_server_is_404(self, api, at_version,
                                            compute):
        resp = at_version(api(), '2.97')('GET',
                                         '/servers/%s/shares' % OTHER)
        assert resp.status_int == 404
