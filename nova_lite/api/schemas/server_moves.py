"""Schemas of the move actions of POST /servers/{id}/action (Nova's
bodies)."""

from nova_lite.api.schemas import server_actions

RESIZE = server_actions._action('resize', {
    'type': 'object',
    'properties': {
        'flavorRef': {'type': ['string', 'integer'], 'minLength': 1},
        'OS-DCF:diskConfig': {'type': 'string',
                              'enum': ['AUTO', 'MANUAL']},
    },
    'required': ['flavorRef'],
    'additionalProperties': False,
})
CONFIRM_RESIZE = server_actions._action('confirmResize',
                                        server_actions._NO_ARGUMENTS)
REVERT_RESIZE = server_actions._action('revertResize',
                                       server_actions._NO_ARGUMENTS)
# Before 2.56: no arguments (null, or an empty object).
MIGRATE_V21 = server_actions._action('migrate', {
    'type': ['object', 'null'],
    'properties': {},
    'additionalProperties': False,
})
# From 2.56: an optional destination host.
MIGRATE = server_actions._action('migrate', {
    'type': ['object', 'null'],
    'properties': {
        'host': {'type': ['string', 'null'], 'minLength': 1,
                 'maxLength': 255},
    },
    'additionalProperties': False,
})
