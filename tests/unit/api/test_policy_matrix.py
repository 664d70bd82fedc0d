"""Who may call what: every route of the API against the four personas.

The table below names, for each route and method of ``router.ROUTES``
(and, for the action routes, each action), the policy rule that decides
it and the personas it lets through, as Nova's secure-RBAC defaults do:

- ``admin``: role admin (with member and reader), in another project;
- ``member``: roles member and reader in ``proj1``, which owns the targets;
- ``reader``: role reader only, in ``proj1``;
- ``other``: roles member and reader in ``proj2``.

A request goes through the real router, validation and enforcer. Once the
row's rule lets the caller through, the test stops the handler there
(nothing here has a database), so "allowed" means "the decisive check
passed"; "denied" means the caller got the row's refusal: 403 from
policy, or 404 where Nova hides another project's resource. A server or
server group is looked up through the real isolation code with only the
objects' database reads replaced.

A route missing from the table fails ``test_every_route_is_in_the_matrix``:
add its row (and its rule to nova_lite/policies/) when you add a route.
"""

import pytest

from nova_lite.api import api_version
from nova_lite.api import router
from nova_lite import exception
from nova_lite import objects
from nova_lite import policy
from tests.unit.api import conftest
from tests.unit.api import fakes

SERVER = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
GROUP = '5b1e1c4f-3a7d-4d7e-8d0f-2f0a4c6b9e11'
IMAGE = '70a599e0-31e7-49b7-b260-868f441e862b'
SERVICE_UUID = '0c9c1d6e-0000-4000-8000-000000000002'

PERSONAS = {
    'admin': conftest.make_context('admin', 'ops',
                                   ['admin', 'member', 'reader']),
    'member': conftest.make_context('demo', 'proj1', ['member', 'reader']),
    'reader': conftest.make_context('viewer', 'proj1', ['reader']),
    'other': conftest.make_context('eve', 'proj2', ['member', 'reader']),
}

ALL = frozenset(PERSONAS)
ADMIN = frozenset({'admin'})
# proj1's readers and members, and administrators.
OWNER_READERS = frozenset({'admin', 'member', 'reader'})
OWNER_MEMBERS = frozenset({'admin', 'member'})
# Acting in one's own project: readers may not.
MEMBERS = frozenset({'admin', 'member', 'other'})

# Values for the path parameters: all name things proj1 owns.
PARAMS = {
    'server_id': SERVER, 'group_id': GROUP, 'image_id': IMAGE,
    'flavor_id': '1', 'key': 'hw:cpu_policy', 'aggregate_id': '1',
    'hypervisor_id': '1', 'hypervisor_hostname_pattern': 'node',
    'tenant_id': 'proj1', 'class_name': 'default', 'host_name': 'host1',
    'service_id': '2', 'request_id': 'req-1', 'keypair_name': 'k1',
    'migration_id': '1', 'tag': 'web', 'share_id': IMAGE,
}

_SERVER_BODY = {'server': {'name': 'vm', 'imageRef': IMAGE,
                           'flavorRef': '1'}}
_FLAVOR_BODY = {'flavor': {'name': 'f', 'ram': 64, 'vcpus': 1, 'disk': 1}}
_SERVICE_BODY = {'host': 'host1', 'binary': 'nova-compute'}
_ADD_TENANT = {'addTenantAccess': {'tenant': 'proj2'}}
_REMOVE_TENANT = {'removeTenantAccess': {'tenant': 'proj2'}}


def _row(method, path, rule, allowed, body=None, query='', hidden=False,
         version=None, route=None):
    """One case. ``hidden``: other projects get 404 (the resource is not
    theirs to know about), not 403. ``version``: the microversion to ask
    (the API's maximum raised to it if need be). ``route``: the route of
    a ``path`` that names one of its values (default: ``path``)."""
    return dict(method=method, path=path, rule=rule, allowed=allowed,
                body=body, query=query, hidden=hidden, version=version,
                route=route or path)


_C = 'os_compute_api:%s'
MATRIX = [
    _row('GET', '', None, ALL),
    _row('GET', '/openapi.json', None, ALL),
    _row('GET', '/servers', _C % 'servers:index', ALL),
    _row('GET', '/servers', _C % 'servers:index:get_all_tenants', ADMIN,
         query='all_tenants=1'),
    _row('POST', '/servers', _C % 'servers:create', MEMBERS,
         body=_SERVER_BODY),
    _row('GET', '/servers/detail', _C % 'servers:detail', ALL),
    _row('GET', '/servers/detail', _C % 'servers:detail:get_all_tenants',
         ADMIN, query='all_tenants=1'),
    _row('GET', '/servers/{server_id}', _C % 'servers:show', OWNER_READERS,
         hidden=True),
    _row('DELETE', '/servers/{server_id}', _C % 'servers:delete',
         OWNER_MEMBERS, hidden=True),
    _row('PUT', '/servers/{server_id}', _C % 'servers:update',
         OWNER_MEMBERS, body={'server': {'name': 'renamed'}}, hidden=True),
    *[_row('POST', '/servers/{server_id}/action', _C % rule, OWNER_MEMBERS,
           body=body, hidden=True) for rule, body in [
        ('servers:reboot', {'reboot': {'type': 'SOFT'}}),
        ('servers:stop', {'os-stop': None}),
        ('servers:start', {'os-start': None}),
        ('os-pause-server:pause', {'pause': None}),
        ('os-pause-server:unpause', {'unpause': None}),
        ('os-suspend-server:suspend', {'suspend': None}),
        ('os-suspend-server:resume', {'resume': None}),
        ('os-lock-server:lock', {'lock': None}),
        ('os-lock-server:unlock', {'unlock': None}),
        ('servers:resize', {'resize': {'flavorRef': '2'}}),
        ('servers:confirm_resize', {'confirmResize': None}),
        ('servers:revert_resize', {'revertResize': None}),
        ('servers:rebuild', {'rebuild': {'imageRef': IMAGE}}),
        ('servers:create_image', {'createImage': {'name': 'snap'}}),
        ('os-create-backup', {'createBackup': {
            'name': 'b', 'backup_type': 'daily', 'rotation': 1}}),
        ('os-shelve:shelve', {'shelve': None}),
        ('os-shelve:unshelve', {'unshelve': None})]],
    # The network proxy's actions (until 2.43).
    *[_row('POST', '/servers/{server_id}/action', _C % rule, OWNER_MEMBERS,
           body=body, hidden=True) for rule, body in [
        ('os-multinic:add', {'addFixedIp': {'networkId': 'net1'}}),
        ('os-multinic:remove', {'removeFixedIp': {'address': '10.0.0.4'}}),
        ('os-floating-ips:add', {'addFloatingIp': {'address': '10.0.0.9'}}),
        ('os-floating-ips:remove',
         {'removeFloatingIp': {'address': '10.0.0.9'}})]],
    _row('POST', '/servers/{server_id}/action',
         _C % 'servers:trigger_crash_dump', OWNER_MEMBERS,
         body={'trigger_crash_dump': None}, hidden=True, version='2.17'),
    _row('POST', '/servers/{server_id}/action', _C % 'os-evacuate', ADMIN,
         body={'evacuate': {'onSharedStorage': False}}, hidden=True),
    _row('POST', '/servers/{server_id}/action',
         _C % 'os-shelve:shelve_offload', ADMIN,
         body={'shelveOffload': None}, hidden=True),
    _row('POST', '/servers/{server_id}/action',
         _C % 'os-migrate-server:migrate', ADMIN, body={'migrate': None},
         hidden=True),
    _row('POST', '/servers/{server_id}/action',
         _C % 'os-migrate-server:migrate:host', ADMIN,
         body={'migrate': {'host': 'host1'}}, hidden=True, version='2.56'),
    _row('GET', '/servers/{server_id}/migrations',
         _C % 'servers:migrations:index', ADMIN, hidden=True),
    _row('GET', '/servers/{server_id}/diagnostics',
         _C % 'os-server-diagnostics', ADMIN, hidden=True),
    _row('GET', '/os-migrations', _C % 'os-migrations:index', ADMIN),
    _row('POST', '/servers/{server_id}/action',
         _C % 'os-migrate-server:migrate_live', ADMIN,
         body={'os-migrateLive': {'host': None, 'block_migration': False,
                                  'disk_over_commit': False}},
         hidden=True),
    _row('GET', '/servers/{server_id}/migrations/{migration_id}',
         _C % 'servers:migrations:show', ADMIN, hidden=True,
         version='2.23'),
    _row('DELETE', '/servers/{server_id}/migrations/{migration_id}',
         _C % 'servers:migrations:delete', ADMIN, hidden=True,
         version='2.24'),
    _row('POST', '/servers/{server_id}/migrations/{migration_id}/action',
         _C % 'servers:migrations:force_complete', ADMIN,
         body={'force_complete': None}, hidden=True, version='2.22'),
    _row('POST', '/servers/{server_id}/action',
         _C % 'os-admin-actions:reset_state', ADMIN,
         body={'os-resetState': {'state': 'active'}}, hidden=True),
    _row('GET', '/servers/{server_id}/metadata',
         _C % 'server-metadata:index', OWNER_READERS, hidden=True),
    _row('POST', '/servers/{server_id}/metadata',
         _C % 'server-metadata:create', OWNER_MEMBERS,
         body={'metadata': {'k': 'v'}}, hidden=True),
    _row('PUT', '/servers/{server_id}/metadata',
         _C % 'server-metadata:update_all', OWNER_MEMBERS,
         body={'metadata': {'k': 'v'}}, hidden=True),
    _row('GET', '/servers/{server_id}/metadata/{key}',
         _C % 'server-metadata:show', OWNER_READERS, hidden=True),
    _row('PUT', '/servers/{server_id}/metadata/{key}',
         _C % 'server-metadata:update', OWNER_MEMBERS,
         body={'meta': {'hw:cpu_policy': 'v'}}, hidden=True),
    _row('DELETE', '/servers/{server_id}/metadata/{key}',
         _C % 'server-metadata:delete', OWNER_MEMBERS, hidden=True),
    _row('GET', '/servers/{server_id}/tags',
         _C % 'os-server-tags:index', OWNER_READERS, hidden=True,
         version='2.26'),
    _row('PUT', '/servers/{server_id}/tags',
         _C % 'os-server-tags:update_all', OWNER_MEMBERS,
         body={'tags': ['web']}, hidden=True, version='2.26'),
    _row('DELETE', '/servers/{server_id}/tags',
         _C % 'os-server-tags:delete_all', OWNER_MEMBERS, hidden=True,
         version='2.26'),
    _row('GET', '/servers/{server_id}/tags/{tag}',
         _C % 'os-server-tags:show', OWNER_READERS, hidden=True,
         version='2.26'),
    _row('PUT', '/servers/{server_id}/tags/{tag}',
         _C % 'os-server-tags:update', OWNER_MEMBERS, hidden=True,
         version='2.26'),
    _row('DELETE', '/servers/{server_id}/tags/{tag}',
         _C % 'os-server-tags:delete', OWNER_MEMBERS, hidden=True,
         version='2.26'),
    _row('GET', '/servers/{server_id}/topology',
         'compute:server:topology:index', OWNER_READERS, hidden=True,
         version='2.78'),
    _row('GET', '/servers/{server_id}/shares',
         _C % 'os-shares:index', OWNER_READERS, hidden=True,
         version='2.97'),
    _row('POST', '/servers/{server_id}/shares',
         _C % 'os-shares:create', OWNER_MEMBERS, hidden=True,
         body={'share': {'share_id': IMAGE}}, version='2.97'),
    _row('GET', '/servers/{server_id}/shares/{share_id}',
         _C % 'os-shares:show', OWNER_READERS, hidden=True,
         version='2.97'),
    _row('DELETE', '/servers/{server_id}/shares/{share_id}',
         _C % 'os-shares:delete', OWNER_MEMBERS, hidden=True,
         version='2.97'),
    _row('GET', '/servers/{server_id}/os-instance-actions',
         _C % 'os-instance-actions:list', OWNER_READERS, hidden=True),
    _row('GET', '/servers/{server_id}/os-instance-actions/{request_id}',
         _C % 'os-instance-actions:show', OWNER_READERS, hidden=True),
    # Key pairs are the caller's own (looked up by their user id): every
    # user may manage theirs; see test_another_users_key_pair_is_404.
    _row('GET', '/os-keypairs', _C % 'os-keypairs:index', ALL),
    _row('POST', '/os-keypairs', _C % 'os-keypairs:create', ALL,
         body={'keypair': {'name': 'k1'}}),
    _row('GET', '/os-keypairs/{keypair_name}', _C % 'os-keypairs:show',
         ALL),
    _row('DELETE', '/os-keypairs/{keypair_name}', _C % 'os-keypairs:delete',
         ALL),
    # From 2.10 another user's key pairs by user_id: administrators only.
    _row('GET', '/os-keypairs', _C % 'os-keypairs:index', ADMIN,
         query='user_id=bob', version='2.10'),
    _row('POST', '/os-keypairs', _C % 'os-keypairs:create', ADMIN,
         body={'keypair': {'name': 'k1', 'user_id': 'bob'}},
         version='2.10'),
    _row('GET', '/os-keypairs/{keypair_name}', _C % 'os-keypairs:show',
         ADMIN, query='user_id=bob', version='2.10'),
    _row('DELETE', '/os-keypairs/{keypair_name}', _C % 'os-keypairs:delete',
         ADMIN, query='user_id=bob', version='2.10'),
    _row('GET', '/flavors', _C % 'flavors:index', ALL),
    _row('POST', '/flavors', _C % 'os-flavor-manage:create', ADMIN,
         body=_FLAVOR_BODY),
    _row('GET', '/flavors/detail', _C % 'flavors:index', ALL),
    _row('GET', '/flavors/{flavor_id}', _C % 'flavors:show', ALL),
    _row('PUT', '/flavors/{flavor_id}', _C % 'os-flavor-manage:update',
         ADMIN, body={'flavor': {'description': 'd'}}, version='2.55'),
    _row('DELETE', '/flavors/{flavor_id}', _C % 'os-flavor-manage:delete',
         ADMIN),
    _row('GET', '/flavors/{flavor_id}/os-extra_specs',
         _C % 'os-flavor-extra-specs:index', ALL),
    _row('POST', '/flavors/{flavor_id}/os-extra_specs',
         _C % 'os-flavor-extra-specs:create', ADMIN,
         body={'extra_specs': {'hw:cpu_policy': 'dedicated'}}),
    _row('GET', '/flavors/{flavor_id}/os-extra_specs/{key}',
         _C % 'os-flavor-extra-specs:show', ALL),
    _row('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}',
         _C % 'os-flavor-extra-specs:update', ADMIN,
         body={'hw:cpu_policy': 'dedicated'}),
    _row('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}',
         _C % 'os-flavor-extra-specs:delete', ADMIN),
    _row('GET', '/flavors/{flavor_id}/os-flavor-access',
         _C % 'os-flavor-access', ADMIN),
    _row('POST', '/flavors/{flavor_id}/action',
         _C % 'os-flavor-access:add_tenant_access', ADMIN, body=_ADD_TENANT),
    _row('POST', '/flavors/{flavor_id}/action',
         _C % 'os-flavor-access:remove_tenant_access', ADMIN,
         body=_REMOVE_TENANT),
    _row('GET', '/images', _C % 'images:index', ALL),
    _row('GET', '/images/detail', _C % 'images:index', ALL),
    _row('GET', '/images/{image_id}', _C % 'images:show', ALL),
    _row('DELETE', '/images/{image_id}', _C % 'images:delete', MEMBERS),
    _row('GET', '/os-services', _C % 'os-services:list', ADMIN),
    _row('PUT', '/os-services/enable', _C % 'os-services:update', ADMIN,
         body=_SERVICE_BODY, route='/os-services/{service_id}'),
    _row('PUT', '/os-services/force-down', _C % 'os-services:update',
         ADMIN, body=dict(_SERVICE_BODY, forced_down=True), version='2.11',
         route='/os-services/{service_id}'),
    _row('PUT', '/os-services/%s' % SERVICE_UUID, _C % 'os-services:update',
         ADMIN, body={'status': 'disabled'}, version='2.53',
         route='/os-services/{service_id}'),
    _row('DELETE', '/os-services/{service_id}', _C % 'os-services:delete',
         ADMIN),
    _row('DELETE', '/os-services/%s' % SERVICE_UUID,
         _C % 'os-services:delete', ADMIN, version='2.53',
         route='/os-services/{service_id}'),
    _row('GET', '/os-aggregates', _C % 'os-aggregates:index', ADMIN),
    _row('POST', '/os-aggregates', _C % 'os-aggregates:create', ADMIN,
         body={'aggregate': {'name': 'agg'}}),
    _row('GET', '/os-aggregates/{aggregate_id}', _C % 'os-aggregates:show',
         ADMIN),
    _row('PUT', '/os-aggregates/{aggregate_id}',
         _C % 'os-aggregates:update', ADMIN,
         body={'aggregate': {'name': 'agg2'}}),
    _row('DELETE', '/os-aggregates/{aggregate_id}',
         _C % 'os-aggregates:delete', ADMIN),
    _row('POST', '/os-aggregates/{aggregate_id}/images',
         'compute:aggregates:images', ADMIN, version='2.81',
         body={'cache': [{'id': IMAGE}]}),
    _row('POST', '/os-aggregates/{aggregate_id}/action',
         _C % 'os-aggregates:add_host', ADMIN,
         body={'add_host': {'host': 'host1'}}),
    _row('POST', '/os-aggregates/{aggregate_id}/action',
         _C % 'os-aggregates:remove_host', ADMIN,
         body={'remove_host': {'host': 'host1'}}),
    _row('POST', '/os-aggregates/{aggregate_id}/action',
         _C % 'os-aggregates:set_metadata', ADMIN,
         body={'set_metadata': {'metadata': {'k': 'v'}}}),
    _row('GET', '/os-server-groups', _C % 'os-server-groups:index', ALL),
    _row('POST', '/os-server-groups', _C % 'os-server-groups:create',
         MEMBERS, body={'server_group': {'name': 'g',
                                         'policies': ['affinity']}}),
    _row('GET', '/os-server-groups/{group_id}',
         _C % 'os-server-groups:show', OWNER_READERS, hidden=True),
    _row('DELETE', '/os-server-groups/{group_id}',
         _C % 'os-server-groups:delete', OWNER_MEMBERS, hidden=True),
    _row('GET', '/os-hypervisors', _C % 'os-hypervisors:list', ADMIN),
    _row('GET', '/os-hypervisors/detail', _C % 'os-hypervisors:list-detail',
         ADMIN),
    _row('GET', '/os-hypervisors/statistics',
         _C % 'os-hypervisors:statistics', ADMIN),
    _row('GET', '/os-hypervisors/{hypervisor_id}', _C % 'os-hypervisors:show',
         ADMIN),
    _row('GET', '/os-hypervisors/{hypervisor_id}/uptime',
         _C % 'os-hypervisors:uptime', ADMIN),
    _row('GET', '/os-hypervisors/{hypervisor_hostname_pattern}/search',
         _C % 'os-hypervisors:search', ADMIN),
    _row('GET', '/os-hypervisors/{hypervisor_hostname_pattern}/servers',
         _C % 'os-hypervisors:servers', ADMIN),
    _row('GET', '/limits', _C % 'limits', ALL),
    _row('GET', '/limits', _C % 'limits:other_project', ADMIN,
         query='tenant_id=proj9'),
    _row('GET', '/os-quota-sets/{tenant_id}', _C % 'os-quota-sets:show',
         OWNER_READERS),
    _row('PUT', '/os-quota-sets/{tenant_id}', _C % 'os-quota-sets:update',
         ADMIN, body={'quota_set': {'instances': 5}}),
    _row('DELETE', '/os-quota-sets/{tenant_id}',
         _C % 'os-quota-sets:delete', ADMIN),
    _row('GET', '/os-quota-sets/{tenant_id}/detail',
         _C % 'os-quota-sets:detail', OWNER_READERS),
    _row('GET', '/os-quota-sets/{tenant_id}/defaults',
         _C % 'os-quota-sets:defaults', ALL),
    _row('GET', '/os-quota-class-sets/{class_name}',
         _C % 'os-quota-class-sets:show', ADMIN),
    _row('PUT', '/os-quota-class-sets/{class_name}',
         _C % 'os-quota-class-sets:update', ADMIN,
         body={'quota_class_set': {'instances': 5}}),
    _row('GET', '/os-availability-zone', _C % 'os-availability-zone:list',
         ALL),
    _row('GET', '/os-availability-zone/detail',
         _C % 'os-availability-zone:detail', ADMIN),
    _row('GET', '/os-simple-tenant-usage',
         _C % 'os-simple-tenant-usage:list', ADMIN),
    _row('GET', '/os-simple-tenant-usage/{tenant_id}',
         _C % 'os-simple-tenant-usage:show', OWNER_READERS),
    _row('GET', '/os-hosts', _C % 'os-hosts:list', ADMIN),
    _row('GET', '/os-hosts/{host_name}', _C % 'os-hosts:show', ADMIN),
    _row('PUT', '/os-hosts/{host_name}', _C % 'os-hosts:update', ADMIN,
         body={'status': 'enable'}),
    _row('GET', '/os-hosts/{host_name}/startup',
         _C % 'os-hosts:power_action', ADMIN),
    _row('GET', '/os-hosts/{host_name}/shutdown',
         _C % 'os-hosts:power_action', ADMIN),
    _row('GET', '/os-hosts/{host_name}/reboot',
         _C % 'os-hosts:power_action', ADMIN),
]

# Rules no route decides alone: they widen what an allowed caller sees
# or may do (the extended attributes, an action's event details, undoing
# someone else's lock), so they are pinned on their own.
# rule -> personas that pass it on a proj1 target.
WIDENING_RULES = {
    _C % 'os-instance-actions:events': ADMIN,
    # 2.78; see tests/unit/api/test_server_topology.py.
    'compute:server:topology:host:index': ADMIN,
    # 2.84; see tests/unit/api/test_keypairs_instance_actions.py.
    _C % 'os-instance-actions:events:details': OWNER_READERS,
    _C % 'os-lock-server:unlock:unlock_override': ADMIN,
    _C % 'os-extended-server-attributes': ADMIN,
    _C % 'servers:allow_all_filters': ADMIN,
    # 2.16; see tests/unit/api/test_server_microversions.py.
    _C % 'servers:show:host_status': ADMIN,
    _C % 'servers:create:forced_host': ADMIN,
    # 2.74; see tests/unit/api/test_server_create_2_7x.py.
    'compute:servers:create:requested_destination': ADMIN,
    _C % 'flavors:list_all': ADMIN,
    _C % 'os-server-groups:index:all_projects': ADMIN,
    # Needs microversion 2.91: checked after os-shelve:unshelve; see
    # tests/unit/api/test_server_shelve.py.
    _C % 'os-shelve:unshelve_to_host': ADMIN,
}


class PolicyPassed(exception.NovaLiteException):
    """The row's rule let the caller through (the test ends there)."""
    msg_fmt = '%(action)s passed'
    code = 299


@pytest.fixture
def probe(monkeypatch):
    """Stop a request once ``probe.rule`` passes; record every check."""
    real_authorize = policy.authorize

    class Probe:
        rule = None
        checked = []

        @staticmethod
        def authorize(context, action, target=None, fatal=True):
            Probe.checked.append(action)
            result = real_authorize(context, action, target, fatal=fatal)
            if result and fatal and action == Probe.rule:
                raise PolicyPassed(action=action)
            return result

    monkeypatch.setattr(policy, 'authorize', Probe.authorize)
    return Probe


@pytest.fixture(autouse=True)
def owned_by_proj1(monkeypatch):
    """The database reads behind the ownership checks: one server and one
    server group, both proj1's."""
    def get_instance(cls, context, uuid, expected_attrs=None):
        if uuid != SERVER:
            raise exception.InstanceNotFound(instance_id=uuid)
        return fakes.instance(uuid=SERVER, project_id='proj1')

    def get_group(cls, context, uuid):
        if uuid != GROUP:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        return objects.InstanceGroup(
            id=1, uuid=GROUP, name='g', project_id='proj1', user_id='demo',
            policy='affinity', rules={}, members=[], hosts=[])
    monkeypatch.setattr(objects.Instance, 'get_by_uuid',
                        classmethod(get_instance))
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_uuid',
                        classmethod(get_group))


def _case_id(row):
    suffix = '?' + row['query'] if row['query'] else ''
    return '%s %s%s %s' % (row['method'], row['path'] or '/', suffix,
                           row['rule'] or 'no rule')


def _url(row):
    path = row['path'].format(**PARAMS) if row['path'] else '/'
    return path + ('?' + row['query'] if row['query'] else '')


@pytest.mark.parametrize('row', MATRIX, ids=_case_id)
@pytest.mark.parametrize('persona', sorted(PERSONAS))
def test_matrix(api, probe, row, persona, monkeypatch):
    probe.rule = row['rule']
    headers = None
    if row['version']:
        monkeypatch.setattr(api_version, 'VERSIONS',
                            api_version.VERSIONS + [row['version']])
        headers = {api_version.HEADER: 'compute %s' % row['version']}
    resp = api(PERSONAS[persona])(row['method'], _url(row), row['body'],
                                  headers=headers)
    if persona in row['allowed']:
        if row['rule'] is None:
            assert resp.status_int < 400, resp.body
        else:
            assert resp.status_int == 299, (resp.status_int, resp.body)
        return
    if row['hidden'] and persona == 'other':
        assert resp.status_int == 404, (resp.status_int, resp.body)
        assert 'could not be found' in resp.text
        return
    assert resp.status_int == 403, (resp.status_int, resp.body)
    assert 'Policy doesn' in resp.text or 'policy' in resp.text.lower()


def test_every_route_is_in_the_matrix():
    routes = {(method, path) for path, methods in router.ROUTES.items()
              for method in methods}
    rows = {(row['method'], row['route']) for row in MATRIX}
    assert routes - rows == set(), (
        'routes without a row in the policy matrix')
    assert rows - routes == set(), 'rows for routes that do not exist'


def test_every_rule_is_decided_somewhere():
    from nova_lite import policies
    # Nova names one rule of its API without the prefix (2.74's).
    api_rules = {r.name for r in policies.list_rules()
                 if r.name.startswith(('os_compute_api:', 'compute:'))}
    covered = {row['rule'] for row in MATRIX} | set(WIDENING_RULES)
    assert api_rules - covered == set(), 'rules the matrix never exercises'
    assert covered - api_rules == {None}, 'rows naming unregistered rules'


@pytest.mark.parametrize('rule', sorted(WIDENING_RULES))
def test_widening_rules(rule):
    target = {'project_id': 'proj1', 'user_id': 'demo'}
    passed = {name for name, ctx in PERSONAS.items()
              if policy.authorize(ctx, rule, target, fatal=False)}
    assert passed == WIDENING_RULES[rule]


def test_other_projects_server_is_not_revealed(api):
    """Without the probe: the real handler answers 404, as for a server
    that does not exist, and says nothing of its owner."""
    resp = api(PERSONAS['other'])('GET', '/servers/' + SERVER)
    missing = api(PERSONAS['other'])(
        'GET', '/servers/00000000-0000-4000-8000-000000000000')
    assert resp.status_int == missing.status_int == 404
    assert 'proj1' not in resp.text


def test_another_users_key_pair_is_404(api, monkeypatch):
    """Key pairs are looked up under the caller's own user id, so
    another user's answers as one that does not exist."""
    def get_by_name(cls, context, user_id, name):
        if (user_id, name) != ('demo', 'k1'):
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        return objects.KeyPair(id=1, name=name, user_id=user_id,
                               public_key='ssh-ed25519 AAAA', type='ssh',
                               fingerprint='aa:bb', deleted=False,
                               created_at=fakes.CREATED, updated_at=None)
    monkeypatch.setattr(objects.KeyPair, 'get_by_name',
                        classmethod(get_by_name))
    assert api(PERSONAS['member'])('GET', '/os-keypairs/k1').status_int \
        == 200
    for persona in ('other', 'reader', 'admin'):
        resp = api(PERSONAS[persona])('GET', '/os-keypairs/k1')
        assert resp.status_int == 404, (persona, resp.body)
