"""Schemas of /os-simple-tenant-usage (2.1 query parameters)."""

from nova_lite.api.schemas import parameter_types as types

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'start': types.multi(types.query_string),
        'end': types.multi(types.query_string),
        'detailed': types.multi(types.query_string),
    },
    'additionalProperties': True,
}

SHOW_QUERY = {
    'type': 'object',
    'properties': {
        'start': types.multi(types.query_string),
        'end': types.multi(types.query_string),
    },
    'additionalProperties': True,
}
