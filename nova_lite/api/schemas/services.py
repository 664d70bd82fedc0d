"""Schemas of /os-services."""

from nova_lite.api.schemas import parameter_types as types

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'host': types.multi(types.query_string),
        'binary': types.multi(types.query_string),
    },
    'additionalProperties': True,
}
