"""/servers/{id}/tags (2.26), tags in server views and the tag filters."""

import pytest

from nova_lite.api.handlers import server_tags
from nova_lite.api.handlers import servers
from tests.unit.api import conftest
from tests.unit.api import fakes

UUID = fakes.instance().uuid
TAGS = '/servers/%s/tags' % UUID


@pytest.fixture
def compute(monkeypatch):
    fake = fakes.FakeComputeAPI([fakes.instance(vm_state='active',
                                                task_state=None)])
    monkeypatch.setattr(server_tags, 'compute', fake)
    monkeypatch.setattr(servers, 'compute', fake)
    fake.update = lambda context, instance, values: setattr(
        instance, 'display_name', values['name'])
    return fake


@pytest.fixture
def member(api, at_version):
    return at_version(api(), '2.26')


def test_not_below_2_26(api, at_version, compute):
    old = at_version(api(), '2.25')
    assert old('GET', TAGS).status_int == 404
    # The version is checked before the body.
    assert old('PUT', TAGS, {'bad': 1}).status_int == 404
    assert old('PUT', TAGS + '/web').status_int == 404


def test_add_check_list_delete(member, compute, tag_store):
    assert member('GET', TAGS).json == {'tags': []}
    resp = member('PUT', TAGS + '/web')
    assert resp.status_int == 201
    assert resp.headers['Location'].endswith('/servers/%s/tags/web' % UUID)
    assert member('PUT', TAGS + '/web').status_int == 204
    assert member('GET', TAGS + '/web').status_int == 204
    missing = member('GET', TAGS + '/db')
    assert missing.status_int == 404
    assert "has no tag 'db'" in missing.text
    assert member('DELETE', TAGS + '/web').status_int == 204
    assert member('DELETE', TAGS + '/web').status_int == 404
    assert tag_store[UUID] == set()


def test_replace_and_delete_all(member, compute, tag_store):
    resp = member('PUT', TAGS, {'tags': ['b', 'a', 'b']})
    assert resp.status_int == 200
    assert resp.json == {'tags': ['a', 'b']}
    assert member('GET', TAGS).json == {'tags': ['a', 'b']}
    assert member('DELETE', TAGS).status_int == 204
    assert member('GET', TAGS).json == {'tags': []}


@pytest.mark.parametrize('body', [
    {'tags': ['a,b']}, {'tags': ['']}, {'tags': ['x' * 61]},
    {'tags': ['t%d' % n for n in range(51)]}, {'tags': 'a'}, {},
    {'tags': [], 'extra': 1}])
def test_replace_refuses_bad_tags(member, compute, tag_store, body):
    assert member('PUT', TAGS, body).status_int == 400
    assert UUID not in tag_store


@pytest.mark.parametrize('tag', ['a,b', 'x' * 61])
def test_add_refuses_bad_tag(member, compute, tag_store, tag):
    resp = member('PUT', TAGS + '/' + tag)
    assert resp.status_int == 400
    assert "is invalid" in resp.text
    assert not tag_store.get(UUID)


def test_fifty_tags_at_most(member, compute, tag_store):
    tags = ['t%d' % n for n in range(50)]
    assert member('PUT', TAGS, {'tags': tags}).status_int == 200
    assert member('PUT', TAGS + '/t0').status_int == 204
    resp = member('PUT', TAGS + '/one-more')
    assert resp.status_int == 400
    assert 'per-server limit 50' in resp.text
    assert len(tag_store[UUID]) == 50


@pytest.mark.parametrize('call', [
    ('PUT', TAGS, {'tags': ['a']}), ('DELETE', TAGS, None),
    ('PUT', TAGS + '/a', None), ('DELETE', TAGS + '/a', None)])
def test_changes_need_a_settled_server(member, compute, tag_store, call):
    compute.instances[UUID].vm_state = 'building'
    resp = member(*call)
    assert resp.status_int == 409
    assert 'Cannot' in resp.text
    # Reading still answers.
    assert member('GET', TAGS).status_int == 200


def test_a_lock_does_not_protect_tags(member, compute, tag_store):
    compute.instances[UUID].locked = True
    assert member('PUT', TAGS + '/web').status_int == 201


def test_unknown_and_others_servers_are_404(api, at_version, compute):
    eve = at_version(api(conftest.make_context('eve', 'proj2')), '2.26')
    assert eve('GET', TAGS).status_int == 404
    assert eve('PUT', TAGS + '/web').status_int == 404
    member = at_version(api(), '2.26')
    assert member('GET', '/servers/%s/tags' % ('0' * 32)).status_int == 404


@pytest.mark.parametrize('version, shown', [('2.25', False),
                                            ('2.26', True)])
def test_tags_in_server_views(api, at_version, compute, tag_store,
                              version, shown):
    tag_store[UUID] = {'web', 'db'}
    caller = at_version(api(), version)
    show = caller('GET', '/servers/' + UUID).json['server']
    detail = caller('GET', '/servers/detail').json['servers'][0]
    update = caller('PUT', '/servers/' + UUID,
                    {'server': {'name': 'n'}}).json['server']
    for view in (show, detail, update):
        assert ('tags' in view) is shown
        if shown:
            assert view['tags'] == ['db', 'web']


@pytest.mark.parametrize('version, expected', [
    ('2.25', {}),
    ('2.26', {'tags': ['a', 'b'], 'tags-any': ['c'],
              'not-tags': ['d'], 'not-tags-any': ['e', 'f']})])
def test_list_tag_filters(api, at_version, compute, version, expected):
    caller = at_version(api(), version)
    query = ('tags=x&tags=a,b&tags-any=c&not-tags=d'
             '&not-tags-any=e,,f')
    for path in ('/servers', '/servers/detail'):
        assert caller('GET', path + '?' + query).status_int == 200
        filters = compute.get_all_calls[-1]['filters']
        assert {k: v for k, v in filters.items()
                if 'tags' in k} == expected


def test_a_new_tag_outside_latin_1_has_a_quoted_location(member, compute,
                                                         tag_store):
    # Found by the fuzzer at 2.100: a tag of characters beyond Latin-1
    # was put in the Location header as it was, which the WSGI server
    # cannot encode (headers are Latin-1), so the client got a 500.
    resp = member('PUT', TAGS + '/%F0%9F%90%8D%C3%A9%1Cx')
    assert resp.status_int == 201
    location = resp.headers['Location']
    assert location.endswith('/servers/%s/tags/%%F0%%9F%%90%%8D%%C3%%A9'
                             '%%1Cx' % UUID)
    location.encode('latin-1')
    assert tag_store[UUID] == {'\U0001f40d\xe9\x1cx'}
