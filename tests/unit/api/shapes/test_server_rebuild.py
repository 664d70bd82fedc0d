"""rebuild against tempest.lib's schemas of each version (its answer is
the server's view, which changes with the version)."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_server_rebuild import world  # noqa: F401

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
NEW_IMAGE = '3f1c3b8e-7c52-4d0a-9a3b-2a1e4c6d8f90'


def test_rebuild(api, world, assert_shape, schemas):  # noqa: F811
    resp = api()('POST', '/servers/%s/action' % UUID,
                 {'rebuild': {'imageRef': NEW_IMAGE}})
    assert_shape(resp, schemas('servers').rebuild_server_with_admin_pass)


def test_rebuild_by_an_administrator(api, world, assert_shape,  # noqa: F811
                                     schemas, microversion):
    """From 2.75 the answer is show's view: administrators get the
    extended attributes (user_data apart, as its own key)."""
    admin = api(conftest.make_context('admin', 'ops'))
    rebuild = {'imageRef': NEW_IMAGE}
    if api_version.APIVersionRequest(microversion).matches('2.57'):
        rebuild['user_data'] = 'aGVsbG8='
    resp = admin('POST', '/servers/%s/action' % UUID, {'rebuild': rebuild})
    assert_shape(resp, schemas('servers').rebuild_server_with_admin_pass)
    server = resp.json['server']
    assert 'OS-EXT-SRV-ATTR:user_data' not in server
    full = api_version.APIVersionRequest(microversion).matches('2.75')
    assert ('OS-EXT-SRV-ATTR:host' in server) is full
    assert ('OS-EXT-STS:vm_state' in server) is full


def test_evacuate(api, world, assert_shape, schemas,  # noqa: F811
                  microversion):
    """adminPass until 2.14, then no body."""
    world.up.update(host1=False, host2=True)
    evacuate = {'host': 'host2'}
    servers = schemas('servers')
    shape = servers.evacuate_server
    if not api_version.APIVersionRequest(microversion).matches('2.14'):
        evacuate['onSharedStorage'] = False
        shape = servers.evacuate_server_with_admin_pass
    admin = api(conftest.make_context('admin', 'ops'))
    resp = admin('POST', '/servers/%s/action' % UUID,
                 {'evacuate': evacuate})
    assert_shape(resp, shape)
    assert bool(resp.body) is (
        shape is servers.evacuate_server_with_admin_pass)
