"""Schemas of /flavors (microversion 2.1; description from 2.55)."""

import copy

from nova_lite.api.schemas import parameter_types as types

# The largest value the flavors table's integer columns hold.
_MAX_INT = 2147483647

CREATE = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': types.name,
                'id': {
                    'oneOf': [
                        {'type': 'string', 'minLength': 1,
                         'maxLength': 255,
                         'pattern': r'^(?! )[a-zA-Z0-9. _-]+(?<! )$'},
                        {'type': 'null'},
                    ],
                },
                'ram': dict(types.positive_integer, maximum=_MAX_INT),
                'vcpus': dict(types.positive_integer, maximum=_MAX_INT),
                'disk': dict(types.non_negative_integer, maximum=_MAX_INT),
                'OS-FLV-EXT-DATA:ephemeral': dict(
                    types.non_negative_integer, maximum=_MAX_INT),
                'swap': dict(types.non_negative_integer, maximum=_MAX_INT),
                'rxtx_factor': {
                    'type': ['number', 'string'],
                    'pattern': r'^[0-9]+(\.[0-9]+)?$',
                    'minimum': 0, 'exclusiveMinimum': True,
                    'maximum': 3.40282e38,
                },
                'os-flavor-access:is_public': types.boolean,
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

# A flavor's description (2.55): printable characters, up to 64 KiB.
DESCRIPTION = {'type': ['string', 'null'], 'minLength': 0,
               'maxLength': 65535, 'format': 'description'}

CREATE_V255 = copy.deepcopy(CREATE)
CREATE_V255['properties']['flavor']['properties'][
    'description'] = DESCRIPTION

# PUT /flavors/{id} (2.55): only the description changes.
UPDATE = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': DESCRIPTION},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

_SORT_KEYS = ['flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb',
              'ephemeral_gb', 'swap', 'id', 'created_at']

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'is_public': types.multi(types.query_string),
        'minRam': types.multi(types.query_non_negative_int),
        'minDisk': types.multi(types.query_non_negative_int),
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi(types.query_string),
        'sort_key': types.multi({'type': 'string', 'enum': _SORT_KEYS}),
        'sort_dir': types.multi(types.query_sort_dir),
    },
    'additionalProperties': True,
}
