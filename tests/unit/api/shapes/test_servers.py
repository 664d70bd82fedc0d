"""Servers at 2.1 against tempest.lib's servers schemas."""

from tempest.lib.api_schema.response.compute.v2_1 import servers as schemas

from tests.unit.api import fakes
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401

UUID = fakes.instance().uuid


def test_every_answer(api, compute, assert_shape):  # noqa: F811
    member = api()
    assert_shape(member('POST', '/servers', {'server': {
        'name': 'vm', 'imageRef': fakes.image()['id'], 'flavorRef': '1'}}),
        schemas.create_server_with_admin_pass)
    assert_shape(member('GET', '/servers'), schemas.list_servers)
    assert_shape(member('GET', '/servers/detail'),
                 schemas.list_servers_detail)
    assert_shape(member('GET', '/servers/' + UUID), schemas.get_server)
    assert_shape(member('DELETE', '/servers/' + UUID),
                 schemas.delete_server)
