"""Policies of /servers/{id}/metadata (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

METADATA = 'os_compute_api:server-metadata:%s'
_PATH = '/servers/{server_id}/metadata'
_ITEM = _PATH + '/{key}'


def _rule(action, check_str, description, operations):
    return policy.DocumentedRuleDefault(
        name=METADATA % action, check_str=check_str,
        description=description, scope_types=['project'],
        operations=[{'method': m, 'path': p} for m, p in operations])


rules = [
    _rule('index', base.PROJECT_READER_OR_ADMIN, 'List server metadata.',
          [('GET', _PATH)]),
    _rule('show', base.PROJECT_READER_OR_ADMIN,
          'Show one server metadata item.', [('GET', _ITEM)]),
    _rule('create', base.PROJECT_MEMBER_OR_ADMIN,
          'Add or change server metadata items.', [('POST', _PATH)]),
    _rule('update_all', base.PROJECT_MEMBER_OR_ADMIN,
          'Replace all server metadata.', [('PUT', _PATH)]),
    _rule('update', base.PROJECT_MEMBER_OR_ADMIN,
          'Set one server metadata item.', [('PUT', _ITEM)]),
    _rule('delete', base.PROJECT_MEMBER_OR_ADMIN,
          'Delete one server metadata item.', [('DELETE', _ITEM)]),
]


def list_rules():
    return rules
