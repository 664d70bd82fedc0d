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

# GET /os-hypervisors and /detail from 2.53: a page of nodes by uuid, or
# the nodes whose name contains a pattern (no paging then), with their
# servers if asked.
INDEX_QUERY_V253 = {
    'type': 'object',
    'properties': {
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi({'type': 'string', 'maxLength': 255}),
        'hypervisor_hostname_pattern': types.multi(
            {'type': 'string', 'minLength': 1, 'maxLength': 255}),
        'with_servers': types.multi(types.boolean),
    },
    'additionalProperties': True,
}

# GET /os-hypervisors/{uuid} from 2.53.
SHOW_QUERY_V253 = {
    'type': 'object',
    'properties': {'with_servers': types.multi(types.boolean)},
    'additionalProperties': True,
}
