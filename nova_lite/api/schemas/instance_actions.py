"""Schemas of /servers/{id}/os-instance-actions (2.58 pages the list,
2.66 adds changes-before)."""

import copy

from nova_lite.api.schemas import parameter_types as types

# GET /servers/{id}/os-instance-actions from 2.58: nothing else is taken.
INDEX_QUERY_V258 = {
    'type': 'object',
    'properties': {
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi({'type': 'string', 'maxLength': 255}),
        'changes-since': types.multi({'type': 'string'}),
    },
    'additionalProperties': False,
}

# From 2.66: changes-before too.
INDEX_QUERY_V266 = copy.deepcopy(INDEX_QUERY_V258)
INDEX_QUERY_V266['properties']['changes-before'] = types.multi(
    {'type': 'string'})
