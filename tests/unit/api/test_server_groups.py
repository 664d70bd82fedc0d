"""/os-server-groups handlers over an in-memory group store."""

import pytest

from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest

ADMIN = conftest.make_context('admin', 'ops')
OTHER = conftest.make_context('eve', 'proj2')
READER = conftest.make_context('ron', 'proj1', roles=['reader'])


@pytest.fixture
def groups(monkeypatch):
    store = {}

    def create(group):
        group.uuid = '00000000-0000-4000-8000-%012d' % (len(store) + 1)
        group.members = []
        store[group.uuid] = group

    def get_by_uuid(cls, context, uuid):
        if uuid not in store:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        return store[uuid]

    def by_project(cls, context, project_id):
        return objects.InstanceGroupList(objects=[
            g for g in store.values() if g.project_id == project_id])

    def get_all(cls, context):
        return objects.InstanceGroupList(objects=list(store.values()))

    def destroy(group):
        del store[group.uuid]

    monkeypatch.setattr(objects.InstanceGroup, 'create', create)
    monkeypatch.setattr(objects.InstanceGroup, 'destroy', destroy)
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_uuid',
                        classmethod(get_by_uuid))
    monkeypatch.setattr(objects.InstanceGroupList, 'get_by_project_id',
                        classmethod(by_project))
    monkeypatch.setattr(objects.InstanceGroupList, 'get_all',
                        classmethod(get_all))
    return store


def _create(api, name='web', policy='anti-affinity'):
    return api('POST', '/os-server-groups',
               {'server_group': {'name': name, 'policies': [policy]}})


def test_create_show_list_delete(api, groups):
    member = api()
    resp = _create(member)
    assert resp.status_int == 200
    group = resp.json['server_group']
    assert group == {'id': group['id'], 'name': 'web',
                     'policies': ['anti-affinity'], 'members': [],
                     'metadata': {}}
    stored = groups[group['id']]
    assert (stored.project_id, stored.user_id) == ('proj1', 'demo')
    assert member('GET', '/os-server-groups/%s' % group['id']).json[
        'server_group']['name'] == 'web'
    assert [g['id'] for g in member('GET', '/os-server-groups').json[
        'server_groups']] == [group['id']]
    assert member('DELETE', '/os-server-groups/%s'
                  % group['id']).status_int == 204
    assert member('GET', '/os-server-groups/%s'
                  % group['id']).status_int == 404


@pytest.mark.parametrize('policy', ['affinity', 'soft-affinity',
                                    'soft-anti-affinity'])
def test_every_policy_is_accepted(api, groups, policy, at_version):
    assert _create(at_version(api(), '2.15'), policy=policy).json[
        'server_group']['policies'] == [policy]


@pytest.mark.parametrize('policy', ['soft-affinity', 'soft-anti-affinity'])
def test_soft_policies_need_2_15(api, groups, policy, at_version):
    resp = _create(at_version(api(), '2.14'), policy=policy)
    assert resp.status_int == 400
    assert '2.15' in resp.json['badRequest']['message']
    assert groups == {}


def test_project_and_user_shown_from_2_13(api, groups, at_version):
    old = _create(at_version(api(), '2.12')).json['server_group']
    assert 'project_id' not in old and 'user_id' not in old
    new = at_version(api(), '2.13')(
        'GET', '/os-server-groups/' + old['id']).json['server_group']
    assert (new['project_id'], new['user_id']) == ('proj1', 'demo')


@pytest.mark.parametrize('body', [
    {'server_group': {'name': 'x', 'policies': ['sometimes']}},
    {'server_group': {'name': 'x', 'policies': []}},
    {'server_group': {'name': 'x',
                      'policies': ['affinity', 'anti-affinity']}},
    {'server_group': {'name': 'x'}},
    {'server_group': {'name': 'x', 'policies': ['affinity'],
                      'rules': {'max_server_per_host': 2}}},
    {'server_group': {'name': 'x', 'policies': ['anti-affinity'],
                      'rules': {'max_server_per_host': 0}}},
    {'server_group': {'name': 'x', 'policies': ['anti-affinity'],
                      'rules': {'other': 1}}},
])
def test_bad_bodies(api, groups, body):
    assert api()('POST', '/os-server-groups', body).status_int == 400


def test_rules_need_2_64(api, groups, at_version):
    """Nova takes rules from microversion 2.64 (nova_lite took them at
    every version until it spoke 2.64)."""
    resp = at_version(api(), '2.63')('POST', '/os-server-groups', {
        'server_group': {'name': 'spread', 'policies': ['anti-affinity'],
                         'rules': {'max_server_per_host': '2'}}})
    assert resp.status_int == 400
    assert 'rules' in resp.text
    assert groups == {}


def test_policy_and_rules_from_2_64(api, groups, at_version):
    create = at_version(api(), '2.64')
    resp = create('POST', '/os-server-groups', {'server_group': {
        'name': 'spread', 'policy': 'anti-affinity',
        'rules': {'max_server_per_host': '2'}}})
    assert resp.status_int == 200, resp.text
    group = resp.json['server_group']
    assert (group['policy'], group['rules']) == (
        'anti-affinity', {'max_server_per_host': 2})
    assert 'policies' not in group and 'metadata' not in group
    assert groups[group['id']].rules == {'max_server_per_host': 2}
    shown = create('GET', '/os-server-groups/' + group['id']).json[
        'server_group']
    assert shown == group
    old = at_version(api(), '2.63')(
        'GET', '/os-server-groups/' + group['id']).json['server_group']
    assert (old['policies'], old['metadata']) == (['anti-affinity'], {})
    assert 'rules' not in old and 'policy' not in old
    resp = create('POST', '/os-server-groups', {'server_group': {
        'name': 'together', 'policy': 'affinity'}})
    assert resp.json['server_group']['rules'] == {}


@pytest.mark.parametrize('body', [
    {'server_group': {'name': 'x', 'policies': ['affinity']}},
    {'server_group': {'name': 'x'}},
    {'server_group': {'name': 'x', 'policy': 'sometimes'}},
    {'server_group': {'name': 'x', 'policy': ['affinity']}},
    {'server_group': {'name': 'x', 'policy': 'affinity',
                      'rules': {'max_server_per_host': 2}}},
    {'server_group': {'name': 'x', 'policy': 'anti-affinity',
                      'rules': {'max_server_per_host': 0}}},
    {'server_group': {'name': 'x', 'policy': 'anti-affinity',
                      'rules': {'other': 1}}},
])
def test_bad_bodies_at_2_64(api, groups, at_version, body):
    resp = at_version(api(), '2.64')('POST', '/os-server-groups', body)
    assert resp.status_int == 400, resp.text
    assert groups == {}


def test_other_projects_do_not_see_it(api, groups):
    group_id = _create(api()).json['server_group']['id']
    other = api(OTHER)
    assert other('GET', '/os-server-groups/%s' % group_id).status_int == 404
    assert other('DELETE', '/os-server-groups/%s'
                 % group_id).status_int == 404
    assert other('GET', '/os-server-groups').json['server_groups'] == []
    # all_projects is for administrators; others get their own list.
    assert other('GET', '/os-server-groups?all_projects=true').json[
        'server_groups'] == []
    admin = api(ADMIN)
    assert admin('GET', '/os-server-groups/%s' % group_id).status_int == 200
    assert len(admin('GET', '/os-server-groups?all_projects=1').json[
        'server_groups']) == 1
    assert admin('GET', '/os-server-groups').json['server_groups'] == []


def test_readers_look_but_do_not_create(api, groups):
    assert _create(api(READER)).status_int == 403
    _create(api())
    assert len(api(READER)('GET', '/os-server-groups').json[
        'server_groups']) == 1


def test_paging(api, groups):
    for index in range(5):
        _create(api(), name='g%d' % index)
    page = api()('GET', '/os-server-groups?limit=2&offset=1').json[
        'server_groups']
    assert [g['name'] for g in page] == ['g1', 'g2']
