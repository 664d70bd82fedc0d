"""Schemas of /os-simple-tenant-usage's query parameters (2.1; paging
from 2.40)."""

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

# 2.40: paging over the servers counted (limit, marker: an instance
# uuid). Checked only from 2.40 (ignored before, as Nova).
PAGING_QUERY = {
    'type': 'object',
    'properties': {
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi(types.query_string),
    },
    'additionalProperties': True,
}
