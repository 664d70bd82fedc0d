"""Policies of the migration records (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

INDEX = 'os_compute_api:os-migrations:index'
SERVER_INDEX = 'os_compute_api:servers:migrations:index'
SERVER_SHOW = 'os_compute_api:servers:migrations:show'
SERVER_DELETE = 'os_compute_api:servers:migrations:delete'
FORCE_COMPLETE = 'os_compute_api:servers:migrations:force_complete'
_ONE = '/servers/{server_id}/migrations/{migration_id}'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.RULE_ADMIN_API,
        description='List the migrations of every server (resizes, cold '
                    'and live migrations, evacuations).',
        operations=[{'method': 'GET', 'path': '/os-migrations'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVER_INDEX, check_str=base.RULE_ADMIN_API,
        description='List the live migrations of a server in progress.',
        operations=[{'method': 'GET',
                     'path': '/servers/{server_id}/migrations'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVER_SHOW, check_str=base.RULE_ADMIN_API,
        description='Show a live migration of a server in progress (2.23).',
        operations=[{'method': 'GET', 'path': _ONE}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SERVER_DELETE, check_str=base.RULE_ADMIN_API,
        description='Abort a running live migration of a server (2.24).',
        operations=[{'method': 'DELETE', 'path': _ONE}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FORCE_COMPLETE, check_str=base.RULE_ADMIN_API,
        description='Force a running live migration of a server to '
                    'complete (2.22).',
        operations=[{'method': 'POST', 'path': _ONE + '/action '
                                               '(force_complete)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
