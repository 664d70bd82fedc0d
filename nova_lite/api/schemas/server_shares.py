"""Schemas of /servers/{id}/shares (microversion 2.97)."""

from nova_lite.api.schemas import parameter_types as types

CREATE = {
    'type': 'object',
    'properties': {
        'share': {
            'type': 'object',
            'properties': {
                'share_id': types.uuid,
                # The mount tag the guest sees (the share id if none).
                'tag': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                        'pattern': r'^[a-zA-Z0-9_.-]+$'},
            },
            'required': ['share_id'],
            'additionalProperties': False,
        },
    },
    'required': ['share'],
    'additionalProperties': False,
}
