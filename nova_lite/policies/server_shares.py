"""Policies of /servers/{id}/shares (Nova's rule names, 2.97)."""

from oslo_policy import policy

from nova_lite.policies import base

SHARES = 'os_compute_api:os-shares:%s'
_PATH = '/servers/{server_id}/shares'
_ITEM = _PATH + '/{share_id}'


def _rule(action, check_str, description, operations):
    return policy.DocumentedRuleDefault(
        name=SHARES % action, check_str=check_str,
        description=description, scope_types=['project'],
        operations=[{'method': m, 'path': p} for m, p in operations])


rules = [
    _rule('index', base.PROJECT_READER_OR_ADMIN,
          'List the shares attached to a server.', [('GET', _PATH)]),
    _rule('create', base.PROJECT_MEMBER_OR_ADMIN,
          'Attach a share to a server.', [('POST', _PATH)]),
    _rule('show', base.PROJECT_READER_OR_ADMIN,
          'Show a share attached to a server.', [('GET', _ITEM)]),
    _rule('delete', base.PROJECT_MEMBER_OR_ADMIN,
          'Detach a share from a server.', [('DELETE', _ITEM)]),
]


def list_rules():
    return rules
