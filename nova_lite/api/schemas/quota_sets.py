"""Schemas of /os-quota-sets and /os-quota-class-sets (microversion 2.1)."""

import copy

from nova_lite.api.schemas import parameter_types as types
from nova_lite.quota import resources

# The largest value the quota tables' integer columns hold.
_MAX_INT = 2147483647

# A limit: -1 (unlimited) or more, as an integer or a string of digits.
quota_limit = {
    'type': ['integer', 'string'],
    'pattern': r'^-?[0-9]+$',
    'minimum': -1, 'maximum': _MAX_INT,
}

# Nova's 2.1 body also names resources nova_lite does not limit
# (handlers.quota_sets.UNENFORCED): accepted, and ignored.
_UNENFORCED = ('fixed_ips', 'floating_ips', 'injected_file_content_bytes',
               'injected_file_path_bytes', 'injected_files', 'key_pairs',
               'security_group_rules', 'security_groups')
_LIMITS = {resource: quota_limit
           for resource in resources.ALL + _UNENFORCED}

UPDATE = {
    'type': 'object',
    'properties': {
        'quota_set': {
            'type': 'object',
            'properties': dict(_LIMITS, force=types.boolean),
            'additionalProperties': False,
        },
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}

UPDATE_CLASS = {
    'type': 'object',
    'properties': {
        'quota_class_set': {
            'type': 'object',
            'properties': copy.deepcopy(_LIMITS),
            'additionalProperties': False,
        },
    },
    'required': ['quota_class_set'],
    'additionalProperties': False,
}

# ?user_id= selects one user's quotas within the project.
QUERY = {
    'type': 'object',
    'properties': {
        'user_id': types.multi(types.query_string),
    },
    'additionalProperties': True,
}

LIMITS_QUERY = {
    'type': 'object',
    'properties': {
        'tenant_id': types.multi(types.query_string),
        # Any boolean spelling (clients send "False"); the handler
        # refuses what is not one.
        'reserved': types.multi(types.query_string),
    },
    'additionalProperties': True,
}
