"""/os-keypairs and /servers/{id}/os-instance-actions over fake stores."""

import datetime

import pytest

from nova_lite.api.handlers import instance_actions
from nova_lite.api.handlers import server_view
from nova_lite import crypto
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api import fakes
from tests.unit.api.shapes import conftest as shapes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5)
LATER = datetime.datetime(2026, 1, 2, 3, 4, 9)
ADMIN = conftest.make_context('admin', 'adminproj')


@pytest.fixture
def keys(monkeypatch):
    """user_id -> {name: KeyPair}; create refuses a taken name or a
    full quota of 2."""
    store = {}

    def create(self):
        mine = store.setdefault(self.user_id, {})
        if self.name in mine:
            raise exception.KeyPairExists(key_name=self.name)
        if len(mine) >= 2:
            raise exception.OverQuota(overs='key_pairs', details='2 of 2')
        self.id = len(mine) + 1
        self.created_at, self.updated_at, self.deleted = WHEN, None, False
        mine[self.name] = self

    def get_by_name(cls, context, user_id, name):
        try:
            return store[user_id][name]
        except KeyError:
            raise exception.KeypairNotFound(user_id=user_id, name=name)

    def get_by_user(cls, context, user_id, limit=None, marker=None):
        return objects.KeyPairList(objects=[
            store[user_id][n] for n in sorted(store.get(user_id, {}))])

    def destroy(self):
        del store[self.user_id][self.name]
    monkeypatch.setattr(objects.KeyPair, 'create', create)
    monkeypatch.setattr(objects.KeyPair, 'destroy', destroy)
    monkeypatch.setattr(objects.KeyPair, 'get_by_name',
                        classmethod(get_by_name))
    monkeypatch.setattr(objects.KeyPairList, 'get_by_user',
                        classmethod(get_by_user))
    return store


class TestKeypairs:
    def test_generate(self, api, keys):
        resp = api()('POST', '/os-keypairs', {'keypair': {'name': 'k1'}})
        assert resp.status_int == 200
        kp = resp.json['keypair']
        assert kp['name'] == 'k1' and kp['user_id'] == 'demo'
        assert kp['private_key'].startswith('-----BEGIN RSA PRIVATE KEY')
        assert kp['public_key'].startswith('ssh-rsa ')
        assert kp['fingerprint'] == crypto.ssh_fingerprint(kp['public_key'])

    def test_import(self, api, keys):
        _private, public, fingerprint = crypto.generate_key_pair()
        resp = api()('POST', '/os-keypairs', {'keypair': {
            'name': 'mine', 'public_key': public}})
        assert resp.status_int == 200
        assert 'private_key' not in resp.json['keypair']
        assert resp.json['keypair']['fingerprint'] == fingerprint

    def test_bad_public_key_is_400(self, api, keys):
        resp = api()('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'public_key': 'ssh-rsa notbase64!'}})
        assert resp.status_int == 400
        assert 'Keypair data is invalid' in resp.json['badRequest'][
            'message']
        assert keys == {}

    @pytest.mark.parametrize('name', ['', 'a/b', 'x' * 256])
    def test_bad_name_is_400(self, api, keys, name):
        resp = api()('POST', '/os-keypairs', {'keypair': {'name': name}})
        assert resp.status_int == 400

    def test_taken_name_is_409_and_quota_403(self, api, keys):
        call = api()
        assert call('POST', '/os-keypairs',
                    {'keypair': {'name': 'a'}}).status_int == 200
        resp = call('POST', '/os-keypairs', {'keypair': {'name': 'a'}})
        assert resp.status_int == 409
        assert "Key pair 'a' already exists." == resp.json[
            'conflictingRequest']['message']
        call('POST', '/os-keypairs', {'keypair': {'name': 'b'}})
        resp = call('POST', '/os-keypairs', {'keypair': {'name': 'c'}})
        assert resp.status_int == 403

    def test_list_show_delete_are_per_user(self, api, keys):
        call = api()
        call('POST', '/os-keypairs', {'keypair': {'name': 'a'}})
        listed = call('GET', '/os-keypairs').json['keypairs']
        assert [k['keypair']['name'] for k in listed] == ['a']
        assert set(listed[0]['keypair']) == {'name', 'public_key',
                                             'fingerprint'}
        shown = call('GET', '/os-keypairs/a').json['keypair']
        assert shown['user_id'] == 'demo' and shown['deleted'] is False
        other = api(conftest.make_context('eve', 'proj1'))
        assert other('GET', '/os-keypairs').json == {'keypairs': []}
        assert other('GET', '/os-keypairs/a').status_int == 404
        assert other('DELETE', '/os-keypairs/a').status_int == 404
        assert call('DELETE', '/os-keypairs/a').status_int == 202
        assert call('GET', '/os-keypairs/a').status_int == 404


@pytest.fixture
def history(monkeypatch):
    compute = fakes.FakeComputeAPI([fakes.instance()])
    monkeypatch.setattr(instance_actions, 'compute', compute)
    action = objects.InstanceAction(
        id=4, action='reboot', instance_uuid=UUID, request_id='req-1',
        user_id='demo', project_id='proj1', start_time=WHEN,
        finish_time=None, message=None, updated_at=LATER)
    event = objects.InstanceActionEvent(
        id=1, action_id=4, event='compute_reboot_instance', start_time=WHEN,
        finish_time=WHEN, result='Error', traceback='Traceback...',
        host='host1', details='boom')

    def get_by_request_id(cls, context, instance_uuid, request_id):
        if request_id != 'req-1':
            raise exception.InstanceActionNotFound(
                request_id=request_id, instance_uuid=instance_uuid)
        return action
    monkeypatch.setattr(
        objects.InstanceActionList, 'get_by_instance_uuid',
        classmethod(lambda cls, c, u, limit=None: objects.InstanceActionList(
            objects=[action])))
    pages = []

    def get_page(cls, context, instance_uuid, limit, marker=None,
                 changes_since=None, changes_before=None):
        pages.append((limit, marker, changes_since))
        if changes_before is not None:
            pages.append(('changes_before', changes_before))
        if marker not in (None, 'req-1'):
            raise exception.MarkerNotFound(marker=marker)
        found = [] if marker else [action]
        return objects.InstanceActionList(objects=found[:limit])
    monkeypatch.setattr(objects.InstanceActionList, 'get_page',
                        classmethod(get_page))
    monkeypatch.setattr(objects.InstanceAction, 'get_by_request_id',
                        classmethod(get_by_request_id))
    monkeypatch.setattr(
        objects.InstanceActionEventList, 'get_by_action',
        classmethod(lambda cls, c, a: objects.InstanceActionEventList(
            objects=[event])))
    return pages


class TestInstanceActions:
    def test_list(self, api, history):
        resp = api()('GET', '/servers/%s/os-instance-actions' % UUID)
        assert resp.json == {'instanceActions': [{
            'action': 'reboot', 'instance_uuid': UUID, 'message': None,
            'project_id': 'proj1', 'request_id': 'req-1',
            'user_id': 'demo', 'start_time': '2026-01-02T03:04:05.000000'}]}

    PATH = '/servers/%s/os-instance-actions/req-1' % UUID
    EVENT = {'event': 'compute_reboot_instance', 'result': 'Error',
             'start_time': '2026-01-02T03:04:05.000000',
             'finish_time': '2026-01-02T03:04:05.000000'}

    def _show(self, api, at_version, version, context=None):
        resp = at_version(api(context), version)('GET', self.PATH)
        assert resp.status_int == 200, resp.text
        return resp.json['instanceAction']

    def test_events_only_for_administrators_before_2_51(
            self, api, at_version, history):
        """Members were shown the events at every version; Nova shows
        them to non-admins only from 2.51."""
        assert 'events' not in self._show(api, at_version, '2.50')
        [event] = self._show(api, at_version, '2.50', ADMIN)['events']
        assert event == dict(self.EVENT, traceback='Traceback...')

    def test_events_for_every_reader_from_2_51(self, api, at_version,
                                               history):
        [event] = self._show(api, at_version, '2.51')['events']
        assert event == self.EVENT
        [event] = self._show(api, at_version, '2.51', ADMIN)['events']
        assert event == dict(self.EVENT, traceback='Traceback...')

    def test_host_id_from_2_62_and_host_for_administrators(
            self, api, at_version, history):
        [event] = self._show(api, at_version, '2.61', ADMIN)['events']
        assert 'host' not in event and 'hostId' not in event
        host_id = server_view.host_id('host1', 'proj1')
        [event] = self._show(api, at_version, '2.62')['events']
        assert event == dict(self.EVENT, hostId=host_id)
        [event] = self._show(api, at_version, '2.62', ADMIN)['events']
        assert event == dict(self.EVENT, traceback='Traceback...',
                             hostId=host_id, host='host1')

    def test_details_from_2_84_to_the_servers_readers(
            self, api, at_version, history):
        [event] = self._show(api, at_version, '2.83')['events']
        assert 'details' not in event
        reader = conftest.make_context('viewer', 'proj1', ['reader'])
        for context in (None, reader, ADMIN):
            resp = at_version(api(context), '2.84')('GET', self.PATH)
            shapes.check_shape(resp, shapes.TempestSchemas(
                'servers', '2.84').show_instance_action)
            [event] = resp.json['instanceAction']['events']
            assert event['details'] == 'boom'

    def test_unknown_request_and_server_are_404(self, api, history):
        assert api()('GET', '/servers/%s/os-instance-actions/req-2'
                     % UUID).status_int == 404
        assert api(conftest.make_context('eve', 'proj2'))(
            'GET', '/servers/%s/os-instance-actions' % UUID
        ).status_int == 404


class TestKeypairsAt22:
    HEADERS = {'OpenStack-API-Version': 'compute 2.2'}

    def test_create_201_with_type_and_delete_204(self, api, keys):
        call = api()
        resp = call('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'type': 'ssh'}}, headers=self.HEADERS)
        assert resp.status_int == 201
        assert resp.json['keypair']['type'] == 'ssh'
        listed = call('GET', '/os-keypairs', headers=self.HEADERS).json
        assert listed['keypairs'][0]['keypair']['type'] == 'ssh'
        assert call('DELETE', '/os-keypairs/k',
                    headers=self.HEADERS).status_int == 204

    def test_type_before_2_2_or_x509_is_400(self, api, keys):
        assert api()('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'type': 'ssh'}}).status_int == 400
        assert api()('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'type': 'x509'}},
            headers=self.HEADERS).status_int == 400
        assert keys == {}


class TestKeypairsOfAnotherUserAt210:
    ADMIN = conftest.make_context('admin', 'ops')

    def test_admin_creates_lists_shows_deletes_for_a_user(
            self, api, keys, at_version):
        admin = at_version(api(self.ADMIN), '2.10')
        resp = admin('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'user_id': 'bob'}})
        assert resp.status_int == 201
        assert resp.json['keypair']['user_id'] == 'bob'
        assert set(keys) == {'bob'}
        listed = admin('GET', '/os-keypairs?user_id=bob').json['keypairs']
        assert [k['keypair']['name'] for k in listed] == ['k']
        assert admin('GET', '/os-keypairs').json['keypairs'] == []
        shown = admin('GET', '/os-keypairs/k?user_id=bob').json
        assert shown['keypair']['user_id'] == 'bob'
        assert admin('DELETE',
                     '/os-keypairs/k?user_id=bob').status_int == 204
        assert keys['bob'] == {}

    def test_user_id_before_2_10(self, api, keys, at_version):
        admin = at_version(api(self.ADMIN), '2.9')
        assert admin('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'user_id': 'bob'}}).status_int == 400
        admin('POST', '/os-keypairs', {'keypair': {'name': 'k'}})
        # The query parameter is ignored: the admin's own key pairs.
        listed = admin('GET', '/os-keypairs?user_id=bob').json['keypairs']
        assert [k['keypair']['name'] for k in listed] == ['k']

    def test_members_may_not_name_another_user(self, api, keys,
                                               at_version):
        member = at_version(api(), '2.10')
        assert member('POST', '/os-keypairs', {'keypair': {
            'name': 'k', 'user_id': 'bob'}}).status_int == 403
        assert member('GET',
                      '/os-keypairs?user_id=bob').status_int == 403
        assert member('GET', '/os-keypairs?user_id=demo').status_int == 200
        assert keys == {}


class TestActionsPageFrom258:
    PATH = '/servers/%s/os-instance-actions' % UUID

    def test_updated_at_shown_from_2_58(self, api, at_version, history):
        for path in (self.PATH, self.PATH + '/req-1'):
            old = at_version(api(), '2.57')('GET', path).json
            new = at_version(api(), '2.58')('GET', path).json
            old = old.get('instanceAction') or old['instanceActions'][0]
            new = new.get('instanceAction') or new['instanceActions'][0]
            assert 'updated_at' not in old
            assert new['updated_at'] == '2026-01-02T03:04:09.000000'
        assert history == [(1000, None, None)]

    def test_pages_with_a_next_link(self, api, at_version, history):
        call = at_version(api(), '2.58')
        resp = call('GET', self.PATH + '?limit=1')
        assert resp.status_int == 200, resp.text
        [link] = resp.json['links']
        assert link['rel'] == 'next'
        assert link['href'].endswith(
            '/servers/%s/os-instance-actions?limit=1&marker=req-1' % UUID)
        rest = call('GET', self.PATH + '?limit=1&marker=req-1').json
        assert rest == {'instanceActions': []}
        full = call('GET', self.PATH).json
        assert 'links' not in full
        resp = call('GET', self.PATH + '?changes-since='
                    '2026-01-02T03:04:00Z&limit=5')
        assert resp.status_int == 200
        assert history[-1] == (5, None, WHEN.replace(second=0))

    @pytest.mark.parametrize('query', [
        'marker=req-9', 'limit=-1', 'limit=x', 'changes-since=yesterday',
        'other=1'])
    def test_bad_queries_are_400(self, api, at_version, history, query):
        resp = at_version(api(), '2.58')('GET', self.PATH + '?' + query)
        assert resp.status_int == 400, resp.text

    def test_paging_ignored_before_2_58(self, api, at_version, history):
        resp = at_version(api(), '2.57')(
            'GET', self.PATH + '?limit=0&marker=req-9&other=1')
        assert resp.status_int == 200
        assert len(resp.json['instanceActions']) == 1
        assert history == []


class TestActionsOfADeletedServerAt221:
    @pytest.fixture
    def deleted(self, history, monkeypatch):
        """The server is deleted: found only when deleted rows are read."""
        seen = []

        def get(context, instance_id, expected_attrs=None):
            seen.append(context.read_deleted)
            if context.read_deleted != 'yes':
                raise exception.InstanceNotFound(instance_id=instance_id)
            return fakes.instance(vm_state='deleted', deleted=True)
        monkeypatch.setattr(instance_actions.compute, 'get', get)
        return seen

    def test_404_before_2_21(self, api, deleted, at_version):
        resp = at_version(api(), '2.20')(
            'GET', '/servers/%s/os-instance-actions' % UUID)
        assert resp.status_int == 404
        assert deleted == ['no']

    def test_listed_and_shown_from_2_21(self, api, deleted, at_version):
        member = at_version(api(), '2.21')
        path = '/servers/%s/os-instance-actions' % UUID
        assert member('GET', path).json['instanceActions'][0][
            'request_id'] == 'req-1'
        assert member('GET', path + '/req-1').status_int == 200
        assert deleted == ['yes', 'yes']


@pytest.fixture
def paged_keys(monkeypatch):
    """Key pairs a, b, c of the caller, paged as the database pages
    them; records each (limit, marker) asked for."""
    asked = []

    def get_by_user(cls, context, user_id, limit=None, marker=None):
        asked.append((limit, marker))
        names = ['a', 'b', 'c']
        if marker is not None:
            if marker not in names:
                raise exception.MarkerNotFound(marker=marker)
            names = names[names.index(marker) + 1:]
        return objects.KeyPairList(objects=[
            objects.KeyPair(id=n, name=name, user_id=user_id,
                            fingerprint='f', public_key='k', type='ssh')
            for n, name in enumerate(names[:limit])])
    monkeypatch.setattr(objects.KeyPairList, 'get_by_user',
                        classmethod(get_by_user))
    return asked


def test_keypairs_page_from_2_35(api, at_version, paged_keys):
    call = at_version(api(), '2.35')
    resp = call('GET', '/os-keypairs?limit=2')
    body = resp.json
    assert [k['keypair']['name'] for k in body['keypairs']] == ['a', 'b']
    [link] = body['keypairs_links']
    assert link['href'].endswith('/os-keypairs?limit=2&marker=b')
    rest = call('GET', '/os-keypairs?limit=2&marker=b').json
    assert [k['keypair']['name'] for k in rest['keypairs']] == ['c']
    assert 'keypairs_links' not in rest
    assert call('GET', '/os-keypairs?marker=zz').status_int == 400
    assert paged_keys[:2] == [(2, None), (2, 'b')]


def test_keypairs_ignore_paging_before_2_35(api, at_version, paged_keys):
    call = at_version(api(), '2.34')
    body = call('GET', '/os-keypairs?limit=1&marker=zz').json
    assert len(body['keypairs']) == 3
    assert 'keypairs_links' not in body
    assert paged_keys == [(None, None)]
