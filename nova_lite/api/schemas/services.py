"""Schemas of /os-services."""

from nova_lite.api.schemas import parameter_types as types

INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'host': types.multi(types.query_string),
        'binary': types.multi(types.query_string),
    },
    'additionalProperties': True,
}

_HOST_BINARY = {
    'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'binary': {'type': 'string', 'minLength': 1, 'maxLength': 255},
}

# PUT /os-services/enable and /disable.
SERVICE_UPDATE = {
    'type': 'object',
    'properties': dict(_HOST_BINARY),
    'required': ['host', 'binary'],
    'additionalProperties': False,
}

# PUT /os-services/disable-log-reason.
SERVICE_DISABLE_LOG_REASON = {
    'type': 'object',
    'properties': dict(_HOST_BINARY, disabled_reason={
        'type': 'string', 'minLength': 1, 'maxLength': 255}),
    'required': ['host', 'binary', 'disabled_reason'],
    'additionalProperties': False,
}

# PUT /os-services/force-down (2.11).
SERVICE_FORCE_DOWN = {
    'type': 'object',
    'properties': dict(_HOST_BINARY, forced_down=types.boolean),
    'required': ['host', 'binary', 'forced_down'],
    'additionalProperties': False,
}

# The largest service id DELETE takes below 2.53 (a database integer).
MAX_ID = types.MAX_INT

# PUT /os-services/{uuid} (2.53): any of the three; the handler refuses a
# body with none.
SERVICE_UPDATE_V253 = {
    'type': 'object',
    'properties': {
        'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
        'disabled_reason': {'type': 'string', 'minLength': 1,
                            'maxLength': 255},
        'forced_down': types.boolean,
    },
    'additionalProperties': False,
}
