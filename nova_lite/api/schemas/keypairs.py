"""Schemas of /os-keypairs (microversion 2.1)."""

from nova_lite.api.schemas import parameter_types as types

# Nova's key pair names before 2.92: letters, digits, spaces, _ and -.
NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': r'^[a-zA-Z0-9 _-]+$'}

CREATE = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {
                'name': NAME,
                'public_key': {'type': 'string', 'minLength': 1},
                # 2.2 (the handler refuses it before); ssh keys only.
                'type': {'type': 'string', 'enum': ['ssh']},
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi(types.query_string),
    },
    'additionalProperties': True,
}
