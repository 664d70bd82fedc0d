"""Schemas of live migration: ``os-migrateLive`` (one per microversion
range, as Nova's) and a live migration's ``force_complete``."""

import copy

from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_actions

_HOST = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
         'pattern': '^[a-zA-Z0-9-._]*$'}

# 2.1-2.24: all three required.
MIGRATE_LIVE = server_actions._action('os-migrateLive', {
    'type': 'object',
    'properties': {
        'block_migration': types.boolean,
        'disk_over_commit': types.boolean,
        'host': _HOST,
    },
    'required': ['block_migration', 'disk_over_commit', 'host'],
    'additionalProperties': False,
})

# 2.25: block_migration may be "auto", disk_over_commit is gone.
MIGRATE_LIVE_V225 = copy.deepcopy(MIGRATE_LIVE)
_args = MIGRATE_LIVE_V225['properties']['os-migrateLive']
del _args['properties']['disk_over_commit']
_args['properties']['block_migration'] = dict(
    types.boolean, enum=types.boolean['enum'] + ['auto'])
_args['required'] = ['block_migration', 'host']

# 2.30: force (accepted; a named host is still checked by the filters).
MIGRATE_LIVE_V230 = copy.deepcopy(MIGRATE_LIVE_V225)
MIGRATE_LIVE_V230['properties']['os-migrateLive']['properties'][
    'force'] = types.boolean

# 2.68: force is gone again.
MIGRATE_LIVE_V268 = copy.deepcopy(MIGRATE_LIVE_V225)

# (min version, schema), newest first.
MIGRATE_LIVE_BY_VERSION = (
    ('2.68', MIGRATE_LIVE_V268),
    ('2.30', MIGRATE_LIVE_V230),
    ('2.25', MIGRATE_LIVE_V225),
    ('2.1', MIGRATE_LIVE),
)

# What the dispatcher checks before the version's own schema: an object
# under the action's name.
MIGRATE_LIVE_ANY = server_actions._action('os-migrateLive',
                                          {'type': 'object'})

# POST /servers/{id}/migrations/{id}/action (2.22).
FORCE_COMPLETE = server_actions._action('force_complete', {
    'type': 'null'})
