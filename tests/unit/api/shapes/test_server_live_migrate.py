"""os-migrateLive and a running live migration's show (2.23), abort
(2.24) and force_complete (2.22) against tempest.lib's schemas of each
version (the list of a server's live migrations is in test_migrations)."""

import datetime

from nova_lite.api import api_version
from tests.unit.api.test_server_live_migrate import _call
from tests.unit.api.test_server_live_migrate import _live
from tests.unit.api.test_server_live_migrate import _one
from tests.unit.api.test_server_live_migrate import T
from tests.unit.api.test_server_live_migrate import V
from tests.unit.api.test_server_live_migrate import V21
from tests.unit.api.test_server_live_migrate import world  # noqa: F401
from tests.unit.api.test_server_moves import world as moves_world  # noqa

WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5)


def _show_live_migration(servers):
    """tempest.lib has a schema for the list of a server's live
    migrations only; show answers one item of that list, so its schema
    is the list's item under ``migration``, taken from tempest's."""
    listed = servers.list_live_migrations
    return {'status_code': listed['status_code'],
            'response_body': {
                'type': 'object',
                'properties': {'migration': listed['response_body'][
                    'properties']['migrations']['items']},
                'additionalProperties': False,
                'required': ['migration']}}


def test_live_migration(api, world, assert_shape, schemas,  # noqa: F811
                        microversion):
    at = api_version.APIVersionRequest(microversion).matches
    # What a database row has and the handler tests' migration leaves out.
    for name, value in (('created_at', WHEN), ('updated_at', WHEN),
                        ('user_id', 'demo'), ('project_id', 'proj1')):
        setattr(world.migration, name, value)
    servers = schemas('servers')
    common = servers.server_actions_common_schema
    args = {'host': None, 'block_migration': 'auto'} if at('2.25') else V21
    assert_shape(_live(api, args), common)
    world.set_state(V.ACTIVE, T.MIGRATING)
    if at('2.22'):
        assert_shape(_call(api, 'POST', _one('/action'),
                           {'force_complete': None}), common)
    if at('2.23'):
        assert_shape(_call(api, 'GET', _one()),
                     _show_live_migration(servers))
    if at('2.24'):
        assert_shape(_call(api, 'DELETE', _one()), common)
