"""Flavor access: the list, addTenantAccess and removeTenantAccess."""

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import (
    flavors_access as schemas)

from nova_lite import exception
from nova_lite.objects import flavor as flavor_obj
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes
from tests.unit.api.test_flavors import store  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')
ACTION = '/flavors/%s/action'


@pytest.fixture
def access(monkeypatch, store):  # noqa: F811
    """The store's access lists, changed as the DB functions would."""
    lists = store['access']

    def add(context, flavorid, project_id):
        flavor = store['flavors'][flavorid]
        if flavor.is_public:
            raise exception.FlavorAccessOfPublicFlavor(flavor_id=flavorid)
        if project_id in lists.get(flavorid, ()):
            raise exception.FlavorAccessExists(flavor_id=flavorid,
                                               project_id=project_id)
        lists.setdefault(flavorid, []).append(project_id)

    def remove(context, flavorid, project_id):
        if project_id not in lists.get(flavorid, ()):
            raise exception.FlavorAccessNotFound(flavor_id=flavorid,
                                                 project_id=project_id)
        lists[flavorid].remove(project_id)
    monkeypatch.setattr(flavor_obj, 'add_access', add)
    monkeypatch.setattr(flavor_obj, 'remove_access', remove)
    return lists


def _action(api, flavor_id, name, tenant, context=ADMIN):
    return api(context)('POST', ACTION % flavor_id,
                        {name: {'tenant': tenant}})


def test_list_add_remove(api, access):
    resp = api(ADMIN)('GET', '/flavors/3/os-flavor-access')
    assert resp.status_int == 200
    assert resp.json == {'flavor_access': [
        {'flavor_id': '3', 'tenant_id': 'friends'}]}
    shapes.check_shape(resp, schemas.add_remove_list_flavor_access)
    resp = _action(api, '3', 'addTenantAccess', 'proj1')
    assert resp.status_int == 200
    assert [a['tenant_id'] for a in resp.json['flavor_access']] == [
        'friends', 'proj1']
    shapes.check_shape(resp, schemas.add_remove_list_flavor_access)
    # The project now sees it.
    assert api()('GET', '/flavors/3').status_int == 200
    resp = _action(api, '3', 'removeTenantAccess', 'friends')
    assert resp.json == {'flavor_access': [
        {'flavor_id': '3', 'tenant_id': 'proj1'}]}
    shapes.check_shape(resp, schemas.add_remove_list_flavor_access)


def test_errors(api, access):
    assert api(ADMIN)('GET', '/flavors/1/os-flavor-access'
                      ).status_int == 404
    assert api(ADMIN)('GET', '/flavors/99/os-flavor-access'
                      ).status_int == 404
    resp = _action(api, '1', 'addTenantAccess', 'proj1')
    assert resp.status_int == 409
    assert 'public' in resp.json['conflictingRequest']['message']
    assert _action(api, '3', 'addTenantAccess', 'friends').status_int == 409
    assert _action(api, '3', 'removeTenantAccess', 'x').status_int == 404
    assert access == {'3': ['friends']}


@pytest.mark.parametrize('body', [
    {}, {'addTenantAccess': {}}, {'addTenantAccess': {'tenant': ''}},
    {'addTenantAccess': {'tenant': 'p'}, 'removeTenantAccess': {
        'tenant': 'p'}},
    {'addTenantAccess': {'tenant': 'p', 'extra': 1}}, {'resize': {}},
    {'addTenantAccess': {'tenant': 'bad\x00id'}},
])
def test_bad_bodies(api, access, body):
    assert api(ADMIN)('POST', ACTION % '3', body).status_int == 400
    assert access == {'3': ['friends']}


def test_for_administrators_only(api, access):
    assert api()('GET', '/flavors/3/os-flavor-access').status_int == 403
    member = conftest.make_context('demo', 'proj1')
    assert _action(api, '3', 'addTenantAccess', 'proj1',
                   member).status_int == 403
    assert access == {'3': ['friends']}
