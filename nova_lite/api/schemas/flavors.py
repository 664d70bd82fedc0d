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


# -- responses (for the OpenAPI document; the handlers' views build them)

_LINKS = types.links


def _flavor_view(version, detail):
    """A flavor as ``handlers.flavors`` shows it at ``version`` (an
    APIVersionRequest): its basic view, or ``detail``'s."""
    properties = {'id': {'type': 'string'}, 'name': {'type': 'string'},
                  'links': _LINKS}
    if version.matches('2.55'):
        properties['description'] = {'type': ['string', 'null']}
    if detail:
        properties.update({
            'ram': {'type': 'integer'},
            'disk': {'type': 'integer'},
            'vcpus': {'type': 'integer'},
            # "" for none before 2.75.
            'swap': ({'type': 'integer'} if version.matches('2.75')
                     else {'type': ['integer', 'string']}),
            'rxtx_factor': {'type': 'number'},
            'OS-FLV-EXT-DATA:ephemeral': {'type': 'integer'},
            'OS-FLV-DISABLED:disabled': {'type': 'boolean'},
            'os-flavor-access:is_public': {'type': 'boolean'},
        })
    view = {'type': 'object', 'properties': dict(properties),
            'required': sorted(properties),
            'additionalProperties': False}
    if detail and version.matches('2.61'):
        # To callers allowed to list extra specs only.
        view['properties']['extra_specs'] = {
            'type': 'object', 'additionalProperties': {'type': 'string'}}
    return view


def flavor_response(version):
    """200 {"flavor": detail} (show, create, update)."""
    return {'type': 'object',
            'properties': {'flavor': _flavor_view(version, True)},
            'required': ['flavor'], 'additionalProperties': False}


def _flavors_response(version, detail):
    return {'type': 'object',
            'properties': {
                'flavors': {'type': 'array',
                            'items': _flavor_view(version, detail)},
                'flavors_links': _LINKS},
            'required': ['flavors'], 'additionalProperties': False}


def index_response(version):
    """200 {"flavors": [basic view], "flavors_links"?}."""
    return _flavors_response(version, False)


def detail_response(version):
    """200 {"flavors": [detail view], "flavors_links"?}."""
    return _flavors_response(version, True)
