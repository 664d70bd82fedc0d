"""Policies of the migration records (Nova's rule names)."""

from oslo_policy import policy

from nova_lite.policies import base

INDEX = 'os_compute_api:os-migrations:index'
SERVER_INDEX = 'os_compute_api:servers:migrations:index'

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
]


def list_rules():
    return rules
