"""rebuild against tempest.lib's schemas of each version (its answer is
the server's view, which changes with the version)."""

from tests.unit.api.test_server_rebuild import world  # noqa: F401

UUID = 'c2e2a7d4-5b43-4a5e-9a58-0b9c0d1e2f30'
NEW_IMAGE = '3f1c3b8e-7c52-4d0a-9a3b-2a1e4c6d8f90'


def test_rebuild(api, world, assert_shape, schemas):  # noqa: F811
    resp = api()('POST', '/servers/%s/action' % UUID,
                 {'rebuild': {'imageRef': NEW_IMAGE}})
    assert_shape(resp, schemas('servers').rebuild_server_with_admin_pass)
