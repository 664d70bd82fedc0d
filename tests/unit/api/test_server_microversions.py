# ruff: noqa: F811  (pytest fixtures imported from test_servers)
"""What each microversion changes in the server views, on both sides of
its boundary."""

import types

from oslo_policy import policy as oslo_policy
import pytest

from nova_lite import objects
from nova_lite import policy
from tests.unit.api import conftest
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401
from tests.unit.api.test_servers import OTHER

ADMIN = conftest.make_context('admin', 'ops')
UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
EXT = 'OS-EXT-SRV-ATTR:'


def _show(api, at_version, version, context=None, uuid=UUID):
    resp = at_version(api(context), version)('GET', '/servers/' + uuid)
    assert resp.status_int == 200, resp.body
    return resp.json['server']


class TestExtendedAttributes:
    def test_2_2_has_only_the_2_1_attributes(self, api, at_version,
                                             compute):
        server = _show(api, at_version, '2.2', ADMIN)
        assert EXT + 'host' in server
        assert EXT + 'reservation_id' not in server

    def test_2_3_adds_them_for_administrators(self, api, at_version,
                                              compute):
        server = _show(api, at_version, '2.3', ADMIN, uuid=OTHER)
        assert server[EXT + 'reservation_id'] == 'r-abc'
        assert server[EXT + 'launch_index'] == 0
        assert server[EXT + 'hostname'] == 'vm1'
        assert server[EXT + 'kernel_id'] == ''
        assert server[EXT + 'user_data'] is None

    @pytest.mark.parametrize('version, shown', [('2.2', False),
                                                ('2.3', True)])
    def test_user_data_shown_from_2_3(self, api, at_version, compute,
                                      version, shown):
        compute.instances[OTHER].user_data = 'aGVsbG8='
        server = _show(api, at_version, version, ADMIN, uuid=OTHER)
        assert (server.get(EXT + 'user_data') == 'aGVsbG8=') is shown
        assert (EXT + 'user_data' in server) is shown

    def test_user_data_not_for_members(self, api, at_version, compute):
        compute.instances[UUID].user_data = 'aGVsbG8='
        server = _show(api, at_version, '2.3')
        assert EXT + 'user_data' not in server
        assert 'aGVsbG8=' not in str(server)

    def test_2_3_not_for_members(self, api, at_version,
                                 compute):
        server = _show(api, at_version, '2.3')
        assert not [key for key in server if key.startswith(EXT)]


class TestAddressFilters:
    def _names(self, api, at_version, version, query, context=None):
        resp = at_version(api(context), version)(
            'GET', '/servers/detail?' + query)
        assert resp.status_int == 200, resp.body
        return [server['id'] for server in resp.json['servers']]

    def test_ip_matches_nothing(self, api, at_version,
                                compute):
        assert self._names(api, at_version, '2.1', 'ip=10.0.0.1') == []

    def test_ip6_ignored_for_members_before_2_5(
            self, api, at_version, compute):
        assert self._names(api, at_version, '2.4', 'ip6=fe80::1') == [UUID]
        assert self._names(api, at_version, '2.5', 'ip6=fe80::1') == []

    def test_ip6_for_administrators_at_2_1(
            self, api, at_version, compute):
        assert self._names(api, at_version, '2.1', 'ip6=fe80::1',
                           ADMIN) == []


class TestLocked:
    def test_not_shown_before_2_9(self, api, at_version,
                                  compute):
        assert 'locked' not in _show(api, at_version, '2.8')

    def test_shown_from_2_9(self, api, at_version, compute):
        compute.instances[UUID].locked = True
        assert _show(api, at_version, '2.9')['locked'] is True
        resp = at_version(api(), '2.9')('GET', '/servers/detail')
        assert resp.json['servers'][0]['locked'] is True


class TestHostStatus:
    @pytest.fixture
    def services(self, monkeypatch):
        found = {'host1': types.SimpleNamespace(
            host='host1', forced_down=False, disabled=False, is_up=True)}
        monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
            lambda cls, context, binary=None, host=None: list(
                found.values())))
        return found

    def test_not_shown_before_2_16(self, api, at_version, compute,
                                   services):
        assert 'host_status' not in _show(api, at_version, '2.15', ADMIN,
                                          uuid=OTHER)

    def test_not_shown_to_members(self, api, at_version, compute,
                                  services):
        assert 'host_status' not in _show(api, at_version, '2.16')

    @pytest.mark.parametrize('state,expected', [
        ({}, 'UP'), ({'is_up': False}, 'UNKNOWN'),
        ({'disabled': True}, 'MAINTENANCE'),
        ({'forced_down': True, 'disabled': True}, 'DOWN'),
        (None, '')])
    def test_states(self, api, at_version, compute, services, state,
                    expected):
        if state is None:
            services.clear()
        else:
            vars(services['host1']).update(state)
        server = _show(api, at_version, '2.16', ADMIN, uuid=OTHER)
        assert server['host_status'] == expected

    def test_in_list_detail_and_empty_without_host(
            self, api, at_version, compute, services):
        resp = at_version(api(ADMIN), '2.16')(
            'GET', '/servers/detail?all_tenants=1')
        statuses = {s['id']: s['host_status']
                    for s in resp.json['servers']}
        assert statuses == {UUID: '', OTHER: 'UP'}


class TestDescriptionAtCreate:
    BODY = {'server': {'name': 'vm', 'flavorRef': '1',
                       'imageRef': '70a599e0-31e7-49b7-b260-868f441e862b',
                       'description': 'web'}}

    def test_refused_before_2_19(self, api, at_version, compute):
        resp = at_version(api(), '2.18')('POST', '/servers', self.BODY)
        assert resp.status_int == 400
        assert compute.created == []

    def test_given_to_the_build_from_2_19(self, api, at_version, compute):
        resp = at_version(api(), '2.19')('POST', '/servers', self.BODY)
        assert resp.status_int == 202
        assert compute.created[0]['description'] == 'web'


class TestInvalidStatusFilter:
    def _list(self, api, at_version, version, query):
        return at_version(api(), version)('GET', '/servers/detail?' + query)

    def test_matches_nothing_before_2_38(self, api, at_version, compute):
        resp = self._list(api, at_version, '2.37', 'status=bogus')
        assert resp.status_int == 200
        assert resp.json['servers'] == []

    def test_400_from_2_38(self, api, at_version, compute):
        resp = self._list(api, at_version, '2.38', 'status=bogus')
        assert resp.status_int == 400
        assert 'Invalid status value' in resp.json['badRequest']['message']
        resp = at_version(api(), '2.38')('GET', '/servers?status=bogus')
        assert resp.status_int == 400

    @pytest.mark.parametrize('query', [
        'status=active', 'status=ACTIVE&status=bogus', 'status=REBOOT',
        'status=SOFT_DELETED'])
    def test_known_statuses_still_filter_at_2_38(self, api, at_version,
                                                 compute, query):
        assert self._list(api, at_version, '2.38', query).status_int == 200


class TestEmbeddedFlavor:
    def test_id_and_link_before_2_47(self, api, at_version, compute):
        flavor = _show(api, at_version, '2.46')['flavor']
        assert set(flavor) == {'id', 'links'}

    def test_embedded_from_2_47(self, api, at_version, compute):
        compute.instances[UUID].flavor.extra_specs = {'hw:cpu_policy':
                                                      'shared'}
        flavor = _show(api, at_version, '2.47')['flavor']
        assert flavor == {'vcpus': 1, 'ram': 512, 'disk': 1,
                          'ephemeral': 0, 'swap': 0,
                          'original_name': 'm1.tiny',
                          'extra_specs': {'hw:cpu_policy': 'shared'}}
        resp = at_version(api(), '2.47')('GET', '/servers/detail')
        assert resp.json['servers'][0]['flavor'] == flavor
        compute.update = lambda context, instance, values: None
        updated = at_version(api(), '2.47')(
            'PUT', '/servers/' + UUID, {'server': {'name': 'n'}})
        assert updated.json['server']['flavor'] == flavor

    def test_extra_specs_only_for_callers_allowed_to_list_them(
            self, api, at_version, compute):
        policy.init().set_rules(oslo_policy.Rules.from_dict({
            'os_compute_api:os-flavor-extra-specs:index': '!'}),
            overwrite=False, use_conf=False)
        flavor = _show(api, at_version, '2.47')['flavor']
        assert 'extra_specs' not in flavor
        assert flavor['original_name'] == 'm1.tiny'


class TestTagsAtCreate:
    def _create(self, api, at_version, version, tags):
        return at_version(api(), version)('POST', '/servers', {'server': {
            'name': 'vm', 'flavorRef': '1', 'networks': 'none',
            'imageRef': '70a599e0-31e7-49b7-b260-868f441e862b',
            'tags': tags}})

    def test_refused_before_2_52(self, api, at_version, compute):
        resp = self._create(api, at_version, '2.51', ['web'])
        assert resp.status_int == 400, resp.text
        assert compute.created == []

    def test_given_to_the_build_from_2_52(self, api, at_version, compute):
        resp = self._create(api, at_version, '2.52', ['web', 'db'])
        assert resp.status_int == 202, resp.text
        assert compute.created[0]['tags'] == ['web', 'db']

    @pytest.mark.parametrize('tags', [['a/b'], [''], ['x' * 61],
                                      ['t%d' % n for n in range(51)]])
    def test_bad_tags_are_400(self, api, at_version, compute, tags):
        resp = self._create(api, at_version, '2.52', tags)
        assert resp.status_int == 400, resp.text
        assert compute.created == []


class TestPersonalityAtCreate:
    """File injection went at 2.57."""

    def _create(self, api, at_version, version):
        return at_version(api(), version)('POST', '/servers', {'server': {
            'name': 'vm', 'flavorRef': '1', 'networks': 'none',
            'imageRef': '70a599e0-31e7-49b7-b260-868f441e862b',
            'personality': [{'path': '/etc/motd',
                             'contents': 'aGVsbG8='}]}})

    def test_accepted_before_2_57(self, api, at_version, compute):
        resp = self._create(api, at_version, '2.56')
        assert resp.status_int == 202, resp.text
        assert len(compute.created) == 1

    def test_refused_from_2_57(self, api, at_version, compute):
        resp = self._create(api, at_version, '2.57')
        assert resp.status_int == 400, resp.text
        assert 'personality' in resp.text
        assert compute.created == []


class TestTrustedImageCertificates:
    """2.63: kept and shown; nothing verifies image signatures here, as
    in Nova with certificate validation disabled."""

    BODY = {'name': 'vm', 'flavorRef': '1', 'networks': 'none',
            'imageRef': '70a599e0-31e7-49b7-b260-868f441e862b'}

    def _create(self, api, at_version, version, certs):
        return at_version(api(), version)('POST', '/servers', {'server': dict(
            self.BODY, trusted_image_certificates=certs)})

    def test_refused_before_2_63(self, api, at_version, compute):
        resp = self._create(api, at_version, '2.62', ['cert-1'])
        assert resp.status_int == 400, resp.text
        assert 'trusted_image_certificates' in resp.text
        assert compute.created == []

    @pytest.mark.parametrize('certs', [['cert-1', 'cert-2'], None])
    def test_given_to_the_build_from_2_63(self, api, at_version, compute,
                                          certs):
        resp = self._create(api, at_version, '2.63', certs)
        assert resp.status_int == 202, resp.text
        assert compute.created[0]['trusted_certs'] == certs

    @pytest.mark.parametrize('certs', [[], [''], ['a', 'a'], 'a',
                                       ['c%d' % n for n in range(51)]])
    def test_bad_lists_are_400(self, api, at_version, compute, certs):
        resp = self._create(api, at_version, '2.63', certs)
        assert resp.status_int == 400, resp.text
        assert compute.created == []

    def test_shown_from_2_63(self, api, at_version, compute):
        compute.instances[UUID].trusted_certs = ['cert-1']
        assert 'trusted_image_certificates' not in _show(api, at_version,
                                                        '2.62')
        assert _show(api, at_version, '2.63')[
            'trusted_image_certificates'] == ['cert-1']
        listed = at_version(api(), '2.63')('GET', '/servers/detail').json
        assert listed['servers'][0]['trusted_image_certificates'] == [
            'cert-1']
        plain = at_version(api(), '2.63')('GET', '/servers').json
        assert 'trusted_image_certificates' not in plain['servers'][0]

    def test_null_when_none_were_given(self, api, at_version, compute):
        assert _show(api, at_version, '2.63')[
            'trusted_image_certificates'] is None


class TestUserDataAtCreate:
    """user_data is taken at every version, kept for the build and shown
    from 2.3 (the view tests above)."""

    BODY = {'name': 'vm', 'flavorRef': '1',
            'imageRef': '70a599e0-31e7-49b7-b260-868f441e862b'}

    @pytest.mark.parametrize('version', ['2.1', '2.3', '2.57'])
    def test_given_to_the_build(self, api, at_version, compute, version):
        resp = at_version(api(), version)('POST', '/servers', {
            'server': dict(self.BODY, user_data='aGVsbG8=',
                           **({'networks': 'none'}
                              if version >= '2.37' else {}))})
        assert resp.status_int == 202, resp.text
        assert compute.created[0]['user_data'] == 'aGVsbG8='

    def test_none_without_it(self, api, at_version, compute):
        resp = at_version(api(), '2.1')('POST', '/servers',
                                         {'server': dict(self.BODY)})
        assert resp.status_int == 202, resp.text
        assert compute.created[0]['user_data'] is None

    def test_not_base64_is_400(self, api, at_version, compute):
        resp = at_version(api(), '2.1')('POST', '/servers', {
            'server': dict(self.BODY, user_data='not base64!')})
        assert resp.status_int == 400, resp.text
        assert 'user_data' in resp.text
        assert compute.created == []
