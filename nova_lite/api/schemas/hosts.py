"""Schemas of /os-hosts (Nova 2.1)."""

from nova_lite.api.schemas import parameter_types as types

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'zone': types.multi(types.query_string),
    },
    'additionalProperties': True,
}

_ENABLE_DISABLE = {'type': 'string', 'enum': ['enable', 'disable',
                                              'Enable', 'Disable',
                                              'ENABLE', 'DISABLE']}

UPDATE = {
    'type': 'object',
    'properties': {
        'status': _ENABLE_DISABLE,
        'maintenance_mode': _ENABLE_DISABLE,
    },
    'anyOf': [{'required': ['status']}, {'required': ['maintenance_mode']}],
    'additionalProperties': False,
}
