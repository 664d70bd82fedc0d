"""Servers against tempest.lib's servers schemas of each version."""

import types

import pytest

from nova_lite.api import api_version
from nova_lite import objects
from tests.unit.api import fakes
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401
from tests.unit.api import conftest as api_conftest

UUID = fakes.instance().uuid


def create_body(microversion, **server):
    """A create body for the version: networks are required from 2.37."""
    body = {'name': 'vm', 'imageRef': fakes.image()['id'], 'flavorRef': '1'}
    if api_version.APIVersionRequest(microversion).matches('2.37'):
        body['networks'] = 'auto'
    body.update(server)
    return {'server': body}


def test_every_answer(api, compute, assert_shape, schemas,  # noqa: F811
                      microversion):
    servers = schemas('servers')
    member = api()
    assert_shape(member('POST', '/servers', create_body(
        microversion, user_data='aGVsbG8=')),
        servers.create_server_with_admin_pass)
    assert_shape(member('GET', '/servers'), servers.list_servers)
    assert_shape(member('GET', '/servers/detail'),
                 servers.list_servers_detail)
    # A page that is not the last has servers_links.
    assert_shape(member('GET', '/servers?limit=1'), servers.list_servers)
    assert_shape(member('GET', '/servers/detail?limit=1'),
                 servers.list_servers_detail)
    assert_shape(member('GET', '/servers/' + UUID), servers.get_server)
    assert_shape(member('DELETE', '/servers/' + UUID),
                 servers.delete_server)


@pytest.fixture
def host_up(monkeypatch):
    """host1's compute service, up (administrators' views show
    host_status from 2.16)."""
    up = types.SimpleNamespace(host='host1', forced_down=False,
                               disabled=False, is_up=True)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: [up]))


def test_admin_views(api, compute, assert_shape, schemas,  # noqa: F811
                     host_up):
    compute.instances[UUID].user_data = 'aGVsbG8='
    servers = schemas('servers')
    admin = api(api_conftest.make_context('admin', 'ops'))
    assert_shape(admin('GET', '/servers/detail?all_tenants=1'),
                 servers.list_servers_detail)
    assert_shape(admin('GET', '/servers/' + UUID), servers.get_server)


def test_a_server_in_error_with_its_fault(api, compute,  # noqa: F811
                                          assert_shape, schemas, host_up):
    """The fault's details for administrators, not for its owner."""
    instance = compute.instances[UUID]
    instance.vm_state = 'error'
    instance.fault = objects.InstanceFault(
        code=500, message='No valid host was found.',
        details='RamFilter: 3 -> 0', created_at=fakes.CREATED)
    servers = schemas('servers')
    admin = api(api_conftest.make_context('admin', 'ops'))
    for caller, listing in ((api(), '/servers/detail'),
                            (admin, '/servers/detail?all_tenants=1')):
        assert_shape(caller('GET', '/servers/' + UUID), servers.get_server)
        assert_shape(caller('GET', listing), servers.list_servers_detail)
