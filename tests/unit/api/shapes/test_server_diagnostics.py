"""Server diagnostics against tempest.lib's schemas of each version (the
standardized shape from 2.48)."""

from tests.unit.api.test_server_diagnostics import ADMIN
from tests.unit.api.test_server_diagnostics import URL
from tests.unit.api.test_server_diagnostics import world  # noqa: F401


def test_diagnostics(api, world, assert_shape, schemas):  # noqa: F811
    assert_shape(api(ADMIN)('GET', URL),
                 schemas('servers').show_server_diagnostics)
