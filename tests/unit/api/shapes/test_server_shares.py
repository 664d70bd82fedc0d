"""Server shares (2.97) and what 2.96, 2.98 and 2.100 add to the server
views, against tempest.lib's servers schemas."""

from nova_lite.api.handlers import server_shares
from tests.unit.api.shapes.test_servers import UUID
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401

SHARES = '/servers/%s/shares' % UUID
GROUP = '5b1e1c4f-3a7d-4d7e-8d0f-2f0a4c6b9e11'


def _at_least(microversion, minor):
    return tuple(map(int, microversion.split('.'))) >= (2, minor)


def test_share_list(api, compute, assert_shape, schemas,  # noqa: F811
                    microversion, monkeypatch):
    monkeypatch.setattr(server_shares, 'compute', compute)
    member = api()
    if not _at_least(microversion, 97):
        assert member('GET', SHARES).status_int == 404
        return
    assert_shape(member('GET', SHARES),
                 schemas('servers').list_share_attachments)


def test_requested_fields(api, compute, assert_shape,  # noqa: F811
                          schemas, microversion, request_specs):
    """A pinned zone, hints of the kinds tempest.lib describes and the
    image's properties, in show and list detail."""
    request_specs[UUID] = {
        'availability_zone': 'az1',
        'scheduler_hints': {'group': [GROUP], 'same_host': [UUID],
                            'different_host': [UUID, UUID],
                            'query': ['[">=", "$free_ram_mb", 1024]'],
                            'custom': ['x']}}
    servers = schemas('servers')
    member = api()
    shown = member('GET', '/servers/' + UUID)
    assert_shape(shown, servers.get_server)
    assert_shape(member('GET', '/servers/detail'),
                 servers.list_servers_detail)
    server = shown.json['server']
    assert ('pinned_availability_zone' in server) == _at_least(
        microversion, 96)
    assert ('properties' in server['image']) == _at_least(microversion, 98)
    assert ('scheduler_hints' in server) == _at_least(microversion, 100)
