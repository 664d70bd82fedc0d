"""Schemas of /os-server-groups (microversion 2.1).

The soft policies are accepted from 2.15 (the handler refuses them
before). ``rules`` (max_server_per_host, for anti-affinity) are Nova's
2.64; nova_lite accepts them at every version until it speaks 2.64, or
they could not be used at all.
"""

from nova_lite.api.schemas import parameter_types as types
from nova_lite.objects import instance_group

CREATE = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': types.name,
                'policies': {
                    'type': 'array',
                    'items': [{'type': 'string',
                               'enum': list(instance_group.POLICIES)}],
                    'uniqueItems': True,
                    'minItems': 1,
                    'maxItems': 1,
                    'additionalItems': False,
                },
                'rules': {
                    'type': 'object',
                    'properties': {
                        'max_server_per_host': {
                            'type': ['integer', 'string'],
                            'pattern': '^[0-9]+$', 'minimum': 1,
                            'maximum': types.MAX_INT,
                        },
                    },
                    'additionalProperties': False,
                },
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'all_projects': types.multi(types.query_string),
        'limit': types.multi(types.query_non_negative_int),
        'offset': types.multi(types.query_non_negative_int),
    },
    'additionalProperties': True,
}
