"""Schemas of /os-hypervisors (2.1 takes no parameters; 2.33 pages)."""

from nova_lite.api.schemas import parameter_types as types

INDEX_QUERY = {
    'type': 'object',
    'additionalProperties': True,
}

# GET /os-hypervisors and /detail from 2.33: a page of nodes by id.
INDEX_QUERY_V233 = {
    'type': 'object',
    'properties': {
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi({'type': 'string', 'pattern': r'^[1-9][0-9]*$',
                               'maxLength': 19}),
    },
    'additionalProperties': True,
}
