"""Policies of /os-keypairs (Nova's rule names): a user's own key pairs,
or an administrator's."""

from oslo_policy import policy

KEYPAIRS = 'os_compute_api:os-keypairs:%s'
ADMIN_OR_OWNER = 'rule:admin_api or user_id:%(user_id)s'


def _rule(action, method, path, description):
    return policy.DocumentedRuleDefault(
        name=KEYPAIRS % action, check_str=ADMIN_OR_OWNER,
        description=description, scope_types=['project'],
        operations=[{'method': method, 'path': path}])


rules = [
    _rule('index', 'GET', '/os-keypairs', 'List the caller\'s key pairs.'),
    _rule('create', 'POST', '/os-keypairs',
          'Create (generate) or import a key pair.'),
    _rule('show', 'GET', '/os-keypairs/{keypair_name}', 'Show a key pair.'),
    _rule('delete', 'DELETE', '/os-keypairs/{keypair_name}',
          'Delete a key pair.'),
]


def list_rules():
    return rules
