"""/os-quota-sets, /os-quota-class-sets and /limits over a fake store."""

import types

import pytest

from nova_lite.api.handlers import limits as limits_handler
from nova_lite.api.handlers import quota_sets as quota_handler
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import usages
from tests.unit.api import conftest

DEFAULTS = {'cores': 20, 'instances': 10, 'key_pairs': 100,
            'metadata_items': 128,
            'ram': 51200, 'server_group_members': 10, 'server_groups': 10}
# What Nova's 2.1 quota set shows beyond nova_lite's resources.
NOVA_ONLY = dict.fromkeys(quota_handler.UNENFORCED, -1)
SHOWN = dict(DEFAULTS, **NOVA_ONLY)
ADMIN = conftest.make_context('admin', 'adminproj')
MEMBER = conftest.make_context('demo', 'proj1')
READER = conftest.make_context('viewer', 'proj1', roles=['reader'])


@pytest.fixture
def store(monkeypatch):
    """Limits per (project, user) and per class; usage per (project,
    user); every Quotas save and destroy."""
    state = types.SimpleNamespace(
        project={'proj1': {'instances': 5}}, user={}, classes={},
        usage={}, saved=[], destroyed=[], refuse=None)

    def get_limits(context, project_id, user_id=None, quota_class=None):
        project = dict(DEFAULTS, **state.classes.get('default', {}))
        project.update(state.project.get(project_id, {}))
        user = dict(project, **state.user.get((project_id, user_id), {}))
        return project, user

    def summary(context, project_id, user_id=None):
        return state.usage.get((project_id, user_id), {})

    def save(self, force=False):
        if state.refuse and not force:
            raise state.refuse
        state.saved.append((self.project_id, self.user_id,
                            self.quota_class, dict(self.limits), force))
        if self.quota_class:
            state.classes.setdefault(self.quota_class, {}).update(
                self.limits)
        elif self.user_id:
            state.user.setdefault((self.project_id, self.user_id),
                                  {}).update(self.limits)
        else:
            state.project.setdefault(self.project_id, {}).update(
                self.limits)

    monkeypatch.setattr(quota_limits, 'get_limits', get_limits)
    monkeypatch.setattr(quota_limits, 'get_defaults',
                        lambda ctxt: get_limits(ctxt, None)[0])
    monkeypatch.setattr(quota_limits, 'get_class_limits',
                        lambda ctxt, name: dict(
                            DEFAULTS, **state.classes.get(name, {})))
    monkeypatch.setattr(quota_limits, 'has_user_limits',
                        lambda ctxt, p, u: (p, u) in state.user)
    monkeypatch.setattr(usages, 'get_summary', summary)
    monkeypatch.setattr(objects.Quotas, 'save', save)
    monkeypatch.setattr(objects.Quotas, 'destroy',
                        lambda self: state.destroyed.append(
                            (self.project_id, self.user_id)))
    return state


def test_show_is_the_project_s_limits_in_nova_s_shape(api, store):
    resp = api(MEMBER)('GET', '/os-quota-sets/proj1')
    assert resp.status_int == 200
    assert resp.json == {'quota_set': dict(SHOWN, id='proj1',
                                           instances=5)}


def test_show_for_a_user_gives_their_limits(api, store):
    store.user[('proj1', 'demo')] = {'cores': 4}
    body = api(MEMBER)('GET', '/os-quota-sets/proj1?user_id=demo').json
    assert body['quota_set']['cores'] == 4
    assert body['quota_set']['instances'] == 5


def test_readers_see_only_their_project(api, store):
    assert api(READER)('GET', '/os-quota-sets/proj1').status_int == 200
    assert api(READER)('GET', '/os-quota-sets/other').status_int == 403
    assert api(ADMIN)('GET', '/os-quota-sets/other').status_int == 200


def test_detail_shows_limit_in_use_and_reserved(api, store):
    store.usage[('proj1', None)] = {
        'instances': {'in_use': 3, 'reserved': 1},
        'cores': {'in_use': 6, 'reserved': 2}}
    body = api(MEMBER)('GET', '/os-quota-sets/proj1/detail').json
    quota_set = body['quota_set']
    assert quota_set['id'] == 'proj1'
    assert quota_set['instances'] == {'limit': 5, 'in_use': 3,
                                      'reserved': 1}
    assert quota_set['metadata_items'] == {'limit': 128, 'in_use': 0,
                                           'reserved': 0}


def test_defaults_are_open_to_everyone(api, store):
    store.classes['default'] = {'ram': 1024}
    body = api(READER)('GET', '/os-quota-sets/whatever/defaults').json
    assert body == {'quota_set': dict(SHOWN, id='whatever', ram=1024)}


def test_update_goes_through_the_object_and_answers_without_id(api,
                                                               store):
    resp = api(ADMIN)('PUT', '/os-quota-sets/proj1',
                      {'quota_set': {'instances': '20', 'cores': -1}})
    assert resp.status_int == 200, resp.body
    assert store.saved == [('proj1', None, None,
                            {'instances': 20, 'cores': -1}, False)]
    assert resp.json == {'quota_set': dict(SHOWN, instances=20,
                                           cores=-1)}


def test_update_for_a_user_with_force(api, store):
    resp = api(ADMIN)('PUT', '/os-quota-sets/proj1?user_id=bob',
                      {'quota_set': {'instances': 1, 'force': 'True'}})
    assert resp.status_int == 200
    assert store.saved == [('proj1', 'bob', None, {'instances': 1}, True)]
    assert resp.json['quota_set']['instances'] == 1


def test_update_below_usage_is_400(api, store):
    store.refuse = exception.QuotaLimitBelowUsage(
        resource='instances', limit=1, minimum=3)
    resp = api(ADMIN)('PUT', '/os-quota-sets/proj1',
                      {'quota_set': {'instances': 1}})
    assert resp.status_int == 400
    assert 'already used and reserved 3' in resp.json['badRequest'][
        'message']


@pytest.mark.parametrize('body', [
    {'quota_set': {'instances': -2}},
    {'quota_set': {'volumes': 10}},
    {'quota_set': {'instances': 'many'}},
    {'quota_set': {'instances': 2 ** 31}},
    {'quota_set': {'instances': None}},
    {'instances': 1},
])
def test_update_validates_the_body(api, store, body):
    resp = api(ADMIN)('PUT', '/os-quota-sets/proj1', body)
    assert resp.status_int == 400
    assert store.saved == []


def test_only_administrators_change_quotas(api, store):
    resp = api(MEMBER)('PUT', '/os-quota-sets/proj1',
                       {'quota_set': {'instances': 50}})
    assert resp.status_int == 403
    assert api(MEMBER)('DELETE', '/os-quota-sets/proj1').status_int == 403
    assert store.saved == [] and store.destroyed == []


def test_delete_reverts_to_defaults(api, store):
    resp = api(ADMIN)('DELETE', '/os-quota-sets/proj1?user_id=bob')
    assert resp.status_int == 202
    assert store.destroyed == [('proj1', 'bob')]


def test_quota_classes_show_and_update(api, store):
    resp = api(ADMIN)('PUT', '/os-quota-class-sets/default',
                      {'quota_class_set': {'cores': 64}})
    assert resp.status_int == 200
    assert resp.json == {'quota_class_set': dict(SHOWN, cores=64)}
    assert store.saved == [(None, None, 'default', {'cores': 64}, False)]
    body = api(ADMIN)('GET', '/os-quota-class-sets/default').json
    assert body == {'quota_class_set': dict(SHOWN, id='default',
                                            cores=64)}
    assert api(MEMBER)('GET',
                       '/os-quota-class-sets/default').status_int == 403


# -- /limits --------------------------------------------------------------

def test_limits_absolute_shows_project_limits_and_usage(api, store):
    store.usage[('proj1', None)] = {
        'instances': {'in_use': 2, 'reserved': 1},
        'cores': {'in_use': 4, 'reserved': 0},
        'ram': {'in_use': 1024, 'reserved': 0},
        'server_groups': {'in_use': 0, 'reserved': 0}}
    resp = api(MEMBER)('GET', '/limits')
    assert resp.status_int == 200
    absolute = resp.json['limits']['absolute']
    assert absolute == {
        'maxTotalInstances': 5, 'maxTotalCores': 20,
        'maxTotalRAMSize': 51200, 'maxServerMeta': 128,
        'maxImageMeta': 128, 'maxServerGroups': 10,
        'maxServerGroupMembers': 10, 'totalInstancesUsed': 2,
        'totalCoresUsed': 4, 'totalRAMUsed': 1024,
        'totalServerGroupsUsed': 0, 'maxPersonality': -1,
        'maxPersonalitySize': -1, 'maxSecurityGroupRules': -1,
        'maxSecurityGroups': -1, 'maxTotalFloatingIps': -1,
        'maxTotalKeypairs': -1, 'totalFloatingIpsUsed': 0,
        'totalSecurityGroupsUsed': 0}
    assert resp.json['limits']['rate'] == []
    with_reserved = api(MEMBER)('GET', '/limits?reserved=1').json
    assert with_reserved['limits']['absolute']['totalInstancesUsed'] == 3
    # python-novaclient and the openstack client send reserved=False.
    for value in ('False', 'false', '0', 'no'):
        resp = api(MEMBER)('GET', '/limits?reserved=' + value)
        assert resp.status_int == 200, resp.body
        assert resp.json['limits']['absolute']['totalInstancesUsed'] == 2
    assert api(MEMBER)('GET', '/limits?reserved=maybe').status_int == 400


def test_update_accepts_and_ignores_what_nova_lite_does_not_limit(api,
                                                                  store):
    resp = api(ADMIN)('PUT', '/os-quota-sets/proj1', {'quota_set': {
        'key_pairs': 5, 'floating_ips': 3, 'instances': 6}})
    assert resp.status_int == 200, resp.body
    assert store.saved == [('proj1', None, None, {'instances': 6}, False)]
    assert resp.json['quota_set']['key_pairs'] == -1


def test_limits_show_a_user_quota_where_it_binds(api, store):
    store.user[('proj1', 'demo')] = {'instances': 2}
    store.usage[('proj1', None)] = {'instances': {'in_use': 3,
                                                  'reserved': 0}}
    store.usage[('proj1', 'demo')] = {'instances': {'in_use': 1,
                                                    'reserved': 0}}
    absolute = api(MEMBER)('GET', '/limits').json['limits']['absolute']
    # Project: 2 left of 5. User: 1 left of 2 -> the user's binds.
    assert (absolute['maxTotalInstances'],
            absolute['totalInstancesUsed']) == (2, 1)


def test_limits_of_another_project_are_for_administrators(api, store):
    assert api(MEMBER)('GET', '/limits?tenant_id=other').status_int == 403
    body = api(ADMIN)('GET', '/limits?tenant_id=proj1').json
    assert body['limits']['absolute']['maxTotalInstances'] == 5


def test_rate_limits_are_grouped_by_uri():
    from nova_lite.api.middleware import ratelimit
    limiter = ratelimit.Limiter(ratelimit.Limiter.parse_limits(
        '(POST, *, .*, 10, MINUTE);(GET, *, .*, 120, MINUTE)'))
    # What the ratelimit middleware leaves in the request environment.
    view = limits_handler.rate_view(limiter.get_limits('alice'))
    assert [(g['uri'], g['regex']) for g in view] == [('*', '.*')]
    assert [(limit['verb'], limit['value'], limit['unit'])
            for limit in view[0]['limit']] == [('POST', 10, 'MINUTE'),
                                               ('GET', 120, 'MINUTE')]
    assert view[0]['limit'][0]['next-available'].endswith('Z')


_NETWORK = ('fixed_ips', 'floating_ips', 'security_group_rules',
            'security_groups')


@pytest.mark.parametrize('version, shown', [('2.35', True),
                                            ('2.36', False)])
def test_network_quotas_gone_from_2_36(api, at_version, store, version,
                                       shown):
    admin = at_version(api(conftest.make_context('admin', 'adminproj')),
                       version)
    for path in ('/os-quota-sets/proj1', '/os-quota-sets/proj1/defaults',
                 '/os-quota-sets/proj1/detail'):
        quota_set = admin('GET', path).json['quota_set']
        assert all((key in quota_set) is shown for key in _NETWORK), path
        assert 'key_pairs' in quota_set
    resp = admin('PUT', '/os-quota-sets/proj1',
                 {'quota_set': {'instances': 7, 'floating_ips': 3}})
    assert resp.status_int == (200 if shown else 400), resp.text
    # The class sets keep them until 2.50.
    assert 'floating_ips' in admin(
        'GET', '/os-quota-class-sets/default').json['quota_class_set']


@pytest.mark.parametrize('version, shown', [('2.35', True),
                                            ('2.36', False)])
def test_network_limits_gone_from_2_36(api, at_version, store, version,
                                       shown):
    absolute = at_version(api(), version)('GET', '/limits').json[
        'limits']['absolute']
    for key in ('maxSecurityGroupRules', 'maxSecurityGroups',
                'maxTotalFloatingIps', 'totalFloatingIpsUsed',
                'totalSecurityGroupsUsed'):
        assert (key in absolute) is shown
    assert 'maxTotalInstances' in absolute


@pytest.mark.parametrize('version, shown', [('2.38', True),
                                            ('2.39', False)])
def test_max_image_meta_gone_from_2_39(api, at_version, store, version,
                                       shown):
    absolute = at_version(api(), version)('GET', '/limits').json[
        'limits']['absolute']
    assert ('maxImageMeta' in absolute) is shown
    assert 'maxServerMeta' in absolute


@pytest.mark.parametrize('version, shown', [('2.49', True),
                                            ('2.50', False)])
def test_network_quotas_gone_from_class_sets_at_2_50(api, at_version, store,
                                                     version, shown):
    admin = at_version(api(conftest.make_context('admin', 'adminproj')),
                       version)
    class_set = admin('GET', '/os-quota-class-sets/default').json[
        'quota_class_set']
    assert all((key in class_set) is shown for key in _NETWORK)
    assert 'server_groups' in class_set
    assert 'server_group_members' in class_set
    assert 'injected_files' in class_set
    resp = admin('PUT', '/os-quota-class-sets/default',
                 {'quota_class_set': {'cores': 40, 'security_groups': 3}})
    assert resp.status_int == (200 if shown else 400), resp.text
    resp = admin('PUT', '/os-quota-class-sets/default',
                 {'quota_class_set': {'server_groups': 4}})
    assert resp.status_int == 200, resp.text
    assert all((key in resp.json['quota_class_set']) is shown
               for key in _NETWORK)


_INJECTED = ('injected_files', 'injected_file_content_bytes',
             'injected_file_path_bytes')


@pytest.mark.parametrize('version, shown', [('2.56', True),
                                            ('2.57', False)])
def test_injected_file_quotas_gone_from_2_57(api, at_version, store,
                                             version, shown):
    admin = at_version(api(conftest.make_context('admin', 'adminproj')),
                       version)
    for path in ('/os-quota-sets/proj1', '/os-quota-sets/proj1/defaults',
                 '/os-quota-sets/proj1/detail',
                 '/os-quota-class-sets/default'):
        shown_set = admin('GET', path).json
        quota_set = shown_set.get('quota_set') or shown_set[
            'quota_class_set']
        assert all((key in quota_set) is shown for key in _INJECTED), path
        assert 'instances' in quota_set
    for path, key in (('/os-quota-sets/proj1', 'quota_set'),
                      ('/os-quota-class-sets/default', 'quota_class_set')):
        resp = admin('PUT', path, {key: {'injected_files': 3}})
        assert resp.status_int == (200 if shown else 400), resp.text
    absolute = admin('GET', '/limits').json['limits']['absolute']
    for key in ('maxPersonality', 'maxPersonalitySize'):
        assert (key in absolute) is shown
