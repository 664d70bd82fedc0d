"""resize, confirmResize, revertResize and migrate against tempest.lib's
schemas of each version."""

from tests.unit.api import conftest
from tests.unit.api.test_server_moves import _act
from tests.unit.api.test_server_moves import _resized
from tests.unit.api.test_server_moves import V
from tests.unit.api.test_server_moves import world  # noqa: F401


def test_moves(api, world, assert_shape, schemas):  # noqa: F811
    servers = schemas('servers')
    common = servers.server_actions_common_schema
    assert_shape(_act(api, {'resize': {'flavorRef': '2'}}), common)
    world.set_state(V.ACTIVE)
    assert_shape(_act(api, {'migrate': None}), common)
    member = conftest.make_context()
    _resized(world)
    assert_shape(_act(api, {'confirmResize': None}, member),
                 servers.server_actions_confirm_resize)
    _resized(world)
    assert_shape(_act(api, {'revertResize': None}, member), common)
