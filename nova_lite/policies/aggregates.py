"""Policies of /os-aggregates (administrators only, as in Nova)."""

from oslo_policy import policy

from nova_lite.policies import base

AGGREGATES = 'os_compute_api:os-aggregates:%s'
_PATH = '/os-aggregates/{aggregate_id}'
_ACTION = _PATH + '/action'
IMAGES = 'compute:aggregates:images'


def _rule(name, description, method, path):
    return policy.DocumentedRuleDefault(
        name=AGGREGATES % name, check_str=base.RULE_ADMIN_API,
        description=description,
        operations=[{'method': method, 'path': path}],
        scope_types=['project'])


rules = [
    _rule('index', 'List host aggregates.', 'GET', '/os-aggregates'),
    _rule('create', 'Create a host aggregate (optionally an availability '
          'zone).', 'POST', '/os-aggregates'),
    _rule('show', 'Show a host aggregate.', 'GET', _PATH),
    _rule('update', 'Rename or re-zone a host aggregate.', 'PUT', _PATH),
    _rule('delete', 'Delete an empty host aggregate.', 'DELETE', _PATH),
    _rule('add_host', 'Add a compute host to an aggregate (and its nodes\' '
          'providers to the placement aggregate).', 'POST', _ACTION),
    _rule('remove_host', 'Remove a compute host from an aggregate.', 'POST',
          _ACTION),
    _rule('set_metadata', 'Set or remove metadata keys of an aggregate.',
          'POST', _ACTION),
    # Nova's name (its newer scheme) for the 2.81 image pre-cache.
    policy.DocumentedRuleDefault(
        name=IMAGES, check_str=base.RULE_ADMIN_API,
        description='Ask the compute hosts of an aggregate to cache '
                    'images (microversion 2.81).',
        operations=[{'method': 'POST', 'path': _PATH + '/images'}],
        scope_types=['project']),
]


def list_rules():
    return rules
