"""/flavors handlers over a fake FlavorList and Flavor."""

import jsonschema
import pytest

from nova_lite.api import api_version
from nova_lite.api import openapi
from nova_lite.api import router
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import flavor as flavor_obj
from tests.unit.api import conftest
from tests.unit.api import fakes


@pytest.fixture
def store(monkeypatch):
    """Flavors by flavorid; records get_all calls, creates and deletes."""
    state = {
        'flavors': {
            '1': fakes.flavor('1', 'm1.tiny'),
            '2': fakes.flavor('2', 'm1.small', memory_mb=2048, swap=512,
                              ephemeral_gb=5, rxtx_factor=2.0),
            '3': fakes.flavor('3', 'private', is_public=False),
            '4': fakes.flavor('4', 'old', disabled=True),
            '5': fakes.flavor('5', 'numa',
                              extra_specs={'hw:numa_nodes': '2'}),
        },
        'calls': [], 'created': [], 'destroyed': [], 'described': [],
        # flavorid -> projects given access (os-flavor-access).
        'access': {'3': ['friends']},
    }

    def get_all(cls, context, filters=None, sort_key='flavorid',
                sort_dir='asc', limit=None, marker=None):
        state['calls'].append(dict(filters=filters, sort_key=sort_key,
                                   sort_dir=sort_dir, limit=limit,
                                   marker=marker))
        if marker is not None and marker not in state['flavors']:
            raise exception.FlavorNotFound(flavor_id=marker)
        project = filters.get('project_id')
        found = [f for f in state['flavors'].values()
                 if filters.get('is_public') is None
                 or f.is_public == filters['is_public']
                 or (filters['is_public'] and
                     project in state['access'].get(f.flavorid, ()))]
        return objects.FlavorList(objects=found[:limit])

    def get_by_flavor_id(cls, context, flavorid):
        if flavorid not in state['flavors']:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return state['flavors'][flavorid]

    def create(self):
        if any(f.name == self.name for f in state['flavors'].values()):
            raise exception.FlavorExists(field='name', value=self.name)
        state['created'].append(self)

    def destroy(self):
        state['destroyed'].append(self.flavorid)

    def get_access_projects(context, flavorid):
        if flavorid not in state['flavors']:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return sorted(state['access'].get(flavorid, ()))

    def update_description(context, flavorid, description):
        get_by_flavor_id(None, context, flavorid).description = description
        state['described'].append((flavorid, description))

    monkeypatch.setattr(flavor_obj, 'update_description',
                        update_description)
    monkeypatch.setattr(objects.FlavorList, 'get_all',
                        classmethod(get_all))
    monkeypatch.setattr(flavor_obj, 'get_access_projects',
                        get_access_projects)
    monkeypatch.setattr(objects.Flavor, 'get_by_flavor_id',
                        classmethod(get_by_flavor_id))
    monkeypatch.setattr(objects.Flavor, 'create', create)
    monkeypatch.setattr(objects.Flavor, 'destroy', destroy)
    return state


ADMIN = conftest.make_context('admin', 'ops')


def test_index_for_users_hides_disabled_and_private(api, store):
    resp = api()('GET', '/flavors')
    assert resp.status_int == 200
    assert [f['id'] for f in resp.json['flavors']] == ['1', '2', '5']
    assert set(resp.json['flavors'][0]) == {'id', 'name', 'links'}
    assert store['calls'][0]['filters']['is_public'] is True


def test_detail_fields(api, store):
    resp = api()('GET', '/flavors/detail')
    small = resp.json['flavors'][1]
    assert small == {
        'id': '2', 'name': 'm1.small', 'ram': 2048, 'disk': 1, 'vcpus': 1,
        'swap': 512, 'rxtx_factor': 2.0,
        'OS-FLV-EXT-DATA:ephemeral': 5, 'OS-FLV-DISABLED:disabled': False,
        'os-flavor-access:is_public': True,
        'links': small['links']}
    assert resp.json['flavors'][0]['swap'] == ''
    assert [link['rel'] for link in small['links']] == ['self', 'bookmark']


def test_admin_is_public_filter(api, store):
    resp = api(ADMIN)('GET', '/flavors?is_public=none')
    assert [f['id'] for f in resp.json['flavors']] == ['1', '2', '3', '4',
                                                        '5']
    resp = api(ADMIN)('GET', '/flavors?is_public=false')
    assert [f['id'] for f in resp.json['flavors']] == ['3']
    assert api(ADMIN)('GET', '/flavors?is_public=perhaps').status_int == 400


def test_query_parameters(api, store):
    api()('GET', '/flavors?minRam=512&minDisk=1&sort_key=name'
                 '&sort_dir=desc&limit=2&marker=1')
    call = store['calls'][0]
    assert call['filters'] == {'is_public': True, 'min_memory_mb': 512,
                               'min_root_gb': 1, 'project_id': 'proj1'}
    assert (call['sort_key'], call['sort_dir']) == ('name', 'desc')
    assert (call['limit'], call['marker']) == (2, '1')


def test_unknown_marker_is_400(api, store):
    assert api()('GET', '/flavors?marker=99').status_int == 400


def test_full_page_has_next_link(api, store):
    resp = api()('GET', '/proj1/flavors?limit=2')
    [link] = resp.json['flavors_links']
    assert link['href'].endswith('/v2.1/proj1/flavors?limit=2&marker=2')


def test_show(api, store):
    resp = api()('GET', '/flavors/2')
    assert resp.json['flavor']['ram'] == 2048
    assert api()('GET', '/flavors/99').status_int == 404
    assert api()('GET', '/flavors/3').status_int == 404
    assert api(ADMIN)('GET', '/flavors/3').status_int == 200


def test_private_flavors_for_projects_with_access(api, store):
    friend = api(conftest.make_context('pal', 'friends'))
    assert friend('GET', '/flavors/3').status_int == 200
    listed = [f['id'] for f in friend('GET', '/flavors').json['flavors']]
    assert '3' in listed
    assert '3' not in [f['id'] for f in api()('GET', '/flavors').json[
        'flavors']]


def test_create_is_200_for_admin(api, store):
    resp = api(ADMIN)('POST', '/flavors', {'flavor': {
        'name': 'm1.big', 'ram': '4096', 'vcpus': 4, 'disk': 40,
        'id': 'big', 'swap': 1024, 'os-flavor-access:is_public': 'false'}})
    assert resp.status_int == 200
    flavor = resp.json['flavor']
    assert (flavor['id'], flavor['ram'], flavor['swap']) == ('big', 4096,
                                                              1024)
    assert flavor['os-flavor-access:is_public'] is False
    [created] = store['created']
    assert created.memory_mb == 4096


def test_create_generates_an_id(api, store):
    resp = api(ADMIN)('POST', '/flavors', {'flavor': {
        'name': 'auto', 'ram': 1, 'vcpus': 1, 'disk': 0, 'id': None}})
    assert len(resp.json['flavor']['id']) == 36


def test_create_conflict_and_policy(api, store):
    body = {'flavor': {'name': 'm1.tiny', 'ram': 1, 'vcpus': 1, 'disk': 0}}
    assert api(ADMIN)('POST', '/flavors', body).status_int == 409
    body['flavor']['name'] = 'fresh'
    assert api()('POST', '/flavors', body).status_int == 403
    assert store['created'] == []


def test_delete(api, store):
    assert api()('DELETE', '/flavors/1').status_int == 403
    resp = api(ADMIN)('DELETE', '/flavors/1')
    assert resp.status_int == 202
    assert store['destroyed'] == ['1']
    assert api(ADMIN)('DELETE', '/flavors/99').status_int == 404


def test_extra_specs(api, store):
    resp = api()('GET', '/flavors/5/os-extra_specs')
    assert resp.json == {'extra_specs': {'hw:numa_nodes': '2'}}
    resp = api()('GET', '/proj1/flavors/5/os-extra_specs/hw:numa_nodes')
    assert resp.json == {'hw:numa_nodes': '2'}
    assert api()('GET', '/flavors/5/os-extra_specs/nope').status_int == 404
    assert api()('GET', '/flavors/3/os-extra_specs').status_int == 404


# -- 2.55: descriptions ----------------------------------------------------

@pytest.mark.parametrize('path', ['/flavors', '/flavors/detail',
                                  '/flavors/2'])
def test_description_shown_from_2_55(api, at_version, store, path):
    store['flavors']['2'].description = 'small one'
    old = at_version(api(), '2.54')('GET', path).json
    new = at_version(api(), '2.55')('GET', path).json
    if 'flavor' in old:
        assert 'description' not in old['flavor']
        assert new['flavor']['description'] == 'small one'
        return
    assert not [f for f in old['flavors'] if 'description' in f]
    assert {f['id']: f['description'] for f in new['flavors']}['2'] == \
        'small one'


def test_create_with_description_from_2_55(api, at_version, store):
    body = {'flavor': {'name': 'd', 'ram': 1, 'vcpus': 1, 'disk': 0,
                       'description': 'for tests'}}
    resp = at_version(api(ADMIN), '2.54')('POST', '/flavors', body)
    assert resp.status_int == 400
    assert 'description' in resp.text
    resp = at_version(api(ADMIN), '2.55')('POST', '/flavors', body)
    assert resp.status_int == 200
    assert resp.json['flavor']['description'] == 'for tests'
    [created] = store['created']
    assert created.description == 'for tests'


@pytest.mark.parametrize('description', ['x' * 65536, 'bad\nline'])
def test_create_bad_description(api, at_version, store, description):
    body = {'flavor': {'name': 'd', 'ram': 1, 'vcpus': 1, 'disk': 0,
                       'description': description}}
    assert at_version(api(ADMIN), '2.55')(
        'POST', '/flavors', body).status_int == 400
    assert store['created'] == []


def test_update_description(api, at_version, store):
    put = at_version(api(ADMIN), '2.55')
    resp = put('PUT', '/flavors/2', {'flavor': {'description': 'new'}})
    assert resp.status_int == 200
    assert resp.json['flavor']['description'] == 'new'
    assert resp.json['flavor']['ram'] == 2048
    resp = put('PUT', '/flavors/2', {'flavor': {'description': None}})
    assert resp.json['flavor']['description'] is None
    assert store['described'] == [('2', 'new'), ('2', None)]


@pytest.mark.parametrize('version, path, body, status', [
    ('2.54', '/flavors/2', {'flavor': {'description': 'x'}}, 404),
    ('2.55', '/flavors/99', {'flavor': {'description': 'x'}}, 404),
    ('2.55', '/flavors/2', {'flavor': {}}, 400),
    ('2.55', '/flavors/2', {'flavor': {'description': 'x', 'ram': 1}}, 400),
    ('2.55', '/flavors/2', {'description': 'x'}, 400),
])
def test_update_errors(api, at_version, store, version, path, body,
                       status):
    assert at_version(api(ADMIN), version)(
        'PUT', path, body).status_int == status
    assert store['described'] == []


def test_update_needs_admin(api, at_version, store):
    assert at_version(api(), '2.55')(
        'PUT', '/flavors/2',
        {'flavor': {'description': 'x'}}).status_int == 403


# -- 2.61: extra specs in the detailed views ---------------------------------

@pytest.mark.parametrize('path', ['/flavors/detail', '/flavors/5'])
def test_extra_specs_shown_from_2_61(api, at_version, store, path):
    def specs(version, context=None):
        body = at_version(api(context), version)('GET', path).json
        flavors = body.get('flavors') or [body['flavor']]
        return {f['id']: f.get('extra_specs') for f in flavors}
    assert list(specs('2.60').values()) == [None] * len(specs('2.60'))
    shown = specs('2.61')
    assert shown['5'] == {'hw:numa_nodes': '2'}
    assert None not in shown.values()
    assert specs('2.61', ADMIN)['5'] == {'hw:numa_nodes': '2'}


def test_extra_specs_only_to_callers_allowed_to_list_them(
        api, at_version, store):
    from oslo_policy import policy as oslo_policy

    from nova_lite import policy
    policy.init().set_rules(oslo_policy.Rules.from_dict({
        'os_compute_api:os-flavor-extra-specs:index': '!'}),
        overwrite=False, use_conf=False)
    shown = at_version(api(), '2.61')('GET', '/flavors/5').json['flavor']
    assert 'extra_specs' not in shown


def test_extra_specs_not_in_the_plain_list(api, at_version, store):
    listed = at_version(api(), '2.61')('GET', '/flavors').json['flavors']
    assert not [f for f in listed if 'extra_specs' in f]


def test_created_and_updated_answer_extra_specs_at_2_61(api, at_version,
                                                         store):
    admin = at_version(api(ADMIN), '2.61')
    resp = admin('POST', '/flavors', {'flavor': {
        'name': 'x', 'ram': 1, 'vcpus': 1, 'disk': 0}})
    assert resp.json['flavor']['extra_specs'] == {}
    resp = admin('PUT', '/flavors/5', {'flavor': {'description': 'n'}})
    assert resp.json['flavor']['extra_specs'] == {'hw:numa_nodes': '2'}


@pytest.mark.parametrize('version', ['2.1', '2.55', '2.61', '2.75', '2.100'])
def test_answers_match_the_documented_schemas(api, at_version, store,
                                              version):
    """The bodies the OpenAPI document of the version declares
    (schemas/flavors.py) are those the views answer."""
    document = openapi.build(router.ROUTES, 'http://localhost/v2.1',
                             api_version.APIVersionRequest(version))
    admin = at_version(api(ADMIN), version)
    body = {'flavor': {'name': 'new', 'ram': 1, 'vcpus': 1, 'disk': 0}}
    calls = [('GET', '/flavors', '/flavors', None),
             ('GET', '/flavors/detail?limit=2', '/flavors/detail', None),
             ('GET', '/flavors/5', '/flavors/{flavor_id}', None),
             ('POST', '/flavors', '/flavors', body)]
    if version != '2.1':
        calls.append(('PUT', '/flavors/5', '/flavors/{flavor_id}',
                      {'flavor': {'description': 'd'}}))
    for method, path, route, request_body in calls:
        resp = admin(method, path, request_body)
        assert resp.status_int == 200, resp.text
        declared = document['paths'][route][method.lower()]['responses'][
            '200']['content']['application/json']['schema']
        assert declared != {'type': 'object'}
        jsonschema.Draft202012Validator(declared).validate(resp.json)
