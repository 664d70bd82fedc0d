"""Schemas of /servers/{id}/metadata (microversion 2.1)."""

from nova_lite.api.schemas import parameter_types as types

# PUT and POST /servers/{id}/metadata: replace all, or merge.
METADATA = {
    'type': 'object',
    'properties': {'metadata': types.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}

# PUT /servers/{id}/metadata/{key}: exactly one item, the URL's key.
META_ITEM = {
    'type': 'object',
    'properties': {
        'meta': dict(types.metadata, minProperties=1, maxProperties=1),
    },
    'required': ['meta'],
    'additionalProperties': False,
}
