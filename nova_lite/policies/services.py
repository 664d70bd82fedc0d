"""Policies of /os-services."""

from oslo_policy import policy

from nova_lite.policies import base

SERVICES = 'os_compute_api:os-services:%s'

rules = [
    policy.DocumentedRuleDefault(
        name=SERVICES % 'list', check_str=base.RULE_ADMIN_API,
        description='List the services (daemons) and their state.',
        operations=[{'method': 'GET', 'path': '/os-services'}],
        scope_types=['project']),
]


def list_rules():
    return rules
