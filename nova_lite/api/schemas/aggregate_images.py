"""Schema of POST /os-aggregates/{id}/images (microversion 2.81): the
images to cache, ``{"cache": [{"id": image uuid}, ...]}``."""

CACHE = {
    'type': 'object',
    'properties': {
        'cache': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {'id': {'type': 'string', 'format': 'uuid'}},
                'required': ['id'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['cache'],
    'additionalProperties': False,
}
