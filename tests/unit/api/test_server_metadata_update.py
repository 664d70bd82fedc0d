"""/servers/{id}/metadata and PUT /servers/{id}, over fakes."""

import pytest

from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_view
from nova_lite.api.handlers import servers
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
PATH = '/servers/%s/metadata' % UUID
ADMIN = conftest.make_context('admin', 'adminproj')


@pytest.fixture
def world(monkeypatch):
    state = type('World', (), {})()
    state.instance = fakes.instance(
        host='host1', vm_state=fields.VMState.ACTIVE, task_state=None,
        metadata={'a': '1'}, locked=False, locked_by=None,
        locked_reason=None, description=None)
    state.instance.obj_reset_changes(recursive=True)
    state.saves, state.actions = [], []
    state.allowed = 3
    compute = fakes.FakeComputeAPI([state.instance])
    monkeypatch.setattr(server_metadata, 'compute', compute)
    monkeypatch.setattr(servers, 'compute', compute)
    compute.update = servers.compute_api.API.update

    def save(self, expected_task_state=None, expected_vm_state=None):
        state.saves.append((self.obj_get_changes(), expected_task_state))
        self.obj_reset_changes()

    def get_limits(context, project_id, user_id=None, quota_class=None):
        limits = {'metadata_items': state.allowed}
        return limits, limits
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.InstanceAction, 'create',
                        lambda self: state.actions.append(self.action))
    monkeypatch.setattr(quota_limits, 'get_limits', get_limits)
    return state


def test_index_and_show(api, world):
    assert api()('GET', PATH).json == {'metadata': {'a': '1'}}
    assert api()('GET', PATH + '/a').json == {'meta': {'a': '1'}}
    resp = api()('GET', PATH + '/nope')
    assert resp.status_int == 404
    assert 'nope' in resp.json['itemNotFound']['message']


def test_post_merges_put_replaces(api, world):
    resp = api()('POST', PATH, {'metadata': {'b': '2'}})
    assert resp.status_int == 200
    assert resp.json == {'metadata': {'a': '1', 'b': '2'}}
    resp = api()('PUT', PATH, {'metadata': {'c': '3'}})
    assert resp.json == {'metadata': {'c': '3'}}
    assert [s[0]['metadata'] for s in world.saves] == [
        {'a': '1', 'b': '2'}, {'c': '3'}]
    # Conditional on no task having started meanwhile.
    assert all(s[1] == [None] for s in world.saves)


def test_put_one_item(api, world):
    resp = api()('PUT', PATH + '/b', {'meta': {'b': '2'}})
    assert resp.status_int == 200 and resp.json == {'meta': {'b': '2'}}
    resp = api()('PUT', PATH + '/b', {'meta': {'c': '2'}})
    assert resp.status_int == 400
    assert 'mismatch' in resp.json['badRequest']['message']
    resp = api()('PUT', PATH + '/b', {'meta': {'b': '2', 'c': '3'}})
    assert resp.status_int == 400


def test_delete_one_item(api, world):
    assert api()('DELETE', PATH + '/a').status_int == 204
    assert world.saves[0][0] == {'metadata': {}}
    assert api()('DELETE', PATH + '/zzz').status_int == 404


def test_over_the_metadata_items_quota_is_403(api, world):
    resp = api()('POST', PATH, {'metadata': {'b': '2', 'c': '3', 'd': '4'}})
    assert resp.status_int == 403
    assert 'metadata_items' in resp.json['forbidden']['message']
    assert world.saves == []
    # Replacing with as many as allowed is fine.
    assert api()('PUT', PATH, {'metadata': {
        'b': '2', 'c': '3', 'd': '4'}}).status_int == 200


@pytest.mark.parametrize('vm_state,task_state', [
    (fields.VMState.BUILDING, fields.TaskState.SCHEDULING),
    (fields.VMState.ERROR, None),
    (fields.VMState.ACTIVE, fields.TaskState.REBOOTING)])
def test_not_while_building_in_error_or_busy(api, world, vm_state,
                                             task_state):
    world.instance.vm_state = vm_state
    world.instance.task_state = task_state
    resp = api()('POST', PATH, {'metadata': {'b': '2'}})
    assert resp.status_int == 409
    assert "Cannot 'update metadata'" in resp.json['conflictingRequest'][
        'message']
    assert api()('DELETE', PATH + '/a').status_int == 409
    assert world.saves == []


def test_locked_server_refuses_owner_not_admin(api, world):
    world.instance.locked = True
    assert api()('POST', PATH, {'metadata': {'b': '2'}}).status_int == 409
    assert api(ADMIN)('POST', PATH, {'metadata': {'b': '2'}}
                      ).status_int == 200


def test_bad_metadata_is_400(api, world):
    assert api()('POST', PATH, {'metadata': {'b': 2}}).status_int == 400
    assert api()('POST', PATH, {'meta': {}}).status_int == 400


class TestUpdate:
    def test_rename_and_describe(self, api, world, at_version):
        resp = at_version(api(), '2.19')('PUT', '/servers/' + UUID, {
            'server': {'name': 'renamed', 'description': 'web'}})
        assert resp.status_int == 200
        assert resp.json['server']['name'] == 'renamed'
        assert resp.json['server']['description'] == 'web'
        assert world.saves[0][0] == {'display_name': 'renamed',
                                     'description': 'web'}
        assert world.actions == ['update']

    def test_description_before_2_19_is_400(self, api, world, at_version):
        resp = at_version(api(), '2.18')('PUT', '/servers/' + UUID, {
            'server': {'description': 'web'}})
        assert resp.status_int == 400
        assert '2.19' in resp.json['badRequest']['message']
        assert world.saves == []

    def test_bad_name_is_400(self, api, world):
        resp = api()('PUT', '/servers/' + UUID, {'server': {'name': ' x'}})
        assert resp.status_int == 400
        resp = api()('PUT', '/servers/' + UUID, {'server': {'flavor': 'x'}})
        assert resp.status_int == 400
        assert world.saves == []

    def test_locked_is_409(self, api, world):
        world.instance.locked = True
        resp = api()('PUT', '/servers/' + UUID, {'server': {'name': 'x'}})
        assert resp.status_int == 409

    def test_unknown_server_is_404(self, api, world):
        resp = api()('PUT', '/servers/9d7b7f3a-3b6c-4a44-9d1f-2b1c3d4e5f60',
                     {'server': {'name': 'x'}})
        assert resp.status_int == 404


def test_view_keeps_novas_2_1_keys(api, world):
    # Nova shows these only from 2.9, 2.19 and 2.73.
    world.instance.locked = True
    server = api()('GET', '/servers/' + UUID).json['server']
    assert not {'locked', 'locked_reason', 'description'} & set(server)


def test_description_shown_from_2_19(api, world, at_version):
    world.instance.description = 'web'
    old = at_version(api(), '2.18')('GET', '/servers/' + UUID).json
    assert 'description' not in old['server']
    new = at_version(api(), '2.19')('GET', '/servers/' + UUID).json
    assert new['server']['description'] == 'web'



@pytest.mark.parametrize('vm_state,task_state,status', [
    ('active', 'rebooting', 'REBOOT'),
    ('active', 'rebooting_hard', 'HARD_REBOOT'),
    # Nova's map has no reboot over SHUTOFF: a stopped server hard
    # rebooted shows SHUTOFF until it is ACTIVE.
    ('stopped', 'rebooting_hard', 'SHUTOFF'),
    ('paused', 'migrating', 'MIGRATING'),
    ('resized', 'resize_reverting', 'REVERT_RESIZE'),
    ('error', 'rebuilding', 'REBUILD'),
    ('active', 'powering-off', 'ACTIVE'),
    ('paused', None, 'PAUSED'), ('suspended', None, 'SUSPENDED'),
    ('stopped', None, 'SHUTOFF'), ('resized', None, 'VERIFY_RESIZE'),
    ('shelved_offloaded', None, 'SHELVED_OFFLOADED'),
    ('active', 'resize_migrating', 'RESIZE'),
    ('error', 'rebooting', 'ERROR')])
def test_status_follows_novas_map(vm_state, task_state, status):
    instance = fakes.instance(vm_state=vm_state, task_state=task_state)
    assert server_view.server_status(instance) == status


def test_create_checks_key_name(api, monkeypatch):
    def get_by_name(cls, context, user_id, name):
        raise exception.KeypairNotFound(user_id=user_id, name=name)
    monkeypatch.setattr(objects.KeyPair, 'get_by_name',
                        classmethod(get_by_name))
    resp = api()('POST', '/servers', {'server': {
        'name': 'vm', 'imageRef': 'x', 'flavorRef': '1', 'key_name': 'NOPE'}})
    assert resp.status_int == 400
    assert 'Keypair NOPE not found for user demo' in resp.json[
        'badRequest']['message']
