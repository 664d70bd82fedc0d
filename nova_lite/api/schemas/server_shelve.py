"""Schemas of the snapshot and shelve actions of POST /servers/{id}/action
(Nova's bodies).

``unshelve`` takes an object only from microversion 2.77
(``availability_zone``) and 2.91 (``host``, and a null zone); the
handler checks the version, this schema the shape.
"""

from nova_lite.api.schemas import server_actions

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^\S(.*\S)?$'}
_METADATA = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}

CREATE_IMAGE = server_actions._action('createImage', {
    'type': 'object',
    'properties': {'name': _NAME, 'metadata': _METADATA},
    'required': ['name'],
    'additionalProperties': False,
})
SHELVE = server_actions._action('shelve', server_actions._NO_ARGUMENTS)
SHELVE_OFFLOAD = server_actions._action('shelveOffload',
                                        server_actions._NO_ARGUMENTS)
UNSHELVE = server_actions._action('unshelve', {
    'type': ['object', 'null'],
    'properties': {
        'availability_zone': {'type': ['string', 'null'], 'minLength': 1,
                              'maxLength': 255},
        'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    },
    'additionalProperties': False,
})
