"""Schemas of /os-aggregates (microversion 2.1)."""

from nova_lite.api.schemas import parameter_types as types

_NAME = types.name
_ZONE = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}
# A compute host name, as the services table holds it.
_HOST = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^[a-zA-Z0-9-._]*$'}

CREATE = {
    'type': 'object',
    'properties': {
        'aggregate': {
            'type': 'object',
            'properties': {'name': _NAME, 'availability_zone': _ZONE},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['aggregate'],
    'additionalProperties': False,
}

UPDATE = {
    'type': 'object',
    'properties': {
        'aggregate': {
            'type': 'object',
            'properties': {'name': _NAME, 'availability_zone': _ZONE},
            'additionalProperties': False,
            'minProperties': 1,
        },
    },
    'required': ['aggregate'],
    'additionalProperties': False,
}


def _action(name, properties, required):
    return {
        'type': 'object',
        'properties': {
            name: {'type': 'object', 'properties': properties,
                   'required': required, 'additionalProperties': False},
        },
        'required': [name],
        'additionalProperties': False,
    }


ADD_HOST = _action('add_host', {'host': _HOST}, ['host'])
REMOVE_HOST = _action('remove_host', {'host': _HOST}, ['host'])
SET_METADATA = _action('set_metadata', {
    'metadata': {
        'type': 'object',
        'patternProperties': {
            r'^[a-zA-Z0-9-_:. /]{1,255}$': {
                'type': ['string', 'null'], 'maxLength': 255},
        },
        'additionalProperties': False,
    },
}, ['metadata'])

# POST /os-aggregates/{id}/action: the one key names the action.
ACTIONS = {'add_host': ADD_HOST, 'remove_host': REMOVE_HOST,
           'set_metadata': SET_METADATA}
