"""Servers against tempest.lib's servers schemas of each version."""

import types

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


def test_admin_views(api, compute, assert_shape, schemas,  # noqa: F811
                     monkeypatch):
    up = types.SimpleNamespace(host='host1', forced_down=False,
                               disabled=False, is_up=True)
    monkeypatch.setattr(objects.ServiceList, 'get_all', classmethod(
        lambda cls, context, binary=None, host=None: [up]))
    compute.instances[UUID].user_data = 'aGVsbG8='
    servers = schemas('servers')
    admin = api(api_conftest.make_context('admin', 'ops'))
    assert_shape(admin('GET', '/servers/detail?all_tenants=1'),
                 servers.list_servers_detail)
    assert_shape(admin('GET', '/servers/' + UUID), servers.get_server)
