"""Schemas of /os-keypairs (microversion 2.1)."""

from nova_lite.api.schemas import parameter_types as types

# Nova's key pair names before 2.92: letters, digits, spaces, _ and -.
NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': r'^[a-zA-Z0-9 _-]+$'}
# From 2.92 they may also carry '@' and '.' (the handler checks the
# version; the schema takes the wider form).
NAME_V292 = {'type': 'string', 'minLength': 1, 'maxLength': 255,
             'pattern': r'^[a-zA-Z0-9 @._-]+$'}

CREATE = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {
                'name': NAME_V292,
                # Required from 2.92 (the handler checks it): generating
                # key pairs is gone.
                'public_key': {'type': 'string', 'minLength': 1},
                # 2.2 (the handler refuses it before); ssh keys only.
                'type': {'type': 'string', 'enum': ['ssh']},
                # 2.10 (the handler refuses it before): an administrator
                # creates or imports a key pair for another user.
                'user_id': {'type': 'string', 'minLength': 1,
                            'maxLength': 255},
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
        'user_id': types.multi(types.query_string),
    },
    'additionalProperties': True,
}

# show and delete: ?user_id= from 2.10 (ignored before, as Nova).
USER_QUERY = {
    'type': 'object',
    'properties': {'user_id': types.multi(types.query_string)},
    'additionalProperties': True,
}
