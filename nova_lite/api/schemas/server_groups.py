"""Schemas of /os-server-groups.

The soft policies are accepted from 2.15 (the handler refuses them
before). From 2.64 a group is created with one ``policy`` and optional
``rules`` (max_server_per_host, for anti-affinity) instead of a list of
``policies``.
"""

import copy

from nova_lite.api.schemas import parameter_types as types
from nova_lite.objects import instance_group

_RULES = {
    'type': 'object',
    'properties': {
        'max_server_per_host': {
            'type': ['integer', 'string'],
            'pattern': '^[0-9]+$', 'minimum': 1,
            'maximum': types.MAX_INT,
        },
    },
    'additionalProperties': False,
}

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
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

# From 2.64.
CREATE_V264 = copy.deepcopy(CREATE)
_V264_GROUP = CREATE_V264['properties']['server_group']
_V264_GROUP['properties'].pop('policies')
_V264_GROUP['properties'].update(
    policy={'type': 'string', 'enum': list(instance_group.POLICIES)},
    rules=_RULES)
_V264_GROUP['required'] = ['name', 'policy']

# What either takes (the first check; the handler then checks the
# request's version).
CREATE_ANY = {'type': 'object'}

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'all_projects': types.multi(types.query_string),
        'limit': types.multi(types.query_non_negative_int),
        'offset': types.multi(types.query_non_negative_int),
    },
    'additionalProperties': True,
}
