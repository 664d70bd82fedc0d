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
# ``host`` is Nova's 2.56 argument; nova_lite takes it at 2.1.
MIGRATE = server_actions._action('migrate', {
    'type': ['object', 'null'],
    'properties': {
        'host': {'type': ['string', 'null'], 'minLength': 1,
                 'maxLength': 255},
    },
    'additionalProperties': False,
})
