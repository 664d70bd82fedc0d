"""Schemas of /images, the image registry's Nova-proxy view."""

from nova_lite.api.schemas import parameter_types as types

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'name': types.multi(types.query_string),
        'status': types.multi(types.query_string),
        'minRam': types.multi(types.query_non_negative_int),
        'minDisk': types.multi(types.query_non_negative_int),
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi(types.query_string),
    },
    'additionalProperties': True,
}
