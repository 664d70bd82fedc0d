"""Schemas of POST /servers/{id}/action, one per action (Nova's bodies).

Each schema covers the whole body: ``{"<action>": <arguments>}``.
"""


def _action(name, arguments):
    return {
        'type': 'object',
        'properties': {name: arguments},
        'required': [name],
        'additionalProperties': False,
    }


# Actions that take no arguments: Nova accepts null or any object.
_NO_ARGUMENTS = {'type': ['object', 'null']}

REBOOT = _action('reboot', {
    'type': 'object',
    'properties': {
        'type': {'type': 'string',
                 'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']},
    },
    'required': ['type'],
    'additionalProperties': False,
})
STOP = _action('os-stop', _NO_ARGUMENTS)
START = _action('os-start', _NO_ARGUMENTS)
PAUSE = _action('pause', _NO_ARGUMENTS)
UNPAUSE = _action('unpause', _NO_ARGUMENTS)
SUSPEND = _action('suspend', _NO_ARGUMENTS)
RESUME = _action('resume', _NO_ARGUMENTS)
UNLOCK = _action('unlock', _NO_ARGUMENTS)
# 2.17: Nova's body is {"trigger_crash_dump": null}.
CRASH_DUMP = _action('trigger_crash_dump', {'type': 'null'})
# locked_reason is Nova's 2.73 argument; nova_lite takes it at 2.1.
LOCK = _action('lock', {
    'type': ['object', 'null'],
    'properties': {
        'locked_reason': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    },
    'additionalProperties': False,
})
RESET_STATE = _action('os-resetState', {
    'type': 'object',
    'properties': {
        'state': {'type': 'string', 'enum': ['active', 'error']},
    },
    'required': ['state'],
    'additionalProperties': False,
})
