"""Flavors, their extra specs and their access lists against tempest.lib's
schemas of each version (the description from 2.55)."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_flavor_access import access  # noqa: F401
from tests.unit.api.test_flavor_extra_specs import writes  # noqa: F401
from tests.unit.api.test_flavors import store  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')


def test_list_and_detail(api, store, assert_shape, schemas):  # noqa: F811
    schemas = schemas('flavors')
    assert_shape(api()('GET', '/flavors'), schemas.list_flavors)
    assert_shape(api()('GET', '/flavors?limit=1'), schemas.list_flavors)
    assert_shape(api()('GET', '/flavors/detail'),
                 schemas.list_flavors_details)
    assert_shape(api(ADMIN)('GET', '/flavors/detail?is_public=none'),
                 schemas.list_flavors_details)


def test_show_create_delete(api, store, assert_shape,  # noqa: F811
                            schemas, microversion):
    schemas = schemas('flavors')
    assert_shape(api()('GET', '/flavors/2'),
                 schemas.create_update_get_flavor_details)
    resp = api(ADMIN)('POST', '/flavors', {'flavor': {
        'name': 'new', 'id': 'new', 'ram': 1, 'vcpus': 1, 'disk': 0}})
    assert_shape(resp, schemas.create_update_get_flavor_details)
    assert_shape(api(ADMIN)('DELETE', '/flavors/1'), schemas.delete_flavor)
    if api_version.APIVersionRequest(microversion).matches('2.55'):
        resp = api(ADMIN)('PUT', '/flavors/2',
                          {'flavor': {'description': 'small'}})
        assert_shape(resp, schemas.create_update_get_flavor_details)


def test_extra_specs(api, writes, assert_shape, schemas):  # noqa: F811
    specs = schemas('flavors_extra_specs')
    admin = api(ADMIN)
    path = '/flavors/5/os-extra_specs'
    assert_shape(api()('GET', path), specs.set_get_flavor_extra_specs)
    assert_shape(api()('GET', path + '/hw:numa_nodes'),
                 specs.set_get_flavor_extra_specs_key)
    assert_shape(admin('POST', path, {'extra_specs': {
        'hw:cpu_policy': 'dedicated'}}), specs.set_get_flavor_extra_specs)
    assert_shape(admin('PUT', path + '/hw:numa_nodes',
                       {'hw:numa_nodes': '4'}),
                 specs.set_get_flavor_extra_specs_key)
    assert_shape(admin('DELETE', path + '/hw:numa_nodes'),
                 specs.unset_flavor_extra_specs)


def test_access(api, access, assert_shape, schemas):  # noqa: F811
    shape = schemas('flavors_access').add_remove_list_flavor_access
    admin = api(ADMIN)
    assert_shape(admin('GET', '/flavors/3/os-flavor-access'), shape)
    for action in ('addTenantAccess', 'removeTenantAccess'):
        assert_shape(admin('POST', '/flavors/3/action',
                           {action: {'tenant': 'proj1'}}), shape)
