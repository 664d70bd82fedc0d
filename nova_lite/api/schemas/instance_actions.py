"""Schemas of /servers/{id}/os-instance-actions (2.58 pages the list)."""

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
