"""Server tags (2.26) against tempest.lib's servers schemas."""

from nova_lite.api.handlers import server_tags
from tests.unit.api.shapes.test_servers import UUID
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401

TAGS = '/servers/%s/tags' % UUID


def test_every_answer(api, compute, assert_shape, schemas,  # noqa: F811
                      microversion, monkeypatch):
    monkeypatch.setattr(server_tags, 'compute', compute)
    compute.instances[UUID].vm_state = 'active'
    member = api()
    if tuple(map(int, microversion.split('.'))) < (2, 26):
        assert member('GET', TAGS).status_int == 404
        return
    servers = schemas('servers')
    assert_shape(member('PUT', TAGS, {'tags': ['a', 'b']}),
                 servers.update_all_tags)
    assert_shape(member('GET', TAGS), servers.list_tags)
    assert_shape(member('PUT', TAGS + '/c'), servers.update_tag)
    assert_shape(member('GET', TAGS + '/c'), servers.check_tag_existence)
    assert_shape(member('DELETE', TAGS + '/c'), servers.delete_tag)
    assert_shape(member('GET', '/servers/' + UUID), servers.get_server)
    assert_shape(member('GET', '/servers/detail'),
                 servers.list_servers_detail)
    assert_shape(member('DELETE', TAGS), servers.delete_all_tags)

