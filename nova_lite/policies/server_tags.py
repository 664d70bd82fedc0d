"""Policies of /servers/{id}/tags (Nova's rule names, 2.26)."""

from oslo_policy import policy

from nova_lite.policies import base

TAGS = 'os_compute_api:os-server-tags:%s'
_PATH = '/servers/{server_id}/tags'
_ITEM = _PATH + '/{tag}'


def _rule(action, check_str, description, operations):
    return policy.DocumentedRuleDefault(
        name=TAGS % action, check_str=check_str,
        description=description, scope_types=['project'],
        operations=[{'method': m, 'path': p} for m, p in operations])


rules = [
    _rule('index', base.PROJECT_READER_OR_ADMIN, 'List server tags.',
          [('GET', _PATH)]),
    _rule('show', base.PROJECT_READER_OR_ADMIN,
          'Check whether a server has a tag.', [('GET', _ITEM)]),
    _rule('update_all', base.PROJECT_MEMBER_OR_ADMIN,
          'Replace all server tags.', [('PUT', _PATH)]),
    _rule('delete_all', base.PROJECT_MEMBER_OR_ADMIN,
          'Delete all server tags.', [('DELETE', _PATH)]),
    _rule('update', base.PROJECT_MEMBER_OR_ADMIN, 'Add one server tag.',
          [('PUT', _ITEM)]),
    _rule('delete', base.PROJECT_MEMBER_OR_ADMIN, 'Delete one server tag.',
          [('DELETE', _ITEM)]),
]


def list_rules():
    return rules
