"""Schemas of POST /flavors/{flavor_id}/action (flavor access)."""

_TENANT = {
    'type': 'object',
    'properties': {
        'tenant': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                   'pattern': r'^[a-zA-Z0-9_.@-]+$'},
    },
    'required': ['tenant'],
    'additionalProperties': False,
}

ADD_TENANT_ACCESS = {
    'type': 'object',
    'properties': {'addTenantAccess': _TENANT},
    'required': ['addTenantAccess'],
    'additionalProperties': False,
}

REMOVE_TENANT_ACCESS = {
    'type': 'object',
    'properties': {'removeTenantAccess': _TENANT},
    'required': ['removeTenantAccess'],
    'additionalProperties': False,
}
