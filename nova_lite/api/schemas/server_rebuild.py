"""Schemas of ``rebuild`` and ``evacuate`` (Nova's bodies, by
microversion).

Each action has one schema per range of versions, as Nova's handlers
carry one ``validation.schema`` per range: ``for_version`` picks the one
that applies. The dispatcher of ``server_actions`` validates with the
union of them all (``REBUILD``, ``EVACUATE``); the handler then validates
again at the request's version, so an argument newer than the request
is refused with the same 400 as any unknown one.
"""

import copy

from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_actions

_REBUILD_V21 = {
    'type': 'object',
    'properties': {
        'imageRef': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'name': types.name,
        'adminPass': {'type': 'string'},
        'metadata': types.metadata,
        'preserve_ephemeral': types.boolean,
        'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
        'accessIPv4': {'type': 'string'},
        'accessIPv6': {'type': 'string'},
        'personality': {'type': 'array'},
    },
    'required': ['imageRef'],
    'additionalProperties': False,
}

# (first version, arguments added; None removes) in order.
_REBUILD_CHANGES = [
    ('2.19', {'description': {'type': ['string', 'null'],
                              'maxLength': 255}}),
    ('2.54', {'key_name': {'type': ['string', 'null'], 'minLength': 1,
                           'maxLength': 255}}),
    # user_data replaces personality (file injection) from 2.57.
    ('2.57', {'user_data': {'type': ['string', 'null'],
                            'format': 'base64', 'maxLength': 65535},
              'personality': None}),
    ('2.63', {'trusted_image_certificates': types.trusted_certs}),
    ('2.90', {'hostname': types.hostname}),
    # 2.94: the hostname may be a fully qualified domain name.
    ('2.94', {'hostname': types.fqdn}),
]

_EVACUATE_V21 = {
    'type': 'object',
    'properties': {
        'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'onSharedStorage': types.boolean,
        'adminPass': {'type': 'string'},
    },
    'required': ['onSharedStorage'],
    'additionalProperties': False,
}

_EVACUATE_CHANGES = [
    # 2.14: no more onSharedStorage (the compute finds out itself).
    ('2.14', {'onSharedStorage': None}),
    # 2.29: force (bypass the filters) ...
    ('2.29', {'force': types.boolean}),
    # ... removed again by 2.68: a named host is always checked.
    ('2.68', {'force': None}),
]


def _versions(base, changes, wrap):
    """[(first version, schema)] for each range, oldest first."""
    arguments = copy.deepcopy(base)
    found = [('2.1', wrap(copy.deepcopy(arguments)))]
    for version, change in changes:
        for name, schema in change.items():
            if schema is None:
                arguments['properties'].pop(name, None)
                if name in arguments.get('required', ()):
                    arguments['required'].remove(name)
            else:
                arguments['properties'][name] = schema
        if not arguments.get('required'):
            arguments.pop('required', None)
        found.append((version, wrap(copy.deepcopy(arguments))))
    return found


def _union(versions, wrap):
    """A schema taking what any version takes (the first check)."""
    arguments = {'type': 'object', 'properties': {},
                 'additionalProperties': False}
    for _version, schema in versions:
        inner = next(iter(schema['properties'].values()))
        arguments['properties'].update(inner['properties'])
    return wrap(arguments)


def _rebuild(arguments):
    return server_actions._action('rebuild', arguments)


def _evacuate(arguments):
    return server_actions._action('evacuate', arguments)


REBUILD_VERSIONS = _versions(_REBUILD_V21, _REBUILD_CHANGES, _rebuild)
EVACUATE_VERSIONS = _versions(_EVACUATE_V21, _EVACUATE_CHANGES, _evacuate)
REBUILD = _union(REBUILD_VERSIONS, _rebuild)
REBUILD['properties']['rebuild']['required'] = ['imageRef']
EVACUATE = _union(EVACUATE_VERSIONS, _evacuate)


def for_version(versions, version):
    """The schema of ``versions`` that applies at ``version`` (an
    APIVersionRequest)."""
    chosen = versions[0][1]
    for first, schema in versions:
        if version.matches(first):
            chosen = schema
    return chosen
