"""Flavors against tempest.lib's flavors schemas of each version (the
description from 2.55), and its 2.1 extra-specs schemas."""

from tempest.lib.api_schema.response.compute.v2_1 import (
    flavors_extra_specs as spec_schemas)

from nova_lite.api import api_version
from tests.unit.api import conftest
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


def test_extra_specs_reads(api, store, assert_shape):  # noqa: F811
    assert_shape(api()('GET', '/flavors/5/os-extra_specs'),
                 spec_schemas.set_get_flavor_extra_specs)
    assert_shape(api()('GET', '/flavors/5/os-extra_specs/hw:numa_nodes'),
                 spec_schemas.set_get_flavor_extra_specs_key)
