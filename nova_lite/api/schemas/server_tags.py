"""Schemas of /servers/{id}/tags (microversion 2.26)."""

from nova_lite.objects import tag as tag_obj

# One tag: not empty, at most 60 characters, no '/' nor ','.
TAG = {
    'type': 'string',
    'minLength': 1,
    'maxLength': tag_obj.MAX_TAG_LENGTH,
    'pattern': '^[^,/]*$',
}

# PUT /servers/{id}/tags: the tags that replace all others.
UPDATE_ALL = {
    'type': 'object',
    'properties': {
        'tags': {'type': 'array', 'items': TAG,
                 'maxItems': tag_obj.MAX_TAG_COUNT},
    },
    'required': ['tags'],
    'additionalProperties': False,
}
